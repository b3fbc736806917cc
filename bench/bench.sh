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
nprogs() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*: '; }
# until N more programs are loaded than before the tracer started (bpftrace takes seconds)
wait_progs() { i=0; until [ "$(nprogs)" -ge $(($1 + base)) ] || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
	[ $i -lt 300 ] || echo "BENCH-WARN tracer $mode did not load $1 programs" >&2; }
round() {	# MNT MODE -> "secs bpf_ns bpf_cnt"
	m=$1 mode=$2 pid= base=$(nprogs)
	# busybox sh's $! is not the tracer's pid inside $(...): find it by name
	case $mode in
	slotscope) slotscope -q 1 -d 3600 >/dev/null 2>&1 & wait_progs 6; pid=$(pidof slotscope) ;;
	bpftrace) bpftrace /tmp/same.bt >/dev/null 2>&1 & wait_progs 5; pid=$(pidof bpftrace) ;;
	counter) bpftrace -e 'tracepoint:sunrpc:xprt_transmit { @c = count(); }' >/dev/null 2>&1 &
		wait_progs 1; pid=$(pidof bpftrace) ;;
	esac
	sleep 1
	set -- $(bpfstat); t0=$1 c0=$2
	s=$(up)
	writers $m 192 2 >/dev/null
	e=$(up)
	set -- $(bpfstat); t1=$1 c1=$2
	if [ -n "$pid" ]; then
		kill -INT $pid
		while [ -d /proc/$pid ]; do sleep 0.2; done
	fi
	rm -f $m/ckpt.*
	sync
	echo "$(awk "BEGIN {print $e - $s}") $((t1 - t0)) $((c1 - c0))"
}
for m in /mnt/tcp /mnt/rdma; do
	r=1
	while [ $r -le $ROUNDS ]; do
		for mode in none slotscope bpftrace counter; do
			echo "BENCH $m $mode $r $(round $m $mode)"
		done
		r=$((r + 1))
	done
done
