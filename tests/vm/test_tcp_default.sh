# A TCP transport with the default (dynamic, 65536) limit, traced from before the mount: the
# highest occupancy is the kernel's lifetime max_slots, less at most the allocations under way on
# the other CPUs at that moment. max_slots is num_reqs when a request is handed out
# (xprt_alloc_slot()), and a dynamic table's num_reqs counts a request from before its kzalloc(),
# which runs with the reserve lock dropped (xprt_dynamic_alloc_slot()): one more than the slots in
# use while another CPU allocates (a clean CI run read 306 against 307).
nfsd_start >/dev/null || exit 1
srv=127.0.0.99
mkdir -p /mnt/d
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; mount.nfs $srv:/export /mnt/d -o vers=3,proto=tcp,nolock && writers /mnt/d 24 4" \
	>/tmp/s.json || exit 1
x=$(ss_xprt /tmp/s.json $srv)
echo "note all: $(tail -n 1 /tmp/s.json | jq -c "[.transports[] | {id,server,port,peak,acquires}]")"
echo "note transport: $(echo "$x" | jq -c '{id,limit,peak,min_reqs,num_reqs,acquires,releases,preattach_releases}')"
check_eq "limit is the dynamic maximum" "$(echo "$x" | jq .limit)" 65536
check_gt "slots were used" "$(echo "$x" | jq .peak)" 2
ms=$(mountstats_xprt /mnt/d max_slots) peak=$(echo "$x" | jq .peak)
check_le "max in use <= mountstats max_slots" "$peak" "$ms"
check_ge "max in use >= mountstats max_slots less the other CPUs' allocations" "$peak" $((ms - $(grep -c ^processor /proc/cpuinfo) + 1))
check_eq "nothing taken before attach" "$(echo "$x" | jq .preattach_releases)" 0
exit $CHECK_FAILED
