# The Debian package's binary (make deb unpacks it in build/deb/root), run as nobody holding
# exactly the capabilities of the package's systemd unit, as ambient capabilities (capsh), traces
# a checkpoint write exactly as root does: WRITE ops and bytes equal mountstats' deltas for both.
# With either missing it refuses: exit 77 and one line naming the capability. Without
# CAP_SYS_ADMIN libbpf cannot look sunrpc's module BTF up by id: the hooks attach by name (raw_tp,
# kprobe) against a merged BTF, and -v says so.
root=$OBJ/deb/root
bin=$root/usr/sbin/slotscope
[ -x $bin ] || { echo "FAIL no $bin: make deb"; exit 1; }
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 16 || exit 1
unit=$root/lib/systemd/system/slotscope.service
# the unit's capability set, as capsh spells it: CAP_BPF CAP_PERFMON -> cap_bpf,cap_perfmon
caps=$(sed -n 's/^AmbientCapabilities=//p' $unit | tr 'A-Z ' 'a-z,')
check_eq "the unit's capabilities" "$caps" "cap_bpf,cap_perfmon"
as_nobody() {	# CAPS CMD: CMD run by sh as nobody with CAPS ambient (and nothing else)
	capsh --caps="$1,cap_setpcap,cap_setuid,cap_setgid+eip" --keep=1 --user=nobody \
		--addamb="$1" --shell=/bin/sh -- -c "$2"
}
trace() {	# WHO OUT: trace a write of 16 x 2 MiB; mountstats' deltas beside it
	rm -f "$2" "$2.err"	# made by whoever traces: nobody cannot write a file root made
	if [ "$1" = root ]; then
		( $bin --json 0.5 -d 12 >"$2" 2>"$2.err" ) &
	else
		( as_nobody "$caps" "$bin -v --json 0.5 -d 12 2>&1 >$2 | grep -v '^libbpf' >$2.err" ) &
	fi
	i=0
	until grep -q '"interval"' "$2" 2>/dev/null || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
	o0=$(mountstats_op /mnt/t WRITE ops) b0=$(mountstats_op /mnt/t WRITE bytes_sent)
	writers /mnt/t 16 2
	sync
	o1=$(mountstats_op /mnt/t WRITE ops) b1=$(mountstats_op /mnt/t WRITE bytes_sent)
	wait
}
# Debian's kernels forbid perf_event_open (a kprobe) without CAP_SYS_ADMIN at paranoid 3: the
# tracepoint design (raw tracepoints need no perf_event_open), said in one line naming the
# sysctl; the package's 60-slotscope.conf sets 2, as an operator would
check_eq "the package's sysctl file" "$(sed -n 's/^kernel.perf_event_paranoid = //p' $root/usr/share/slotscope/sysctl/60-slotscope.conf)" 2
# 3 is Debian's default, 4 Ubuntu's and DGX OS's (their kernels refuse it alike without
# CAP_SYS_ADMIN; Debian's takes 4 as 3): each the same one line and the same design
for lv in 3 4; do
	echo $lv >/proc/sys/kernel/perf_event_paranoid
	as_nobody "$caps" "$bin -v -d 1 >/dev/null 2>/tmp/par.err"
	check_eq "perf_event_paranoid $lv: exit status" $? 0
	check_eq "perf_event_paranoid $lv: one line naming it" "$(grep -c "^slotscope: kernel.perf_event_paranoid is $lv, .* set it to 2 " /tmp/par.err)" 1
	check_eq "perf_event_paranoid $lv: the tracepoint design" "$(sed -n 's/^slotscope: events  *//p' /tmp/par.err)" tracepoints
	check_eq "perf_event_paranoid $lv: no kprobe" "$(grep -c 'hook .*kprobe$' /tmp/par.err)" 0
	check_eq "perf_event_paranoid $lv: nothing refused or failed" "$(grep -ic 'cannot\|refused\|fail' /tmp/par.err)" 0 ||
		sed 's/^/    | /' /tmp/par.err
done
echo 2 >/proc/sys/kernel/perf_event_paranoid
trace nobody /tmp/n.json
check_eq "nobody + unit caps: summary" "$(grep -c '"summary"' /tmp/n.json)" 1
check_eq "nobody + unit caps: no hook by BTF id" "$(grep -c 'hook .*\(tp_btf\|fentry\)$' /tmp/n.json.err)" 0
check_gt "nobody + unit caps: hooks attached by name" "$(grep -c 'hook .*\(raw_tp\|kprobe\)$' /tmp/n.json.err)" 8
check_eq "nobody + unit caps: nothing refused or failed" "$(grep -ic 'cannot\|refused\|fail' /tmp/n.json.err)" 0 ||
	sed 's/^/    | /' /tmp/n.json.err
check_eq "nobody + unit caps: WRITE ops = mountstats delta" "$(ss_op /tmp/n.json /mnt/t WRITE .count)" $((o1 - o0))
check_eq "nobody + unit caps: WRITE bytes = mountstats delta" "$(ss_op /tmp/n.json /mnt/t WRITE .bytes_sent)" $((b1 - b0))
trace root /tmp/r.json
check_eq "root: WRITE ops = mountstats delta" "$(ss_op /tmp/r.json /mnt/t WRITE .count)" $((o1 - o0))
check_eq "root: WRITE bytes = mountstats delta" "$(ss_op /tmp/r.json /mnt/t WRITE .bytes_sent)" $((b1 - b0))
# the DaemonSet's way (tools/container/daemonset.yaml): uid 0 with only its added capabilities
# (bounding set and all), serving --listen: once attached it is nobody, holding nothing
ds_caps=$(sed -n 's/^ *add: \[\(.*\)\]$/\1/p' /src/tools/container/daemonset.yaml | tr -d '" ' | tr 'A-Z' 'a-z' |
	sed 's/\([a-z_]*\)/cap_\1/g')
check_eq "the DaemonSet's capabilities" "$ds_caps" "cap_bpf,cap_perfmon,cap_setuid,cap_setgid"
drop=$(capsh --print | sed -n 's/^Bounding set =//p' | tr ',' '\n' | grep -vxF "$(echo "$ds_caps" | tr ',' '\n')" | tr '\n' ',' | sed 's/,$//')
capsh --drop="$drop" --caps="$ds_caps+eip" --shell=/bin/sh -- -c "exec $bin -q 0.5 -d 30 --listen 127.0.0.1:9868" 2>/tmp/ds.err &
ds=$!
i=0
until [ "$(busybox wget -qO- http://127.0.0.1:9868/healthz 2>/dev/null)" = "ok: tracing" ] || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
check_eq "DaemonSet caps: tracing" "$(busybox wget -qO- http://127.0.0.1:9868/healthz)" "ok: tracing" || sed 's/^/    | /' /tmp/ds.err
st() { sed -n "s/^$1:[[:space:]]*//p" /proc/$ds/status | awk '{ print $1 }'; }
check_eq "DaemonSet caps, after attach: uid (real, then effective)" "$(sed -n 's/^Uid:[[:space:]]*//p' /proc/$ds/status | awk '{ print $1, $2 }')" "65534 65534"
check_eq "DaemonSet caps, after attach: CapEff" "$(st CapEff)" 0000000000000000
check_eq "DaemonSet caps, after attach: CapPrm" "$(st CapPrm)" 0000000000000000
check_eq "DaemonSet caps, after attach: CapAmb" "$(st CapAmb)" 0000000000000000
# the bounding set stays the pod's (emptying it takes CAP_SETPCAP): no_new_privs and a uid that
# is not 0 leave nothing in it to regain
check_eq "DaemonSet caps, after attach: NoNewPrivs" "$(st NoNewPrivs)" 1
echo "note DaemonSet caps: $(grep -E '^(Uid|Gid|CapEff|CapPrm|CapAmb|CapBnd|NoNewPrivs)' /proc/$ds/status | tr '\t\n' ' ')"
kill -TERM $ds
wait $ds
check_eq "DaemonSet caps: exit at SIGTERM" $? 0
for c in bpf perfmon; do
	other=$(echo "$caps" | tr ',' '\n' | grep -vx "cap_$c" | tr '\n' ',' | sed 's/,$//')
	as_nobody "$other" "$bin -q -d 1 2>/tmp/miss.err"
	check_eq "without cap_$c: exit status" $? 77
	check_eq "without cap_$c: one line" "$(wc -l </tmp/miss.err)" 1
	check_eq "without cap_$c: names it" "$(grep -c "missing CAP_$(echo $c | tr a-z A-Z)[: ]" /tmp/miss.err)" 1
done
exit $CHECK_FAILED
