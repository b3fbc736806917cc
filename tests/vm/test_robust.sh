# What operators and kernels do to a tracer, in one boot: a traced job stopped and continued, a
# closed pipe on stdout, a second instance on the same textfile, a wall-clock step during a
# checkpoint, mount points with a space and with a byte that is not UTF-8, and a multi-rail
# client (against a second VM, the server). test_robust.host checks the files left in /out with
# promtool, node_exporter and xmllint.
#% server: tests/vm/server_rdma.sh
# one vCPU in each VM: four vCPU threads on two cores spin on each other (333 s of CPU, not 43)
#% smp: 1
nfsd_start >/dev/null || exit 1
mount_tcp "/mnt/a b" 3 16 || exit 1
nu=$(printf '/mnt/n\377')
mount_tcp "$nu" 3 16 || exit 1
intervals() { grep -c '"type":"interval"' "$1"; }

# 1. the job stopped (a scheduler's suspend, Ctrl-Z) and continued: intervals go on meanwhile
# (a server VM shares the host's CPUs with this one: a tick can take a second and more, so the
# job stays stopped 5 s, about ten ticks, and two are asked for)
# The job names itself (pidof sleep also finds the VM's own sleeps, whose stop proves nothing);
# slotscope starts it once its programs are attached, so its pid file marks that ticks run.
rm -f /tmp/job.pid
( slotscope --json 0.5 -- sh -c 'echo $$ >/tmp/job.pid; exec sleep 10' >/tmp/stop.json 2>/tmp/stop.err
  echo $? >/tmp/stop.rc ) &
i=0
until [ -s /tmp/job.pid ] || [ $i -ge 600 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1
job=$(cat /tmp/job.pid)
kill -STOP $job
sleep 0.2
st=$(awk '/^State:/ { print $2 }' /proc/$job/status)
n0=$(intervals /tmp/stop.json)
sleep 5
n1=$(intervals /tmp/stop.json)
kill -CONT $job
wait
echo "note job $job stopped 5 s: intervals $n0 -> $n1"
check_eq "the job itself stopped" "$st" T
check_ge "job stopped 5 s: intervals meanwhile (0.5 s ticks)" $((n1 - n0)) 2
check_eq "job stopped and continued: exit status is the job's" "$(cat /tmp/stop.rc)" 0
check_eq "job stopped and continued: summary" "$(grep -c '"type":"summary"' /tmp/stop.json)" 1

# 1b. nohup: a SIGHUP ignored when slotscope starts stays ignored, for it and for its job
( trap '' HUP; exec slotscope -q 0.5 -- sh -c 'echo $$ >/tmp/nh.pid; sleep 4' 2>/tmp/nh.err ) &
nh=$!
i=0
until [ -s /tmp/nh.pid ] || [ $i -ge 100 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1
kill -HUP $nh
sleep 0.5
check_eq "nohup: slotscope survives a SIGHUP" "$(kill -0 $nh 2>/dev/null && echo alive)" alive
ign=$(awk '/^SigIgn/ { print $2 }' /proc/$(cat /tmp/nh.pid)/status)
check_eq "nohup: the job has SIGHUP ignored" $(( 0x$ign & 1 )) 1
wait $nh
check_eq "nohup: exit status the job's" $? 0

# 2. | head -n 1: the pipe closes; the files are still written, the job is stopped, nothing is left
mkdir -p /tmp/h
start=$(date +%s)
slotscope --json 0.5 --prom-file /tmp/h/p.prom --prom-keep --folded /tmp/h/f.folded \
	-- sh -c 'echo $$ >/tmp/h/job.pid; exec sleep 60' | head -n 1 >/tmp/head.out
# the job sleeps 60 s: done within half of that is done without waiting for it (a start under
# TCG takes 4-5 s, and 11 s in all was seen on a loaded host)
check_le "| head -n 1: slotscope done long before its job (within 30 s of 60)" $(($(date +%s) - start)) 30
check_eq "| head -n 1: the line head read" "$(jq -r .type /tmp/head.out)" audit
check_eq "| head -n 1: textfile written" "$(grep -c '^slotscope_tracing 1' /tmp/h/p.prom)" 1
check_eq "| head -n 1: folded stacks written" "$(ls /tmp/h/f.folded 2>/dev/null | wc -l)" 1
check_eq "| head -n 1: slotscope gone" "$(pidof slotscope)" ""
check_eq "| head -n 1: the job gone" "$(kill -0 "$(cat /tmp/h/job.pid)" 2>/dev/null && echo running)" ""

# 3. a second instance on the same textfile: refused in one line, the first goes on
mkdir -p /tmp/tf
( slotscope -q 0.5 -d 12 --prom-file /tmp/tf/s.prom 2>/tmp/first.err; echo $? >/tmp/first.rc ) &
i=0
until [ -f /tmp/tf/s.prom ] || [ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
slotscope -q 0.5 -d 2 --prom-file /tmp/tf/s.prom 2>/tmp/second.err
check_eq "second instance on the textfile: exit status" $? 64
check_eq "second instance: one line naming the first" \
	"$(grep -c "being written by another slotscope (pid $(pidof slotscope))" /tmp/second.err)/$(wc -l </tmp/second.err)" 1/1
t1=$(awk '/^slotscope_last_update_timestamp_seconds/ { print $2 }' /tmp/tf/s.prom)
sleep 2
t2=$(awk '/^slotscope_last_update_timestamp_seconds/ { print $2 }' /tmp/tf/s.prom)
check_eq "the first still writes" "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print (b > a) }')" 1
wait
check_eq "the first: exit status" "$(cat /tmp/first.rc)" 0

# 4. the wall clock stepped back an hour during a checkpoint: its duration stays the writers'
( slotscope --json 0.5 --ckpt-threshold 1 -- sh -c ". /src/tools/vm/lib.sh; writers '/mnt/a b' 32 2 & sleep 1.5;
	date -s @\$((\$(date +%s) - 3600)) >/dev/null; wait; sleep 2" >/tmp/ck.json 2>/tmp/ck.err ) &
wait
date -s @$(($(date +%s) + 3600)) >/dev/null
d=$(jq -r 'select(.type == "checkpoint") | .duration_s' /tmp/ck.json | head -n 1)
echo "note checkpoint duration across the step: $d s"
check_eq "wall step: a checkpoint" "$(jq -r 'select(.type == "checkpoint") | .n' /tmp/ck.json | head -n 1)" 1
check_eq "wall step: duration positive and under a minute" "$(awk -v d="$d" 'BEGIN { print (d > 0 && d < 60) }')" 1

# 5. names: a space and a byte that is not UTF-8; every output parses, the ops are attributed
slotscope --json --prom-file /out/names.prom --prom-keep --folded /out/names.folded --svg /out/names.svg \
	-- sh -c ". /src/tools/vm/lib.sh; writers '/mnt/a b' 8 1; writers '$nu' 8 1" >/tmp/names.json 2>/tmp/names.err
check_eq "names: exit status" $? 0
cp /tmp/names.json /out/names.json
check_eq "names: every JSON line parses" "$(jq -c . /tmp/names.json >/dev/null 2>&1 && echo yes)" yes
check_gt "names: WRITEs of '/mnt/a b'" "$(ss_op /tmp/names.json '/mnt/a b' WRITE .count)" 0
check_gt "names: WRITEs of the non-UTF-8 mount (\\\\xFF)" "$(ss_op /tmp/names.json '/mnt/n\xFF' WRITE .count)" 0
check_eq "names: audit finds the transport of '/mnt/a b'" \
	"$(head -n 1 /tmp/names.json | jq '.mounts[] | select(.mountpoint == "/mnt/a b") | .transports')" 1
check_eq "names: textfile label escaped" "$(grep -c 'mountpoint="/mnt/n\\\\xFF"' /out/names.prom | grep -vc '^0$')" 1
check_eq "names: folded lines well-formed" "$(grep -cvE '^[^ ]+ [0-9]+$' /out/names.folded)" 0
check_gt "names: folded frames of both mounts" "$(grep -c '/mnt/a\\x20b;\|/mnt/n\\xFF;' /out/names.folded)" 1

# 6. Multi-rail: a second link (rail1, a macvlan on the wire with its own address and MAC) and a
# policy rule that sends traffic for one server address (.3) over rail1, which the main table
# does not prefer (it routes the whole subnet by eth1). Each transport must be mapped to the link
# its traffic crosses, as the kernel decided it: NFS/TCP to .3 by the route the kernel resolves
# for the socket's addresses (rail1), to .1 by eth1; the rails' own byte counters say which link
# carried each write. (An RDMA transport's link comes from its own rdma_cm connection: test_links
# and test_rdma_slot_bound check that against iproute2. NFS/RDMA over a soft-RoCE device on a
# macvlan never connects under TCG, so it is not part of this test.)
wire_up 192.168.100.2 || exit 1
modprobe macvlan || { fail "modprobe macvlan"; exit 1; }
# each rail answers ARP for its own address only, so the server's replies to .4 reach rail1
sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
ip link add link eth1 name rail1 type macvlan mode bridge &&
	ip link set rail1 up &&
	ip addr add 192.168.100.4/24 dev rail1 noprefixroute &&
	ip route add 192.168.100.3 dev rail1 src 192.168.100.4 table 100 &&
	ip rule add to 192.168.100.3 lookup 100 pref 100 || { fail "rail1 and its rule"; exit 1; }
echo "note main table: $(ip route show | tr '\n' ';')"
echo "note route to .3: $(ip route get 192.168.100.3 | head -n 1)"
check_eq "the kernel routes .3 by rail1" "$(ip -o route get 192.168.100.3 | sed -n 's/.* dev \([^ ]*\).*/\1/p')" rail1
check_eq "the main table alone says eth1" "$(ip route show table main 192.168.100.0/24 | sed -n 's/.* dev \([^ ]*\).*/\1/p')" eth1

mount_tcp_at 192.168.100.3 /mnt/t3 3 "" >/dev/null || exit 1
mount_tcp_at 192.168.100.1 /mnt/t1 3 >/dev/null || exit 1

# a crowd of netdevs beside the rails (a container host's veths): their counters come from one
# rtnetlink dump a sample, in several datagrams, and the rails' are still exact
for i in $(seq 1 150); do ip link add "crowd$i" link eth0 type macvlan mode bridge || break; done
crowd=$(ls /sys/class/net | grep -c '^crowd')
r0=$(cat /sys/class/net/rail1/statistics/tx_bytes) e0=$(cat /sys/class/net/eth1/statistics/tx_bytes)
slotscope -v --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t3 2 8; writers /mnt/t1 2 8" \
	>/tmp/m.json 2>/tmp/m.err || { cat /tmp/m.err; exit 1; }
r1=$(cat /sys/class/net/rail1/statistics/tx_bytes) e1=$(cat /sys/class/net/eth1/statistics/tx_bytes)
# the DaemonSet's shape: the host's sysfs under --sysfs-root (a bind mount here), the host's
# network namespace: still one dump, and eth1's bytes its own (the route is then read from the
# tables, not asked of the kernel: the main table's eth1, so the writes go to .1 over it)
mkdir -p /tmp/hroot/sys && mount --bind /sys /tmp/hroot/sys || { fail "bind /sys"; exit 1; }
r2=$(cat /sys/class/net/eth1/statistics/tx_bytes)
slotscope -v --sysfs-root /tmp/hroot --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t1 2 4" \
	>/tmp/h.json 2>/tmp/h.err || { cat /tmp/h.err; exit 1; }
r3=$(cat /sys/class/net/eth1/statistics/tx_bytes)
# a kernel before 5.14 publishes no transports (sunrpc's sysfs, hidden here): said in one line,
# with what is then not proven, and the run reports as read
mount -t tmpfs none /tmp/hroot/sys/kernel/sunrpc || { fail "hide sunrpc's sysfs"; exit 1; }
w0=$(mountstats_op /mnt/t1 WRITE ops)
slotscope --sysfs-root /tmp/hroot --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t1 2 2" \
	>/tmp/u.json 2>/tmp/u.err
rc=$? w1=$(mountstats_op /mnt/t1 WRITE ops)
umount /tmp/hroot/sys/kernel/sunrpc
sed 's/^/note no sunrpc sysfs | /' /tmp/u.err
check_eq "no sunrpc sysfs: exit status" $rc 0
check_eq "...said in one line, naming what is not proven" \
	"$(grep -c 'xprt-switches is missing.*not proven against the kernel' /tmp/u.err)" 1
check_eq "...and the WRITEs still reported as read = mountstats delta" "$(ss_op /tmp/u.json /mnt/t1 WRITE .count)" $((w1 - w0))
umount /tmp/hroot/sys
hb=$(tail -n 1 /tmp/h.json | jq '.links.netdevs[] | select(.name == "eth1") | .tx_bytes')
check_eq "--sysfs-root on the host's sysfs: the dump too" "$(grep -c 'netdev counters: one rtnetlink dump' /tmp/h.err)" 1
check_ge "...eth1's tx bytes >= the 8 MiB written" "$hb" $((8 * 1048576))
check_le "...and <= its sysfs delta" "$hb" $((r3 - r2))
for i in $(seq 1 150); do ip link del "crowd$i" 2>/dev/null; done
nd() { tail -n 1 /tmp/m.json | jq --arg n "$1" ".links.netdevs[] | select(.name == \$n) | .$2"; }
echo "note netdev counters: $(grep -m1 'netdev counters' /tmp/m.err) ($crowd macvlans made)"
check_ge "150 more netdevs made" "$crowd" 150
check_ge "their counters from one rtnetlink dump a sample, all links in it" \
	"$(sed -n 's/.*netdev counters: one rtnetlink dump a sample (\([0-9]*\) links).*/\1/p' /tmp/m.err | head -n 1)" \
	$((crowd + 3))
check_ge "rail1's tx bytes in the run >= the 16 MiB written to .3" "$(nd rail1 tx_bytes)" $((16 * 1048576))
check_le "...and <= its sysfs counter's delta around the run" "$(nd rail1 tx_bytes)" $((r1 - r0))
check_le "eth1's tx bytes in the run <= its sysfs delta" "$(nd eth1 tx_bytes)" $((e1 - e0))
check_ge "eth1's >= the 16 MiB written to .1" "$(nd eth1 tx_bytes)" $((16 * 1048576))
xp() { tail -n 1 /tmp/m.json | jq -c --arg s "$1" --arg p "$2" '.transports[] | select(.server == $s and .proto == $p)'; }
t3=$(xp 192.168.100.3 tcp) t1=$(xp 192.168.100.1 tcp)
echo "note links: tcp .3 $(echo "$t3" | jq -c .link) tcp .1 $(echo "$t1" | jq -c .link)"
echo "note rail1 tx $((r1 - r0)) B, eth1 tx $((e1 - e0)) B"
check_eq "TCP to .3: rail1, by the kernel's route" "$(echo "$t3" | jq -r '[.link.netdev, .link.from] | join(" ")')" "rail1 route"
check_eq "TCP to .1: eth1" "$(echo "$t1" | jq -r '[.link.netdev, .link.from] | join(" ")')" "eth1 route"
# 16 MiB over each rail at least; rail1's counters are its own (the macvlan's), not eth1's
check_ge "rail1 carried the writes to .3 (MiB)" $(((r1 - r0) / 1048576)) 16
check_ge "eth1 carried the writes to .1 (MiB)" $(((e1 - e0) / 1048576)) 16
# each transport's link figures are its own rail's: rail1's bytes, not eth1's
check_gt "the .3 transport's link carried bytes" "$(echo "$t3" | jq '.link.tx_gbps * 1e6 | floor')" 0
check_eq "...and they are rail1's (the netdev table)" \
	"$(tail -n 1 /tmp/m.json | jq --argjson g "$(echo "$t3" | jq .link.tx_gbps)" '[.links.netdevs[] | select(.name == "rail1" and .tx_gbps == $g)] | length')" 1
exit $CHECK_FAILED
