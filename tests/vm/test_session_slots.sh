# NFSv4.1 with max_session_slots=4: the session's fore channel table is the limit (NFSv4.1
# ignores tcp_max_slot_table_entries), and tasks wait on it.
nfsd_start >/dev/null || exit 1
echo 4 >/sys/module/nfs/parameters/max_session_slots || exit 1
mount_tcp /mnt/s 4.1 || exit 1
srv=$LAST_SERVER
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/s 32 2" >/tmp/s.json || exit 1
x=$(ss_xprt /tmp/s.json $srv)
id=$(echo "$x" | jq .id)
s=$(tail -n 1 /tmp/s.json | jq -c --argjson id "$id" '[.sessions[] | select(.xprt_id == $id)] | first')
echo "note transport: $(echo "$x" | jq -c '{id,limit,peak,session_waits:.waits.session}')"
echo "note session: $s"
check_eq "transport limit (INFINITE_SLOTS)" "$(echo "$x" | jq .limit)" 65536
check_eq "session max_slots" "$(echo "$s" | jq .max_slots)" 4
check_gt "session-slot waits" "$(echo "$x" | jq .waits.session.count)" 0
check_le "highest used slot id below the table size" "$(echo "$s" | jq .peak_used_slotid)" 3
# the limit in force (#46): 4 throughout here (6.1's nfsd keeps its target), and 32 writers keep
# every one of them in use most of the time
check_eq "limit in force, lowest and highest" "$(echo "$s" | jq -c '[.limit, .limit_min, .limit_max, .limit_changes]')" "[4,4,4,0]"
check_eq "slots in use at most the limit, and back to none" "$(echo "$s" | jq -c '[.in_use_peak, .in_use]')" "[4,0]"
check_gt "at the limit most of the busy time (%)" "$(echo "$s" | jq '.at_limit_pct | floor')" 50
exit $CHECK_FAILED
