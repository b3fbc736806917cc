# A node's job map crowded by live cgroups (#63): a user's delegated subtree makes FILL_N cgroups
# that each read once and stay, under a checkpoint window that never closes (Slurm job 1 writes
# 64 KiB every 0.1 s). Before, an entry left the kernel's map only once its cgroup was gone: the
# map filled for good and no job after was counted. Now, past half its entries, those that stood
# still over a tick leave it whatever their cgroup, their counts kept in user space for the
# windows. The test build's map is FILL_CAP entries (SLOTSCOPE_TEST_JOBIO; 0: the real 16,384),
# so the default 800 cgroups crowd it as 20,000 crowd a node's. Shown against the kernel's own
# tables and counters:
# - the map (bpftool's dump of jobio, looked at every second) never full, its most stated;
# - no job's count dropped for want of room (counters.jobs_full 0);
# - then a new Slurm step (job 777) writes 1 MiB: the window names it, its 1 MiB of file calls
#   and at least that sent, and the window's RPC bytes are mountstats' WRITE bytes over the run;
# - slotscope's own CPU a tick, stated.
# A second slotscope traces the same run as nobody with the package unit's capabilities at
# Debian's default perf_event_paranoid (vmlinux's hooks alone: its VFS for the jobs, do_filp_open
# for the new contexts), and its window must carry no reader's WRITE either.
#% timeout: 1200
. /src/tests/vm/jobwin.inc
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/a 3 || exit 1
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup || { fail "cgroup2"; exit 1; }
N=${FILL_N:-800} CAP=${FILL_CAP:-256}
mkdir -p /mnt/a/c || exit 1
dd if=/dev/urandom of=/mnt/a/c/r bs=4k count=1 2>/dev/null || { fail "the file read"; exit 1; }
scope=/sys/fs/cgroup/system.slice/slurmstepd.scope fill=/sys/fs/cgroup/user.slice/fill
mkdir -p $scope/job_1/step_0 $scope/job_777/step_0 $fill || { fail "cgroups"; exit 1; }
up() { cut -d' ' -f1 /proc/uptime; }
# root's job map, by id: the unit's tracer has a jobio of its own, and bpftool's dump by name
# of two maps is an array of both (its length 2, whatever either held)
entries() { bpftool map dump id "$jid" -j 2>/dev/null | jq length; }
newest_jobio() { bpftool map show -j | jq '[.[] | select(.name == "jobio")] | max_by(.id) | .id'; }
echo 3 >/proc/sys/kernel/perf_event_paranoid
as_unit "exec slotscope -v --json 1 --ckpt-threshold 0.01 --mounts-of 1 >/tmp/u.json 2>/tmp/u.err" &
upid=$!
i=0; until grep -q '"interval"' /tmp/u.json 2>/dev/null || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
w0=$(mountstats_op /mnt/a WRITE bytes_sent)
if [ "$CAP" = 0 ]; then
	jobwin_start slotscope -v --json 1 --ckpt-threshold 0.01
	jid=$(newest_jobio)
	# the release's map, as documented (MAX_JOBIO): checked below, not read from the map itself
	CAP=16384
else
	jobwin_start env SLOTSCOPE_TEST_JOBIO=$CAP slotscope-faults -v --json 1 --ckpt-threshold 0.01
	jid=$(newest_jobio)
fi
check_eq "root's job map, its size" "$(bpftool map show id "$jid" -j | jq .max_entries)" "$CAP"
# the map's size every second while the cgroups come
( most=0; while [ ! -f /tmp/filled ]; do n=$(entries); [ "${n:-0}" -gt $most ] && most=$n; echo $most >/tmp/most; sleep 1; done ) &
sleep 2
t0=$(up)
# one shell steps through the cgroups, each read made by a child of it there
sh -c "i=0; while [ \$i -lt $N ]; do mkdir $fill/u\$i && echo \$\$ >$fill/u\$i/cgroup.procs &&
	dd if=/mnt/a/c/r of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null || exit 1; i=\$((i + 1)); done
	echo \$\$ >/sys/fs/cgroup/cgroup.procs" || fail "the cgroups' reads"
t1=$(up)
sleep 3
touch /tmp/filled
sleep 1.2
live=$(ls -d $fill/u* | wc -l) most=$(cat /tmp/most)
echo "note $live cgroups made, each read once, in $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }') s; the map of $CAP entries held at most $most, $(entries) now"
check_eq "the cgroups, live" "$live" "$N"
check_le "the map never full" "$most" $((CAP - 1))
sh -c "echo \$\$ >$scope/job_777/step_0/cgroup.procs && exec dd if=/dev/zero of=/mnt/a/c/step bs=64k count=16 oflag=direct 2>/dev/null" ||
	fail "job 777's step"
jobwin_end
i=0; until grep -q '"type":"checkpoint"' /tmp/u.json || [ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
kill -INT $upid
wait $upid
sum=$(jq -c 'select(.type == "summary")' /tmp/c.json | tail -n 1)
w=$(jq -c 'select(.type == "checkpoint")' /tmp/c.json | head -n 1)
echo "note the window: $(echo "$w" | jq -c '{n, duration_s, bytes_written, jobs_total, shown: [.jobs[] | {id, kind, io_bytes, rpc_bytes}]}')"
self=$(echo "$sum" | jq -c .self)
echo "note slotscope's own cost over $ticks intervals: $self, $(echo "$self" | jq --argjson n "$ticks" \
	'(.user_s + .sys_s - .startup_cpu_s) / $n * 1000 | floor') ms of emulated CPU a tick after its start"
grep "jobio" /tmp/c.err | tail -n 5 | sed "s/^/note /"
# runs the kernel skipped (counters.recursion_misses) are named: each may be a count short
grep -h "the kernel skipped" /tmp/c.err /tmp/u.err | sed "s/^/note /"
check_eq "no job's count dropped for want of room (counters.jobs_full)" "$(echo "$sum" | jq .counters.jobs_full)" 0
check_eq "one checkpoint window" "$(jq -s '[.[] | select(.type == "checkpoint")] | length' /tmp/c.json)" 1
check_eq "the new step named: job 777, its 1 MiB of file calls, at least that sent" \
	"$(echo "$w" | jq -c '[.jobs[] | select(.kind == "slurm" and .id == "777" and .io_bytes == 1048576 and .rpc_bytes >= 1048576)] | length')" 1
check_eq "the window's RPC bytes = mountstats WRITE bytes over the run" "$(echo "$w" | jq .jobs_total.rpc_bytes)" $((w1 - w0))
# the readers' open contexts and files are freed as they go, and job 1's next open may take both
# addresses: its O_DIRECT WRITE ends before its call names it, and went to the reader's job
check_eq "none of the readers' cgroups carried a WRITE (their contexts' addresses reused)" \
	"$(echo "$w" | jq '[.jobs[] | select(.kind == "cgroup" and .rpc_bytes > 0)] | length')" 0
check_eq "job 1's WRITEs all its own: the window's RPC bytes less job 777's" \
	"$(echo "$w" | jq '.jobs[] | select(.id == "1") | .rpc_bytes')" \
	"$(echo "$w" | jq '.jobs_total.rpc_bytes - (.jobs[] | select(.id == "777") | .rpc_bytes)')"
# the same under the unit's capabilities, where a new context is seen from vmlinux's open
uw=$(jq -c 'select(.type == "checkpoint")' /tmp/u.json | head -n 1)
echo "note the unit's window: $(echo "$uw" | jq -c '{n, duration_s, bytes_written, jobs_total, shown: [.jobs[] | {id, kind, rpc_bytes}]}')"
grep -v '^libbpf' /tmp/u.err | sed 's/^/note unit| /' | head -n 20
# do_filp_open(), do_file_open() from 7.0
check_eq "unit: new contexts seen from vmlinux's open" "$(sed -n 's/^slotscope: hook do_fil[pe]_open  *//p' /tmp/u.err | head -n 1)" fexit
check_eq "unit: one checkpoint window" "$(jq -s '[.[] | select(.type == "checkpoint")] | length' /tmp/u.json)" 1
check_eq "unit: the window's RPC bytes = mountstats WRITE bytes over the run" "$(echo "$uw" | jq .jobs_total.rpc_bytes)" $((w1 - w0))
check_eq "unit: none of the readers' cgroups carried a WRITE" \
	"$(echo "$uw" | jq '[.jobs[] | select(.kind == "cgroup" and .rpc_bytes > 0)] | length')" 0
check_eq "unit: job 1's WRITEs all its own" \
	"$(echo "$uw" | jq '.jobs[] | select(.id == "1") | .rpc_bytes')" \
	"$(echo "$uw" | jq '.jobs_total.rpc_bytes - ((.jobs[] | select(.id == "777") | .rpc_bytes) // 0)')"
check_eq "unit: nothing refused or failed" "$(grep -v '^libbpf' /tmp/u.err | grep -ic 'cannot\|refused\|fail')" 0
exit $CHECK_FAILED
