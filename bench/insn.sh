# bench/insn.sh ROUNDS MARK (in the VM, under the insncount TCG plugin: `make bench-insn`): the
# guest instructions each tracer costs per RPC. Time under TCG moves 1.5-2x from round to round;
# instructions are what the guest executed, whatever the host's speed.
#
# For NFSv3 over TCP and RDMA (bench/common.sh's mounts), ROUNDS rounds of: untraced, slotscope
# in the function design and in the tracepoint design, the bpftrace script with the same probes,
# and a one-map counter; each over two writes: "serial" (one writer, O_DIRECT 64 KiB writes, one
# RPC in flight: nothing waits) and "waits" (96 writers x 1 MiB, fsync'd: the send queue and the
# slot table are contended, so waits open and close). MARK (bench/insnmark.S) runs before and
# after each write: the plugin reads its counts there. Lines:
#   RANGE kernel mnt mode round addr size name   (each BPF program, trampoline and dispatcher loaded)
#   HRANGE kernel mnt mode round addr end name   (each kernel function of the programs' own work)
#   INSN kernel mnt mode round write mark_from mark_to rpcs program_runs
#   WAITS kernel mnt mode round waits handoffs   (slotscope's own count over both writes)
# bench/insn.awk joins them with the plugin's output.
#% needs: bpftrace
ROUNDS=${1:-3}
MARK=$2
K=$(uname -r)
[ -x "$MARK" ] || { echo "BENCH-FAIL no mark program at '$MARK'"; exit 1; }
# bpftrace's start (its LLVM) under one vCPU at a time and the plugin took over 120 s
TRACER_WAIT=900
. /src/bench/common.sh
marks=0
mark() { "$MARK"; marks=$((marks + 1)); }
# the BPF code loaded now, as the JIT laid it out: kallsyms' bpf_prog_<tag>_<name>,
# bpf_trampoline_* and bpf_dispatcher_* symbols, each program's with the size bpftool gives for
# its tag ("-" for the others: bench/insn.awk takes them to the next symbol, at most a page). A
# program's subprograms (a global function, a callback) have symbols of their own, with tags
# bpftool does not list: "-" too (left out, a global function's work went uncounted)
ranges() {
	bpftool prog show --json 2>/dev/null | jq -r '.[] | select(.bytes_jited != null) | "\(.tag) \(.bytes_jited)"' >/tmp/jited
	grep -E ' (bpf_prog_|bpf_trampoline_|bpf_dispatcher_)[^ ]*[[:space:]]+\[bpf\]$' /proc/kallsyms | sort |
		awk -v k="$K" -v m="$1" -v mode="$2" -v r="$3" '
		FNR == NR { size[$1] = $2; next }
		{
			s = "-"
			if ($3 ~ /^bpf_prog_/) { split($3, p, "_"); if (p[3] in size) s = size[p[3]] }
			print "RANGE", k, m, mode, r, $1, s, $3
		}' /tmp/jited -
	# the kernel's side of the programs' work: the helpers and map operations they call and the
	# code that runs them (trampolines' enter/exit, the tracepoints' BPF stubs, kprobes' dispatch),
	# each to the next symbol (its address: the guest's busybox awk reads no hex); not the bpf() syscall's side (batch reads, iteration, making maps),
	# which is user space's. A lookup of slotscope's own per tick lands in them too (a few a tick).
	grep -E ' [tT] ' /proc/kallsyms | sort | awk -v k="$K" -v m="$1" -v mode="$2" -v r="$3" '
		function want(n) {
			if (n ~ /batch|get_next_key|seq_|_iter|alloc$|_free$|mem_usage|check_btf|gen_lookup|copy_value|_release$/)
				return 0
			return n ~ /^(__)?htab_|^(__|___)?pcpu_freelist_|^(__)?bpf_lru_|^(percpu_)?array_map_|^alloc_htab_elem$|^free_htab_elem$/ ||
			       n ~ /^bpf_map_(lookup|update|delete)_elem$|^bpf_probe_read_kernel|^copy_from_kernel_nofault$|^strncpy_from_kernel_nofault$/ ||
			       n ~ /^bpf_ktime_get_ns$|^ktime_get_mono_fast_ns$|^bpf_get_current_|^bpf_get_smp_processor_id$|^bpf_for_each_map_elem$/ ||
			       n ~ /^__bpf_prog_(enter|exit)|^bpf_trace_run[0-9]+$|^__bpf_trace_|^bpf_prog_inc_misses_counter$|^trace_call_bpf$|^kprobe_perf_func$/
		}
		{ if (want(prev) && prev_a != "") print "HRANGE", k, m, mode, r, prev_a, $1, prev
		  prev = $3; prev_a = $1 }'
	# INSN_JIT=1: each program's JIT code with its source lines, to /out (bench/insn-lines.awk
	# gives the instructions per RPC of each source line from it)
	[ -n "${INSN_JIT_TOOL:-}" ] || return 0
	"$INSN_JIT_TOOL" >"/out/jit-$2-$3-${1##*/}.txt"
}
tracer() {	# MODE: starts it, prints its pid (nothing for none)
	case $1 in
	none) ;;
	slotscope) slotscope_bg functions /tmp/insn.json --json ;;
	slotscope-tp) slotscope_bg tracepoints /tmp/insn.json --json ;;
	# the same without the jobs' time (--no-jobs: no file I/O hooks, no job looked up at an RPC's end)
	slotscope-nojobs) SLOTSCOPE_PROGS=14 slotscope_bg functions /tmp/insn.json --json --no-jobs ;;
	bpftrace) bpftrace /tmp/same.bt >/dev/null 2>/tmp/tracer.err & wait_tracer 5 bpftrace ;;
	counter) bpftrace -e 'tracepoint:sunrpc:xprt_transmit { @c = count(); }' >/dev/null 2>/tmp/tracer.err &
		wait_tracer 1 bpftrace ;;
	esac
}
# INSN_MOUNTS, INSN_TRACERS (comma-separated): a part of the matrix (tests/host/test_insn_guard.sh:
# slotscope's two designs); INSN_WAITS_ON (comma-separated mounts): the 96 writers on those only
for m in $(echo "${INSN_MOUNTS:-/mnt/tcp,/mnt/rdma}" | tr , ' '); do
	r=1
	while [ $r -le "$ROUNDS" ]; do
		# not "mode": lib.sh's writers sets that one
		for tr in $(echo "${INSN_TRACERS:-none,slotscope,slotscope-tp,bpftrace,counter}" | tr , ' '); do
			rm -f /tmp/insn.json
			pid=$(tracer $tr) || { echo "BENCH-FAIL $m $tr round $r: the tracer did not start: $(head -c 300 /tmp/tracer.err 2>/dev/null)"; exit 1; }
			sleep 1
			ranges $m $tr $r
			for w in serial $(case ",${INSN_WAITS_ON:-$m}," in *",$m,"*) echo waits ;; esac); do
				r0=$(rpcs $m)
				set -- $(bpfstat); c0=$2
				from=$marks
				mark
				if [ $w = serial ]; then
					dd if=/dev/zero of=$m/ckpt.serial bs=64k count=512 oflag=direct 2>/dev/null
				else
					writers $m 96 1 >/dev/null
				fi
				mark
				r1=$(rpcs $m)
				set -- $(bpfstat); c1=$2
				echo "INSN $K $m $tr $r $w $from $((marks - 1)) $((r1 - r0)) $((c1 - c0))"
				rm -f $m/ckpt.*
				sync
			done
			[ -z "$pid" ] || stop "$pid" || exit 1
			set -- $(waits /tmp/insn.json)
			echo "WAITS $K $m $tr $r $1 $2"
		done
		r=$((r + 1))
	done
done
umount /mnt/rdma /mnt/tcp
