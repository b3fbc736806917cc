# The paths a large machine takes, driven on a small one by the test build (slotscope-faults):
# 2 transport slots, so all but two transports live in the xprts hash (ids alias), and 2 per-CPU
# op slots, so the ops past them count atomically in their own entry, and the slots of a mount's
# ops, reaped with its transport at umount, go to the next ops (zeroed: a count carried over
# would show against mountstats). /mnt/b is written first (its ops take both op slots), then
# unmounted; /mnt/a (nconnect=4: 4 transports, some in the hash) is written with the slots
# given back; /mnt/b is mounted again (a new transport, whose id may alias the old one's slot
# before it is reaped) and written. Every count against mountstats.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/b 3 16 || exit 1
srvb=$LAST_SERVER
mount_tcp /mnt/a 3 16 nconnect=4 || exit 1
srva=$LAST_SERVER
# every op of MNT with its count, from mountstats
ops_of() { awk -v m="$1" '/^device / { on = ($5 == m) } on && /^[ \t]+[A-Z_0-9]+: [0-9]/ { sub(":", "", $1); print $1, $2 }' /proc/self/mountstats | sort; }
mountstats_xprts /mnt/a srcport sends | sort >/tmp/x0
ops_of /mnt/a >/tmp/o0
b0=$(mountstats_op /mnt/a WRITE bytes_sent)
SLOTSCOPE_TEST_XPRT_SLOTS=2 SLOTSCOPE_TEST_OP_SLOTS=2 slotscope-faults --json 1 -- sh -c "
	. /src/tools/vm/lib.sh
	writers /mnt/b 16 1
	umount /mnt/b
	sleep 3
	writers /mnt/a 64 1
	bpftool map dump name xprts | grep -c '\"key\"' >/tmp/hashed
	mount_tcp_at $srvb /mnt/b 3 16 >/dev/null
	writers /mnt/b 16 1
	mountstats_op /mnt/b WRITE ops >/tmp/bw
	sleep 2" >/tmp/s.json 2>/tmp/s.err || { cat /tmp/s.err; exit 1; }
grep -q 'test build: 2 transport slots' /tmp/s.err || { echo "FAIL: the test build did not take 2 transport slots"; cat /tmp/s.err; exit 1; }
mountstats_xprts /mnt/a srcport sends | sort >/tmp/x1
ops_of /mnt/a >/tmp/o1
b1=$(mountstats_op /mnt/a WRITE bytes_sent)
sum=$(tail -n 1 /tmp/s.json)
# an event the kernel skipped (a program already running on that CPU) is lost to every count
miss=$(echo "$sum" | jq '.counters.recursion_misses')
check_ge "transports in the hash while /mnt/a was written (5 live, 2 slots)" "$(cat /tmp/hashed)" 3
check_eq "transports of /mnt/a traced" "$(ss_xprt /tmp/s.json "$srva" | wc -l)" 4
want=$(awk 'NR == FNR { s[$1] = $2; next } $1 in s { print $2 - s[$1] }' /tmp/x0 /tmp/x1 | sort -n | tr '\n' ' ')
check_eq "/mnt/a sends per transport = mountstats deltas" \
	"$(ss_xprt /tmp/s.json "$srva" | jq .sends | sort -n | tr '\n' ' ')" "$want"
# every op that ran, not only WRITE: the ops that took the slots /mnt/b gave back are the first
# of a writer (LOOKUP, CREATE, ...), and a slot not zeroed would carry /mnt/b's counts into them
awk 'NR == FNR { s[$1] = $2; next } $2 - s[$1] > 0 { print $1, $2 - s[$1] }' /tmp/o0 /tmp/o1 >/tmp/od
check_ge "ops of /mnt/a that ran" "$(wc -l </tmp/od)" 4
while read -r op n; do
	check_within "/mnt/a $op ops = mountstats delta" "$(ss_op /tmp/s.json /mnt/a "$op" .count)" "$n" "$miss"
done </tmp/od
if [ "$miss" = 0 ]; then
	check_eq "/mnt/a WRITE bytes sent = mountstats delta" "$(ss_op /tmp/s.json /mnt/a WRITE .bytes_sent)" $((b1 - b0))
else
	echo "note $miss events skipped by the kernel: bytes not compared"
fi
check_within "/mnt/b (mounted again) WRITE ops = its mountstats" "$(ss_op /tmp/s.json /mnt/b WRITE .count)" "$(cat /tmp/bw)" "$miss"
check_eq "every transport's slots back to 0" "$(echo "$sum" | jq '[.transports[] | .in_use] | map(select(. != 0)) | length')" 0
check_eq "no map drops" "$(echo "$sum" | jq '.counters.xprts_full + .counters.ops_full + .counters.inflight_full')" 0
exit $CHECK_FAILED
