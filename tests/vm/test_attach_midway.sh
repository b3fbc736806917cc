# Attaching while 64 writers keep a 4-slot table full: no interval shows a negative count or one
# above the limit, and the first intervals say the counts are still warming up.
# two vCPUs: on one, the 64 writers and the BPF load share it and the load ate the 6 s (one
# interval with the transport, where the test wants more than 3: a clean-clone run, stop 67)
#% smp: 2
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/m 3 4 || exit 1
srv=$LAST_SERVER
# rounds of writers until told to stop: loading BPF under this load takes seconds under TCG.
# Two loops, so that the gap between one loop's rounds never leaves the table empty at the
# attach (once it was: no slot was taken before the attach, and nothing was warming up).
mkdir -p /mnt/m/a /mnt/m/b
( while [ ! -f /tmp/stop ]; do writers /mnt/m/a 32 1; done ) &
w=$!
sleep 1
( while [ ! -f /tmp/stop ]; do writers /mnt/m/b 32 1; done ) &
w2=$!
sleep 2
# traced until it has written eight intervals (four seconds of counting), not for a set time:
# on a loaded host a tick under 64 writers can take seconds (a clean-clone run beside other VMs:
# two intervals in six seconds)
slotscope --json 0.5 >/tmp/s.json &
ss=$!
i=0
until [ "$(grep -c '"type":"interval"' /tmp/s.json 2>/dev/null)" -ge 8 ] || [ $i -ge 240 ] || ! kill -0 $ss 2>/dev/null; do
	sleep 0.5
	i=$((i + 1))
done
kill -INT $ss 2>/dev/null
wait $ss
rc=$?
touch /tmp/stop
wait $w $w2
# interval records only: a checkpoint record spans the burst from its start, warm-up included
sel='select(.type == "interval") | .transports[] | select(.server == $s and .port == "2049")'
lines=$(head -n -1 /tmp/s.json | jq -c --arg s $srv "$sel" | wc -l)
bad=$(head -n -1 /tmp/s.json | jq -c --arg s $srv "$sel | select(.in_use < 0 or .in_use > .limit or .interval_peak > .limit)" | wc -l)
warm=$(head -n -1 /tmp/s.json | jq -c --arg s $srv "$sel | select(.warming_up)" | wc -l)
echo "note intervals [in_use, interval_peak, warming_up]: $(head -n -1 /tmp/s.json | jq -c --arg s $srv "$sel | [.in_use, .interval_peak, .warming_up]" | tr '\n' ' ')"
check_eq "slotscope exit status" $rc 0
check_gt "intervals with the transport" "$lines" 3
check_eq "intervals negative or above the limit" "$bad" 0
check_gt "intervals marked warming up" "$warm" 0
# slots are held for well under a second here (bpftrace: the longest task 0.36 s), so the slots
# taken before the attach are all back within the first 1.5 s (three 0.5 s intervals)
last=$(head -n -1 /tmp/s.json | jq -c --arg s $srv "$sel | .warming_up" | grep -n true | tail -n 1 | cut -d: -f1)
check_le "last interval still warming up" "${last:-0}" 3
check_eq "summary peak" "$(ss_get /tmp/s.json $srv .peak)" 4
exit $CHECK_FAILED
