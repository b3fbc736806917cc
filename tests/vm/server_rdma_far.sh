# The server VM of test_whatif_rdma: nfsd on 192.168.100.1 and .3 over RDMA (rxe0 on eth1), each
# NFS/RDMA call held 1 s on its way in (rdma_call_delay), as a filer with cores to spare behind a
# long path: the round trip has a floor that the client's load does not move. 256 credits, so the
# client's slot table, not the server's grant, is what fills.
wire_up 192.168.100.1 || exit 1
# jumbo frames: rxe's 4 KiB MTU, a quarter of the packets an emulated CPU must push at 1 KiB
ip link set eth1 mtu 9000 || exit 1
ip addr add 192.168.100.3/24 dev eth1 || exit 1
nfsd_start 32 >/dev/null || exit 1
echo 256 >/proc/sys/sunrpc/svc_rdma/max_requests || exit 1
rxe_up eth1 || exit 1
rdma_call_delay eth1 1000 || exit 1
echo SLOTSCOPE_SERVER_READY
while :; do sleep 60; done
