# bench/bench.sh [ROUNDS] (in the VM, via `make bench`, once per kernel): what tracing costs.
#
# Rounds: WRITERS writers x 2 MiB, fsync'd, over NFSv3/TCP (a transport with 128 slots) and
# NFSv3/RDMA on soft-RoCE (128 slots), below the slot table so nothing waits for a slot: the path
# every RPC takes. Modes alternate within a round: untraced; slotscope (its default, the function
# design); slotscope with SLOTSCOPE_EVENTS=tracepoints; a bpftrace script with the same probes;
# a bare one-tracepoint counter. BPF CPU from bpf_stats (run_time_ns, run_cnt) over the write;
# RPCs from mountstats (every op the mount counted).
#   BENCH kernel mnt mode round secs bpf_ns bpf_cnt rpcs waits handoffs
# (waits and hand-offs of every kind, from slotscope's summary; 0 for the others). With 96
# writers the transport's send lock (xprt->sending) is contended, and each such wait costs runs
# of its own; so the path where nothing waits is measured apart: one writer, O_DIRECT 64 KiB
# writes (below any wsize: one RPC per write, one at a time), for both designs, the script and
# the counter.
#   SERIAL kernel mnt mode bpf_cnt rpcs waits file_ns file_cnt bpf_ns
#
# Then slotscope alone at --json 1 over 1, 16 and 64 TCP transports (one mount; nconnect=16; four
# servers with nconnect=16), 64 writers x 1 MiB spread over them inside 20 s of steady ticks (after
# one such write unmeasured: the first sight of every transport and op, its entries, audit and
# link lookups, is over):
# its CPU over those 20 s from /proc/PID/stat, peak RSS from the summary, BPF time per program run
# during the write.
#   SCALE kernel transports steady_s cpu_s max_rss_kib bpf_ns bpf_cnt rpcs
# The serial write also gives each program's runs and time (the next step's map):
#   PROG kernel mnt tracer program runs ns
# Then slotscope's own CPU by what a tick does (scheduler nanoseconds over 20 s): one TCP
# transport busy alone, the same busy beside 64 idle ones, 64 written once and written throughout
# (steady), the exporter (-q 15 --prom-file) over 65 transports idle and busy:
#   OWN kernel what cpu_pct
#% needs: bpftrace
ROUNDS=${1:-2}
WRITERS=${WRITERS:-96}
K=$(uname -r)
. /src/bench/common.sh
ROUND_LIMIT=${ROUND_LIMIT:-900}
round() {	# MNT MODE -> "secs bpf_ns bpf_cnt rpcs"; non-zero when the round failed
	m=$1 mode=$2 pid=
	rm -f /tmp/round.json
	case $mode in
	slotscope) pid=$(slotscope_bg functions /tmp/round.json --json) || return 1 ;;
	slotscope-tp) pid=$(slotscope_bg tracepoints /tmp/round.json --json) || return 1 ;;
	bpftrace) bpftrace /tmp/same.bt >/dev/null 2>&1 & pid=$(wait_tracer 5 bpftrace) || return 1 ;;
	counter) bpftrace -e 'tracepoint:sunrpc:xprt_transmit { @c = count(); }' >/dev/null 2>&1 &
		pid=$(wait_tracer 1 bpftrace) || return 1 ;;
	esac
	sleep 1
	set -- $(bpfstat); t0=$1 c0=$2
	r0=$(rpcs $m)
	s=$(up)
	writers $m $WRITERS 2 >/dev/null
	e=$(up)
	r1=$(rpcs $m)
	set -- $(bpfstat); t1=$1 c1=$2
	[ -z "$pid" ] || stop $pid || return 1
	rm -f $m/ckpt.*
	sync
	echo "$(awk "BEGIN {print $e - $s}") $((t1 - t0)) $((c1 - c0)) $((r1 - r0)) $(waits /tmp/round.json)"
}
# serial MNT TRACER: one writer, O_DIRECT 64 KiB, one RPC in flight, traced by slotscope in
# either design (functions, tracepoints), the bpftrace script or the counter: "bpf_cnt rpcs waits
# file_ns file_cnt bpf_ns": the runs and time on the RPC path (slotscope's file-write program
# apart: it runs once per write call, not per RPC), and that program's time and runs
serial() {
	m=$1 pid=
	rm -f /tmp/serial.json
	case $2 in
	bpftrace) bpftrace /tmp/same.bt >/dev/null 2>&1 & pid=$(wait_tracer 5 bpftrace) || return 1 ;;
	counter) bpftrace -e 'tracepoint:sunrpc:xprt_transmit { @c = count(); }' >/dev/null 2>&1 &
		pid=$(wait_tracer 1 bpftrace) || return 1 ;;
	*) pid=$(slotscope_bg $2 /tmp/serial.json --json) || return 1 ;;
	esac
	sleep 1
	set -- $(bpfstat); t0=$1 c0=$2
	set -- $(filestat); ft0=$1 fc0=$2
	r0=$(rpcs $m)
	progstat >/tmp/progs.0
	dd if=/dev/zero of=$m/ckpt.serial bs=64k count=512 oflag=direct 2>/dev/null
	progstat >/tmp/progs.1
	r1=$(rpcs $m)
	set -- $(bpfstat); t1=$1 c1=$2
	set -- $(filestat); ft1=$1 fc1=$2
	stop $pid || return 1
	rm -f $m/ckpt.*
	sync
	set -- $(waits /tmp/serial.json)
	echo "$((c1 - c0 - (fc1 - fc0))) $((r1 - r0)) $1 $((ft1 - ft0)) $((fc1 - fc0)) $((t1 - t0 - (ft1 - ft0)))"
	# each program's runs and time in the write (before and after), for PROG lines
	awk 'FNR == NR { t[$1] = $2; c[$1] = $3; next } { n = $3 - c[$1]; if (n > 0) print $1, n, $2 - t[$1] }' \
		/tmp/progs.0 /tmp/progs.1 >/tmp/progs.d
}
for m in /mnt/tcp /mnt/rdma; do
	r=1
	while [ $r -le $ROUNDS ]; do
		for mode in none slotscope slotscope-tp bpftrace counter; do
			# every round has a time limit: a hung round ends the bench with a reason
			# (its sleep is killed with it: a TERM to the watchdog ends the sleep it waits for)
			( sleep $ROUND_LIMIT & s=$!; trap 'kill $s 2>/dev/null; exit 0' TERM; wait $s
			  echo "BENCH-FAIL $m $mode round $r: over $ROUND_LIMIT s"; kill -TERM $$ ) &
			dog=$!
			out=$(round $m $mode) || { kill $dog; echo "BENCH-FAIL $m $mode round $r"; exit 1; }
			kill $dog 2>/dev/null
			echo "BENCH $K $m $mode $r $out"
		done
		r=$((r + 1))
	done
done
# ROUNDS rounds of the serial write too, the tracers interleaved: one write per tracer varied by
# ~40 % between two runs of the same programs under TCG; the report pools the rounds
for m in /mnt/tcp /mnt/rdma; do
	r=1
	while [ $r -le $ROUNDS ]; do
		for d in functions tracepoints bpftrace counter; do
			out=$(serial $m $d) || { echo "BENCH-FAIL serial $m $d"; exit 1; }
			case $d in functions) n=slotscope ;; tracepoints) n=slotscope-tp ;; *) n=$d ;; esac
			echo "SERIAL $K $m $n $out"
			[ "$d" = counter ] || awk -v k=$K -v m=$m -v n=$n '{ print "PROG", k, m, n, $1, $2, $3 }' /tmp/progs.d
		done
		r=$((r + 1))
	done
done
umount /mnt/rdma /mnt/tcp

# cpu PID: user+system seconds PID has used (/proc/PID/stat fields 14 and 15, in USER_HZ ticks:
# 100 on x86, whatever CONFIG_HZ is; the image has no getconf)
cpu() { awk '{ sub(/.*\) /, ""); print ($12 + $13) / 100 }' /proc/$1/stat; }
# scale N MNT...: slotscope --json 1 over the transports of MNT... (N of them), 64 writers x 1 MiB
# spread over the mounts within 20 s of steady ticks
scale() {
	n=$1
	shift
	mnts="$*"
	pid=$(slotscope_bg functions /tmp/scale.json --json 1) || return 1
	# a first write, not measured: every transport and op is seen once (the entries made, the
	# audit and link lookups of new transports done)
	per=$((64 / $(echo $mnts | wc -w))) wp=
	for m in $mnts; do writers $m $per 1 >/dev/null & wp="$wp $!"; done
	for w in $wp; do wait $w; done
	for m in $mnts; do rm -f $m/ckpt.*; done
	sync
	sleep 3
	a=$(up) ca=$(cpu $pid)
	set -- $(bpfstat); t0=$1 c0=$2
	r0=$(rpcs $mnts) wp=
	for m in $mnts; do writers $m $per 1 >/dev/null & wp="$wp $!"; done
	for w in $wp; do wait $w; done
	r1=$(rpcs $mnts)
	set -- $(bpfstat); t1=$1 c1=$2
	while [ "$(awk -v a=$a -v b="$(up)" 'BEGIN { print (b - a < 20) }')" = 1 ]; do sleep 0.5; done
	b=$(up) cb=$(cpu $pid)
	stop $pid || return 1
	for m in $mnts; do rm -f $m/ckpt.*; done
	sync
	echo "SCALE $K $n $(awk "BEGIN {print $b - $a, $cb - $ca}") $(tail -n 1 /tmp/scale.json | jq -r .self.max_rss_kib) $((t1 - t0)) $((c1 - c0)) $((r1 - r0))"
}
# own WHAT BUSY ARGS...: slotscope ARGS, attached and settled 3 s, then 20 s during which BUSY (mounts, or -)
# are written: its CPU as a share of a vCPU, from the scheduler's nanoseconds of its threads
# (USER_HZ ticks are too coarse for an idle exporter)
# BPF links held by PID (attached hooks), from its fds' fdinfo
links_of() { cat /proc/$1/fdinfo/* 2>/dev/null | grep -c '^link_id:'; }
ns_of() { cat /proc/$1/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { printf "%.0f", n }'; }
load() { wp=; for m in "$@"; do writers $m $((64 / $#)) 1 >/dev/null & wp="$wp $!"; done; for w in $wp; do wait $w; done; }
# steady MNT...: load written over and over until the window's 20 s (from $ua) are up: every tick
# of it busy, where load's one write is over in a few and leaves idle ticks (an unseen check's
# steady write read 9.4 % where load's read 2 %)
steady() {
	while [ "$(awk -v a=$ua -v b="$(up)" 'BEGIN { print (b - a < 19) }')" = 1 ]; do
		load "$@"
		for m in "$@"; do rm -f $m/ckpt.*; done
	done
}
own() {
	what=$1 busy=$2
	shift 2
	slotscope "$@" >/tmp/own.out 2>/dev/null &
	p=$!
	# every hook attached (a link each) before the window: loading and attaching is the
	# verifier's CPU in this process, seconds under TCG, and no tick's
	i=0
	until [ "$(links_of $p)" -ge 14 ] || [ $i -ge 600 ]; do sleep 0.2; i=$((i + 1)); done
	sleep 3
	a=$(ns_of $p) ua=$(up)
	case $what in
	*steady*) steady $busy ;;
	*) [ "$busy" = - ] || load $busy ;;
	esac
	while [ "$(awk -v a=$ua -v b="$(up)" 'BEGIN { print (b - a < 20) }')" = 1 ]; do sleep 0.5; done
	b=$(ns_of $p) ub=$(up)
	kill -INT $p
	wait $p
	for m in $busy; do [ "$m" = - ] || rm -f $m/ckpt.*; done
	echo "OWN $K $what $(awk -v a=$a -v b=$b -v x=$ua -v y=$ub 'BEGIN { printf "%.3f", 100 * (b - a) / 1e9 / (y - x) }')"
}
mount_tcp /mnt/x1 3 128 >/dev/null || exit 1
scale 1 /mnt/x1 || { echo "BENCH-FAIL scale 1"; exit 1; }
own busy1-alone /mnt/x1 --json 1
umount /mnt/x1
mount_tcp /mnt/x16 3 128 nconnect=16 >/dev/null || exit 1
scale 16 /mnt/x16 || { echo "BENCH-FAIL scale 16"; exit 1; }
umount /mnt/x16
set --
for i in 1 2 3 4; do mount_tcp /mnt/y$i 3 128 nconnect=16 >/dev/null || exit 1; done
scale 64 /mnt/y1 /mnt/y2 /mnt/y3 /mnt/y4 || { echo "BENCH-FAIL scale 64"; exit 1; }

mount_tcp /mnt/x1 3 128 >/dev/null || exit 1
load /mnt/x1
# the four nconnect=16 mounts are still there: 64 idle transports beside the busy one
own busy1-beside-64-idle /mnt/x1 --json 1
own busy64-json1 "/mnt/y1 /mnt/y2 /mnt/y3 /mnt/y4" --json 1
own busy64-steady-json1 "/mnt/y1 /mnt/y2 /mnt/y3 /mnt/y4" --json 1
own exporter15-idle - -q 15 --prom-file /tmp/own.prom
own exporter15-busy "/mnt/y1 /mnt/y2 /mnt/y3 /mnt/y4" -q 15 --prom-file /tmp/own.prom
