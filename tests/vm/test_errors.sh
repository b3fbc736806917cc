# Bad input and missing features: one line naming the problem and the fix, and the documented
# exit code (64 usage, 77 missing privilege or kernel feature). Signals end a trace with a summary,
# exit 0 and no BPF program left behind; "-- COMMAND" exits with COMMAND's status.
expect() {	# WHAT WANT_RC WANT_TEXT CMD...
	what=$1 want=$2 text=$3
	shift 3
	"$@" >/tmp/out 2>/tmp/err
	rc=$?
	check_eq "$what: exit status" $rc $want
	check_eq "$what: one line on stderr" "$(grep -c . /tmp/err)" 1
	grep -q "$text" /tmp/err && r=yes || r="no: $(cat /tmp/err)"
	check_eq "$what: says '$text'" "$r" yes
}
lsmod | grep -q '^sunrpc' && echo "note sunrpc already loaded"
expect "sunrpc not loaded" 77 "sunrpc is not loaded" slotscope -d 1
modprobe sunrpc
expect "no NFS mounts" 77 "no NFS mounts" slotscope -d 1
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 || exit 1
expect "--mount on tmpfs" 64 "not an NFS mount (it is tmpfs)" slotscope -m /tmp -d 1
expect "--mount on no mount" 64 "not a mount point" slotscope -m /nonexistent -d 1
expect "bad duration" 64 "invalid --duration 'abc'" slotscope -d abc
expect "bad interval" 64 "invalid INTERVAL '0'" slotscope 0
expect "bad count" 64 "invalid COUNT '1.5'" slotscope 1 1.5
expect "nothing after --" 64 "nothing after '--'" slotscope --
expect "bad SLOTSCOPE_EVENTS" 64 "SLOTSCOPE_EVENTS=probes: say tracepoints or functions" env SLOTSCOPE_EVENTS=probes slotscope -d 1
slotscope -q -- sh -c 'exit 3'
check_eq "exit status of the command" $? 3

# a signal ends the trace the same way whether it lands mid-trace or while the programs load
await_handler() {	# PID SIGNUM: until PID has a handler for SIGNUM (SigCgt), at most 15 s
	j=0
	while [ $j -lt 300 ]; do
		mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$1/status 2>/dev/null)
		[ -n "$mask" ] && [ $(((0x$mask >> ($2 - 1)) & 1)) = 1 ] && return 0
		sleep 0.05
		j=$((j + 1))
	done
	return 1
}
signal_ends() {	# SIG SIGNUM WHEN
	sig=$1 num=$2 when=$3
	# emptied here, not by the redirection: that runs in the child, after the first look below,
	# which then read the last run's "interval" and signalled before the handler was set (CI)
	: >/tmp/sig.out
	slotscope 0.5 >>/tmp/sig.out 2>&1 &
	pid=$!
	i=0
	if [ "$when" = load ]; then
		await_handler $pid $num
		attached=$(bpftool prog show | grep -c 'name btf_xprt_reserve')
		[ "$attached" = 0 ] || echo "note SIG$sig came after the attach: the load was quicker than the check"
	else
		# under emulation the load alone can take tens of seconds
		until grep -q interval /tmp/sig.out || [ $i -ge 300 ]; do
			[ $((i % 10)) = 0 ] && writers /mnt/t 2 1
			sleep 0.2
			i=$((i + 1))
		done
		grep -q interval /tmp/sig.out || echo "note no interval printed in 60 s: SIG$sig lands before one"
	fi
	kill -$sig $pid
	wait $pid
	check_eq "SIG$sig during the $when: exit status" $? 0
	check_eq "SIG$sig during the $when: summary printed" "$(grep -c '^Summary' /tmp/sig.out)" 1
	# the kernel frees a detached program after its last reference goes, asynchronously (on
	# 7.x it is still listed for a moment after the process is gone): give it 10 s
	j=0
	while bpftool prog show | grep -q 'name btf_xprt_reserve' && [ $j -lt 50 ]; do sleep 0.2; j=$((j + 1)); done
	check_eq "SIG$sig during the $when: no program left attached" \
		"$(bpftool prog show | grep -c 'name btf_xprt_reserve')" 0
}
signal_ends TERM 15 load
# a job not yet started when the signal came is not started at all
rm -f /tmp/ran
slotscope -q -- touch /tmp/ran &
pid=$!
await_handler $pid 15
kill -TERM $pid
wait $pid
check_eq "SIGTERM before the command: exit status" $? 143
check_eq "SIGTERM before the command: command not run" "$([ -e /tmp/ran ] && echo ran || echo no)" no
signal_ends INT 2 trace
signal_ends TERM 15 trace
signal_ends HUP 1 trace
slotscope -m /mnt/t --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 2 1" >/tmp/f.json
check_eq "--mount keeps its transport only" "$(tail -n 1 /tmp/f.json | jq -r '[.transports[].server] | unique | join(" ")')" "$LAST_SERVER"
exit $CHECK_FAILED
