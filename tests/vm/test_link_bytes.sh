# Two VMs on a qemu socket network: NFS/RDMA from this one (the client) to the server VM puts
# soft-RoCE traffic on a real (virtual) wire. A write of S MiB shows link bytes between S and
# 1.25 S on the transport's port, and the rxe packet counters in the report agree with the port.
#% server: tests/vm/server_rdma.sh
# one vCPU in each VM: four vCPU threads on two cores spin on each other (333 s of CPU, not 43)
#% smp: 1
wire_up 192.168.100.2 || exit 1
rxe_up eth1 || exit 1
mount_rdma_at 192.168.100.1 /mnt/r 3 >/dev/null || exit 1
S=64
s0=$(rxe_counter sent_pkts) r0=$(rxe_counter rcvd_pkts)
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/r 8 $((S / 8))" >/tmp/s.json || exit 1
s1=$(rxe_counter sent_pkts) r1=$(rxe_counter rcvd_pkts)
x=$(ss_xprt /tmp/s.json 192.168.100.1)
p=$(tail -n 1 /tmp/s.json | jq -c '.links.rdma_ports[] | select(.device == "rxe0")')
echo "note transport link: $(echo "$x" | jq -c .link)"
echo "note rxe0: $(echo "$p" | jq -c .)"
tx=$(echo "$p" | jq .tx_bytes)
check_eq "transport -> rxe0 port 1 on eth1" "$(echo "$x" | jq -r '[.link.rdma_device, .link.rdma_port, .link.netdev] | join(" ")')" "rxe0 1 eth1"
check_ge "link tx bytes >= S MiB" "$tx" $((S * 1048576))
check_le "link tx bytes <= 1.25 S MiB" "$tx" $((S * 1048576 * 5 / 4))
check_eq "rxe0 sent_pkts = the port's own delta" "$(echo "$p" | jq .hw_counters.sent_pkts)" $((s1 - s0))
check_eq "rxe0 rcvd_pkts = the port's own delta" "$(echo "$p" | jq .hw_counters.rcvd_pkts)" $((r1 - r0))
check_gt "link utilization reported" "$(echo "$x" | jq '.link.tx_util_pct * 1000 | floor')" 0
exit $CHECK_FAILED
