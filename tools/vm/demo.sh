# make demo: checkpoint-like writes (fsync'd) traced by slotscope, each ending with slotscope's
# checkpoint summary and verdict; the last lines compare them.
#
# NFS/TCP: the server answers every request 1 s late (netem on lo, see server_latency in lib.sh),
# so throughput is set by slots x wsize / RTT as on a real filer far away or under load, and not
# by the two emulated CPUs the client and nfsd share under TCG. A transport created with 128 slots
# (what storage vendors prescribe) is slot-bound; the same write on a transport with 4096 slots
# is faster and the verdict moves on (tests/vm/test_verdict_shift.sh checks both).
# NFS/RDMA (soft-RoCE): 128 slots (144 on Debian's 6.1.192) while the server grants 64 credits,
# then 128 credits. The RDMA link on a real wire is demo-rdma.sh's, on two VMs.
nfsd_start 16 >/dev/null || exit 1
rxe_up || exit 1
: >/tmp/demo.out
: >/tmp/demo.titles
: >/tmp/demo.knobs
run() {	# MNT N MIB TITLE
	demo_run "$@" || exit 1
	rm -f $1/ckpt.*
}
# a directory per writer (made on the server's side): creates in one directory serialize, one RTT each
writer_dirs /export/d128 96 && writer_dirs /export/d4096 96 || exit 1
mount_tcp /mnt/tcp128 3 128 wsize=32768 >/dev/null || exit 1
server_latency $LAST_SERVER 1000 >/dev/null || exit 1
run /mnt/tcp128/d128 96 1 "NFSv3/TCP, 128 slots, wsize 32 KiB, server RTT >= 1 s" \
	tcp_max_slot_table_entries 4096
mount_tcp /mnt/tcp4096 3 4096 wsize=32768 >/dev/null || exit 1
server_latency $LAST_SERVER 1000 >/dev/null || exit 1
run /mnt/tcp4096/d4096 96 1 "the same write, new transport with 4096 slots"
mount_rdma /mnt/rdma 3 >/dev/null || exit 1
run /mnt/rdma 192 2 "NFSv3/RDMA (soft-RoCE), 128 slots, server grants 64 credits" max_requests 128
echo 256 >/proc/sys/sunrpc/svc_rdma/max_requests
mount_rdma /mnt/rdma2 3 >/dev/null || exit 1
run /mnt/rdma2 192 2 "the same write, new transport, server grants 128 credits"
demo_recap
