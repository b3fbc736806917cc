# bench/common.sh: what bench/bench.sh, bench/insn.sh and bench/ab.sh share in the VM (sourced,
# after lib.sh): nfsd, soft-RoCE, NFSv3 over TCP (/mnt/tcp, 128 slots) and over RDMA (/mnt/rdma),
# BPF run statistics on; the readings they take, and the tracers they start and stop.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/tcp 3 128 >/dev/null || exit 1
mount_rdma /mnt/rdma 3 >/dev/null || exit 1
echo 1 >/proc/sys/kernel/bpf_stats_enabled
# RPCs the mounts on MNT... have counted: the ops column of every per-op line of mountstats
rpcs() {
	for m; do
		awk -v m="$m" '$1 == "device" { on = ($5 == m) } on && /^[ \t]+[A-Z_0-9]+: [0-9]/ { n += $2 } END { print n + 0 }' /proc/self/mountstats
	done | awk '{ n += $1 } END { print n + 0 }'
}
# every loaded program with run statistics: "name run_time_ns run_cnt" (bpftool shows them only
# once a program has run: a sentinel line keeps the file non-empty)
progstat() { echo "_ 0 0"; bpftool prog show 2>/dev/null | awk '/run_time_ns/ { n = ""; t = 0; c = 0; for (i = 1; i <= NF; i++) { if ($i == "name") n = $(i+1); if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) } print n, t, c }'; }
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
# the same over the programs on NFS's file write and read (the jobs' bytes): bpftool shows 15
# characters of a name, fentry_nfs_file and kprobe_nfs_fil
filestat() { bpftool prog show 2>/dev/null | awk '/ name (fentry|kprobe)_nfs_fil/ { for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t += $(i+1); if ($i == "run_cnt") c += $(i+1) } } END { printf "%d %d\n", t, c }'; }
up() { cut -d' ' -f1 /proc/uptime; }
# programs held by PID: each is an fd (a program's or a link's) whose fdinfo names it. Not from
# bpftool's "pids", which Debian's bpftool is built without.
progs_of() { cat /proc/$1/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" {print $2}' | sort -u | grep -c .; }
# wait_tracer N NAME: the pid of the tracer NAME just started, once it holds N programs of its
# own (not a count over every program loaded: the last tracer's may still be unloading). A tracer
# that does not get there in TRACER_WAIT s (120; bench/insn.sh, its vCPUs one at a time under a plugin, 900) (of uptime: bpftool and jq take time too) fails the bench.
wait_tracer() {
	end=$(($(cut -d. -f1 /proc/uptime) + ${TRACER_WAIT:-120})) tp=
	until [ -n "$tp" ] && [ "$(progs_of "$tp")" -ge "$1" ]; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] ||
			{ echo "BENCH-FAIL tracer $2 did not load $1 programs of its own in ${TRACER_WAIT:-120} s" >&2; return 1; }
		tp=$(pidof "$2" | cut -d' ' -f1)
		sleep 0.2
	done
	echo "$tp"
}
# stop PID: SIGINT; after 20 s SIGTERM, after 30 s SIGKILL (bpftrace under TCG has been seen to
# sit on a SIGINT for over a minute); its numbers were read before, so a late stop costs none
stop() {
	kill -INT "$1"
	i=0
	while [ -d /proc/$1 ]; do
		case $i in
		100) echo "BENCH-NOTE pid $1 ignored SIGINT for 20 s: SIGTERM" >&2; kill -TERM "$1" ;;
		150) echo "BENCH-NOTE pid $1 ignored SIGTERM for 10 s: SIGKILL" >&2; kill -KILL "$1" ;;
		200) echo "BENCH-FAIL pid $1 survived SIGKILL" >&2; return 1 ;;
		esac
		sleep 0.2
		i=$((i + 1))
	done
}
# slotscope_bg DESIGN OUT ARGS...: slotscope ARGS in DESIGN (functions, tracepoints) in the
# background, its JSON in OUT; prints its pid once its programs are loaded (busybox sh's $! is not
# the tracer's pid inside $(...): wait_tracer finds it by name). It loads its hooks (14 in the
# function design, 10 in the tracepoint design, NFS's file write and read among them) and 2 RDMA
# pool kprobes: 16 or 12 programs (SLOTSCOPE_PROGS: another count, for other ARGS).
slotscope_bg() {
	d=$1 out=$2
	shift 2
	SLOTSCOPE_EVENTS=$d slotscope "$@" -d 3600 >"$out" 2>/dev/null &
	p=$(wait_tracer "${SLOTSCOPE_PROGS:-$([ "$d" = functions ] && echo 16 || echo 12)}" slotscope) || return 1
	# loaded is not attached: fentry attaches one trampoline at a time (seconds under TCG). The
	# limits audit is printed once every program is attached, just before counting starts.
	i=0
	until [ -s "$out" ] || [ $i -ge 600 ]; do sleep 0.2; i=$((i + 1)); done
	[ -s "$out" ] || { echo "BENCH-FAIL slotscope printed no audit in 120 s" >&2; return 1; }
	sleep 0.5
	echo "$p"
}
# waits FILE: "waits handoffs" summed over every transport of slotscope's summary in FILE; "0 0"
waits() {
	[ -s "$1" ] || { echo "0 0"; return; }
	tail -n 1 "$1" | jq -r '[.transports[] | .waits.slot.count + .waits.send.count + .waits.session.count + .waits.delay.count] as $w | [.transports[].handoffs] as $h | "\($w | add // 0) \($h | add // 0)"'
}
