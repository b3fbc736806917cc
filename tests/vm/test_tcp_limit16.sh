# A TCP transport created with 16 slots under 64 writers: the table is full, tasks queue for a
# slot, and every number agrees with an independent source.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 16 || exit 1
srv=$LAST_SERVER
# the kernel's own record of every backlog sleep (sunrpc:rpc_task_sleep on xprt_backlog, in
# tracefs's ring), on first and off last, counted per client id
trace_on sunrpc/rpc_task_sleep 'q_name == "xprt_backlog"' || exit 1
for f in WRITE; do eval "w0=\$(mountstats_op /mnt/t $f ops) r0=\$(mountstats_op /mnt/t $f rtt) e0=\$(mountstats_op /mnt/t $f execute) q0=\$(mountstats_op /mnt/t $f queue)"; done
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 64 4; sleep 2" >/tmp/s.json || exit 1
trace_off sunrpc/rpc_task_sleep >/tmp/tp.out || exit 1
w1=$(mountstats_op /mnt/t WRITE ops) r1=$(mountstats_op /mnt/t WRITE rtt) e1=$(mountstats_op /mnt/t WRITE execute) q1=$(mountstats_op /mnt/t WRITE queue)
x=$(ss_xprt /tmp/s.json $srv)
echo "note transport: $(echo "$x" | jq -c '{id,limit,peak,at_limit_pct,mean_in_use,handoffs,backlog_max,slot_waits:.waits.slot.count,p50:.waits.slot.p50_ns,p99:.waits.slot.p99_ns}')"
clids=$(echo "$x" | jq -r '.mounts[].clid')
# Every backlog sleep the kernel traced, whichever client: only this mount's transport has a
# table that fills (rpcbind's, mountd's, lockd's do not), and the tally needs nothing of
# slotscope's own mapping of clients to mounts (a CI-like run once read 0 through it against
# 1,064; the event prints task:TASK@CLIENT, both %08x, SUNRPC_TRACE_TASK_SPECIFIER)
kernel_sleeps=$(grep -c ' task:[0-9a-f]*@[0-9a-f]* ' /tmp/tp.out)
echo "note the kernel's backlog sleeps by client: $(sed -n 's/.* task:[0-9a-f]*@\([0-9a-f]*\) .*/\1/p' /tmp/tp.out | sort | uniq -c | tr -s ' \n' '  ')against slotscope's clients '$(echo $clids)'"
[ "$kernel_sleeps" = "$(echo "$x" | jq .waits.slot.count)" ] || cp /tmp/tp.out /tmp/s.json /out/ 2>/dev/null
# and each client that slept is one slotscope lists under the mount (what the per-client tally
# asserted by itself before): the waits are this mount's transport's
stray=
for c in $(sed -n 's/.* task:[0-9a-f]*@\([0-9a-f]*\) .*/\1/p' /tmp/tp.out | sort -u); do
	echo " $clids " | tr '\n' ' ' | grep -q " $((0x$c)) " || stray="$stray $((0x$c))"
done
check_eq "the clients the kernel saw wait for a slot are the mount's, as slotscope lists them" "${stray:-none}" none
check_eq "limit" "$(echo "$x" | jq .limit)" 16
check_eq "max in use = limit" "$(echo "$x" | jq .peak)" 16
check_eq "max in use = mountstats max_slots" "$(echo "$x" | jq .peak)" "$(mountstats_xprt /mnt/t max_slots)"
check_gt "time at limit > 50% of the write" "$(echo "$x" | jq '(.at_limit_s / .busy_s * 100) | floor')" 50
check_gt "slot waits" "$(echo "$x" | jq .waits.slot.count)" 0
check_eq "slot waits = the kernel's backlog sleeps (tracefs)" "$(echo "$x" | jq .waits.slot.count)" "$kernel_sleeps"
check_eq "WRITE ops = mountstats WRITE ops delta" "$(ss_op /tmp/s.json /mnt/t WRITE .count)" $((w1 - w0))
rtt=$(ss_op /tmp/s.json /mnt/t WRITE .rtt.sum_ns) exe=$(ss_op /tmp/s.json /mnt/t WRITE .execute.sum_ns) que=$(ss_op /tmp/s.json /mnt/t WRITE .queue.sum_ns)
ms_close "$rtt" $((r1 - r0)) && r=same || r=differ
check_eq "WRITE RTT sum ($rtt ns) vs mountstats ($((r1 - r0)) ms)" $r same
ms_close "$exe" $((e1 - e0)) && r=same || r=differ
check_eq "WRITE execute sum ($exe ns) vs mountstats ($((e1 - e0)) ms)" $r same
ms_close "$que" $((q1 - q0)) && r=same || r=differ
check_eq "WRITE queue sum ($que ns) vs mountstats ($((q1 - q0)) ms)" $r same
check_eq "in use back to 0 after the writers" "$(echo "$x" | jq .in_use)" 0
check_eq "no map drops" "$(tail -n 1 /tmp/s.json | jq '.counters.inflight_full + .counters.waiters_full + .counters.ops_full')" 0
exit $CHECK_FAILED
