# Short jobs coming and going under a window that never closes (#63), in one boot. Slurm job 1's
# step writes 64 KiB every 0.1 s, so a checkpoint window stays open; beside it 120 short jobs are
# each a cgroup made, one 16 KiB direct write, and the cgroup removed. Before, the kernel's job
# map kept every one of them while a window was open (a week's loader filled it for good); now
# their counts are deleted from the map once their cgroup is gone and they stood still, window
# open or not, and kept in user space for the window. Shown against the kernel's own tables and
# counters:
# - the job map (bpftool's dump of jobio), 35 s after the last short job (a reap period and a
#   tick), holds job 1's entry and none of the 120, while the window is still open;
# - when job 1 stops, the window's jobs are the 121 (jobs_total), the short ones listed each its
#   16 KiB, and their RPC bytes add up to mountstats' WRITE bytes over the run: nothing deleted was
#   lost;
# - slotscope's own CPU per tick over the run (its summary's), stated.
. /src/tests/vm/jobwin.inc
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/a 3 || exit 1
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup || { fail "cgroup2"; exit 1; }
mkdir -p /mnt/a/c || exit 1
N=120
scope=/sys/fs/cgroup/system.slice/slurmstepd.scope
mkdir -p $scope/job_1/step_0 || { fail "cgroups"; exit 1; }
up() { cut -d' ' -f1 /proc/uptime; }
entries() { bpftool map dump name jobio -j 2>/dev/null | jq length; }
w0=$(mountstats_op /mnt/a WRITE bytes_sent)
jobwin_start slotscope -v --json 1 --ckpt-threshold 0.01
t0=$(up)
sleep 2
i=0
while [ $i -lt $N ]; do
	cg=$scope/job_$((1000 + i))
	mkdir -p $cg/step_0 || { fail "mkdir $cg"; break; }
	sh -c "echo \$\$ >$cg/step_0/cgroup.procs && exec dd if=/dev/zero of=/mnt/a/c/s.$i bs=16k count=1 oflag=direct 2>/dev/null" ||
		fail "job $((1000 + i))"
	rmdir $cg/step_0 $cg || fail "rmdir $cg"
	i=$((i + 1))
done
t1=$(up)
echo "note $N short jobs made, written and removed in $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }') s, the map then holding $(entries) entries"
sleep 35
n=$(entries)
echo "note 35 s later the map holds $n entries: $(bpftool map dump name jobio -j | jq -c '[.[] | .formatted.key.cgid // .key] | .[:4]')"
check_le "the job map, the window still open: job 1's entry, none of the $N gone" "$n" 1
check_eq "...the window still open" "$(jq -s '[.[] | select(.type == "checkpoint")] | length' /tmp/c.json)" 0
jobwin_end
w=$(jq -c 'select(.type == "checkpoint")' /tmp/c.json | head -n 1)
echo "note the window: $(echo "$w" | jq -c '{n, duration_s, bytes_written, jobs_total, shown: [.jobs[] | {id, rpc_bytes}]}')"
self=$(jq -c 'select(.type == "summary") | .self' /tmp/c.json | tail -n 1)
echo "note slotscope's own cost over $ticks intervals: $self, $(echo "$self" | jq --argjson n "$ticks" \
	'(.user_s + .sys_s - .startup_cpu_s) / $n * 1000 | floor') ms of emulated CPU a tick after its start"
check_eq "one checkpoint window" "$(jq -s '[.[] | select(.type == "checkpoint")] | length' /tmp/c.json)" 1
# 121 jobs: none of the short ones unnamed (those would be one "unknown" job)
check_eq "its jobs: job 1 and the $N short ones, each its own" "$(echo "$w" | jq .jobs_total.n)" $((N + 1))
check_eq "their RPC bytes = mountstats WRITE bytes over the run" "$(echo "$w" | jq .jobs_total.rpc_bytes)" $((w1 - w0))
# (a WRITE sent twice, its reply lost to a loaded host's connection, carried its bytes twice)
check_eq "the jobs listed: job 1 first, then short ones, each its 16 KiB of file calls and at least that sent" \
	"$(echo "$w" | jq -c '[.jobs[0].id, ([.jobs[1:][] | select(.kind == "slurm" and (.id | tonumber) >= 1000 and
		.io_bytes == 16384 and .rpc_bytes > 16384)] | length)]')" '["1",7]'
grep "^slotscope: jobio\|jobio:" /tmp/c.err | head -20 | sed "s/^/note /"; cp /tmp/c.json /out/ 2>/dev/null
exit $CHECK_FAILED
