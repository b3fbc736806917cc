# Faults not covered by test_faults: the transport's TCP connection killed mid-write (the client
# reconnects without an nfsd restart) and the textfile directory full. Tracing goes on; sends
# and (re)connections equal the kernel's own mountstats deltas; slots in use return to 0; a full
# directory is said once, leaves the last complete textfile and no temporary, and the file is
# written again once there is room.
nfsd_start >/dev/null || exit 1
modprobe tcp_diag || exit 1
mount_tcp /mnt/t 3 16 || exit 1
srv=$LAST_SERVER
mkdir -p /tmp/full && mount -t tmpfs -o size=256k tmpfs /tmp/full || exit 1
s0=$(mountstats_xprt /mnt/t sends) c0=$(mountstats_xprt /mnt/t connect_count)
# traced until the writers are done and SIGINT ends it (-d is only a bound)
( slotscope --json 0.5 -d 300 --prom-file /tmp/full/s.prom >/tmp/r.json 2>/tmp/r.err; echo $? >/tmp/r.rc ) &
# the audit is its first line, printed once every program is attached and counting
i=0
until [ -s /tmp/r.json ] || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1
( while [ ! -f /tmp/stop ]; do writers /mnt/t 16 1 >/dev/null 2>&1; done; touch /tmp/writers.done ) &
sleep 3
# kill the client's connection to nfsd: xs_tcp reconnects on the next transmission
x ss -K dst $srv dport = 2049 >/dev/null
sleep 3
x ss -K dst $srv dport = 2049 >/dev/null
sleep 2
cp /tmp/full/s.prom /tmp/before.prom
# fill the directory: the next rewrites fail with ENOSPC
dd if=/dev/zero of=/tmp/full/fill bs=4k 2>/dev/null
sleep 3
# a rewrite in progress has its temporary for a moment: a leftover one is there at every look
left=1
for i in 1 2 3 4 5 6; do
	ls -A /tmp/full | grep -q tmp || { left=0; break; }
	sleep 0.3
done
check_eq "dir full: no temporary left" $left 0
check_eq "dir full: textfile complete (same families)" "$(grep -c '^# TYPE' /tmp/full/s.prom)" \
	"$(grep -c '^# TYPE' /tmp/before.prom)"
check_eq "dir full: textfile ends with a whole line" "$(tail -c 1 /tmp/full/s.prom | od -An -c | tr -d ' ')" '\n'
rm /tmp/full/fill
sleep 2
touch /tmp/stop
# every RPC done before the trace ends: nothing may be left in flight
while [ ! -f /tmp/writers.done ]; do sleep 0.5; done
sync
sleep 2
kill -INT "$(pidof slotscope)"
wait
s1=$(mountstats_xprt /mnt/t sends) c1=$(mountstats_xprt /mnt/t connect_count)
check_eq "reconnect: exit status" "$(cat /tmp/r.rc)" 0
check_ge "reconnect: the kernel reconnected" $((c1 - c0)) 1
check_eq "reconnect: connects = mountstats connect_count delta" "$(ss_get /tmp/r.json $srv .connects)" $((c1 - c0))
check_eq "reconnect: sends = mountstats sends delta" "$(ss_get /tmp/r.json $srv .sends)" $((s1 - s0))
check_eq "reconnect: slots in use back to 0" "$(ss_get /tmp/r.json $srv .in_use)" 0
check_eq "reconnect: releases = acquires" "$(ss_get /tmp/r.json $srv .releases)" "$(ss_get /tmp/r.json $srv .acquires)"
check_eq "dir full: said once" "$(grep -c 'cannot write /tmp/full/s.prom: No space left on device' /tmp/r.err)" 1
check_eq "dir full: written again once there is room" "$(grep -c 's.prom written again' /tmp/r.err)" 1
echo "note $(tr '\n' ' ' </tmp/r.err)"
exit $CHECK_FAILED
