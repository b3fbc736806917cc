# The .deb's life under Debian 12's own systemd (KERNEL=systemd: a root made by debootstrap from
# the archive, booted with systemd as PID 1; tools/vm/build-sysroot), each step checked where a
# fleet needs the service: installed disabled with its user and its ACL on node_exporter's
# directory; started, it runs as that user with no capability left after attach, in the unit's
# real sandbox at the distribution's default perf_event_paranoid, and its textfile counts a
# checkpoint's WRITEs as mountstats does; an upgrade of a running service leaves it running and
# restarts it on the new binary, keeping the operator's defaults; an upgrade of a stopped one starts
# nothing; a removal stops it and takes its textfile away; a purge removes the ACL entry, then the
# user. The package installed first is the same build under a lower version (dpkg-deb -R, -b).
# --listen: refused in the unit's sandbox with the fix named, served with the shipped drop-in
# and scraped by a real Prometheus.
#% needs: prometheus
new=$(ls $OBJ/deb/slotscope_*.deb 2>/dev/null | head -n 1)
[ -n "$new" ] || { echo "FAIL no .deb in $OBJ/deb: make deb"; exit 1; }
ver=$(dpkg-deb -f "$new" Version)
rm -rf /tmp/old && dpkg-deb -R "$new" /tmp/old &&
	sed -i 's/^Version: .*/Version: 0.0.1-1/' /tmp/old/DEBIAN/control &&
	dpkg-deb -Zgzip -b /tmp/old /tmp/old.deb >/dev/null || { echo "FAIL repacking $new as 0.0.1-1"; exit 1; }
dir=/var/lib/prometheus/node-exporter prom=$dir/slotscope.prom
mkdir -p $dir	# node_exporter's textfile directory, as its package makes it
check_eq "PID 1" "$(cat /proc/1/comm)" systemd
check_eq "perf_event_paranoid (Debian's default)" "$(cat /proc/sys/kernel/perf_event_paranoid)" 3
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 16 || exit 1

active() { systemctl is-active slotscope.service 2>/dev/null; }
mainpid() { systemctl show -p MainPID --value slotscope.service; }
# prom_get NAME: the value of the textfile's series NAME (a full name with its labels)
prom_get() { awk -v n="$1" '$1 == n { print $2; f = 1 } END { if (!f) print "none" }' $prom; }
# fresh: wait (60 s at most) for a textfile written after now
fresh() {
	: >/tmp/mark
	i=0
	until [ $prom -nt /tmp/mark ] || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
	[ $prom -nt /tmp/mark ]
}
status() { grep "^$2:" /proc/$1/status | awk '{ print $2 }'; }

dpkg -i /tmp/old.deb >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; echo "FAIL dpkg -i 0.0.1-1"; exit 1; }
check_eq "install: the slotscope user" "$(getent passwd slotscope | cut -d: -f1)" slotscope
check_eq "install: installed disabled" "$(systemctl is-enabled slotscope.service 2>/dev/null)" disabled
check_eq "install: not started" "$(active)" inactive
check_eq "install: the group's ACL entry on $dir" "$(getfacl -cp $dir 2>/dev/null | grep -c '^group:slotscope:rwx')" 1
# the operator's choice, kept through upgrades (a conffile): a textfile every second
sed -i 's/^INTERVAL=.*/INTERVAL=1/' /etc/default/slotscope
systemctl start slotscope.service
fresh && grep -q '^slotscope_tracing 1' $prom
check_eq "start: the textfile says it traces" "$(sed -n 's/^slotscope_tracing //p' $prom)" 1
check_eq "start: active" "$(active)" active
pid=$(mainpid)
check_eq "start: runs as the slotscope user" "$(status $pid Uid | xargs getent passwd | cut -d: -f1)" slotscope
check_eq "start: no capability left after attach (CapEff)" "$(status $pid CapEff)" 0000000000000000
check_eq "start: no ambient capability (CapAmb)" "$(status $pid CapAmb)" 0000000000000000
check_eq "start: NoNewPrivs" "$(status $pid NoNewPrivs)" 1
# a checkpoint's WRITEs, in the service's textfile as in mountstats
m='{mountpoint="/mnt/t"}'
fresh
b0=$(prom_get "slotscope_written_bytes_total$m") k0=$(mountstats_op /mnt/t WRITE bytes_sent)
writers /mnt/t 8 2
sync
fresh && fresh
b1=$(prom_get "slotscope_written_bytes_total$m") k1=$(mountstats_op /mnt/t WRITE bytes_sent)
[ "$b0" = none ] && b0=0
check_eq "the service counts the write's bytes as mountstats" "$((b1 - b0))" "$((k1 - k0))"
systemd-analyze security slotscope.service >/tmp/sec.txt 2>&1
expo=$(sed -n 's/.*Overall exposure level for slotscope.service: \([0-9.]*\).*/\1/p' /tmp/sec.txt)
echo "note systemd-analyze security: $expo"
check_eq "the unit's exposure under systemd 252 at most 2.0" "$(echo "$expo" | awk '{ print ($1 > 0 && $1 <= 2.0) ? "yes" : "no" }')" yes

# --listen under the unit (#61): in its sandbox an IP socket is refused, exit 77 with the fix
# named; with the shipped drop-in the service serves /metrics, and the host's Prometheus scrapes
# it through the forwarded port 9868. HTTP by perl (perl-base is in every Debian root)
get() { perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(PeerAddr => $ARGV[0], Timeout => 5) or exit 1;
	print $s "GET $ARGV[1] HTTP/1.0\r\n\r\n"; print while <$s>' "$1" "$2"; }
# a unit of the service's user, capabilities and address families (no D-Bus here: no systemd-run)
cat >/run/systemd/system/sslisten.service <<'UNIT'
[Service]
Type=oneshot
User=slotscope
AmbientCapabilities=CAP_BPF CAP_PERFMON
RestrictAddressFamilies=AF_UNIX AF_NETLINK
ExecStart=/usr/sbin/slotscope -q 1 -d 2 --listen :9869
UNIT
systemctl daemon-reload
systemctl start sslisten.service 2>/dev/null
rc=$(systemctl show -p ExecMainStatus --value sslisten.service)
journalctl -b -u sslisten.service -o cat | grep '^slotscope:' >/tmp/l.err
echo "note in the unit's address families: exit $rc, $(cat /tmp/l.err)"
check_eq "--listen in the unit's sandbox: exit 77 (a missing permission)" "$rc" 77
check_eq "--listen in the unit's sandbox: the drop-in named" "$(grep -c 'systemd/listen.conf' /tmp/l.err)" 1
install -D -m 0644 /usr/share/slotscope/systemd/listen.conf /etc/systemd/system/slotscope.service.d/listen.conf
systemctl daemon-reload && systemctl restart slotscope.service
i=0
until get 127.0.0.1:9868 /metrics 2>/dev/null | grep -q '^slotscope_tracing 1' || [ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
check_eq "with the drop-in: /metrics served, tracing" "$(get 127.0.0.1:9868 /metrics | grep -c '^slotscope_tracing 1')" 1
check_eq "with the drop-in: the textfile still written" "$(fresh && sed -n 's/^slotscope_tracing //p' $prom)" 1
if [ -n "${PROM_URL:-}" ]; then
	# the guest's side of user networking, as tools/vm/init sets it: no iproute2 in a minimal
	# root, so the test image's static busybox (from the build directory)
	bb=$OBJ/vm/userland-amd64/root/bin/busybox
	nic=$(ls /sys/class/net | grep -v '^lo$' | head -n 1)
	$bb ip link set "$nic" up && $bb ip addr add 10.0.2.15/24 dev "$nic" && $bb ip route add default via 10.0.2.2 ||
		{ echo "FAIL the guest's network ($nic) by $bb"; CHECK_FAILED=1; }
	i=0
	until get "${PROM_URL#http://}" '/api/v1/query?query=slotscope_tracing' 2>/dev/null | grep -q '"value":\[[0-9.]*,"1"\]' ||
		[ $i -ge 60 ]; do sleep 0.5; i=$((i + 1)); done
	check_eq "with the drop-in: Prometheus scrapes it (slotscope_tracing 1)" \
		"$(get "${PROM_URL#http://}" '/api/v1/query?query=slotscope_tracing' | grep -c '"value":\[[0-9.]*,"1"\]')" 1
else
	echo "FAIL no PROM_URL: run by tools/vm/run (#% needs: prometheus)"; CHECK_FAILED=1
fi

# an upgrade of the running service: running throughout, restarted on the new binary
stops0=$(journalctl -b -u slotscope.service -o cat | grep -c '^Stopping slotscope')
dpkg -i "$new" >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; echo "FAIL dpkg -i $ver"; exit 1; }
check_eq "upgrade: active" "$(active)" active
pid2=$(mainpid)
check_eq "upgrade: restarted (a new main process)" "$([ "$pid2" != "$pid" ] && [ "$pid2" != 0 ] && echo yes)" yes
# systemd names the main process at fork, before it execs the binary (CI read systemd's own
# image there once): the binary it runs once it has
exe() {
	_i=0
	while [ "$(readlink /proc/$1/exe)" != /usr/sbin/slotscope ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	readlink /proc/$1/exe
}
check_eq "upgrade: on the new binary" "$(exe $pid2)" /usr/sbin/slotscope
check_eq "upgrade: the operator's INTERVAL kept" "$(sed -n 's/^INTERVAL=//p' /etc/default/slotscope)" 1
fresh
check_eq "upgrade: the textfile fresh again" "$(sed -n 's/^slotscope_tracing //p' $prom)" 1
check_eq "upgrade: stopped only once, by the upgrade's restart" \
	"$(($(journalctl -b -u slotscope.service -o cat | grep -c '^Stopping slotscope') - stops0))" 1
# a stopped service stays stopped through an upgrade
systemctl stop slotscope.service
dpkg -i "$new" >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; echo "FAIL dpkg -i $ver again"; exit 1; }
check_eq "upgrade of a stopped service: stays stopped" "$(active)" inactive
# a removal stops it, and its textfile goes (node_exporter would serve it stale for ever)
systemctl start slotscope.service
fresh
dpkg -r slotscope >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; echo "FAIL dpkg -r"; exit 1; }
check_eq "remove: stopped" "$(active)" inactive
check_eq "remove: the binary gone" "$([ -e /usr/sbin/slotscope ] && echo present || echo gone)" gone
check_eq "remove: its textfile gone" "$([ -e $prom ] && echo present || echo gone)" gone
check_eq "remove: the user stays (until purge)" "$(getent passwd slotscope | cut -d: -f1)" slotscope
check_eq "remove: the textfile's lock gone" "$([ -e $dir/.slotscope.prom.lock ] && echo present || echo gone)" gone
dpkg -P slotscope >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; echo "FAIL dpkg -P"; exit 1; }
check_eq "purge: the group's ACL entry gone" "$(getfacl -cp $dir 2>/dev/null | grep -c 'slotscope')" 0
check_eq "purge: the user gone" "$(getent passwd slotscope >/dev/null && echo present || echo gone)" gone
check_eq "purge: the group gone" "$(getent group slotscope >/dev/null && echo present || echo gone)" gone
check_eq "purge: its defaults gone" "$([ -e /etc/default/slotscope ] && echo present || echo gone)" gone
check_eq "purge: its BTF cache gone" "$([ -e /var/cache/slotscope ] && echo present || echo gone)" gone
check_eq "purge: no file left of a deleted user or group" "$(find / -xdev \( -nouser -o -nogroup \) -print 2>/dev/null | head -n 5 | tr '\n' ' ')" ""
check_eq "nothing of the package left for dpkg" "$(dpkg-query -W -f '${db:Status-Abbrev}' slotscope 2>/dev/null)" ""
exit $CHECK_FAILED
