# The server VM of two-VM tests: nfsd on 192.168.100.1 (and .3, for a second transport) over TCP
# and RDMA (rxe0 on eth1). It grants 256 credits, as a filer sized for 128-slot clients does, so
# that a client's slot table, not the server's credit limit, is what fills first.
wire_up 192.168.100.1 || exit 1
ip addr add 192.168.100.3/24 dev eth1 || exit 1
nfsd_start 32 >/dev/null || exit 1
# read when the RDMA listener accepts a connection: set before any client connects
echo 256 >/proc/sys/sunrpc/svc_rdma/max_requests || exit 1
rxe_up eth1 || exit 1
echo SLOTSCOPE_SERVER_READY
while :; do sleep 60; done
