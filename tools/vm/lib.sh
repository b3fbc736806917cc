# tools/vm/lib.sh: helpers for scripts run inside the test VM by tools/vm/run (busybox sh).
# Documented in tools/vm/README.md. Every helper returns non-zero and says why on failure.

SRV=10.0.2.15           # the VM's eth0 address: the only one soft-RoCE can serve NFS/RDMA on
RXE_PORT=/sys/class/infiniband/rxe0/ports/1

log() { echo "[vm $(cut -d' ' -f1 /proc/uptime)] $*"; }
fail() { echo "FAIL: $*"; return 1; }
x() { echo "+ $*"; "$@"; }
is_mounted() { grep -q " $1 nfs" /proc/mounts; }
# stop_tracer PID: SIGINT, again every 2 s, until PID is gone; SIGTERM after 30 s, SIGKILL after
# 40 s (a bpftrace under TCG sat on a lone SIGINT, in its poll loop, until the VM's timeout: CI,
# test_level_truth on 6.12). 1 if it had to be killed: its output may then be short.
stop_tracer() {
	_i=0
	kill -INT "$1" 2>/dev/null
	while [ -d /proc/$1 ]; do
		sleep 0.2
		_i=$((_i + 1))
		case $_i in
		*0) [ $_i -lt 150 ] && kill -INT "$1" 2>/dev/null ;;
		esac
		[ $_i = 150 ] && kill -TERM "$1" 2>/dev/null
		[ $_i = 200 ] && { kill -KILL "$1" 2>/dev/null; wait "$1" 2>/dev/null; return 1; }
	done
	wait "$1" 2>/dev/null
	return 0
}

# Kernel events recorded in tracefs's own ring buffer: an independent count that needs no BPF
# and no compiler in the guest (bpftrace's LLVM start costs tens of CPU seconds under TCG).
# trace_on EVENT [FILTER]: empty the buffer (8 MiB a CPU), then record EVENT (GROUP/NAME) where
# FILTER holds; kprobe_on NAME PROBE: the same for a kprobe event (PROBE as kprobe_events takes it)
# made in group slotscope_test. trace_off EVENT: stop, print the buffer's lines, and fail if any
# CPU's ring lost one (its stats' overrun).
TRACEFS=/sys/kernel/tracing
trace_on() {
	echo 8192 >$TRACEFS/buffer_size_kb && : >$TRACEFS/trace || { fail "tracefs buffer"; return 1; }
	[ -z "$2" ] || echo "$2" >"$TRACEFS/events/$1/filter" || { fail "filter $2 on $1"; return 1; }
	echo 1 >"$TRACEFS/events/$1/enable" || { fail "enable $1"; return 1; }
}
kprobe_on() {
	echo "p:slotscope_test/$1 $2" >>$TRACEFS/kprobe_events || { fail "kprobe event $1: $2"; return 1; }
	trace_on "slotscope_test/$1"
}
# trace_counts FILE FIELD: from trace_off's lines in FILE, how many records each value of FIELD=
# had (a kprobe event's argument: the RDMA requests made per transport), one count a line
trace_counts() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1" | sort | uniq -c | awk '{ print $1 }'; }
trace_off() {
	echo 0 >"$TRACEFS/events/$1/enable"
	if grep -h '^overrun:' $TRACEFS/per_cpu/cpu*/stats | grep -qv ' 0$'; then
		fail "tracefs ring lost events of $1"
		return 1
	fi
	grep -v '^#' $TRACEFS/trace
}

vm_modules() {
	for m in sunrpc nfsd nfs nfsv3 nfsv4 ib_core rdma_rxe ib_uverbs rdma_ucm rpcrdma; do
		modprobe $m || { fail "modprobe $m"; return 1; }
	done
}

# nfsd_start [THREADS]: nfsd exporting a tmpfs at /export (v3: SERVER:/export, v4: SERVER:/)
nfsd_start() {
	vm_modules || return 1
	grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	grep -q ' /var/lib/nfs/rpc_pipefs ' /proc/mounts || mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs
	grep -q ' /export ' /proc/mounts || mount -t tmpfs -o size=${EXPORT_SIZE:-900m} tmpfs /export || return 1
	mkdir -p /run/rpcbind
	rpcbind -w || { fail "rpcbind"; return 1; }
	exportfs -ra || { fail "exportfs"; return 1; }
	rpc.mountd || { fail "rpc.mountd"; return 1; }
	# nfsd's client tracking asks nfsdcld first and, with none running, polls for it for a second
	# (nfsd4_cld_tracking_init(): ten msleep(100)s) at every start, then execs nfsdcltrack for
	# every client: with nfsdcld up, rpc.nfsd takes 0.3 s of the guest's time instead of 1.4
	pidof nfsdcld >/dev/null || ! command -v nfsdcld >/dev/null || nfsdcld || { fail "nfsdcld"; return 1; }
	rpc.nfsd ${1:-8} || { fail "rpc.nfsd"; return 1; }
	# the v4 grace period would stall the first open for the whole grace time
	echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null
	log "nfsd up: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}

# rpcrdma_nobtf: rpcrdma loaded from the image's copy without .BTF (lib/modules/KVER/nobtf, made by
# build-image), so /sys/kernel/btf/rpcrdma is absent: its dependencies through modprobe, then insmod.
# Call it before anything loads rpcrdma (vm_modules, nfsd_start, rxe_up); they then keep this one.
rpcrdma_nobtf() {
	[ ! -d /sys/module/rpcrdma ] || { fail "rpcrdma is already loaded: call rpcrdma_nobtf before vm_modules"; return 1; }
	_ko=/lib/modules/$(uname -r)/nobtf/rpcrdma.ko
	[ -f "$_ko" ] || { fail "$_ko missing: rebuild the image (make vm-image)"; return 1; }
	_deps=$(modprobe --show-depends rpcrdma | awk '$1 == "insmod" { n = $2; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); if (n != "rpcrdma") print n }')
	[ -n "$_deps" ] || { fail "modprobe --show-depends rpcrdma lists nothing"; return 1; }
	for _d in $_deps; do
		modprobe "$_d" || { fail "modprobe $_d (for rpcrdma)"; return 1; }
	done
	insmod "$_ko" || { fail "insmod $_ko"; dmesg | tail -3; return 1; }
	[ ! -e /sys/kernel/btf/rpcrdma ] || { fail "/sys/kernel/btf/rpcrdma exists after loading $_ko"; return 1; }
	log "rpcrdma loaded without BTF ($_ko)"
}

# A new rpc_xprt needs a new server address (mounts of one server share its nfs_client and
# transports). Every 127/8 address reaches the local nfsd over lo; hand out a fresh one per call.
# (not in $(...): the counter would not survive the subshell)
_next_lo=10
new_server_addr() { _next_lo=$((_next_lo + 1)); LAST_SERVER=127.0.0.$_next_lo; }

# mount_tcp MNT VERS [SLOTS] [EXTRA_OPTS]: NFS over TCP on a fresh transport whose slot table is
# limited to SLOTS (tcp_max_slot_table_entries is read only when a transport is created).
# VERS: 3, 4.1 or 4.2. Prints nothing; the server address used is in $LAST_SERVER.
mount_tcp() {
	new_server_addr
	mount_tcp_at $LAST_SERVER "$@"
}

# mount_tcp_at ADDR MNT VERS [SLOTS] [EXTRA_OPTS]: the same to the server at ADDR
mount_tcp_at() {
	LAST_SERVER=$1 mnt=$2 vers=$3 slots=${4:-} extra=${5:-}
	mkdir -p "$mnt"
	sysctl=/proc/sys/sunrpc/tcp_max_slot_table_entries
	old=$(cat $sysctl)
	[ -n "$slots" ] && echo "$slots" >$sysctl
	if [ "$vers" = 3 ]; then
		mount.nfs $LAST_SERVER:/export "$mnt" -o vers=3,proto=tcp,nolock${extra:+,$extra}
	else
		mount.nfs4 $LAST_SERVER:/ "$mnt" -o vers=$vers,proto=tcp${extra:+,$extra}
	fi
	r=$?
	echo "$old" >$sysctl
	[ $r = 0 ] || { fail "mount $LAST_SERVER vers=$vers on $mnt"; return 1; }
	log "mounted $LAST_SERVER vers=$vers tcp slots=${slots:-default} on $mnt"
}

# rxe_up [NETDEV]: soft-RoCE rxe0 on NETDEV (default eth0), and where nfsd runs, its RDMA
# listener on 20049 (idempotent). A client VM has no nfsd: it gets the device only.
rxe_up() {
	vm_modules || return 1
	[ -d /sys/class/infiniband/rxe0 ] || rdma link add rxe0 type rxe netdev ${1:-eth0} || { fail "rdma link add"; return 1; }
	[ -e /proc/fs/nfsd/portlist ] || return 0
	grep -q rdma /proc/fs/nfsd/portlist || echo 'rdma 20049' >/proc/fs/nfsd/portlist ||
		{ fail "nfsd rdma listener"; return 1; }
}

# server_latency ADDR MS: every packet to ADDR over lo waits MS ms more (netem), so that server's
# RTT has a floor that does not grow with load: a server with cores and storage to spare, which a
# TCG VM whose nfsd shares the client's two vCPUs is not. One delay for all such addresses.
# The delay is the only limit it adds: TSQ and the default socket buffers would otherwise cap a
# connection at a few MiB in flight behind netem's queue.
server_latency() {
	for m in sch_prio sch_netem cls_u32; do modprobe $m || { fail "modprobe $m"; return 1; }; done
	echo 67108864 >/proc/sys/net/ipv4/tcp_limit_output_bytes &&
		echo "4096 131072 67108864" >/proc/sys/net/ipv4/tcp_wmem &&
		echo "4096 131072 67108864" >/proc/sys/net/ipv4/tcp_rmem || { fail "TCP buffers"; return 1; }
	if ! /sbin/tc qdisc show dev lo | grep -q '^qdisc prio 1:'; then
		/sbin/tc qdisc add dev lo root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 &&
			/sbin/tc qdisc add dev lo parent 1:3 handle 30: netem delay ${2}ms limit 1000000 ||
			{ fail "tc netem on lo"; return 1; }
	fi
	/sbin/tc qdisc change dev lo parent 1:3 handle 30: netem delay ${2}ms limit 1000000 &&
		/sbin/tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip dst $1/32 flowid 1:3 ||
		{ fail "/sbin/tc filter for $1"; return 1; }
	log "packets to $1 delayed ${2} ms"
}

# rdma_call_delay DEV MS: every RoCE v2 SEND that DEV receives (an NFS/RDMA call, at the server)
# waits MS ms more, by netem on an ifb that those packets are redirected to. Only the SENDs: the
# peer's other packets on the wire (RDMA Read responses, ACKs) belong to other packet sequences,
# so delaying its whole sequence of requests keeps each sequence in order, while delaying
# everything would hold back the Read responses and then each RDMA Read costs a delay of its own.
# On the way in, not the way out: soft-RoCE counts a packet in flight until its skb is freed and
# stops sending past 64 of them per QP, so netem on a sender's egress caps the rate as a narrow
# link does instead of lengthening the path. Matches IPv4 without options (as Linux sends it):
# UDP port 4791 at byte 22, the BTH opcode at byte 28, SEND_FIRST..SEND_ONLY_WITH_IMMEDIATE
# (0x00-0x05; 0x06-0x07, RDMA WRITE, no NFS client sends) and SEND_*_WITH_INVALIDATE (0x16-0x17).
rdma_call_delay() {
	for m in ifb sch_ingress cls_u32 act_mirred sch_netem; do modprobe $m || { fail "modprobe $m"; return 1; }; done
	ip link set ifb0 up &&
		/sbin/tc qdisc add dev ifb0 root netem delay ${2}ms limit 1000000 &&
		/sbin/tc qdisc add dev $1 handle ffff: ingress &&
		/sbin/tc filter add dev $1 parent ffff: protocol ip prio 1 u32 match u16 4791 0xffff at 22 \
			match u8 0x00 0xf8 at 28 action mirred egress redirect dev ifb0 &&
		/sbin/tc filter add dev $1 parent ffff: protocol ip prio 2 u32 match u16 4791 0xffff at 22 \
			match u8 0x16 0xfe at 28 action mirred egress redirect dev ifb0 ||
		{ fail "netem for RoCE SENDs on $1"; return 1; }
}

# wire_up ADDR: the two-VM network (tools/vm/run with VM_SERVER) on eth1
wire_up() {
	ip link set eth1 up && ip addr add $1/24 dev eth1 || { fail "eth1 $1"; return 1; }
}

# Extra addresses on eth0 become RoCE v2 GIDs of rxe0, so each can carry its own NFS/RDMA transport.
_next_eth=100
new_rdma_addr() {
	_next_eth=$((_next_eth + 1))
	LAST_SERVER=10.0.2.$_next_eth
	ip addr add $LAST_SERVER/24 dev eth0 2>/dev/null
}

# mount_rdma MNT VERS [SLOTS] [EXTRA_OPTS]: NFS over RDMA (port 20049) on a fresh transport with
# SLOTS slots (rdma_slot_table_entries, read at transport creation). Needs nfsd_start and rxe_up.
mount_rdma() {
	new_rdma_addr
	mount_rdma_at $LAST_SERVER "$@"
}

# mount_rdma_at SERVER MNT VERS [SLOTS] [EXTRA_OPTS]: the same to a given server address, e.g. the
# server VM's (a new transport needs an address no mount uses yet); $LAST_SERVER is SERVER
mount_rdma_at() {
	LAST_SERVER=$1 mnt=$2 vers=$3 slots=${4:-} extra=${5:-}
	mkdir -p "$mnt"
	sysctl=/proc/sys/sunrpc/rdma_slot_table_entries
	old=$(cat $sysctl)
	[ -n "$slots" ] && echo "$slots" >$sysctl
	if [ "$vers" = 3 ]; then
		timeout 120 mount.nfs $LAST_SERVER:/export "$mnt" -o vers=3,proto=rdma,port=20049,nolock,retry=0${extra:+,$extra}
	else
		timeout 120 mount.nfs4 $LAST_SERVER:/ "$mnt" -o vers=$vers,proto=rdma,port=20049,retry=0${extra:+,$extra}
	fi
	r=$?
	echo "$old" >$sysctl
	[ $r = 0 ] || { fail "mount rdma $LAST_SERVER vers=$vers on $mnt"; dmesg | tail -5; return 1; }
	log "mounted $LAST_SERVER vers=$vers rdma slots=${slots:-default} on $mnt"
}

# writers DIR N MIB [direct]: N parallel writers of MIB MiB each, fsync'd (or O_DIRECT), like a
# checkpoint. Writer I writes DIR/ckpt.I, or DIR/wI/ckpt when DIR/w0 exists: an open with O_CREAT
# holds its directory's lock across the server round trip, so writers sharing one directory on a
# slow server open one RTT at a time (see writer_dirs). Fails if any writer fails.
# WRITERS_TOGETHER=1: every writer waits at a barrier until all are started, as the ranks of a
# checkpoint do; under emulation starting them one by one otherwise spreads the burst thin.
writers() {
	dir=$1 n=$2 mib=$3 mode=${4:-fsync}
	flag=conv=fsync
	[ "$mode" = direct ] && flag=oflag=direct
	if [ -n "${WRITERS_TOGETHER:-}" ]; then
		# a line each through a pipe held open here: a writer that reaches its read late
		# still finds its line, and no open can block
		mkfifo /tmp/writers.go.$$ && exec 9<>/tmp/writers.go.$$ && rm -f /tmp/writers.go.$$
	fi
	i=0 pids=
	while [ $i -lt "$n" ]; do
		f=$dir/ckpt.$i
		[ -d "$dir/w0" ] && f=$dir/w$i/ckpt
		{ [ -z "${WRITERS_TOGETHER:-}" ] || read -r _ <&9; exec dd if=/dev/zero of="$f" bs=1M count="$mib" $flag 2>/dev/null; } &
		pids="$pids $!"
		i=$((i + 1))
	done
	if [ -n "${WRITERS_TOGETHER:-}" ]; then
		i=0
		while [ $i -lt "$n" ]; do echo; i=$((i + 1)); done >&9
		exec 9>&-
	fi
	bad=0
	for p in $pids; do wait $p || bad=$((bad + 1)); done
	[ $bad = 0 ] || { fail "$bad of $n writers to $dir failed"; return 1; }
}

# direct_writers DIR N COUNT BS: N writers, each COUNT O_DIRECT writes of BS to DIR/wI/f (make
# the directories with writer_dirs): with BS no more than wsize, one WRITE in flight per writer,
# back to back, so N RPCs want a slot however fast they complete. Prints the seconds they took
# (the uptime clock). Fails if any writer fails.
direct_writers() {
	s=$(cut -d' ' -f1 /proc/uptime)
	i=0 pids=
	while [ $i -lt "$2" ]; do
		dd if=/dev/zero of="$1/w$i/f" bs="$4" count="$3" oflag=direct 2>/dev/null &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do wait $p || { fail "a writer to $1 failed"; return 1; }; done
	e=$(cut -d' ' -f1 /proc/uptime)
	awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'
}

# writer_dirs DIR N: DIR/w0 .. DIR/w(N-1), one directory per writer (for writers). Make them
# before the trace, on the server's side (under /export) where it is this VM, so that no delayed
# round trip is spent on them.
writer_dirs() {
	i=0
	while [ $i -lt "$2" ]; do mkdir -p "$1/w$i" || return 1; i=$((i + 1)); done
}

# demo_run MNT N MIB TITLE [KNOB TO]: one traced checkpoint-like write of make demo, its output kept
# for demo_recap, with the change the next run makes (KNOB to TO) when it makes one. demo_recap:
# per run, the title, the first checkpoint's throughput and verdict, the link utilization while
# the slots were full when known, and where the next run made a change, what this run's what-if
# predicted for it beside what the next run then measured (#62)
demo_run() {
	echo
	echo "=================== $4"
	echo "# slotscope --ckpt-threshold 1 --ckpt-quiet 4 -- <$2 writers x $3 MiB to $1>"
	slotscope --ckpt-threshold 1 --ckpt-quiet 4 -- sh -c ". /src/tools/vm/lib.sh; writers $1 $2 $3" |
		tee -a /tmp/demo.out || return 1
	echo "$4" >>/tmp/demo.titles
	echo "${5:-} ${6:-}" >>/tmp/demo.knobs
}
demo_recap() {
	echo
	echo "=================== recap (first checkpoint of each run)"
	awk '
		# the range and next limit the what-if line S gives for knob K at T, or ""
		function pick(s, k, t,   i, j, seg) {
			if (!(i = index(s, "if " k " ")))
				return ""
			seg = substr(s, i + 3)
			if ((j = index(seg, "; if ")))
				seg = substr(seg, 1, j)
			if (!(j = index(seg, "->" t ": ")))
				return ""
			seg = substr(seg, j + length("->" t ": "))
			return substr(seg, 1, index(seg, ")"))
		}
		# a rate as printed ("14.7 MB/s", "1.20 GB/s") in MB/s
		function mbps(s,   v, u) {
			v = s + 0
			u = substr(s, index(s, " ") + 1)
			return u ~ /^GB/ ? v * 1000 : v
		}
		# where the measured rate M lies against the range R: "at least X, at most Y", "X..Y" or "X"
		function score(r, m,   lo, hi, a, v) {
			if (r == "" || m == "")
				return ""
			if (match(r, /at least [0-9.]+ [MG]B\/s/)) {
				lo = mbps(substr(r, RSTART + 9, RLENGTH - 9))
				match(r, /at most [0-9.]+ [MG]B\/s/)
				hi = mbps(substr(r, RSTART + 8, RLENGTH - 8))
			} else if (match(r, /^[0-9.]+\.\.[0-9.]+ [MG]B\/s/)) {
				split(substr(r, 1, RLENGTH), a, /\.\./)
				lo = mbps(a[1] substr(a[2], index(a[2], " ")))
				hi = mbps(a[2])
			} else
				lo = hi = mbps(r)
			v = mbps(m)
			if (v >= lo && v <= hi)
				return "within the range"
			if (v < lo)
				return sprintf("%.0f%% under its low end", 100 * (lo - v) / lo)
			return sprintf("%.0f%% over its high end", 100 * (v - hi) / hi)
		}
		FILENAME == ARGV[1] { t[FNR] = $0; next }
		FILENAME == ARGV[2] { k[FNR] = $1; to[FNR] = $2; next }
		/^Checkpoint 1:/ { n++; g = $0; sub(/.*written, /, "", g); gbs[n] = g; want = 1; link = 1; pred = 1 }
		want && /^    => / { v[n] = $2; sub(/:$/, "", v[n]); want = 0; inv = 1; vb = $0; next }
		# the verdict line: the rate it gives ("13.6 MB/s of ceiling"), finer than the GB/s
		inv && /^       [^ ]/ { vb = vb " " $0; next }
		inv { inv = 0; if (match(vb, /[0-9.]+ [kMGT]?B\/s of ceiling/)) ach[n] = substr(vb, RSTART, RLENGTH - 11) }
		link && /^    link while the slots were full/ { lk[n] = $0; link = 0 }
		pred && /^    \?> / { p[n] = substr($0, 8); inp = 1; next }
		inp && /^       [^ ]/ { p[n] = p[n] " " substr($0, 8); next }
		inp { inp = 0; pred = 0 }
		/^Summary/ { link = 0; pred = 0; inp = 0 }
		END {
			for (i = 1; i <= n; i++) {
				printf "%-60s %s  %s\n", t[i], gbs[i], v[i]
				if (lk[i] != "")
					print "    " lk[i]
				if (k[i] == "" || i == n)
					continue
				r = pick(p[i], k[i], to[i])
				m = ach[i + 1]
				sc = score(r, m)
				printf "    %s -> %s: predicted %s; the next run measured %s, %s%s\n", k[i], to[i],
					r == "" ? "nothing for that step" : r, m != "" ? m : gbs[i + 1], v[i + 1],
					sc == "" ? "" : " (" sc ")"
			}
		}' /tmp/demo.titles /tmp/demo.knobs /tmp/demo.out
}

# mountstats_xprt MNT FIELD...: fields of MNT's (first) xprt: line in /proc/self/mountstats;
# mountstats_xprts: of every transport of MNT (nconnect), a line each. FIELD: proto srcport
# bind_count connect_count connect_time idle_time sends recvs bad_xids req_u bklog_u, and for tcp
# also max_slots sending_u pending_u (6.1 field order).
mountstats_xprt() { _mountstats_xprt 1 "$@"; }
mountstats_xprts() { _mountstats_xprt 0 "$@"; }
_mountstats_xprt() {
	first=$1 mnt=$2
	shift 2
	awk -v m="$mnt" -v f="$*" -v first="$first" '
		/^device / { on = ($5 == m) }
		on && $1 == "xprt:" {
			n = split("proto srcport bind_count connect_count connect_time idle_time sends recvs bad_xids req_u bklog_u", L, " ")
			if ($2 == "tcp") { L[++n] = "max_slots"; L[++n] = "sending_u"; L[++n] = "pending_u" }
			k = split(f, F, " ")
			out = ""
			for (j = 1; j <= k; j++) {
				v = ""
				for (i = 1; i <= n; i++) if (L[i] == F[j]) v = $(i + 1)
				if (v == "") exit 1
				out = out (j > 1 ? " " : "") v
			}
			print out
			if (first) exit
		}' /proc/self/mountstats
}

# as_unit CMD &: the shell command CMD run as nobody with the package unit's capabilities alone
# (CAP_BPF and CAP_PERFMON, ambient: kept across its exec of slotscope). It execs, so that $! is
# the command's own pid (a signal to a backgrounded function's subshell would not reach it): run
# it in the background or in a subshell, never in the test's own shell.
as_unit() {
	exec capsh --caps="cap_bpf,cap_perfmon,cap_setpcap,cap_setuid,cap_setgid+eip" --keep=1 --user=nobody \
		--addamb="cap_bpf,cap_perfmon" --shell=/bin/sh -- -c "$1"
}
# kill_matching TEXT: SIGTERM to every process whose command line holds TEXT (the image has no
# pkill; this shell's own $(...) copies hold the script's command line, not TEXT)
kill_matching() {
	for _p in /proc/[0-9]*; do
		_c=$(tr '\0' ' ' <"$_p/cmdline" 2>/dev/null)
		case $_c in *"$1"*) kill "${_p#/proc/}" 2>/dev/null ;; esac
	done
}

# mountstats_op MNT OP FIELD: FIELD of the per-op line OP (e.g. WRITE) of MNT:
# ops ntrans timeouts bytes_sent bytes_recv queue rtt execute errors (queue/rtt/execute in ms)
mountstats_op() {
	awk -v m="$1" -v op="$2:" -v f="$3" '
		/^device / { on = ($5 == m) }
		on && $1 == op {
			n = split("ops ntrans timeouts bytes_sent bytes_recv queue rtt execute errors", L, " ")
			for (i = 1; i <= n; i++) if (L[i] == f) { print $(i + 1); exit }
		}' /proc/self/mountstats
}

# rxe_counter NAME: an rxe0 port hw_counter (sent_pkts, rcvd_pkts, rdma_sends, ...)
rxe_counter() { cat $RXE_PORT/hw_counters/$1; }

# check_eq WHAT GOT WANT / check_ge / check_le: one line per check; a failure sets CHECK_FAILED
CHECK_FAILED=0
check_eq() { _check "$1" "$2" = "$3" "[ \"$2\" = \"$3\" ]"; }
check_ge() { _check "$1" "$2" '>=' "$3" "[ \"$2\" -ge \"$3\" ]"; }
check_le() { _check "$1" "$2" '<=' "$3" "[ \"$2\" -le \"$3\" ]"; }
check_gt() { _check "$1" "$2" '>' "$3" "[ \"$2\" -gt \"$3\" ]"; }
# check_within WHAT GOT WANT SLACK: |GOT - WANT| <= SLACK; with SLACK 0 it is check_eq. For events
# the kernel skipped (slotscope's recursion_misses): a count may be off by at most that many.
check_within() { _check "$1" "$2" "= (within $4 of)" "$3" "[ \"$2\" -le \$(($3 + $4)) ] && [ \"$2\" -ge \$(($3 - $4)) ]"; }
_check() {
	if eval "$5" 2>/dev/null; then
		echo "ok   $1: $2 $3 $4"
	else
		echo "FAIL $1: $2 $3 $4 does not hold"
		CHECK_FAILED=1
	fi
}

# ---- reading slotscope --json output (JSON lines; the last is the summary)
# ss_xprt FILE SERVER [LINE]: the NFS transport to SERVER in the summary (or in line LINE);
# mount.nfs also talks to rpcbind and mountd there, on transports of their own
# The same selections as jq functions, for jset: xprt(SERVER), op(MOUNTPOINT; OP; FIELD)
SS_JQ='def xprt($s): .transports[] | select(.server == $s and (.port == "2049" or .port == "20049"));
def op($m; $o; f): [.ops[] | select(.mountpoint == $m and .op == $o) | f] | add // 0;'
ss_xprt() {
	if [ -n "${3:-}" ]; then sed -n "${3}p" "$1"; else tail -n 1 "$1"; fi |
		jq -c --arg s "$2" "$SS_JQ xprt(\$s)"
}
# ss_get FILE SERVER JQ_FILTER: a value of that transport in the summary, e.g. '.peak'
ss_get() { ss_xprt "$1" "$2" | jq -r "$3"; }
# ss_op FILE MOUNTPOINT OP FIELD: an op's field in the summary for one mount, e.g. WRITE count
ss_op() { tail -n 1 "$1" | jq -r --arg m "$2" --arg o "$3" "$SS_JQ op(\$m; \$o; $4)"; }
# jset NAME=FILTER... <JSON: every FILTER over the one JSON document on stdin in a single jq (its
# start alone costs ~0.3 s under TCG: a test that asked jq for each value spent a third of its
# run there), NAME set to FILTER's first result as `jq -r` prints it (an object compact; nothing
# when it has none); SS_JQ's xprt() and op() are defined. Not in a pipeline: busybox sh runs its
# last command in a subshell, whose variables are lost.
jset() {
	_f='' _n=''
	for _a; do
		_f="$_f (\"${_a%%=*}=\" + (first(${_a#*=}) | if type == \"string\" then . else tojson end | @sh)),"
		_n="$_n ${_a%%=*}"
	done
	for _a in $_n; do eval "$_a="; done
	_o=$(jq -r "$SS_JQ ${_f%,}") || { fail "jset: jq failed on $*"; return 1; }
	eval "$_o"
}
# ms_to_ns_close A_NS B_MS: |A/1e6 - B| <= 1, for sums mountstats prints truncated to ms
ms_close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a / 1e6 - b; if (d < 0) d = -d; exit !(d <= 1.0) }'; }
