#!/bin/bash
# The textfile's counters never go back and never pass between series, over random snapshot
# sequences (tests/fleet/snapgen.c: mounts and unmounts, transports destroyed and reaped, kernel
# ids, device numbers, client ids and addresses reused, sessions made anew, torn map copies), made
# by slotscope's own pipeline: in every file no series twice, from one file to the next no counter
# (counter families, histogram buckets, sums and counts) lower than it ever was, promtool clean,
# node_exporter's scrape clean, and the bytes of each mount path and the slots taken under each
# transport series equal to what the simulation did. The same checks on the cumulative view made
# from two snapshots (the textfile before the ledger) must find counters that go back. Then
# --prom-rollup's files (per mount; autofs homes excluded in half the histories), from the
# random histories of tests/unit/test_rollup.c, whose own checks count every slot into one row:
# the same checks here, and promtool and node_exporter on them.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
. "$top/tests/lib-exporter.sh"
TOOLS=$O/tools
[ -x "$TOOLS/promtool" ] || "$top/tools/fetch-tools.sh" "$TOOLS" || exit 1
[ -x "$O/tests/snapgen" ] || { echo "FAIL no $O/tests/snapgen: make unit-test-bins"; exit 1; }
[ -x "$O/tests/unit/test_rollup" ] || { echo "FAIL no $O/tests/unit/test_rollup: make unit-test-bins"; exit 1; }
# not $dir: check_textfile (lib-exporter.sh) uses that name
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# monotone DIR: the files in order; prints what goes back or repeats, exits 1 if anything does
monotone() {
	awk '
	FNR == 1 { delete seen; files++ }
	/^# TYPE / { type[$3] = $4; next }
	/^#/ || NF == 0 { next }
	{
		series = $0; sub(/ [^ ]*$/, "", series); val = $NF + 0
		name = series; sub(/\{.*/, "", name)
		base = name
		if (!(name in type)) sub(/_(bucket|sum|count)$/, "", base)
		if (series in seen) { if (dups++ < 5) print "twice in " FILENAME ": " series }
		seen[series] = 1
		if (type[base] != "counter" && type[base] != "histogram") next
		checked++
		if ((series in last) && val < last[series]) {
			if (back++ < 5) print "went back in " FILENAME ": " series " " last[series] " -> " val
		}
		if (!(series in last) || val > last[series]) last[series] = val
	}
	END { printf "%d files, %d counter values, %d went back, %d repeated\n", files, checked, back, dups
	      exit (back + dups) > 0 }' "$1"/*.prom
}

for seed in 1 2 3; do
	d=$work/s$seed
	"$O/tests/snapgen" "$d" 300 $seed || { bad "snapgen seed $seed"; continue; }
	if out=$(monotone "$d"); then ok "seed $seed: $out"; else bad "seed $seed: $out"; fi
	n=0 perr=0
	for f in "$d"/*0.prom "$d"/0300.prom; do
		n=$((n + 1))
		"$TOOLS/promtool" check metrics <"$f" >/dev/null 2>&1 || { perr=$((perr + 1)); [ $perr -gt 1 ] || "$TOOLS/promtool" check metrics <"$f"; }
	done
	if [ $perr = 0 ]; then ok "seed $seed: promtool check metrics clean on $n files"; else bad "seed $seed: promtool complained on $perr of $n files"; fi
	# the truth: bytes per mount path, slots per transport series, against the last file that
	# wrote each (a series leaves the file when what it counts leaves the kernel's maps)
	awk '/^slotscope_(written_bytes_total|slot_acquires_total)\{/ { v = $NF; sub(/ [^ ]*$/, ""); last[$0] = v }
		END { for (k in last) print k "\t" last[k] }' "$d"/*.prom >"$d/final"
	final() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$d/final"; }
	while IFS=$'\t' read -r what a b c; do
		case $what in
		written) got=$(final "slotscope_written_bytes_total{mountpoint=\"$a\"}") want=$b ;;
		acquires) got=$(final "slotscope_slot_acquires_total{server=\"$a\",proto=\"tcp\",xprt=\"$b\"}") want=$c ;;
		esac
		[ "$got" = "$want" ] || { bad "seed $seed: $what $a $b: textfile ${got:-none}, simulation $want"; mism=1; }
	done <"$d/truth"
	[ -n "${mism:-}" ] || ok "seed $seed: every mount's bytes and every series' slots as the simulation did them ($(wc -l <"$d/truth") figures)"
	mism=
done
check_textfile "$work/s1/0300.prom"

# --prom-rollup: rows per mount, counters summed per row, through transports that come and go
mkdir "$work/rollup"
if out=$(SLOTSCOPE_PROM_DIR=$work/rollup "$O/tests/unit/test_rollup" 2>&1); then
	ok "test_rollup wrote its histories: $(echo "$out" | grep -c '^seed ') seeds"
else
	bad "test_rollup: $(echo "$out" | grep -E 'ERROR|FAILED|LINE' | head -3)"
fi
for d in "$work"/rollup/s*; do
	seed=${d##*/}
	if out=$(monotone "$d"); then ok "rollup $seed: $out"; else bad "rollup $seed: $out"; fi
	grep -q 'xprt="' "$d"/0300.prom && bad "rollup $seed: a transport series in a rolled-up file"
	n=0 perr=0
	for f in "$d"/*0.prom; do
		n=$((n + 1))
		"$TOOLS/promtool" check metrics <"$f" >/dev/null 2>&1 || { perr=$((perr + 1)); [ $perr -gt 1 ] || "$TOOLS/promtool" check metrics <"$f"; }
	done
	if [ $perr = 0 ]; then ok "rollup $seed: promtool check metrics clean on $n files"; else bad "rollup $seed: promtool complained on $perr of $n files"; fi
done
check_textfile "$work/rollup/s1/0300.prom"
for g in "$top"/tests/golden/*.prom; do
	if out=$("$TOOLS/promtool" check metrics <"$g" 2>&1); then ok "promtool check metrics ${g#$top/}"; else bad "promtool ${g#$top/}: $out"; fi
done

# the control: the cumulative view from two snapshots goes back, and the checks see it
SNAPGEN_CUMULATIVE=1 "$O/tests/snapgen" "$work/control" 300 1 || bad "snapgen control"
out=$(monotone "$work/control")
case $(echo "$out" | tail -n 1) in
"300 files, "*" 0 went back"*|"") bad "control: the checks found nothing in the old textfile: $out" ;;
*) ok "control: the old textfile's counters go back and the checks say so: $(echo "$out" | tail -n 1)" ;;
esac
exit $fails
