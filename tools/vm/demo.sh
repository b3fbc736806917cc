# make demo: checkpoint-like writes (192 writers x 2 MiB, fsync'd) traced by slotscope:
# NFS/TCP with a small slot table, then the same with 128 slots; NFS/RDMA on soft-RoCE with the
# default 128 slots, then with the server granting more credits. Each ends with slotscope's
# checkpoint summary and verdict; the last lines compare them.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
run() {	# MNT TITLE
	echo
	echo "=================== $2"
	echo "# slotscope --ckpt-threshold 1 --ckpt-quiet 4 -- <192 writers x 2 MiB to $1>"
	slotscope --ckpt-threshold 1 --ckpt-quiet 4 -- sh -c ". /src/tools/vm/lib.sh; writers $1 192 2" |
		tee -a /tmp/demo.out || exit 1
	echo "$2" >>/tmp/demo.titles
	rm -f $1/ckpt.*
}
mount_tcp /mnt/tcp16 3 16 >/dev/null || exit 1
run /mnt/tcp16 "NFSv3/TCP, transport created with tcp_max_slot_table_entries=16"
mount_tcp /mnt/tcp128 3 128 >/dev/null || exit 1
run /mnt/tcp128 "the same write, new transport with 128 slots"
mount_rdma /mnt/rdma 3 >/dev/null || exit 1
run /mnt/rdma "NFSv3/RDMA (soft-RoCE), 128 slots, server grants 64 credits"
echo 256 >/proc/sys/sunrpc/svc_rdma/max_requests
mount_rdma /mnt/rdma2 3 >/dev/null || exit 1
run /mnt/rdma2 "the same write, new transport, server grants 128 credits"
echo
echo "=================== recap (first checkpoint of each run)"
i=0
grep '^Checkpoint 1:' /tmp/demo.out | while read -r line; do
	i=$((i + 1))
	printf '%-62s %s\n' "$(sed -n "${i}p" /tmp/demo.titles)" "$(echo "$line" | sed 's/.*written, //')"
done
