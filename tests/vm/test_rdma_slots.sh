# NFS/RDMA with the default 128 slots and 192 writers: the table fills and never overflows, tasks
# wait for slots, and the server's credit grant is reported. The limit is the request pool: 128,
# or 144 on kernels with the May 2026 "Decouple RPC completion from Send completion" (128 + 128/8).
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_rdma /mnt/r 3 || exit 1
srv=$LAST_SERVER
# all at once and one directory each (made on the server's side, no round trip): writers started
# one by one under emulation, creating their files one RTT at a time in one directory, once
# peaked at 125 of 144 slots
writer_dirs /export/d 192 || exit 1
slotscope --json 0.5 -- sh -c ". /src/tools/vm/lib.sh; WRITERS_TOGETHER=1 writers /mnt/r/d 192 2; sleep 1" \
	>/tmp/s.json || exit 1
x=$(ss_xprt /tmp/s.json $srv)
echo "note transport: $(echo "$x" | jq -c '{id,limit,peak,at_limit_pct,mean_in_use,handoffs,backlog_max,slot_waits:.waits.slot.count,send_waits:.waits.send.count,credits}')"
check_eq "max_reqs" "$(echo "$x" | jq .max_reqs)" 128
lim=$(echo "$x" | jq .limit)
[ "$lim" = 128 ] || check_eq "limit with the pool slack" "$lim" 144
check_eq "max in use = limit" "$(echo "$x" | jq .peak)" "$lim"
over=$(head -n -1 /tmp/s.json | jq -c --arg s $srv '.transports[] | select(.server == $s and .port == "20049") | select(.interval_peak > .limit or .in_use > .limit or .in_use < 0)' | wc -l)
check_eq "intervals above the limit or negative" "$over" 0
check_gt "slot waits" "$(echo "$x" | jq .waits.slot.count)" 0
check_gt "credits granted by the server" "$(echo "$x" | jq .credits.granted)" 0
check_gt "credits in use seen" "$(echo "$x" | jq .credits.max_in_use)" 0
check_eq "in use back to 0" "$(echo "$x" | jq .in_use)" 0
exit $CHECK_FAILED
