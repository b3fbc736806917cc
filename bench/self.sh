# bench/self.sh (in the VM): slotscope's own CPU and peak RSS at a 1 s interval while it traces
# the benchmark's write, from getrusage in its JSON summary: once printing a JSON record every
# second (--json 1), once with no interval records: the same 1 s ticks, checkpoints and the summary
# only (--json -- CMD): what collecting costs without rendering.
#
# `self.sh ab [ROUNDS]`: two builds alternating in one boot instead (--json, ROUNDS rounds,
# default 2), so the host's speed, which moves TCG timings by 2x between sessions, is the same for
# both. Put them at build/ab/slotscope-old and build/ab/slotscope-new, then
#   SLOTSCOPE_NO_MAKE=1 tools/vm/run bench/self.sh ab
# Prints "SELF mnt/mode secs user_s sys_s max_rss_kib startup_cpu_s" per write ("AB build mnt
# round ..." in ab mode: the same fields after the round).
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/tcp 3 128 >/dev/null || exit 1
mount_rdma /mnt/rdma 3 >/dev/null || exit 1
# measure BIN MNT OPTS...: the write traced by BIN; "secs user_s sys_s max_rss_kib startup_cpu_s"
measure() {
	bin=$1 m=$2
	shift 2
	s=$(cut -d' ' -f1 /proc/uptime)
	$bin "$@" -- sh -c ". /src/tools/vm/lib.sh; writers $m 192 2 >/dev/null" >/tmp/self.json
	e=$(cut -d' ' -f1 /proc/uptime)
	echo "$(awk "BEGIN {print $e - $s}") $(tail -n 1 /tmp/self.json | jq -r '.self | "\(.user_s) \(.sys_s) \(.max_rss_kib) \(.startup_cpu_s)"')"
	rm -f $m/ckpt.*
}
if [ "${1:-}" = ab ]; then
	r=1
	while [ $r -le ${2:-2} ]; do
		for m in /mnt/tcp /mnt/rdma; do
			for b in old new; do
				echo "AB $b $m $r $(measure /src/build/ab/slotscope-$b $m --json)"
			done
		done
		r=$((r + 1))
	done
	exit 0
fi
for m in /mnt/tcp /mnt/rdma; do
	echo "SELF $m/json $(measure slotscope $m --json 1)"
	echo "SELF $m/quiet $(measure slotscope $m --json)"
done
