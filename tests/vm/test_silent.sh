# A server gone silent, named in seconds (#59), against the test's own clock and the kernel's
# counters, under a real Prometheus evaluating the project's rules:
#  (a) NFSv3/TCP, O_DIRECT writers of Slurm job 777 running (a WRITE always on its way: buffered
#      writes leave gaps of a second and more between writeback's bursts, and the oldest request
#      is then younger than the silence), every packet to the server dropped (netem
#      loss on lo), then let through again: the mount turns not-answering within the threshold
#      and one interval, the oldest request's age agrees with the test's clock to 1 s, the stuck
#      writers' job is named, the alert fires and clears, --check fails then passes (from the
#      service's textfile, and measured on its own), replies equal mountstats' recvs;
#  (d) no false alarm while a transport of 16 slots at a 1 s round trip makes its WRITEs wait
#      for a slot longer than the threshold, nor while connected across reconnections (the
#      connection killed twice; a reconnection that fails past the threshold is not-answering);
#  (c) a soft mount with timeo=10,retrans=1 silenced: its major timeouts and retransmissions
#      equal mountstats';
#  (e) NFSv4.1 (a session, SEQUENCE renewing the lease) silenced and let through again.
#% needs: prometheus
[ -n "${PROM_URL:-}" ] || { echo "FAIL no PROM_URL: run by tools/vm/run (#% needs: prometheus)"; exit 1; }
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup || { fail "cgroup2"; exit 1; }
nfsd_start 16 >/dev/null || exit 1
modprobe tcp_diag || exit 1
THRESHOLD=5 IV=1 SJSON=/tmp/s.json
. /src/tests/vm/silent.inc
# every packet to ADDR over lo is dropped (band 1:1 of lo's prio root, netem loss 100 %), or not
silence() {
	/sbin/tc filter add dev lo parent 1: protocol ip prio $((10 + ${1##*.})) u32 match ip dst $1/32 flowid 1:1 ||
		fail "silence $1"
}
unsilence() { /sbin/tc filter del dev lo parent 1: protocol ip prio $((10 + ${1##*.})) || fail "unsilence $1"; }
pq() { busybox wget -qO- "$PROM_URL/api/v1/query?query=$1" | jq -r "$2"; }
alerts() { pq "ALERTS%7Balertname%3D%22SlotscopeServerNotAnswering%22%2Cmountpoint%3D%22$1%22%2Calertstate%3D%22firing%22%7D" '.data.result | length'; }
# mountstats' sum of a per-op field (3: timeouts) or of ntrans - ops over every op of a mount
ms_ops() {
	awk -v m="$1" -v w="$2" '/^device / { on = ($5 == m) }
		on && $1 ~ /^[A-Z_0-9]+:$/ && NF >= 9 { s += (w == "retrans" ? $3 - $2 : $4) } END { print s + 0 }' /proc/self/mountstats
}

# the saturated server first: server_latency makes lo's prio root, whose band 1:1 then drops
mount_tcp /mnt/sat 3 16 || exit 1
sat=$LAST_SERVER
server_latency $sat 1000 || exit 1
/sbin/tc qdisc add dev lo parent 1:1 handle 10: netem loss 100% limit 100000 || { fail "netem loss band"; exit 1; }
mount_tcp /mnt/s 3 || exit 1
srv=$LAST_SERVER
mount_tcp /mnt/soft 3 "" "soft,timeo=10,retrans=1" || exit 1
soft=$LAST_SERVER
mount_tcp /mnt/v41 4.1 || exit 1
v41=$LAST_SERVER
mkdir -p /export/a /export/sat /export/v41 && writer_dirs /export/sat 16 || exit 1
cg=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_777/step_0
cg2=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_778/step_0
mkdir -p $cg $cg2 || exit 1
r0=$(mountstats_xprt /mnt/s recvs)
slotscope --json $IV -d 600 --silent-after $THRESHOLD --listen :9868 --prom-file /tmp/s.prom \
	>/tmp/s.json 2>/tmp/s.err &
i=0
until grep -q '"type":"interval"' /tmp/s.json 2>/dev/null || [ $i -ge 600 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1

# ---- (a) NFSv3/TCP silenced under the writers of job 777
sh -c "echo \$\$ >$cg/cgroup.procs && . /src/tools/vm/lib.sh &&
	while [ ! -f /tmp/stop.a ]; do writers /mnt/s/a 8 32 direct >/dev/null 2>&1; done; touch /tmp/done.a" &
sleep 4
healthy "(a)" /mnt/s
t0=$(up)
silence $srv
T0_END=$(last_reply /mnt/s 2)
turned "(a)" /mnt/s "NFSv3/TCP silenced"
unset T0_END
check_gt "(a) requests awaiting a reply" "$UNANSWERED" 0
# Prometheus (1 s scrapes and evaluations): the rule fires within two scrapes of the state turning
i=0
until [ "$(alerts /mnt/s)" = 1 ] || [ $i -ge 40 ]; do sleep 0.2; i=$((i + 1)); done
t2=$(up)
check_eq "(a) Prometheus: SlotscopeServerNotAnswering firing" "$(alerts /mnt/s)" 1
echo "note (a) the alert seen firing $(awk -v a="$t2" -v b="$TS1" 'BEGIN { printf "%.1f", a - b }') s after the interval that turned (the guest's polls)"
# on Prometheus's clock: from the last scrape that read the state not yet turned to the alert's
# activeAt (whole seconds): two scrapes and an evaluation at most (1 s each)
act=$(busybox wget -qO- "$PROM_URL/api/v1/alerts" | jq -r '[.data.alerts[] | select(.labels.alertname == "SlotscopeServerNotAnswering" and .labels.mountpoint == "/mnt/s") | .activeAt | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601] | min')
last0=$(pq 'slotscope_server_state%7Bstate%3D%22not-answering%22%2Cmountpoint%3D%22%2Fmnt%2Fs%22%7D%5B2m%5D' \
	'[.data.result[0].values[] | select(.[1] == "0") | .[0]] | max | floor')
fired=$((act - last0))
echo "note (a) Prometheus: last read answering at $last0, the alert active at $act: ${fired} s"
check_le "(a) the alert within two scrapes and an evaluation (Prometheus's clock, whole seconds: 1 s of rounding)" "$fired" 4
echo "note (a) the kernel's xprt_state: $(cat /sys/kernel/sunrpc/xprt-switches/*/xprt-*-tcp/xprt_state 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
sleep 1
l=$(grep -a '"type":"interval"' /tmp/s.json | tail -n 1)
jset job='.answers[] | select(.mountpoint == "/mnt/s") | .stuck[].job' \
	nstuck='[.answers[] | select(.mountpoint == "/mnt/s") | .stuck[]] | length' \
	rep="xprt(\"$srv\").recvs" <<EOF
$l
EOF
check_eq "(a) the stuck writers' job named" "$job" slurm:777
check_gt "(a) stuck writers" "$nstuck" 0
check_eq "(a) no reply in the interval" "$rep" 0
# the service's word, and the check measured on its own (no fresh textfile at that path)
out=$(slotscope --check --prom-file /tmp/s.prom); rc=$?
check_eq "(a) --check: CRITICAL from the service's textfile" $rc 2
echo "note (a) --check: $out"
case $out in *"/mnt/s: server $srv not answering"*slurm:777*) echo "ok   (a) --check names the mount, server and job" ;;
*) echo "FAIL (a) --check line: $out"; CHECK_FAILED=1 ;; esac
ts=$(up)
out=$(slotscope --check --prom-file /tmp/none.prom -m /mnt/s); rc=$?
check_eq "(a) --check measured on its own: CRITICAL" $rc 2
echo "note (a) --check alone ($(awk -v a="$(up)" -v b="$ts" 'BEGIN { printf "%.1f", a - b }') s): $out"
case $out in *"/mnt/s: server $srv not answering for at least"*slurm:777*) echo "ok   (a) --check alone names the mount, server and job" ;;
*) echo "FAIL (a) --check alone: $out"; CHECK_FAILED=1 ;; esac
cp /tmp/s.prom /out/silent.prom
t3=$(up)
unsilence $srv
st=$(wait_state /mnt/s answering 60) || fail "(a) never answering again"
set -- $st
echo "note (a) let through at $t3: answering in the interval ending $1 ($(awk -v a="$1" -v b="$t3" 'BEGIN { printf "%.1f", a - b }') s later: TCP's retransmission backoff)"
i=0
until [ "$(alerts /mnt/s)" = 0 ] || [ $i -ge 20 ]; do sleep 0.5; i=$((i + 1)); done
check_eq "(a) Prometheus: the alert resolved" "$(alerts /mnt/s)" 0
out=$(slotscope --check --prom-file /tmp/s.prom -m /mnt/s); rc=$?
check_eq "(a) --check: OK once it answers" $rc 0

# ---- (d) a reconnection under the writers: no alarm
# Each reset is normally reconnected at once (xs_close() zeroes the reestablish delay). But a
# reconnection that fails backs off: xs_connect() waits xprt_reconnect_delay() (until the last
# connect's start plus reestablish_timeout) and xprt_reconnect_backoff() doubles that from
# XS_TCP_INIT_REEST_TO (3 s) to XS_TCP_MAX_REEST_TO (5 min), so a second try starts 3 s on and a
# third 6 s (a clean-clone run: 4 connections for 2 resets 2 s apart, two intervals
# not-answering). A transport with no connection past the threshold is not-answering
# by definition (docs/json.md: disconnected), as a server that takes none would be. So each reset
# here waits for its reconnection, and what is checked is that no interval says not-answering
# while the transport is connected.
c0=$(mountstats_xprt /mnt/s connect_count)
n0=$(grep -ac '"type":"interval"' /tmp/s.json)
for k in 1 2; do
	x ss -K dst $srv dport = 2049 >/dev/null
	i=0
	until [ "$(mountstats_xprt /mnt/s connect_count)" -ge $((c0 + k)) ] || [ $i -ge 40 ]; do sleep 0.25; i=$((i + 1)); done
	echo "note (d) reset $k: reconnected after $(awk -v i=$i 'BEGIN { printf "%.2f", i / 4 }') s"
done
sleep 4
touch /tmp/stop.a
# the intervals up to here, the writers still writing (ended next: idle after)
n1=$(grep -ac '"type":"interval"' /tmp/s.json)
# their batches are long (32 MiB a writer), so that one is on its way whenever the server goes
# silent (between batches of 4 MiB the next WRITE came 1.2 s after the silence once, under load):
# ended here, not waited for
kill_matching 'of=/mnt/s/a/'
check_ge "(d) the kernel reconnected after each reset" $(($(mountstats_xprt /mnt/s connect_count) - c0)) 2
rows=$(grep -a '"type":"interval"' /tmp/s.json | sed -n "$((n0 + 1)),${n1}p" | jq -c '.answers[] | select(.mountpoint == "/mnt/s")')
echo "note (d) states: $(echo "$rows" | jq -r '.state + (if .disconnected then "(disconnected)" else "" end)' | sort | uniq -c | tr '\n' ' ')"
check_eq "(d) never not-answering while connected, across the reconnections" \
	"$(echo "$rows" | jq -r 'select(.state == "not-answering" and (.disconnected | not)) | .state' | grep -c .)" 0
check_eq "(d) any not-answering only past the threshold without a connection" \
	"$(echo "$rows" | jq -r 'select(.state == "not-answering" and .silent_s < .threshold_s) | .state' | grep -c .)" 0
check_gt "(d) answering again after them" "$(echo "$rows" | tail -n 3 | jq -r .state | grep -cx answering)" 0

# ---- (d) 16 slots at a 1 s round trip, 16 writers of 12 MiB (fsync'd: 192 WRITEs at once):
# slot waits past the threshold
n0=$(grep -ac '"type":"interval"' /tmp/s.json)
WRITERS_TOGETHER=1 writers /mnt/sat/sat 16 12 || fail "(d) saturating writers"
sleep 2
lines=$(grep -a '"type":"interval"' /tmp/s.json | tail -n +$((n0 + 1)))
wmax=$(echo "$lines" | jq -r --arg s "$sat" "$SS_JQ [xprt(\$s) | .waits.slot.max_ns // 0] | max // 0" | sort -n | tail -n 1)
echo "note (d) saturated: the longest slot wait $(awk -v a="$wmax" 'BEGIN { printf "%.1f", a / 1e9 }') s; states: $(echo "$lines" | jq -r '.answers[] | select(.mountpoint == "/mnt/sat") | .state' | sort | uniq -c | tr '\n' ' ')"
fgt "$wmax" "$((THRESHOLD * 1000000000))" && echo "ok   (d) slot waits past the threshold" ||
	{ echo "FAIL (d) the longest slot wait ($wmax ns) is not past the threshold"; CHECK_FAILED=1; }
check_eq "(d) a saturated table is never not-answering" \
	"$(echo "$lines" | jq -r '.answers[] | select(.mountpoint == "/mnt/sat") | .state' | grep -c not-answering)" 0
check_eq "(d) no alert for the saturated mount" \
	"$(pq 'max_over_time(ALERTS%7Bmountpoint%3D%22%2Fmnt%2Fsat%22%7D%5B10m%5D)' '.data.result | length')" 0

# ---- (c) a soft mount silenced: its major timeouts and retransmissions, the kernel's own
silence $soft
dd if=/dev/zero of=/mnt/soft/f bs=64k count=2 oflag=direct 2>/dev/null && fail "(c) a write to a silent soft mount succeeded"
stat /mnt/soft/f >/dev/null 2>&1
unsilence $soft
sleep 3
ls /mnt/soft >/dev/null
sleep 2
tmo=$(ms_ops /mnt/soft timeouts) rtx=$(ms_ops /mnt/soft retrans)
# the exposition's row of the mount (--listen's default: a mount's series)
pt=$(sed -n "s/^slotscope_major_timeouts_total{mountpoint=\"\/mnt\/soft\",server=\"$soft\"} //p" /tmp/s.prom)
pr=$(sed -n "s/^slotscope_retransmissions_total{mountpoint=\"\/mnt\/soft\",server=\"$soft\"} //p" /tmp/s.prom)
cp /tmp/s.prom /out/soft.prom
echo "note (c) soft: major timeouts $pt (mountstats $tmo), retransmissions $pr (mountstats $rtx)"
check_gt "(c) the kernel counted major timeouts" "$tmo" 0
check_eq "(c) major timeouts = mountstats'" "$pt" "$tmo"
check_eq "(c) retransmissions = mountstats'" "$pr" "$rtx"

# ---- (e) NFSv4.1 silenced under the writers of job 778
sh -c "echo \$\$ >$cg2/cgroup.procs && . /src/tools/vm/lib.sh &&
	while [ ! -f /tmp/stop.e ]; do writers /mnt/v41/v41 8 32 direct >/dev/null 2>&1; done; touch /tmp/done.e" &
sleep 4
t0=$(up)
silence $v41
T0_END=$(last_reply /mnt/v41 2)
turned "(e)" /mnt/v41 "NFSv4.1 silenced"
unset T0_END
sleep 2
check_eq "(e) the stuck writers' job named" \
	"$(grep -a '"type":"interval"' /tmp/s.json | tail -n 1 | jq -r '[.answers[] | select(.mountpoint == "/mnt/v41") | .stuck[].job] | unique | join(" ")')" slurm:778
unsilence $v41
wait_state /mnt/v41 answering 60 >/dev/null || fail "(e) never answering again"
touch /tmp/stop.e
kill_matching 'of=/mnt/v41/v41/'
i=0
while { [ ! -f /tmp/done.a ] || [ ! -f /tmp/done.e ]; } && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
sync
sleep 2
kill -INT "$(pidof slotscope)"
wait
r1=$(mountstats_xprt /mnt/s recvs)
check_eq "(a) replies over the run = mountstats recvs delta" "$(ss_get /tmp/s.json $srv .recvs)" $((r1 - r0))
echo "note $(grep -v '^slotscope: ' /tmp/s.err | tr '\n' ' ')"
exit $CHECK_FAILED
