# What a change would buy, scored against what the change then bought (#30). Each case writes
# over a transport, takes slotscope's prediction for the knob's new value from the checkpoint
# window, makes the change (a new transport: the sysctls are read when one is made) and writes
# the same again; the rate the kernel's counters measure (mountstats, over the middle half of the
# write: steady()) must fall inside the predicted range, within 20 % of its ends. Both writes are
# traced alike, so what tracing costs the two emulated CPUs is on both sides. The README's table
# of predicted against measured comes from this test's RESULT lines.
#
# Writers are O_DIRECT dd's, each with its requests in flight back to back, so the RPCs that want
# a slot stay what the case sets however fast they complete (a closed loop, as a checkpoint's
# ranks are); the server is delayed by netem (server_latency) so that the round trip, not the two
# emulated CPUs, sets the pace.
nfsd_start 16 >/dev/null || exit 1
# a connection idle for a round trip would start over from a small window: at 1 s round trips
# that is TCP's ramp, not the slots', that the measured middle of the write would see
echo 0 >/proc/sys/net/ipv4/tcp_slow_start_after_idle

# _until MNT OPS: wait until mountstats counts OPS WRITEs on MNT, while the writers ($!) run
_until() {
	while [ "$(mountstats_op $1 WRITE ops)" -lt $2 ]; do
		# the writers' shell, until it is reaped (its parent waits here: a zombie has ended)
		case $(cut -d' ' -f3 /proc/$!/stat 2>/dev/null) in Z | '') false ;; esac || { echo "FAIL: the write to $1 ended at $(mountstats_op $1 WRITE ops) WRITEs, not $2" >&2; return 1; }
		sleep 0.2
	done
}

# cpu: busy and total jiffies of every CPU (/proc/stat), to see what a run cost the machine
cpu() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }
busy_pct() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { printf "%.0f", 100 * (c - a) / (d - b) }'; }

# steady MNT TOTAL [BEFORE]: WRITE bytes per second as mountstats counted them on MNT (BEFORE
# WRITEs counted there already) between a quarter and three quarters of the TOTAL WRITEs the
# write makes: the writers'
# start-up (processes, file creates a round trip each) and last stragglers left out, as the
# prediction, made over busy time, leaves them out. Run beside the writers.
steady() {
	_until $1 $((${3:-0} + $2 / 4)) || return 1
	t0=$(cut -d' ' -f1 /proc/uptime) b0=$(mountstats_op $1 WRITE bytes_sent)
	_until $1 $((${3:-0} + $2 * 3 / 4)) || return 1
	t1=$(cut -d' ' -f1 /proc/uptime) b1=$(mountstats_op $1 WRITE bytes_sent)
	awk -v a="$t0" -v b="$t1" -v x="$b0" -v y="$b1" 'BEGIN { printf "%.0f", (y - x) / (b - a) }'
}

# traced OUT DIR N COUNT BS: the same under slotscope, its JSON in OUT
traced() {
	slotscope --json --ckpt-threshold 1 --ckpt-quiet 3 -- sh -c \
		". /src/tools/vm/lib.sh; direct_writers $2 $3 $4 $5 >/tmp/secs" >"$1" ||
		{ fail "slotscope over the write to $2"; return 1; }
	cat /tmp/secs
}

# measured OUT MNT DIR N COUNT BS TOTAL: the write of N writers x COUNT x BS into DIR on MNT,
# traced (its JSON in OUT), its rate by steady() over its TOTAL WRITEs; prints "B/s seconds CPU%"
measured() {
	w0=$(mountstats_op $2 WRITE ops) c0=$(cpu)
	traced $1 $3 $4 $5 $6 >/tmp/secs &
	r=$(steady $2 $7 $w0) || return 1
	wait $! || return 1
	echo "$r $(cat /tmp/secs) $(busy_pct $c0 $(cpu))"
}

# note_pair WHAT BEFORE AFTER: the two writes' measures ("B/s seconds CPU%" each)
note_pair() {
	set -- "$1" $2 $3
	echo "note $1: before $2 B/s steady, $3 s, CPU $4 % busy; after $5 B/s steady, $6 s, CPU $7 % busy"
}

# predicted OUT SERVER KNOB TO: "low high next_limit" from the first checkpoint's verdict
predicted() {
	jq -r --arg s "$2" --arg k "$3" --argjson to "$4" 'select(.type == "checkpoint" and .n == 1) |
		.transports[] | select(.server == $s) | .verdict.what_if[] | select(.knob == $k and .to == $to) |
		"\(.predicted_Bps_low) \(.predicted_Bps_high) \(.next_limit)"' "$1" | head -n 1
}

# score NAME OUT SERVER KNOB TO RATE: the measured rate (B/s) against the prediction
score() {
	set -- "$@" $(predicted "$2" "$3" "$4" "$5")
	name=$1 measured=$6 lo=${7:-} hi=${8:-} next=${9:-}
	jq -c --arg s "$3" 'select(.type == "checkpoint" and .n == 1) | .transports[] | select(.server == $s) |
		{limit, verdict: .verdict.class, achieved: .verdict.achieved_Bps, basis: .verdict.what_if_basis,
		 curve: [.inflight_curve[] | [.from, .to, .rpcs, (.rtt_mean_ns / 1e6 | floor)]]}' "$2" | sed 's/^/note /'
	echo "note $name: predicted ${lo:-none}..${hi:-none} B/s (then ${next:-?}), measured $measured B/s"
	echo "RESULT $name|${lo:-0}|${hi:-0}|$measured|${next:-}"
	check_eq "$name: a prediction for $4 -> $5" "$([ -n "$lo" ] && echo yes)" yes
	check_eq "$name: measured within 20 % of the predicted range" \
		"$(awk -v m="$measured" -v l="${lo:-0}" -v h="${hi:-0}" 'BEGIN { print (l > 0 && m >= 0.8 * l && m <= 1.2 * h) ? "yes" : "no" }')" yes
}

# 1. NFSv3/TCP, 16 -> 64 slots, 200 ms to the server, 96 writers of 64 KiB (one WRITE each)
N=96 COUNT=40 BS=64k 
writer_dirs /export/a $N && writer_dirs /export/b $N || exit 1
mount_tcp /mnt/a 3 16 wsize=65536 >/dev/null || exit 1
a=$LAST_SERVER
server_latency $a 200 >/dev/null || exit 1
W=$((N * COUNT))
m1=$(measured /tmp/a.json /mnt/a /mnt/a/a $N $COUNT $BS $W) || exit 1
# the export lives in the VM's memory: each write's files go before the next
rm -f /export/a/w*/f
mount_tcp /mnt/b 3 64 wsize=65536 >/dev/null || exit 1
server_latency $LAST_SERVER 200 >/dev/null || exit 1
m2=$(measured /tmp/b.json /mnt/b /mnt/b/b $N $COUNT $BS $W) || exit 1
note_pair "tcp 16 -> 64 slots" "$m1" "$m2"
score "NFSv3/TCP 16 -> 64 slots (200 ms)" /tmp/a.json $a tcp_max_slot_table_entries 64 ${m2%% *}

# 2. the demo's: NFSv3/TCP, 128 -> 4096 slots, 1 s to the server, wsize 32 KiB; 16 writers of
# 1 MiB O_DIRECT writes, each 32 WRITEs at once: 512 want a slot. The sysctl is raised after the
# mount, as an operator would before the maintenance window: what the remount would buy.
N=16 COUNT=4 BS=1M 
writer_dirs /export/c $N && writer_dirs /export/d $N || exit 1
mount_tcp /mnt/c 3 128 wsize=32768 >/dev/null || exit 1
c=$LAST_SERVER
server_latency $c 1000 >/dev/null || exit 1
old=$(cat /proc/sys/sunrpc/tcp_max_slot_table_entries)
echo 4096 >/proc/sys/sunrpc/tcp_max_slot_table_entries
W=$((N * COUNT * 32))
# each new connection's window opened first (a round trip per doubling, at 1 s), for both
direct_writers /mnt/c/c $N 1 $BS >/dev/null || exit 1
m1=$(measured /tmp/c.json /mnt/c /mnt/c/c $N $COUNT $BS $W) || exit 1
echo "$old" >/proc/sys/sunrpc/tcp_max_slot_table_entries
rm -f /export/b/w*/f /export/c/w*/f
mount_tcp /mnt/d 3 4096 wsize=32768 >/dev/null || exit 1
server_latency $LAST_SERVER 1000 >/dev/null || exit 1
direct_writers /mnt/d/d $N 1 $BS >/dev/null || exit 1
m2=$(measured /tmp/d.json /mnt/d /mnt/d/d $N $COUNT $BS $W) || exit 1
note_pair "tcp 128 -> 4096 slots" "$m1" "$m2"
score "NFSv3/TCP 128 -> 4096 slots (1 s, the demo's)" /tmp/c.json $c tcp_max_slot_table_entries 4096 ${m2%% *}

# 3. NFSv3/RDMA (soft-RoCE), rdma_slot_table_entries 16 -> 64, 96 writers of 64 KiB: the server
# is this VM's nfsd on the same two emulated CPUs, so its answer time grows with the load. Not
# in make test: soft-RoCE to a local address loops back past every qdisc (no netem), so the
# emulated CPUs set the pace, and they vary from run to run more than the range allows (1 of 4
# runs measured 1.31x the range's top). Run it with
# tests/run-tests.sh "tests/vm/test_whatif.sh@@WHATIF_RDMA=1".
if [ -z "${WHATIF_RDMA:-}" ]; then
	cp /tmp/[a-d].json /out/ 2>/dev/null
	exit $CHECK_FAILED
fi
rxe_up || exit 1
rm -f /export/d/w*/f
N=96 COUNT=32 BS=64k 
writer_dirs /export/e $N && writer_dirs /export/f $N || exit 1
mount_rdma /mnt/e 3 16 >/dev/null || exit 1
e=$LAST_SERVER
W=$((N * COUNT))
m1=$(measured /tmp/e.json /mnt/e /mnt/e/e $N $COUNT $BS $W) || exit 1
rm -f /export/e/w*/f
mount_rdma /mnt/f 3 64 >/dev/null || exit 1
m2=$(measured /tmp/f.json /mnt/f /mnt/f/f $N $COUNT $BS $W) || exit 1
note_pair "rdma 16 -> 64 slots" "$m1" "$m2"
score "NFSv3/RDMA 16 -> 64 slots" /tmp/e.json $e rdma_slot_table_entries 64 ${m2%% *}

cp /tmp/[a-f].json /out/ 2>/dev/null
exit $CHECK_FAILED
