# bench/self.sh (in the VM): slotscope's own CPU and peak RSS at a 1 s interval while it traces
# the benchmark's write, from getrusage in its JSON summary: once printing a JSON record every
# second (--json 1), once with no interval records: the same 1 s ticks, checkpoints and the summary
# only (--json -- CMD): what collecting costs without rendering.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/tcp 3 128 >/dev/null || exit 1
mount_rdma /mnt/rdma 3 >/dev/null || exit 1
for m in /mnt/tcp /mnt/rdma; do
	for mode in json quiet; do
		opts="--json 1"
		[ $mode = quiet ] && opts="--json"
		s=$(cut -d' ' -f1 /proc/uptime)
		slotscope $opts -- sh -c ". /src/tools/vm/lib.sh; writers $m 192 2 >/dev/null" >/tmp/self.json
		e=$(cut -d' ' -f1 /proc/uptime)
		echo "SELF $m/$mode $(awk "BEGIN {print $e - $s}") $(tail -n 1 /tmp/self.json | jq -r '.self | "\(.user_s) \(.sys_s) \(.max_rss_kib) \(.startup_cpu_s)"')"
		rm -f $m/ckpt.*
	done
done
