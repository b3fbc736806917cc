# A hook the verifier refuses falls back, or is left off, or stops the start: refusals injected
# with SLOTSCOPE_TEST_REFUSE, which only the test build (slotscope-faults) honours (the program's first instruction made one the verifier rejects, so
# the load really fails with a verifier log) on the default kernel. The preferred and the
# fallback variant of every hook are loaded by test_core (default, and SLOTSCOPE_ATTACH=fallback).
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 16 || exit 1
srv=$LAST_SERVER

# xprt_reserve refused as tp_btf: raw_tp instead; both session hooks refused outright: off
w0=$(mountstats_op /mnt/t WRITE ops)
SLOTSCOPE_TEST_REFUSE=xprt_reserve,nfs4_setup_sequence:all \
	slotscope-faults -v --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 32 1" >/tmp/f.json 2>/tmp/f.err
check_eq "refusals: exit status" $? 0
w1=$(mountstats_op /mnt/t WRITE ops)
grep -E '^slotscope: (hook .* (refused|the verifier)|hook [a-z0-9_]+ +[a-z_]+$)' /tmp/f.err | sed 's/^/note /'
method() { sed -n "s/^slotscope: hook $1  *\([a-z_]*\)$/\1/p" /tmp/f.err; }
check_eq "xprt_reserve fell back to raw_tp" "$(method xprt_reserve)" raw_tp
check_eq "rpc_stats_latency kept tp_btf" "$(method rpc_stats_latency)" tp_btf
check_eq "nfs4_setup_sequence left off" "$(method nfs4_setup_sequence)" off
check_eq "the refusal named with the verifier's reason" \
	"$(grep -c '^slotscope: hook xprt_reserve: the verifier refused tp_btf/xprt_reserve (.\+)$' /tmp/f.err)" 1
check_eq "what an optional hook's loss costs, said once" \
	"$(grep -c 'hook nfs4_setup_sequence refused by the verifier (.*): NFSv4.1 session slots are not measured; everything else is measured' /tmp/f.err)" 1
x=$(ss_xprt /tmp/f.json $srv)
check_eq "still exact: max in use = mountstats max_slots" "$(echo "$x" | jq .peak)" "$(mountstats_xprt /mnt/t max_slots)"
check_eq "still exact: WRITE ops = mountstats delta" "$(ss_op /tmp/f.json /mnt/t WRITE .count)" $((w1 - w0))
check_eq "still exact: in use back to 0" "$(echo "$x" | jq .in_use)" 0

# a hook the function design needs refused in every variant: the waits come from the tracepoints,
# and every number is as exact (64 writers on 16 slots: slot waits and hand-offs on both paths)
w0=$(mountstats_op /mnt/t WRITE ops)
SLOTSCOPE_TEST_REFUSE=__xprt_set_rq:all \
	slotscope-faults -v --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 64 1" >/tmp/d.json 2>/tmp/d.err
check_eq "design refused: exit status" $? 0
w1=$(mountstats_op /mnt/t WRITE ops)
check_eq "design refused: waits from the tracepoints" "$(sed -n 's/^slotscope: events  *//p' /tmp/d.err)" tracepoints
check_eq "design refused: rpc_task_wakeup attached" "$(sed -n 's/^slotscope: hook rpc_task_wakeup  *//p' /tmp/d.err)" tp_btf
x=$(ss_xprt /tmp/d.json $srv)
echo "note $(echo "$x" | jq -c '{peak,handoffs,slot_waits:.waits.slot.count}')"
check_eq "design refused: max in use = mountstats max_slots" "$(echo "$x" | jq .peak)" "$(mountstats_xprt /mnt/t max_slots)"
check_eq "design refused: WRITE ops = mountstats delta" "$(ss_op /tmp/d.json /mnt/t WRITE .count)" $((w1 - w0))
check_gt "design refused: slot waits" "$(echo "$x" | jq .waits.slot.count)" 0
check_eq "design refused: in use back to 0" "$(echo "$x" | jq .in_use)" 0

# a required hook refused in every variant: one line with the reason, exit 77
SLOTSCOPE_TEST_REFUSE=rpc_stats_latency:all slotscope-faults -d 1 >/tmp/r.out 2>/tmp/r.err
check_eq "required hook refused: exit status" $? 77
echo "note $(cat /tmp/r.err)"
check_eq "required hook refused: one line (and the test build's own)" "$(grep -vc '^slotscope: test build: ' /tmp/r.err)" 1
check_eq "required hook refused: names the hook and the verifier" \
	"$(grep -c '^slotscope: the verifier refused the rpc_stats_latency hook (.\+); run with -v for its log$' /tmp/r.err)" 1

# the release binary has no fault injection: the variable changes nothing
SLOTSCOPE_TEST_REFUSE=rpc_stats_latency:all,xprt_reserve:all slotscope -v -d 1 >/tmp/n.out 2>/tmp/n.err
check_eq "release build: SLOTSCOPE_TEST_REFUSE ignored (exit status)" $? 0
check_eq "release build: rpc_stats_latency attached" "$(sed -n 's/^slotscope: hook rpc_stats_latency  *//p' /tmp/n.err)" tp_btf
check_eq "release build: nothing said of it" "$(grep -c 'test build\|refused' /tmp/n.err)" 0
exit $CHECK_FAILED
