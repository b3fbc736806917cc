# make demo, second part, on two VMs joined by a wire (the server: tests/vm/server_rdma.sh, which
# grants 256 credits): an NFS/RDMA checkpoint write with the default 128 slots, where the link
# carries a few percent of its rate while the slot table is full; then the same write on a new
# transport with 512 slots, where the server's 256 credits become the limit.
wire_up 192.168.100.2 || exit 1
rxe_up eth1 || exit 1
: >/tmp/demo.out
: >/tmp/demo.titles
: >/tmp/demo.knobs
# a new transport needs a server address no mount uses yet: the server VM has .1 and .3; 64 KiB
# WRITEs queue long enough behind the slot table that its waits dominate in every run
mount_rdma_at 192.168.100.1 /mnt/r128 3 128 wsize=65536 >/dev/null || exit 1
# a directory per writer: creates in one directory serialize, one RTT each
writer_dirs /mnt/r128/w128 96 || exit 1
demo_run /mnt/r128/w128 96 1 "NFSv3/RDMA over a wire, 128 slots, wsize 64 KiB, 256 credits" \
	rdma_slot_table_entries 512 || exit 1
mount_rdma_at 192.168.100.3 /mnt/r512 3 512 wsize=65536 >/dev/null || exit 1
writer_dirs /mnt/r512/w512 96 || exit 1
demo_run /mnt/r512/w512 96 1 "the same write, new transport with 512 slots" || exit 1
demo_recap
