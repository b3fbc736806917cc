# bench/ab.sh (in the VM): slotscope's own CPU, two builds alternating in one boot, so that the
# host's speed (which moves TCG timings by 2x between sessions) is the same for both. Put the
# builds at build/ab/slotscope-old and build/ab/slotscope-new, then:
#   SLOTSCOPE_NO_MAKE=1 tools/vm/run bench/ab.sh [ROUNDS]
# Prints "AB build mnt round secs user_s sys_s max_rss_kib startup_cpu_s" per write.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/tcp 3 128 >/dev/null || exit 1
mount_rdma /mnt/rdma 3 >/dev/null || exit 1
r=1
while [ $r -le ${1:-2} ]; do
	for m in /mnt/tcp /mnt/rdma; do
		for b in old new; do
			s=$(cut -d' ' -f1 /proc/uptime)
			/src/build/ab/slotscope-$b --json -- sh -c ". /src/tools/vm/lib.sh; writers $m 192 2 >/dev/null" >/tmp/self.json
			e=$(cut -d' ' -f1 /proc/uptime)
			echo "AB $b $m $r $(awk "BEGIN {print $e - $s}") $(tail -n 1 /tmp/self.json | jq -r '.self | "\(.user_s) \(.sys_s) \(.max_rss_kib) \(.startup_cpu_s)"')"
			rm -f $m/ckpt.*
		done
	done
	r=$((r + 1))
done
