# The production picture on two VMs joined by a wire: an NFS/RDMA checkpoint write on a transport
# with the default 128 slots (144 with the request pool's slack on this kernel) fills the slot
# table while the link carries a few percent of its rate. The verdict says slot-bound, and the
# link bytes and utilization agree with the port's own counters, read here apart from slotscope.
#% server: tests/vm/server_rdma.sh
# one vCPU in each VM: four vCPU threads on two cores spin on each other (333 s of CPU, not 43)
#% smp: 1
wire_up 192.168.100.2 || exit 1
rxe_up eth1 || exit 1
# 64 KiB WRITEs: the queue behind the slot table is long enough that its waits dominate in every
# run, not only when the 96 writers happen to start together
mount_rdma_at 192.168.100.1 /mnt/r 3 "" wsize=65536 >/dev/null || exit 1
# a directory per writer: creates in one directory serialize, one RTT each
writer_dirs /mnt/r/c 96 || exit 1
tx0=$(cat /sys/class/net/eth1/statistics/tx_bytes)
slotscope --json --ckpt-threshold 1 --ckpt-quiet 4 -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/r/c 96 1" \
	>/tmp/s.json || exit 1
tx1=$(cat /sys/class/net/eth1/statistics/tx_bytes)
c=$(jq -c 'select(.type == "checkpoint" and .n == 1)' /tmp/s.json)
x=$(echo "$c" | jq -c '.transports[] | select(.server == "192.168.100.1" and .port == "20049")')
echo "note checkpoint: $(echo "$c" | jq -c '{duration_s, bytes_written, GBps, saturated}')"
echo "note transport: $(echo "$x" | jq -c '{limit, peak, at_limit_pct, verdict: .verdict | {class, why}, link}')"
check_eq "limit: 128 slots and the pool's slack" "$(echo "$x" | jq '.limit == 128 or .limit == 144')" true
check_eq "peak = limit" "$(echo "$x" | jq '.peak == .limit')" true
check_eq "verdict" "$(echo "$x" | jq -r .verdict.class)" slot-bound
check_eq "transport -> rxe0 on eth1, from its connection" \
	"$(echo "$x" | jq -r '[.link.rdma_device, .link.netdev, .link.from] | join(" ")')" "rxe0 eth1 connection"
check_gt "link rate known (Mb/s)" "$(echo "$x" | jq '.link.rate_gbps * 1000 | floor')" 0
# far under its rate, and not zero: the bytes crossed the wire
check_gt "link utilization > 0.1 %" "$(echo "$x" | jq '.verdict.link_util_pct * 10 | floor')" 0
check_le "link utilization < 20 %" "$(echo "$x" | jq '.verdict.link_util_pct | floor')" 19
# the utilization is bytes over rate and time, both from the link samples that bound the window
# (their own clock): the window's eth1 bytes, counter deltas, are within the wire's own count
# over the whole trace, exactly; and the transport's link rate is eth1's over the window. (The
# rate times the snapshots' duration, as this check read before, mixes two clocks: 0.25 % over
# the wire's count on a loaded host once, 0.97 % another time: a sample taken late.)
nd=$(echo "$c" | jq -c '.links.netdevs[] | select(.name == "eth1")')
check_le "checkpoint: eth1's tx bytes over the window <= its tx delta over the trace" \
	"$(echo "$nd" | jq .tx_bytes)" $((tx1 - tx0))
check_eq "checkpoint: the transport's link rate is eth1's over the window" \
	"$(echo "$x" | jq .link.tx_gbps)" "$(echo "$nd" | jq .tx_gbps)"
check_ge "eth1 carried the write (MiB)" $(((tx1 - tx0) / 1048576)) 96
exit $CHECK_FAILED
