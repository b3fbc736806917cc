# RDMA credits against the server's grant in force at each moment (#46): nfsd grants 32 credits
# (svc_rdma max_requests, read as each connection is accepted) to a client of 128 slots, 64
# writers fill them; halfway nfsd is restarted granting 8, and the client reconnects (its grant is
# 1 from the connect until the first reply brings the server's). slotscope's time with every
# credit granted at that moment in use is checked against bpftrace's own count: the kernel's trace
# records of each credit taken and given back (xprt_get_cong fires before the test that takes one
# unless cong >= cwnd, xprt_put_cong after one is given back), the level rebuilt by awk by +1 and
# -1 from the first record's cong, the grant each record's cwnd. slotscope reads the transport
# itself at the same two points; the truth's own records are the kernel's copy of those fields.
# Neither sees the connect's reset of cong to 0 (rpcrdma's, no event): the count is set to the
# kernel's at the next record, as slotscope's read is.
#% needs: bpftrace
nfsd_start >/dev/null || exit 1
echo 32 >/proc/sys/sunrpc/svc_rdma/max_requests || exit 1
rxe_up || exit 1
mount_rdma /mnt/r 3 || exit 1
srv=$LAST_SERVER
# slotscope attached first: its programs run ahead of bpftrace's on the two tracepoints, whose
# printing under TCG would otherwise stamp every slotscope event late by its own cost
( slotscope --json 1 -d 600 --prom-file /tmp/c.prom --prom-keep >/tmp/s.json 2>/tmp/s.err; echo $? >/tmp/s.rc ) &
# the audit is its first line, printed once every program is attached and counting
i=0
until [ -s /tmp/s.json ] || [ $i -ge 600 ]; do sleep 0.2; i=$((i + 1)); done
[ -s /tmp/s.json ] || { echo "FAIL slotscope did not attach:"; cat /tmp/s.err; exit 1; }
cat >/tmp/truth.bt <<'BT'
BEGIN { printf("READY\n"); }
tracepoint:sunrpc:xprt_get_cong { printf("G %llu %lu %lu\n", nsecs, args->cong, args->cwnd); }
tracepoint:sunrpc:xprt_put_cong { printf("P %llu %lu %lu\n", nsecs, args->cong, args->cwnd); }
BT
bpftrace /tmp/truth.bt >/tmp/bt.out 2>&1 &
bt=$!
i=0
until grep -q READY /tmp/bt.out || [ $i -ge 240 ] || ! kill -0 $bt 2>/dev/null; do sleep 0.5; i=$((i + 1)); done
grep -q READY /tmp/bt.out || { echo "FAIL bpftrace did not attach:"; cat /tmp/bt.out; exit 1; }
# halfway, nfsd restarted granting 8: read at the next connection's accept
( sleep 4; rpc.nfsd 0; echo 8 >/proc/sys/sunrpc/svc_rdma/max_requests; rpc.nfsd 8
  echo 'rdma 20049' >/proc/fs/nfsd/portlist ) &
writers /mnt/r 64 3 || exit 1
wait $!
sleep 1
# runs of the truth's own programs the kernel skipped (nested in another BPF program on their CPU,
# counted since 6.7's "bpf: Count missed stats in trace_call_bpf"): each a record the truth never
# saw, where its count is then set to the kernel's cong again
btmiss=$(bpftool prog show --json 2>/dev/null |
	jq '[.[] | select(.name == "xprt_get_cong" or .name == "xprt_put_cong") | .recursion_misses // 0] | add // 0')
stop_tracer $bt || echo "note bpftrace ignored SIGINT and SIGTERM for 40 s: killed"
kill -INT "$(pidof slotscope)"
i=0
until [ -s /tmp/s.rc ] || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
check_eq "slotscope's exit status" "$(cat /tmp/s.rc 2>/dev/null)" 0
check_eq "no events lost by bpftrace" "$(grep -c 'Lost' /tmp/bt.out)" 0
x=$(tail -n 1 /tmp/s.json | jq -c --arg s $srv '.transports[] | select(.server == $s and .port == "20049")')
c=$(echo "$x" | jq -c .credits)
echo "note credits: $c, connects $(echo "$x" | jq .connects)"
# over slotscope's own span (the summary's ts less its interval_s: bpftrace's nsecs is the same
# monotonic clock); the level carried in from before it
span=$(tail -n 1 /tmp/s.json | jq -r '"\((.ts - .interval_s) * 1e9 | floor) \(.ts * 1e9 | floor)"')
grep -E '^[GP] ' /tmp/bt.out | sort -n -k2 | awk -v t0="${span% *}" -v t1="${span#* }" '
	{
		t = $2 < t0 ? t0 : ($2 > t1 ? t1 : $2)
		if (seen && lvl > 0 && t > last) { busy += t - last; if (lvl >= lim) full += t - last }
		last = t
		cong = int($3 / 256)
		lim = int(($4 + 255) / 256)
		# the level before this record: the first from its cong, the rest by counting (a put
		# reads cong after its credit went back)
		if (!seen)
			lvl = $1 == "G" ? cong : cong + 1
		seen = 1
		# the kernel sets cong to 0 at a connect, with no event (the requests that held
		# credits give none back): the count follows the kernel there, and says how often
		if (($1 == "G" ? lvl : lvl - 1) != cong) {
			resync++
			lvl = $1 == "G" ? cong : cong + 1
		}
		if ($1 == "G" && $3 < $4) lvl++
		else if ($1 == "P") lvl--
		if ($2 < t0 || $2 > t1)
			next
		if (was && lim != was) changes++
		was = lim
		if (!lo || lim < lo) lo = lim
		if (lim > hi) hi = lim
		if (lvl > peak) peak = lvl
	}
	END { printf "%.4f %d %d %d %d %.0f %d %d\n", busy ? 100 * full / busy : 0, lo, hi, changes, peak, busy, resync, was }' >/tmp/truth.txt
set -- $(cat /tmp/truth.txt)
echo "note truth: at the grant $1 % of busy time ($6 ns busy), grant $2..$3, $4 changes, peak $5 in use"
conn=$(echo "$x" | jq .connects)
echo "note the truth's count set to the kernel's cong $7 times, at $conn reconnections, $btmiss of its runs skipped"
check_eq "the truth's count agrees with the kernel's cong but where a connect reset it or it missed a run" \
	"$([ "$7" -le $((conn + ${btmiss:-0})) ] && echo yes)" yes
check_eq "the grant moved in the truth (32, then 8 after the restart)" "$([ "$4" -gt 0 ] && [ "$3" = 32 ] && [ "$8" = 8 ] && echo yes)" yes
check_eq "the grant at the end = the truth's last (8)" "$(echo "$c" | jq .limit)" "$8"
check_eq "the credits' levels are measured" "$(echo "$c" | jq '.at_limit_pct != null')" true
miss=$(tail -n 1 /tmp/s.json | jq .counters.recursion_misses)
echo "note runs the kernel skipped: $miss"
# each event reads the kernel's own cong and cwnd: nothing drifts, a skipped run misses its moment
check_within "lowest grant = truth's" "$(echo "$c" | jq .limit_min)" "$2" "$miss"
check_within "highest grant = truth's" "$(echo "$c" | jq .limit_max)" "$3" "$miss"
check_within "grant changes = truth's" "$(echo "$c" | jq .limit_changes)" "$4" "$miss"
check_within "peak in use = truth's" "$(echo "$c" | jq .level_peak)" "$5" "$miss"
check_eq "credits in use back to 0" "$(echo "$c" | jq .level)" 0
ours=$(echo "$c" | jq .at_limit_pct)
echo "note at the grant in force: truth $1 %, slotscope $ours %"
check_eq "at the grant within 1 point of busy time (truth $1, slotscope $ours)" \
	"$(awk -v a="$1" -v b="$ours" 'BEGIN { d = a - b; if (d < 0) d = -d; print (d <= 1.0) ? "yes" : "no" }')" yes
# the textfile's two counters for the transport, since attach: the summary's seconds (the last
# textfile is written at the end, from the same view)
id=$(echo "$x" | jq .id)
lim_s=$(sed -n "s/^slotscope_credits_limit_seconds_total{.*xprt=\"$id\".*} //p" /tmp/c.prom)
busy_s=$(sed -n "s/^slotscope_credits_busy_seconds_total{.*xprt=\"$id\".*} //p" /tmp/c.prom)
echo "note textfile: credits at the grant $lim_s s of $busy_s s busy"
within2() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > 0 && a >= 0.98 * b && a <= 1.02 * b) ? "yes" : "no" }'; }
check_eq "textfile: busy seconds = the summary's (within 2 %)" "$(within2 "$busy_s" "$(echo "$c" | jq .busy_s)")" yes
check_eq "textfile: seconds at the grant = the summary's (within 2 %)" "$(within2 "$lim_s" "$(echo "$c" | jq .at_limit_s)")" yes
[ "$CHECK_FAILED" = 0 ] || cp /tmp/bt.out /tmp/s.json /tmp/c.prom /out/ 2>/dev/null
exit $CHECK_FAILED
