# The server VM of two-VM tests: nfsd on 192.168.100.1 over TCP and RDMA (rxe0 on eth1).
wire_up 192.168.100.1 || exit 1
nfsd_start >/dev/null || exit 1
rxe_up eth1 || exit 1
echo SLOTSCOPE_SERVER_READY
while :; do sleep 60; done
