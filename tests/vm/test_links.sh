# The link side in one VM: with no RDMA device slotscope still runs and says why the RoCE side
# is empty; then each transport is mapped to what its traffic crosses (TCP to 127.0.0.x: lo;
# NFS/RDMA on soft-RoCE: eth0 -> rxe0 port 1), and rxe0's packet counters in the report agree
# with the port's own.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 || exit 1
tsrv=$LAST_SERVER
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 4 2" >/tmp/a.json 2>/tmp/a.err
check_eq "exit status without RDMA" $? 0
echo "note stderr: $(cat /tmp/a.err)"
check_eq "says why the RoCE side is empty" "$(grep -c 'no RDMA devices' /tmp/a.err)" 1
check_eq "JSON note" "$(tail -n 1 /tmp/a.json | jq -r '.links.note | startswith("no RDMA devices")')" true
check_eq "TCP transport netdev" "$(ss_get /tmp/a.json $tsrv .link.netdev)" lo

rxe_up || exit 1
mount_rdma /mnt/r 3 || exit 1
rsrv=$LAST_SERVER
s0=$(rxe_counter sent_pkts) r0=$(rxe_counter rcvd_pkts)
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/r 4 4; writers /mnt/t 2 1" >/tmp/b.json || exit 1
s1=$(rxe_counter sent_pkts) r1=$(rxe_counter rcvd_pkts)
x=$(ss_xprt /tmp/b.json $rsrv)
p=$(tail -n 1 /tmp/b.json | jq -c '.links.rdma_ports[] | select(.device == "rxe0")')
echo "note rdma transport link: $(echo "$x" | jq -c .link)"
echo "note rxe0: $(echo "$p" | jq -c 'del(.hw_counters)')"
check_eq "RDMA transport -> netdev" "$(echo "$x" | jq -r .link.netdev)" eth0
check_eq "RDMA transport -> device" "$(echo "$x" | jq -r .link.rdma_device)" rxe0
check_eq "RDMA transport -> port" "$(echo "$x" | jq -r .link.rdma_port)" 1
# from its own rdma_cm id, which iproute2 reads from the same kernel table apart from slotscope
check_eq "RDMA link from the transport's connection" "$(echo "$x" | jq -r .link.from)" connection
check_eq "iproute2: rpcrdma's connection to the server" \
	"$(rdma resource show cm_id | awk -v d="dst-addr $rsrv:20049" 'index($0, d) && /rpcrdma/ {print $2}' | sort -u)" rxe0/1
check_eq "TCP link from the kernel's route" "$(ss_get /tmp/b.json $tsrv .link.from)" route
check_eq "rxe0 link layer" "$(echo "$p" | jq -r .link_layer)" Ethernet
check_gt "rxe0 rate" "$(echo "$p" | jq '.rate_gbps * 10 | floor')" 0
check_eq "TCP transport still on lo" "$(ss_get /tmp/b.json $tsrv .link.netdev)" lo
# the report's window lies inside [s0, s1]; NFS is idle outside it
check_eq "rxe0 sent_pkts = the port's own delta" "$(echo "$p" | jq .hw_counters.sent_pkts)" $((s1 - s0))
check_eq "rxe0 rcvd_pkts = the port's own delta" "$(echo "$p" | jq .hw_counters.rcvd_pkts)" $((r1 - r0))
check_gt "packets for 16 MiB" $((s1 - s0)) 16000
# a port's state and rate are read at start and every 30 s, not every tick: rxe's driver logs
# each read of either ("eth0 speed is unknown"), so the log counts them
l0=$(dmesg | grep -c "speed is unknown")
slotscope -q 0.25 -d 3 >/dev/null 2>&1
l1=$(dmesg | grep -c "speed is unknown")
echo "note port queries logged by rxe over 12 ticks: $((l1 - l0))"
check_le "port state and rate read at start only (not 2 x 12 ticks)" $((l1 - l0)) 8
exit $CHECK_FAILED
