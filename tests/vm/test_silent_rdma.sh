# A server gone silent over NFS/RDMA (#59, case b): writers of Slurm job 779 on an NFSv3/RDMA
# mount (soft-RoCE), then nfsd stopped (its threads set to 0: its RDMA listener and connections
# go, nothing answers, the client's reconnections are refused) for longer than the threshold,
# then started again. The mount turns not-answering within the threshold and one interval, the
# oldest request's age agrees with the test's clock to 1 s, the stuck writers' job is named,
# --check fails and then passes, and the replies counted equal mountstats' recvs. (c) --check
# alone names the server silent while processes wait on it holding no file there, and their jobs
# from the paths they are blocked on.
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup || { fail "cgroup2"; exit 1; }
nfsd_start 8 >/dev/null || exit 1
rxe_up || exit 1
THRESHOLD=5 IV=1 SJSON=/tmp/r.json
. /src/tests/vm/silent.inc

mount_rdma /mnt/r 3 || exit 1
srv=$LAST_SERVER
mkdir -p /export/r || exit 1
cg=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_779/step_0
mkdir -p $cg || exit 1
r0=$(mountstats_xprt /mnt/r recvs)
slotscope --json $IV -d 400 --silent-after $THRESHOLD --prom-file /tmp/r.prom >/tmp/r.json 2>/tmp/r.err &
i=0
until grep -q '"type":"interval"' /tmp/r.json 2>/dev/null || [ $i -ge 600 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1
sh -c "echo \$\$ >$cg/cgroup.procs && . /src/tools/vm/lib.sh &&
	while [ ! -f /tmp/stop ]; do writers /mnt/r/r 8 8 >/dev/null 2>&1; done; touch /tmp/done" &
sleep 5
healthy "(b)" /mnt/r
t0=$(up)
rpc.nfsd 0
T0_END=$(up)
turned "(b)" /mnt/r "NFSv3/RDMA, nfsd stopped"
sleep 2
echo "note (b) the writers' states: $(for p in $(pidof dd); do cut -d' ' -f3 /proc/$p/stat; done | sort | uniq -c | tr '\n' ' ')"
echo "note (b) the record: $(grep -a '"type":"interval"' /tmp/r.json | tail -n 1 | jq -c '.answers')"
check_eq "(b) the stuck writers' job named" \
	"$(grep -a '"type":"interval"' /tmp/r.json | tail -n 1 | jq -r '[.answers[] | select(.mountpoint == "/mnt/r") | .stuck[].job] | unique | join(" ")')" slurm:779
out=$(slotscope --check --prom-file /tmp/r.prom); rc=$?
check_eq "(b) --check: CRITICAL" $rc 2
echo "note (b) --check: $out"
out=$(slotscope --check --prom-file /tmp/none.prom --check-exit npd); rc=$?
check_eq "(b) --check alone, node-problem-detector's codes: a problem" $rc 1
echo "note (b) --check alone: $out"
case $out in *"/mnt/r: server $srv not answering for at least"*"jobs slurm:779 (measured now"*)
	echo "ok   (b) --check alone names the mount, server and job" ;;
*) echo "FAIL (b) --check alone: $out"; CHECK_FAILED=1 ;; esac
echo "note (b) the kernel's xprt_state: $(cat /sys/kernel/sunrpc/xprt-switches/*/xprt-*-rdma/xprt_state 2>/dev/null | tr '\n' ' ')"
t3=$(up)
rpc.nfsd 8 && echo 'rdma 20049' >/proc/fs/nfsd/portlist || fail "nfsd restart"
st=$(wait_state /mnt/r answering 90) || fail "(b) never answering again"
set -- $st
echo "note (b) nfsd back at $t3: answering in the interval ending $1 ($(awk -v a="$1" -v b="$t3" 'BEGIN { printf "%.1f", a - b }') s later)"
out=$(slotscope --check --prom-file /tmp/r.prom -m /mnt/r); rc=$?
check_eq "(b) --check: OK once it answers" $rc 0
touch /tmp/stop
i=0
while [ ! -f /tmp/done ] && [ $i -lt 240 ]; do sleep 0.5; i=$((i + 1)); done
sync
sleep 2
# ---- (c) nobody holds a file on the mount: a creat() waits in its LOOKUP, before it has a
# descriptor; the transport, not connected, publishes no queue: the RPC task on its switch
# (xprt_switch_info's queue_len) says the server is waited on
# (job 780); a stat() of a name never looked up, relative to its working directory /mnt, waits
# behind it (job 781): --check alone names both jobs from the paths they are blocked on
cg3=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_780/step_0
cg4=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_781/step_0
mkdir -p $cg3 $cg4 || fail "cgroups 780, 781"
rpc.nfsd 0
sh -c "echo \$\$ >$cg3/cgroup.procs && exec touch /mnt/r/c.new" &
tpid=$!
i=0
until [ "$(cut -d' ' -f3 /proc/$tpid/stat 2>/dev/null)" = D ] || [ $i -ge 40 ]; do sleep 0.25; i=$((i + 1)); done
sh -c "echo \$\$ >$cg4/cgroup.procs && cd /mnt && exec stat r/c.never" >/dev/null 2>&1 &
spid=$!
i=0
until [ "$(cut -d' ' -f3 /proc/$spid/stat 2>/dev/null)" = D ] || [ $i -ge 40 ]; do sleep 0.25; i=$((i + 1)); done
echo "note (c) stat: state $(cut -d' ' -f3 /proc/$spid/stat 2>/dev/null), call $(cut -d' ' -f1-3 /proc/$spid/syscall 2>/dev/null), cwd $(readlink /proc/$spid/cwd)"
echo "note (c) touch: state $(cut -d' ' -f3 /proc/$tpid/stat 2>/dev/null), $(ls /proc/$tpid/fd 2>/dev/null | wc -l) descriptors; the transport $(cat /sys/kernel/sunrpc/xprt-switches/*/xprt-*-rdma/xprt_state | tr -s ' '); $(grep -h queue_len /sys/kernel/sunrpc/xprt-switches/*/xprt_switch_info | tr '\n' ' ')"
out=$(slotscope --check --prom-file /tmp/none.prom -m /mnt/r); rc=$?
check_eq "(c) --check alone, a creat() waiting and no descriptor on the mount: CRITICAL" $rc 2
echo "note (c) --check alone: $out"
case $out in *"stuck: 2 processes, jobs "slurm:78[01]" "slurm:78[01]" (measured now"*)
	echo "ok   (c) --check alone names the creat()'s and the stat()'s jobs" ;;
*) echo "FAIL (c) --check alone, the jobs of the processes blocked on paths: $out"; CHECK_FAILED=1 ;; esac
rpc.nfsd 8 && echo 'rdma 20049' >/proc/fs/nfsd/portlist || fail "nfsd restart"
wait $tpid
check_eq "(c) the creat() done once nfsd is back" $? 0
wait $spid
kill -INT "$(pidof slotscope)"
wait
r1=$(mountstats_xprt /mnt/r recvs)
check_eq "(b) replies over the run = mountstats recvs delta" "$(ss_get /tmp/r.json $srv .recvs)" $((r1 - r0))
exit $CHECK_FAILED
