# Time at each occupancy level against an independent count of the kernel's own slot events, on a
# TCP transport of 16 slots under 64 writers, where most slots pass from a release straight to a
# backlogged task. The truth is bpftrace's, not slotscope's code, stamped and printed as the
# kernel moves each request: a plain take when its task initialises a request it allocated
# (xprt_request_init), a hand-off when xprt_free_slot() gives the request to the first task on
# the backlog (__xprt_set_rq() to a task with none: the slot never becomes free, and the woken
# task's own xprt_request_init, which may run much later, is not a take), a free when
# xprt_free_slot() returns without one. A slot freed is booked free from its RPC's end, where the
# kernel counts it for mountstats (rpc_count_iostats_metrics()), as slotscope defines it (one
# event carries the release and the latencies), else from xprt_free_slot()'s entry (stamped at
# its return, a take of the request just freed, on another CPU, came first now and then: 17 of
# 16); the time from the RPC's end to the free is noted apart: a lone request's, on a loaded host,
# put ~80 ms at level 1 in 2 runs of 61, a point of every share. The levels are rebuilt from that log by awk. (The truth
# before booked a hand-off at the woken task's xprt_request_init and judged it at xprt_release by
# the backlog's length: a slot handed to a task that queued after that judgment read as a free
# and a take as late as the woken task ran. Once in six runs on 6.12 it read 2.4 points of a full
# table at one less than slotscope did, with one hand-off fewer than slotscope's 1,080.)
# Each level's share of busy time must lie within 1 point of the truth's band (below: each take
# and each RPC's end stamped at both edges of the kernel function that makes it), time at the
# limit included. Two misses before the band: slotscope 1.21 points over at the limit (CI, 6.12,
# tracepoints: a release that saw a backlog at its RPC's end, freed 22 ms later with every
# waiter handed by later releases: the truth booked it free from its end, the kernel's num_reqs
# full until the free; such frees are now booked at the free), and 1.34 points at level 15 (6.1,
# functions, 2 lanes: the 16th take's xprt_request_init() preempted for 86 ms between the truth's
# stamp at its entry and slotscope's tracepoint inside it).
#% needs: bpftrace
# two vCPUs: the levels against the truth where releases and takes race on two CPUs
#% smp: 2
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 16 || exit 1
srv=$LAST_SERVER
cat >/tmp/truth.bt <<'BT'
BEGIN { printf("READY\n"); }
kfunc:sunrpc:xprt_request_init {
	if (@handed_to[args->task]) { delete(@handed_to[args->task]); }
	else { @took[args->task] = nsecs; }
}
kretfunc:sunrpc:xprt_request_init /@took[args->task]/ {
	printf("A %llu %u %llu\n", @took[args->task], args->task->tk_xprt->id, nsecs);
	delete(@took[args->task]);
}
kfunc:sunrpc:rpc_count_iostats_metrics /args->task->tk_rqstp/ {
	@ended[args->task->tk_rqstp] = nsecs;
	@waiting[args->task->tk_rqstp] = args->task->tk_xprt->backlog.qlen;
}
kretfunc:sunrpc:rpc_count_iostats_metrics /args->task->tk_rqstp/ {
	@ended2[args->task->tk_rqstp] = nsecs;
}
kfunc:sunrpc:xprt_free_slot { @freeing[tid] = nsecs; }
kfunc:sunrpc:__xprt_set_rq /@freeing[tid] && args->task->tk_rqstp == 0/ {
	@handed_to[args->task] = 1;
	@handed[tid] = 1;
	printf("H %llu %u\n", nsecs, args->task->tk_xprt->id);
}
kretfunc:sunrpc:xprt_free_slot {
	if (!@handed[tid]) {
		$end = @ended[args->req] ? @ended[args->req] : @freeing[tid];
		$end2 = @ended2[args->req] ? @ended2[args->req] : @freeing[tid];
		printf("F %llu %u %llu %u %llu\n", $end, args->xprt->id, @freeing[tid], @waiting[args->req], $end2);
	}
	delete(@ended[args->req]);
	delete(@ended2[args->req]);
	delete(@waiting[args->req]);
	delete(@handed[tid]);
	delete(@freeing[tid]);
}
BT
bpftrace /tmp/truth.bt >/tmp/bt.out 2>&1 &
bt=$!
i=0
# BEGIN runs once every probe is attached ("Attaching N probes" comes before)
until grep -q READY /tmp/bt.out || [ $i -ge 240 ]; do sleep 0.5; i=$((i + 1)); done
grep -q READY /tmp/bt.out || { echo "FAIL bpftrace did not attach:"; cat /tmp/bt.out; exit 1; }
slotscope --json 0.5 -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 64 4; sleep 1" >/tmp/s.json || exit 1
# its lines were printed as the events came, the last a second before: how it exits costs none
stop_tracer $bt || echo "note bpftrace ignored SIGINT and SIGTERM for 40 s: killed"
x=$(ss_xprt /tmp/s.json $srv)
id=$(echo "$x" | jq .id)
echo "note transport: $(echo "$x" | jq -c '{id,limit,peak,at_limit_pct,busy_s,acquires,handoffs,releases,in_use}')"
echo "note level corrections from the kernel's num_reqs: $(tail -n 1 /tmp/s.json | jq .counters.level_corrections)"
check_eq "no events lost by bpftrace" "$(grep -c 'Lost' /tmp/bt.out)" 0
echo "note from an RPC's end to its slot's free, the frees not handed: $(awk -v id="$id" '$1 == "F" && $3 == id && $4 { n++; g += $4 - $2 } END { printf "%d, %.1f ms in all", n, g / 1e6 }' /tmp/bt.out)"
# a release is judged where the RPC ends: one that saw tasks on the backlog keeps its slot for the
# hand-off, and when its xprt_free_slot() comes late (another release handed them all meanwhile)
# it frees it instead, which slotscope books at its next event; the truth at the RPC's end
echo "note frees not handed whose RPC's end saw tasks waiting: $(awk -v id="$id" '$1 == "F" && $3 == id && $5 > 0 { n++; g += $4 - $2 } END { printf "%d, their end to free %.1f ms in all", n, g / 1e6 }' /tmp/bt.out)"
# the truth: levels over time for transport $id, from the first event to the last
# Each take and each RPC's end is a span, not a moment: from the entry of the kernel function that
# makes it (xprt_request_init(), rpc_count_iostats_metrics()) to its return, and slotscope's
# tracepoint fires inside. Under load the task may be preempted in between (a run with 64
# writers on 2 vCPUs: one take's span 86 ms, a point and a half of level 15). The truth is made
# twice, every change at its span's start and at its end: each level's time must lie within 1
# point of the band between the two (not a bound: stamps at different points of their spans
# mix; a tolerance widened by the kernel's own spread, 0.22 point at most at the limit in 80 runs). A free whose RPC's end saw tasks on the backlog is booked
# where the kernel frees it: until then the request stays allocated for a waiter
# (xprt_free_slot() hands it to the first, if one is still there), the table full by the
# kernel's own num_reqs; slotscope, which judges at the end, keeps such a slot until an event
# shows no waiter left for it
for late in 0 1; do
	grep -E '^[AHF] ' /tmp/bt.out | awk -v late=$late '
		$1 == "A" { print "A", (late ? $4 : $2), $3; next }
		$1 == "F" { print "F", ($5 > 0 ? $4 : (late ? $6 : $2)), $3; next }
		{ print $1, $2, $3 }' | sort -n -k2 | awk -v id="$id" '
	$3 != id { next }
	{
		if (n++) t[lvl] += $2 - last
		last = $2
		if ($1 == "A") { lvl++; acq++ }
		else if ($1 == "H") { handed++; acq++ }
		else lvl--
		if (lvl > peak) peak = lvl
	}
	END {
		for (l in t) if (l > 0) busy += t[l]
		printf "truth acquires %d handed %d peak %d busy_ns %.0f\n", acq, handed, peak, busy
		for (l in t) if (l > 0) printf "level %d %.4f\n", l, 100 * t[l] / busy
	}' >/tmp/truth$late.txt
done
cp /tmp/truth0.txt /tmp/truth.txt
cat /tmp/truth.txt
set -- $(head -n 1 /tmp/truth.txt)
t_acq=$3 t_hand=$5 t_peak=$7
check_gt "truth saw the writes" "$t_acq" 500
check_ge "at least half of the acquires were hand-offs (truth: $t_hand of $t_acq)" $((2 * t_hand)) "$t_acq"
check_ge "at least half of the acquires were hand-offs (slotscope)" \
	"$(echo "$x" | jq '2 * .handoffs')" "$(echo "$x" | jq .acquires)"
# every hand-off counted as it happened, none judged: the count is the kernel's own
check_eq "hand-offs = truth's" "$(echo "$x" | jq .handoffs)" "$t_hand"
check_eq "peak = truth's" "$(echo "$x" | jq .peak)" "$t_peak"
check_eq "in use back to 0" "$(echo "$x" | jq .in_use)" 0
# slotscope's share of busy time per level (16 slots: a bucket per level)
echo "$x" | jq -r '.levels[] | select(.from > 0) | "\(.from) \(.ns)"' |
	awk '{ ns[$1] = $2; busy += $2 } END { for (l in ns) printf "level %d %.4f\n", l, 100 * ns[l] / busy }' \
	>/tmp/ours.txt
# both sides in the log, so a miss says at which levels the time went
sed 's/^level/ours level/' /tmp/ours.txt
sed 's/^level/late level/' /tmp/truth1.txt | grep '^late level'
# how far each level of slotscope's lies outside the band between the two truths
worst=$(awk 'FILENAME == ARGV[1] { if ($1 == "level") a[$2] = $3; next }
	FILENAME == ARGV[2] { if ($1 == "level") b[$2] = $3; next }
	{ o[$2] = $3 }
	END {
		for (l in a) lv[l] = 1
		for (l in b) lv[l] = 1
		for (l in o) lv[l] = 1
		for (l in lv) {
			lo = a[l] < b[l] ? a[l] : b[l]; hi = a[l] < b[l] ? b[l] : a[l]
			d = o[l] < lo ? lo - o[l] : (o[l] > hi ? o[l] - hi : 0)
			if (d >= w) { w = d; wl = l }
		}
		lo = a[16] < b[16] ? a[16] : b[16]; hi = a[16] < b[16] ? b[16] : a[16]
		d = o[16] < lo ? lo - o[16] : (o[16] > hi ? o[16] - hi : 0)
		printf "%.2f %d %.2f %.2f %.2f %.2f\n", w, wl, lo, hi, o[16], d
	}' /tmp/truth0.txt /tmp/truth1.txt /tmp/ours.txt)
set -- $worst
echo "note at the limit: truth $3..$4 % of busy time, slotscope $5 %; worst level $2 off the band by $1 points"
check_eq "every level within 1 point of the truth's band (worst: level $2, $1 points off)" \
	"$(awk -v w="$1" 'BEGIN { print (w <= 1.0) ? "yes" : "no" }')" yes
check_eq "at the limit within 1 point of the truth's band ($3..$4, slotscope $5)" \
	"$(awk -v d="$6" 'BEGIN { print (d <= 1.0) ? "yes" : "no" }')" yes
# a failure's evidence, for the host: the truth's events and slotscope's lines
[ "$CHECK_FAILED" = 0 ] || cp /tmp/bt.out /tmp/s.json /out/ 2>/dev/null
exit $CHECK_FAILED
