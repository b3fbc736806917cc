# make demo, second part, on two VMs joined by a wire (the server: tests/vm/server_rdma.sh, which
# grants 256 credits): an NFS/RDMA checkpoint write with the default 128 slots, where the link
# carries a few percent of its rate while the slot table is full; then the same write on a new
# transport with 512 slots.
wire_up 192.168.100.2 || exit 1
vm_modules || exit 1
rdma link add rxe0 type rxe netdev eth1 || exit 1
: >/tmp/demo.out
: >/tmp/demo.titles
run() { demo_run $1 96 1 "$2" || exit 1; }	# MNT TITLE
# mnt SERVER MNT SLOTS: NFSv3 over RDMA to the server VM on a new transport with SLOTS slots
mnt() {
	mkdir -p $2
	echo $3 >/proc/sys/sunrpc/rdma_slot_table_entries
	timeout 120 mount.nfs $1:/export $2 -o vers=3,proto=rdma,port=20049,nolock,retry=0 || exit 1
	# a directory per writer: creates in one directory serialize, one RTT each
	writer_dirs $2/$3 96 || exit 1
}
mnt 192.168.100.1 /mnt/r128 128
run /mnt/r128/128 "NFSv3/RDMA over a wire, 128 slots, server grants 256 credits"
mnt 192.168.100.3 /mnt/r512 512
run /mnt/r512/512 "the same write, new transport with 512 slots"
demo_recap
