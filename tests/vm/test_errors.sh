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
slotscope -q -- sh -c 'exit 3'
check_eq "exit status of the command" $? 3

for sig in INT TERM HUP; do
	rm -f /tmp/sig.rc
	( slotscope 0.5 >/tmp/sig.out 2>&1; echo $? >/tmp/sig.rc ) &
	i=0
	until grep -q interval /tmp/sig.out || [ $i -ge 150 ]; do
		[ $((i % 10)) = 0 ] && writers /mnt/t 2 1
		sleep 0.2
		i=$((i + 1))
	done
	killall -$sig slotscope
	i=0
	until [ -f /tmp/sig.rc ] || [ $i -ge 100 ]; do sleep 0.2; i=$((i + 1)); done
	check_eq "SIG$sig: exit status" "$(cat /tmp/sig.rc)" 0
	check_eq "SIG$sig: summary printed" "$(grep -c '^Summary' /tmp/sig.out)" 1
	check_eq "SIG$sig: no program left attached" "$(bpftool prog show | grep -c 'name btf_xprt_reserve')" 0
done
slotscope -m /mnt/t --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 2 1" >/tmp/f.json
check_eq "--mount keeps its transport only" "$(tail -n 1 /tmp/f.json | jq -r '[.transports[].server] | unique | join(" ")')" "$LAST_SERVER"
exit $CHECK_FAILED
