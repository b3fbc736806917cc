# bench/bench.sh (in the VM, via `make bench`): the cost of tracing a checkpoint write.
# Workload: 192 writers x 2 MiB, fsync'd, over NFS/TCP (a transport with 128 slots) and NFS/RDMA
# (128 slots), alternating ROUNDS rounds of: untraced; slotscope; a bpftrace script with the same
# probes; a bare one-tracepoint counter. BPF CPU from bpf_stats (run_time_ns, run_cnt).
ROUNDS=${1:-6}
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/tcp 3 128 >/dev/null || exit 1
mount_rdma /mnt/rdma 3 >/dev/null || exit 1
echo 1 >/proc/sys/kernel/bpf_stats_enabled
cat >/tmp/same.bt <<'BT'
kfunc:sunrpc:xprt_request_init { @inuse[args->task->tk_xprt] = count(); }
kfunc:sunrpc:xprt_release /args->task->tk_rqstp/ { @rel[args->task->tk_xprt] = count(); }
tracepoint:sunrpc:rpc_task_sleep /str(args->q_name) == "xprt_backlog"/ { @s[args->task_id, args->client_id] = nsecs; }
tracepoint:sunrpc:rpc_task_wakeup /@s[args->task_id, args->client_id]/ {
	@wait = hist(nsecs - @s[args->task_id, args->client_id]); delete(@s[args->task_id, args->client_id]); }
tracepoint:sunrpc:rpc_stats_latency { @rtt[str(args->procname)] = hist(args->rtt); @exe[str(args->procname)] = hist(args->execute); }
BT
# sum of run_time_ns and run_cnt over the tracing programs loaded now
bpfstat() { bpftool prog show 2>/dev/null | awk '/run_time_ns/ { for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t += $(i+1); if ($i == "run_cnt") c += $(i+1) } } END { printf "%d %d\n", t, c }'; }
up() { cut -d' ' -f1 /proc/uptime; }
# programs held by PID: each is an fd (a program's or a link's) whose fdinfo names it. Not from
# bpftool's "pids", which Debian's bpftool is built without.
progs_of() { cat /proc/$1/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" {print $2}' | sort -u | grep -c .; }
# wait_tracer N NAME: the pid of the tracer NAME just started, once it holds N programs of its
# own (not a count over every program loaded: the last tracer's may still be unloading). A tracer
# that does not get there in 120 s (of uptime: bpftool and jq take time too) fails the bench.
wait_tracer() {
	end=$(($(cut -d. -f1 /proc/uptime) + 120)) tp=
	until [ -n "$tp" ] && [ "$(progs_of "$tp")" -ge "$1" ]; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] ||
			{ echo "BENCH-FAIL tracer $2 did not load $1 programs of its own in 120 s" >&2; return 1; }
		tp=$(pidof "$2" | cut -d' ' -f1)
		sleep 0.2
	done
	echo "$tp"
}
ROUND_LIMIT=${ROUND_LIMIT:-900}
round() {	# MNT MODE -> "secs bpf_ns bpf_cnt"; non-zero when the round failed
	m=$1 mode=$2 pid=
	# busybox sh's $! is not the tracer's pid inside $(...): find it by name
	case $mode in
	slotscope) slotscope -q 1 -d 3600 >/dev/null 2>&1 & pid=$(wait_tracer 6 slotscope) || return 1 ;;
	bpftrace) bpftrace /tmp/same.bt >/dev/null 2>&1 & pid=$(wait_tracer 5 bpftrace) || return 1 ;;
	counter) bpftrace -e 'tracepoint:sunrpc:xprt_transmit { @c = count(); }' >/dev/null 2>&1 &
		pid=$(wait_tracer 1 bpftrace) || return 1 ;;
	esac
	sleep 1
	set -- $(bpfstat); t0=$1 c0=$2
	s=$(up)
	writers $m 192 2 >/dev/null
	e=$(up)
	set -- $(bpfstat); t1=$1 c1=$2
	if [ -n "$pid" ]; then
		kill -INT $pid
		i=0
		while [ -d /proc/$pid ]; do
			[ $i -lt 300 ] || { echo "BENCH-FAIL $mode (pid $pid) did not stop in 60 s" >&2; return 1; }
			sleep 0.2
			i=$((i + 1))
		done
	fi
	rm -f $m/ckpt.*
	sync
	echo "$(awk "BEGIN {print $e - $s}") $((t1 - t0)) $((c1 - c0))"
}
for m in /mnt/tcp /mnt/rdma; do
	r=1
	while [ $r -le $ROUNDS ]; do
		for mode in none slotscope bpftrace counter; do
			# every round has a time limit: a hung round ends the bench with a reason
			# (its sleep is killed with it: a TERM to the watchdog ends the sleep it waits for)
			( sleep $ROUND_LIMIT & s=$!; trap 'kill $s 2>/dev/null; exit 0' TERM; wait $s
			  echo "BENCH-FAIL $m $mode round $r: over $ROUND_LIMIT s"; kill -TERM $$ ) &
			dog=$!
			out=$(round $m $mode) || { kill $dog; echo "BENCH-FAIL $m $mode round $r"; exit 1; }
			kill $dog 2>/dev/null
			echo "BENCH $m $mode $r $out"
		done
		r=$((r + 1))
	done
done
