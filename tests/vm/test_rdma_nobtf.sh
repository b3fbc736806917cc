# rpcrdma without BTF, as vendor (DKMS) builds of RDMA stacks ship it: everything sunrpc sees is
# still counted, and every RDMA limit is the pool the kernel built (counted by a tracefs kprobe
# event as each mount made it), never below a peak: a transport made before slotscope starts is taken as
# max_reqs and raised when more are in use (said on stderr), one made while it runs is counted.
rpcrdma_nobtf || exit 1
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
kprobe_on req 'rpcrdma_req_create xprt=$arg1:x64' || exit 1
mount_rdma /mnt/a 3 || exit 1
srv_a=$LAST_SERVER
writer_dirs /export/d 192 || exit 1
slotscope --json 0.5 -d 900 >/tmp/n.json 2>/tmp/n.err &
ss=$!
i=0
until grep -q '"type":"interval"' /tmp/n.json 2>/dev/null || [ $i -ge 240 ]; do sleep 0.5; i=$((i + 1)); done
mount_rdma /mnt/b 3 || exit 1
srv_b=$LAST_SERVER
sa0=$(mountstats_xprt /mnt/a sends)
WRITERS_TOGETHER=1 writers /mnt/a/d 192 1 >/dev/null
WRITERS_TOGETHER=1 writers /mnt/b/d 192 1 >/dev/null
sync
sleep 1
sa1=$(mountstats_xprt /mnt/a sends)
kill -INT $ss
wait $ss
check_eq "exit status" $? 0
trace_off slotscope_test/req >/tmp/kp.out || exit 1
sed 's/^/note /' /tmp/n.err
pools=$(trace_counts /tmp/kp.out xprt | sort -u)
check_eq "one pool size for both transports (same max_reqs)" "$(echo "$pools" | grep -c .)" 1
check_eq "stderr: rpcrdma has no BTF, and what is done instead" "$(grep -c '^slotscope: rpcrdma has no BTF: ' /tmp/n.err)" 1
a=$(ss_xprt /tmp/n.json $srv_a)
b=$(ss_xprt /tmp/n.json $srv_b)
echo "note made before: $(echo "$a" | jq -c '{id,limit,limit_source,max_reqs,peak,slot_waits:.waits.slot.count}'), made while traced: $(echo "$b" | jq -c '{id,limit,limit_source,max_reqs,peak}'), pool built: $pools"
check_eq "made before: limit = the pool built" "$(echo "$a" | jq .limit)" "$pools"
check_eq "made before: max in use = limit" "$(echo "$a" | jq .peak)" "$pools"
if [ "$pools" -gt "$(echo "$a" | jq .max_reqs)" ]; then
	check_eq "made before: a pool with slack is inferred" "$(echo "$a" | jq -r .limit_source)" inferred
	check_eq "made before: the inference said once" "$(grep -c "^slotscope: transport $(echo "$a" | jq .id) (rdma $srv_a): more requests in use than max_reqs" /tmp/n.err)" 1
else
	check_eq "made before: a pool without slack stays assumed" "$(echo "$a" | jq -r .limit_source)" assumed
fi
check_eq "made while traced: limit = the pool built" "$(echo "$b" | jq .limit)" "$pools"
check_eq "made while traced: counted" "$(echo "$b" | jq -r .limit_source)" counted
check_eq "made while traced: max in use = limit" "$(echo "$b" | jq .peak)" "$pools"
over=$(jq -c 'select(.type == "interval") | .transports[] | select(.interval_peak > .limit or .in_use > .limit or .in_use < 0)' /tmp/n.json | wc -l)
check_eq "intervals above the limit or negative" "$over" 0
check_eq "sends = mountstats delta" "$(echo "$a" | jq .sends)" $((sa1 - sa0))
check_gt "slot waits" "$(echo "$a" | jq .waits.slot.count)" 0
exit $CHECK_FAILED
