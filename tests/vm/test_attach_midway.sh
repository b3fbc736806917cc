# Attaching while 64 writers already fill a 16-slot table: no interval shows a negative count or
# one above the limit, and the early intervals say the counts are still warming up.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/m 3 16 || exit 1
srv=$LAST_SERVER
( writers /mnt/m 64 4 ) &
w=$!
sleep 2
slotscope --json -d 6 0.5 >/tmp/s.json || exit 1
wait $w
lines=$(head -n -1 /tmp/s.json | jq -c --arg s $srv '.transports[] | select(.server == $s and .port == "2049")' | wc -l)
bad=$(head -n -1 /tmp/s.json | jq -c --arg s $srv '.transports[] | select(.server == $s and .port == "2049") | select(.in_use < 0 or .in_use > .limit or .interval_peak > .limit)' | wc -l)
warm=$(head -n -1 /tmp/s.json | jq -c --arg s $srv '.transports[] | select(.server == $s and .port == "2049") | select(.warming_up)' | wc -l)
echo "note intervals: $(head -n -1 /tmp/s.json | jq -c --arg s $srv '.transports[] | select(.server == $s and .port == "2049") | [.in_use, .interval_peak, .warming_up]' | tr '\n' ' ')"
check_gt "intervals with the transport" "$lines" 3
check_eq "intervals negative or above the limit" "$bad" 0
check_gt "intervals marked warming up" "$warm" 0
check_le "summary peak" "$(ss_get /tmp/s.json $srv .peak)" 16
exit $CHECK_FAILED
