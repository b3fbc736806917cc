# make demo: a checkpoint-like write (192 writers x 2 MiB, fsync'd) over NFS/TCP with 128 slots
# and over NFS/RDMA on soft-RoCE, each traced by slotscope with a table every second.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/tcp 3 128 || exit 1
mount_rdma /mnt/rdma 3 || exit 1
for m in /mnt/tcp /mnt/rdma; do
	echo
	echo "=== checkpoint to $m: slotscope 1 -- 192 writers x 2 MiB"
	slotscope 1 -- sh -c ". /src/tools/vm/lib.sh; writers $m 192 2" || exit 1
	rm -f $m/ckpt.*
done
