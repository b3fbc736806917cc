#!/bin/bash
# The instruction guard (#47): slotscope's BPF instructions per RPC on the default kernel, counted
# by make bench-insn's TCG plugin (build/insncount.so) in one boot of one part of its matrix
# (NFSv3 over TCP; one O_DIRECT writer, where nothing waits, and 96 writers, where slots and the
# send queue are waited for; both designs), against bench/insn-guard.txt: a count over its
# recorded value by more than that line's margin fails. The count is the guest's instructions
# inside the programs' JIT images, whatever the host's speed or load (bench/INSN.md: its spread
# over rounds). A change that costs instructions on purpose updates the file
# (INSN_GUARD_UPDATE=1 tests/host/test_insn_guard.sh) with the reason in its commit; the guard
# fails on a build made heavier on purpose (make BPF_PAD=N: docs/development.md).
#% timeout: 1500
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
ref=$top/bench/insn-guard.txt
img=$O/vm
for f in "$O/insncount.so" "$O/insnmark" "$img/initrd.cpio" "$O/slotscope"; do
	[ -e "$f" ] || { echo "FAIL $f missing: make all vm-image $O/insncount.so $O/insnmark"; exit 1; }
done
case $O in "$top"/*) rel=${O#"$top"/} ;; *) echo "SKIP the build ($O) is outside the source tree the VM shares"; exit 77 ;; esac
work=$O/insn-guard
rm -rf "$work" && mkdir -p "$work"
VM_OUT=$work/run KERNEL= VM_BPFTRACE=0 SLOTSCOPE_NO_MAKE=1 VM_TIMEOUT=1400 VM_QUIET=1 O=$O \
	VM_ENV="INSN_MOUNTS=/mnt/tcp INSN_TRACERS=slotscope,slotscope-tp" \
	VM_PLUGIN="$O/insncount.so,out=$work/plugin.out" \
	"$top/tools/vm/run" "$top/bench/insn.sh" 1 "/src/$rel/insnmark" >"$work/run.log" 2>&1
rc=$?
if [ $rc != 0 ]; then
	echo "FAIL the counted run (exit $rc): $(grep -ah 'BENCH-FAIL' "$work/run/console.log" | tr -d '\r' | head -n 3)"
	exit 1
fi
grep -ah '^\(H*RANGE\|INSN\|WAITS\) ' "$work/run/console.log" | tr -d '\r' >"$work/lines"
gawk -f "$top/bench/insn.awk" "$work/lines" "$work/plugin.out" >"$work/rounds" || { echo "FAIL bench/insn.awk"; exit 1; }
grep '^INSN-FAIL' "$work/rounds" && exit 1
kver=$(awk '{ print $3 }' "$img/kernel")
# ROUND kernel mnt mode round write rpcs runs insns_per_rpc bpf_insns_per_rpc bpf_insns_per_run
got() { awk -v m="$1" -v w="$2" '$1 == "ROUND" && $4 == m && $6 == w { print $10 }' "$work/rounds"; }
if [ "${INSN_GUARD_UPDATE:-0}" = 1 ]; then
	# each line's margin kept: it is the rounds' spread (bench/INSN.md) with room, chosen by hand
	{
		echo "# slotscope's BPF instructions per RPC (make bench-insn's plugin, one round; tests/host/test_insn_guard.sh)"
		echo "# kernel $kver, NFSv3 over TCP, 128 slots; serial: one O_DIRECT writer, waits: 96 writers"
		echo "# design write bpf_insns_per_rpc margin_pct"
		for m in slotscope slotscope-tp; do
			for w in serial waits; do
				echo "$m $w $(got $m $w) $(awk -v m=$m -v w=$w '$1 == m && $2 == w { print $4 }' "$ref" 2>/dev/null | grep . || echo 5)"
			done
		done
	} >"$ref.new" && mv "$ref.new" "$ref"
	cat "$ref"
	exit 0
fi
[ -s "$ref" ] || { echo "FAIL no $ref: INSN_GUARD_UPDATE=1 $0"; exit 1; }
rkver=$(sed -n 's/^# kernel \([^,]*\),.*/\1/p' "$ref")
[ "$rkver" = "$kver" ] || echo "note the guard was recorded on $rkver, this is $kver: a kernel's JIT or paths may move it"
while read -r m w want margin; do
	case $m in '#'* | '') continue ;; esac
	have=$(got "$m" "$w")
	[ -n "$have" ] || { bad "$m $w: no count"; continue; }
	# within the margin over the record; a drop far below it is said (the record is then stale)
	if awk -v h="$have" -v r="$want" -v p="$margin" 'BEGIN { exit !(h <= r * (1 + p / 100)) }'; then
		ok "$m $w: $have BPF instructions per RPC, recorded $want (+$margin % allowed)"
	else
		bad "$m $w: $have BPF instructions per RPC, over $want + $margin %: a change made every RPC costlier (update bench/insn-guard.txt on purpose)"
	fi
	awk -v h="$have" -v r="$want" -v p="$margin" 'BEGIN { exit !(h < r * (1 - p / 100)) }' &&
		echo "note $m $w: $have, under $want - $margin %: record the gain (INSN_GUARD_UPDATE=1)"
done <"$ref"
exit $fails
