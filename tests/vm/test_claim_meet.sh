# A transport's first events on two CPUs at once (#64): a CPU that finds another's claim on the
# transport's xprt_tab slot makes the entry whole itself and counts on it, where it used to wait a
# few looks for the claimer and, when that ran out (6.12 under emulation, counters.xprts_full 1),
# drop its event. The test build leaves a claim unpublished until 200 events have met it
# (SLOTSCOPE_TEST_CLAIM_MEETS), so a transport's first 200 events, on both CPUs, all take that
# path; the wait dropped every one of them. Transports made before the trace, first seen when 32
# writers start at once (as on a busy node slotscope attaches to), over TCP and RDMA; every count
# against mountstats.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/t 3 16 wsize=65536 >/dev/null || exit 1
srvt=$LAST_SERVER
mount_rdma /mnt/r 3 '' wsize=65536 >/dev/null || exit 1
srvr=$LAST_SERVER
SLOTSCOPE_TEST_CLAIM_MEETS=200 slotscope-faults --json 1 -- sh -c "
	. /src/tools/vm/lib.sh
	ms() { echo \$(mountstats_op \$1 WRITE ops) \$(mountstats_op \$1 WRITE bytes_sent) \$(mountstats_xprt \$1 sends); }
	ms /mnt/t >/tmp/t0; ms /mnt/r >/tmp/r0
	cut -d' ' -f1 /proc/uptime >/tmp/tst
	WRITERS_TOGETHER=1 writers /mnt/t 32 2
	cut -d' ' -f1 /proc/uptime >/tmp/tsr
	WRITERS_TOGETHER=1 writers /mnt/r 32 2
	sleep 2
	bpftool map dump name xprts >/tmp/hash.txt
	ms /mnt/t >/tmp/t1; ms /mnt/r >/tmp/r1" >/tmp/s.json 2>/tmp/s.err || { cat /tmp/s.err; exit 1; }
grep -q "test build: a transport's entry published after 200 events met its claim" /tmp/s.err ||
	{ echo "FAIL: the test build did not hold the claims"; cat /tmp/s.err; exit 1; }
sum=$(tail -n 1 /tmp/s.json)
miss=$(echo "$sum" | jq '.counters.recursion_misses')
check_eq "no event dropped at a claim (counters.xprts_full)" "$(echo "$sum" | jq .counters.xprts_full)" 0
for m in t r; do
	eval srv=\$srv$m
	set -- $(cat /tmp/${m}0) $(cat /tmp/${m}1)
	x=$(ss_xprt /tmp/s.json "$srv")
	check_eq "/mnt/$m: its entry in its xprt_tab slot, not the hash" "$(grep -c "\"$srv\"" /tmp/hash.txt)" 0
	check_eq "/mnt/$m: one transport, published once 200 events met its claim" "$(echo "$x" | grep -c .)" 1
	check_ge "/mnt/$m: its slot takes (past the 200 that met the claim)" "$(echo "$x" | jq .acquires)" 200
	check_within "/mnt/$m WRITE ops = mountstats" "$(ss_op /tmp/s.json /mnt/$m WRITE .count)" $(($4 - $1)) "$miss"
	check_within "/mnt/$m sends = mountstats (from the first sight)" "$(echo "$x" | jq .sends)" $(($6 - $3)) "$miss"
	[ "$miss" = 0 ] && check_eq "/mnt/$m WRITE bytes = mountstats" "$(ss_op /tmp/s.json /mnt/$m WRITE .bytes_sent)" $(($5 - $2))
	check_eq "/mnt/$m: slots back to 0" "$(echo "$x" | jq .in_use)" 0
	check_eq "/mnt/$m: peak within the limit" "$(echo "$x" | jq '.peak <= .limit and .peak > 0')" true
	# the first stretch opened once, by one CPU: the time at each level adds up to the time from
	# the writers' start (the transport's first event) to the summary, by the test's own clock
	check_eq "/mnt/$m: its span (the levels' time) = the summary's end less the writers' start (within 1 s, never over)" \
		"$(echo "$sum" | jq --argjson t0 "$(cat /tmp/ts$m)" --argjson x "$x" '(.ts - $t0) as $w | $x.span_s <= $w + 0.01 and $x.span_s >= $w - 1')" true
done
check_eq "TCP: its limit, max_reqs" "$(ss_xprt /tmp/s.json "$srvt" | jq -r '"\(.limit) \(.limit_source)"')" "16 max_reqs"
check_eq "RDMA: its limit, no less than max_reqs" "$(ss_xprt /tmp/s.json "$srvr" | jq '.limit >= .max_reqs')" true
exit $CHECK_FAILED
