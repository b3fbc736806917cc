# A window's job named by what its RPCs carried (#63), in one boot. A login session of uid 1001
# keeps one MiB of a file in the page cache and rewrites it (cachehog: pwrite at offset 0, no
# close, no fsync) for the whole of a checkpoint window in which Slurm job 777's step writes
# 96 MiB (24 writers of 4 MiB, fsync'd, one after another); then re-reads a cached MiB for the
# whole of a restore window in which the step reads the 96 MiB back (O_DIRECT). Through the page
# cache the session moves more bytes than the job in each window (its io_bytes: the check that
# the case is the one asked about), yet it sends or fetches almost nothing: the windows' job and
# slotscope_last_window_job_info are job 777, whose RPC bytes are its data and no more than the
# mount's own count (mountstats, over its span), the session's under 1/16 of them. Traced at once
# by slotscope as root (with --prom-file) and as nobody with the package unit's capabilities at
# Debian's default perf_event_paranoid (vmlinux's VFS hooks name the jobs).
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/a 3 || exit 1
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup || { fail "cgroup2"; exit 1; }
echo 3 >/proc/sys/kernel/perf_event_paranoid
mkdir -p /mnt/a/j && chmod 1777 /mnt/a/j
cg_slurm=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_777/step_0
cg_sess=/sys/fs/cgroup/user.slice/user-1001.slice/session-4.scope
mkdir -p $cg_slurm $cg_sess || { fail "cgroups"; exit 1; }
MIB=1048576 N=24
# in CG as UID: the command
as() { sh -c "echo \$\$ >$1/cgroup.procs && exec capsh --gid=$2 --uid=$2 --shell=/bin/sh -- -c '$3'"; }
# the session's file, and the data the step reads back, written before the tracing
as $cg_sess 1001 "dd if=/dev/zero of=/mnt/a/j/hog bs=1M count=1 conv=fsync 2>/dev/null" || fail "the session's file"
i=0
while [ $i -lt $N ]; do
	dd if=/dev/zero of=/mnt/a/j/data.$i bs=4M count=1 conv=fsync 2>/dev/null || fail "the data"
	i=$((i + 1))
done
chmod 666 /mnt/a/j/data.*
slotscope --json 1 --ckpt-threshold 0.5 --restore-threshold 0.5 --prom-file /tmp/s.prom >/tmp/root.json 2>/tmp/root.err &
rp=$!
as_unit "exec slotscope -v --json 1 --ckpt-threshold 0.5 --restore-threshold 0.5 --mounts-of 1 >/tmp/unit.json 2>/tmp/unit.err" &
up=$!
tracing() { grep -q '"interval"' /tmp/$1.json 2>/dev/null; }
i=0; until tracing root && tracing unit || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
# a window: the hog from 2 s before the step to 5 s after it, what the step does, what the
# mount's own counts moved over the step's span (FIELD of OP)
window() {
	as $cg_sess 1001 "exec cachehog $1 /mnt/a/j/hog 600 5000" >/tmp/hog.$1 &
	hog=$!
	sleep 2
	b0=$(mountstats_op /mnt/a $3 $4)
	i=0
	while [ $i -lt $N ]; do
		as $cg_slurm 1000 "$(printf "$2" $i)" || fail "the step's $i"
		i=$((i + 1))
	done
	b1=$(mountstats_op /mnt/a $3 $4)
	# the window ends (its RPCs quiet) while the hog still runs: the textfile then names its job.
	# (The hog's close at exit sends its dirty MiB: a window of its own, the session's.)
	sleep 5
	cp /tmp/s.prom /tmp/s.$1
	# the hog itself (the job's shell, in the background, is its parent's parent)
	kill_matching "cachehog $1 "
	wait $hog
	echo "note $1: the session's calls moved $(cat /tmp/hog.$1) bytes; the mount's $3 $4 over the step: $((b1 - b0))"
	echo $((b1 - b0)) >/tmp/mnt.$1
	sleep 3
}
window rewrite "exec dd if=/dev/zero of=/mnt/a/j/ckpt.%d bs=4M count=1 conv=fsync 2>/dev/null" WRITE bytes_sent
# the step's reads go to the server (O_DIRECT); the session's MiB is read once, then cached
window reread "exec dd if=/mnt/a/j/data.%d of=/dev/null bs=4M iflag=direct 2>/dev/null" READ bytes_recv
kill -INT $rp $up
wait $rp $up
grep -v '^libbpf' /tmp/unit.err | sed 's/^/note unit| /' | head -n 20
for run in root unit; do
	for k in checkpoint:bytes_written:rewrite restore:bytes_read:reread; do
		kind=${k%%:*} by=${k#*:} mode=${k##*:}
		by=${by%:*}
		w=$(jq -c --arg k $kind 'select(.type == $k)' /tmp/$run.json | jq -sc "max_by(.$by)")
		echo "note $run $kind: $(echo "$w" | jq -c "{n, $by, duration_s, job, jobs: [.jobs[] | {kind, id, io_bytes, rpc_bytes, share}]}")"
		job() { echo "$w" | jq -c --arg i "$1" '[.jobs[] | select(.id == $i)] | first // {}'; }
		s=$(job 777) u=$(job session-4.scope)
		check_eq "$run $kind: a window" "$(echo "$w" | jq -r .kind)" $kind
		check_eq "$run $kind: the window's job is Slurm job 777" "$(echo "$w" | jq -r '[.job.kind, .job.id] | join(" ")')" "slurm 777"
		# the case asked about: the session moved more through the cache than the job did
		check_gt "$run $kind: the session's file calls moved more than the job's (io_bytes)" \
			"$(echo "$u" | jq '.io_bytes // 0')" "$(echo "$s" | jq '.io_bytes // 0')"
		check_ge "$run $kind: job 777's RPC bytes, its 96 MiB at least" "$(echo "$s" | jq '.rpc_bytes // 0')" $((N * 4 * MIB))
		check_le "$run $kind: job 777's RPC bytes, the mount's over its span at most (mountstats)" \
			"$(echo "$s" | jq '.rpc_bytes // 0')" "$(cat /tmp/mnt.$mode)"
		check_gt "$run $kind: job 777's RPC bytes, over 16 x the session's" \
			"$(echo "$s" | jq '.rpc_bytes // 0')" "$(( $(echo "$u" | jq '.rpc_bytes // 0') * 16 ))"
		check_gt "$run $kind: job 777's share of the RPC bytes, % (over 15/16)" \
			"$(echo "$s" | jq '(.share // 0) * 1000 | floor')" 937
	done
done
# the textfile as node_exporter read it once each window had ended
for k in checkpoint:rewrite restore:reread; do
	check_eq "--prom-file: the ${k%:*} window's job, as it ended" \
		"$(grep "^slotscope_last_window_job_info{kind=\"${k%:*}\"" /tmp/s.${k#*:} | sed 's/.*job_kind="\([^"]*\)",job_id="\([^"]*\)".*/\1 \2/')" "slurm 777"
done
check_eq "unit: nothing refused or failed" "$(grep -v '^libbpf' /tmp/unit.err | grep -ic 'cannot\|refused\|fail')" 0
exit $CHECK_FAILED
