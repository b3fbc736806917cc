# Windows of both kinds and the jobs behind them (#18), in one boot.
# 1. A restore: 64 readers read back 4 MiB each over a 16-slot NFSv3/TCP transport. It is a
#    window of kind "restore" whose read bytes are mountstats' READ bytes over the trace, and the
#    transport reads slot-bound in it; no checkpoint window is reported for it.
# 2. Jobs: writers placed in cgroups shaped like a Slurm job step and a Kubernetes pod (made under
#    /sys/fs/cgroup), started apart from slotscope (an exporter's view: no -- COMMAND), are named
#    by their job id and pod UID; two jobs writing at once on two mounts are told apart.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/r 3 16 || exit 1
mkdir -p /export/rd && i=0
while [ $i -lt 64 ]; do dd if=/dev/zero of=/export/rd/f.$i bs=1M count=4 2>/dev/null; i=$((i + 1)); done
# cold client cache: every byte crosses the transport
echo 3 >/proc/sys/vm/drop_caches
# beside it, the same restore in windows of at most a second (--window-max): each cut still busy,
# the next going on from it, so that the windows hold every byte and their jobs every call. Ahead
# of the 64 readers and the server's threads on the one vCPU (at their priority its ticks came
# 11 s apart, and the read was one window)
slotscope --json 0.5 --restore-threshold 0.001 --ckpt-threshold 100000 --window-max 1 >/tmp/m.json 2>/tmp/m.err &
mp=$!
renice -n -10 -p $mp >/dev/null || fail "renice"
i=0; until grep -q '"interval"' /tmp/m.json 2>/dev/null || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
b0=$(mountstats_op /mnt/r READ bytes_recv)
slotscope --json 0.5 --restore-threshold 0.001 --ckpt-threshold 100000 -- sh -c '
	i=0; while [ $i -lt 64 ]; do cat /mnt/r/rd/f.$i >/dev/null & i=$((i + 1)); done; wait' \
	>/tmp/r.json 2>/tmp/r.err || { cat /tmp/r.err; exit 1; }
b1=$(mountstats_op /mnt/r READ bytes_recv)
w=$(jq -c 'select(.type == "restore")' /tmp/r.json)
echo "note restore: $(echo "$w" | jq -c '{kind, n, duration_s, bytes_read, bytes_written, GBps, mixed, job, jobs}')"
check_eq "one restore window" "$(echo "$w" | jq -s length)" 1
check_eq "kind" "$(echo "$w" | jq -r .kind)" restore
check_eq "no checkpoint window for reads" "$(jq -s '[.[] | select(.type == "checkpoint")] | length' /tmp/r.json)" 0
check_eq "read bytes = mountstats READ bytes received" "$(echo "$w" | jq '.bytes_read | floor')" $((b1 - b0))
check_ge "256 MiB read" $(((b1 - b0) / 1048576)) 256
check_eq "the transport reads slot-bound in it" \
	"$(echo "$w" | jq -r --arg s "$LAST_SERVER" '.transports[] | select(.server == $s) | .verdict.class')" slot-bound
# the readers were seen (each a process the kernel counted); with no cgroup v2 hierarchy mounted
# yet, whose they are is unknown
check_ge "the readers were seen" "$(echo "$w" | jq '.jobs[0].processes')" 2
check_eq "...with no cgroup to name them" "$(echo "$w" | jq -r '[.job.kind, .job.id] | join(" ")')" "unknown "
check_eq "...and what they read, counted as they read it (64 x 4 MiB)" "$(echo "$w" | jq '.jobs[0].io_bytes')" 268435456
sleep 2
kill -INT $mp
wait $mp
m=$(jq -c 'select(.type == "restore")' /tmp/m.json)
echo "note --window-max 1: $(echo "$m" | jq -c '{n, duration_s, cut, bytes_read, io: [.jobs[].io_bytes]}' | tr '\n' ' ')"
# (the last is cut too when the reads ended at its second)
check_eq "--window-max 1: each cut, but maybe the last" "$(echo "$m" | jq -s '.[:-1] | map(.cut) | all')" true
# a window is cut at the first interval to end a second or more after its start: no longer than
# that and one interval, the longest that run reported (an interval whose sample disagreed with
# sysfs is not reported: the next spans both; 12.5 s were seen beside a loaded host's 64 readers)
iv=$(jq -s '[.[] | select(.type == "interval") | .interval_s] | max' /tmp/m.json)
# in windows: two at least, unless the whole restore fitted in one that long (a CI run's ticks
# stalled 5.5 s under the 64 readers: one interval held the restore's 6 s)
one=$(echo "$m" | jq -s --argjson iv "$iv" 'length == 1 and .[0].duration_s <= 1 + $iv + 0.05')
check_ge "--window-max 1: the restore in windows (one only if it fitted in one: $one)" \
	"$(echo "$m" | jq -s length)" "$([ "$one" = true ] && echo 1 || echo 2)"
check_eq "--window-max 1: none longer than a second and its longest interval ($iv s)" \
	"$(echo "$m" | jq -s --argjson iv "$iv" 'map(.duration_s <= 1 + $iv + 0.05) | all')" true
check_eq "--window-max 1: their read bytes = mountstats READ bytes received" \
	"$(echo "$m" | jq -s 'map(.bytes_read) | add | floor')" $((b1 - b0))
check_eq "--window-max 1: their jobs' calls, every one (64 x 4 MiB)" "$(echo "$m" | jq -s '[.[].jobs[].io_bytes] | add')" 268435456

# ---- jobs in cgroups
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup || { fail "cgroup2"; exit 1; }
slurm=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_4242/step_0
pod=3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b
k8s=/sys/fs/cgroup/kubepods/besteffort/pod$pod/0123456789abcdef
mkdir -p $slurm $k8s || { fail "cgroups"; exit 1; }
mount_tcp /mnt/a 3 || exit 1
mount_tcp /mnt/b 3 || exit 1
mkdir -p /mnt/a/w /mnt/b/w
# job CG WAIT DIR: 4 writers of 24 MiB each in 64 KiB direct writes, in cgroup CG
job() {
	sh -c "echo \$\$ >$1/cgroup.procs && cd / && i=0 &&
		while [ \$i -lt 4 ]; do dd if=/dev/zero of=$3/f.\$i bs=64k count=384 oflag=direct 2>/dev/null & i=\$((i + 1)); done; wait" &
}
slotscope --json 0.5 -d 600 --ckpt-threshold 0.5 >/tmp/j.json 2>/tmp/j.err &
sp=$!
i=0; until grep -q '"interval"' /tmp/j.json 2>/dev/null || [ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
job $slurm 0 /mnt/a/w
sleep 1; while pidof dd >/dev/null; do sleep 0.5; done; sleep 3
job $k8s 0 /mnt/b/w
sleep 1; while pidof dd >/dev/null; do sleep 0.5; done; sleep 3
job $slurm 0 /mnt/a/w; job $k8s 0 /mnt/b/w
sleep 1; while pidof dd >/dev/null; do sleep 0.5; done; sleep 3
kill -INT $sp; wait $sp
jq -c 'select(.type == "checkpoint") | {n, bytes_written, job, jobs}' /tmp/j.json | sed 's/^/note /'
c() { jq -c --argjson n "$1" 'select(.type == "checkpoint" and .n == $n)' /tmp/j.json; }
check_ge "three checkpoint windows" "$(jq -s '[.[] | select(.type == "checkpoint")] | length' /tmp/j.json)" 3
check_eq "window 1: the Slurm job" "$(c 1 | jq -r '[.job.kind, .job.id] | join(" ")')" "slurm 4242"
check_eq "window 1: its step" "$(c 1 | jq -r '.jobs[0].step')" 0
check_eq "window 1: its writers" "$(c 1 | jq -r '.jobs[0].processes')" 4
# A window opens at the first interval over the threshold (0.5 MB/s of 0.5 s ticks); its jobs
# count from the last interval without write calls (however many slow intervals a loaded host
# takes to cross it: CI once missed 3 x 64 KiB counting from one interval before) to the quiet
# tail's last call, so every byte each job wrote is the window's, exactly. The jobs write 3 s
# apart: no other job's calls fall there.
io_in() {
	for b in $(c "$1" | jq -r '.jobs[].io_bytes'); do
		check_eq "window $1: a job's bytes = 4 x 24 MiB, its quiet lead-in included" "$b" 100663296
	done
}
io_in 1
check_eq "window 2: the pod" "$(c 2 | jq -r '[.job.kind, .job.id] | join(" ")')" "kubernetes $pod"
check_eq "window 2: its container" "$(c 2 | jq -r '.jobs[0].step')" 0123456789abcdef
check_eq "window 3: both jobs, told apart" \
	"$(c 3 | jq -r '[.jobs[] | .kind + " " + .id] | sort | join(",")')" "kubernetes $pod,slurm 4242"
check_eq "window 3: four writers each" "$(c 3 | jq -r '[.jobs[].processes] | join(",")')" 4,4
check_eq "window 3: shares add up" "$(c 3 | jq '[.jobs[].share] | add | . * 1000 | round')" 1000
io_in 2
io_in 3
check_eq "the user" "$(c 1 | jq -r '.jobs[0].user')" root
exit $CHECK_FAILED
