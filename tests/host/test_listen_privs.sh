#!/bin/bash
# Whatever answers --listen's port holds nothing (#61): on this host (no sunrpc: slotscope waits
# for NFS, as a node before its first mount) the process holding an accepted connection is not
# the run's, and its /proc status shows uid and gid not 0, no capability held (inheritable,
# permitted, effective, ambient) and
# no_new_privs (so its bounding set grants nothing either), in each mode slotscope is started in: root with every capability (the CLI under
# sudo), root with the DaemonSet's four (CAP_BPF CAP_PERFMON CAP_SETUID CAP_SETGID), and a user
# with CAP_BPF and CAP_PERFMON as ambient capabilities (the packaged unit's). Root without
# CAP_SETUID must not answer as root: it refuses with exit 77 and says why.
#% timeout: 120
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
[ ! -d /sys/module/sunrpc ] || { echo "SKIP sunrpc is loaded here: the host cannot show a node without it"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP not root: the modes need capsh as root"; exit 77; }
command -v capsh >/dev/null || { echo "FAIL no capsh: make deps-test (libcap2-bin)"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL no setpriv (util-linux)"; exit 1; }
# a write to a connection the server closed is a failure said, not the script's death
trap '' PIPE
work=$(mktemp -d)
chmod 755 "$work"
cp "$O/slotscope" "$work/ss"
trap 'kill $pid 2>/dev/null; exec 3>&-; wait 2>/dev/null; rm -rf "$work"' EXIT
# status PID FIELD: a field of /proc/PID/status
status() { awk -v f="$2:" '$1 == f { $1 = ""; print substr($0, 2) }' "/proc/$1/status"; }
# mode NAME CMD...: start it, hold a connection with half a head, find who holds it
mode() {
	local name=$1 port server
	shift
	# gone before the start: the background job truncates it only once it runs
	rm -f "$work/err"
	"$@" >"$work/out" 2>"$work/err" &
	pid=$!
	port=$(listen_port "$work/err" 100)
	[ -n "$port" ] || { bad "$name: no port said: $(cat "$work/err")"; kill $pid; wait $pid 2>/dev/null; return; }
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf 'GET /me' >&3
	# the process that accepted it, once it has (a loaded host polls late)
	for _ in $(seq 20); do
		sleep 0.2
		server=$(ss -tnpH state established "( sport = :$port )" | sed -n 's/.*pid=\([0-9]*\),.*/\1/p' | head -n 1)
		[ -n "$server" ] && break
	done
	if [ -z "$server" ]; then
		bad "$name: no process holds the connection"
	else
		local uid gid caps nnp
		uid=$(status "$server" Uid) gid=$(status "$server" Gid) nnp=$(status "$server" NoNewPrivs)
		caps="$(status "$server" CapInh) $(status "$server" CapPrm) $(status "$server" CapEff) $(status "$server" CapAmb)"
		echo "note $name: the run pid $pid (uid $(status $pid Uid | cut -f1), CapEff $(status $pid CapEff)); the server pid $server: uid $uid, gid $gid, caps $caps, no_new_privs $nnp"
		[ "$server" != "$pid" ] && ok "$name: a process of its own answers ($server, the run $pid)" || bad "$name: the run itself answers"
		case " $uid $gid " in *" 0 "*) bad "$name: the server has uid or gid 0: $uid / $gid" ;; *) ok "$name: the server's uid and gid not 0 ($(echo $uid | cut -d' ' -f1))" ;; esac
		# the bounding set only limits what an execve could grant, and no_new_privs grants nothing;
		# emptying it takes CAP_SETPCAP, which a user's run (the unit's) does not hold
		[ "$caps" = "0000000000000000 0000000000000000 0000000000000000 0000000000000000" ] &&
			ok "$name: no capability held: inheritable, permitted, effective, ambient (bounding $(status "$server" CapBnd))" ||
			bad "$name: capabilities (inh prm eff amb) $caps"
		[ "$nnp" = 1 ] && ok "$name: no_new_privs" || bad "$name: no_new_privs $nnp"
	fi
	exec 3>&-
	# and it answers: a whole request on a connection of its own (the half head above may have
	# met its deadline, 3 s, while ss read every process's fds on a loaded host)
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf 'GET /metrics HTTP/1.1\r\n\r\n' >&3
	timeout 10 grep -q '^slotscope_tracing 0' <&3 && ok "$name: it answers /metrics (slotscope_tracing 0)" ||
		bad "$name: no answer; the run said: $(tr '\n' ' ' <"$work/err")"
	exec 3>&-
	kill $pid
	wait $pid 2>/dev/null
	kill -0 "$server" 2>/dev/null && bad "$name: the server outlived the run" || ok "$name: the server ended with the run"
}
mode "root" "$work/ss" -v 0.5 --listen 127.0.0.1:0
# the bounding set narrowed: root's execve then holds those four alone, as the DaemonSet's does
mode "root with the DaemonSet's capabilities" setpriv --bounding-set -all,+bpf,+perfmon,+setuid,+setgid -- \
	"$work/ss" -v 0.5 --listen 127.0.0.1:0
mode "a user with the unit's ambient capabilities" capsh --caps="cap_bpf,cap_perfmon,cap_setuid,cap_setgid+eip cap_setpcap+ep" \
	--keep=1 --user=nobody --inh=cap_bpf,cap_perfmon --addamb=cap_bpf,cap_perfmon -- -c "exec $work/ss -v 0.5 --listen 127.0.0.1:0"
# root that cannot leave uid 0: refused, not served as root
capsh --drop=cap_setuid,cap_setgid -- -c "exec $work/ss -v 0.5 --listen 127.0.0.1:0" >/dev/null 2>"$work/err"
rc=$?
[ $rc = 77 ] && grep -q 'cannot drop its privileges.*CAP_SETUID' "$work/err" && ok "root without CAP_SETUID: exit 77, $(grep -m1 cannot "$work/err")" ||
	bad "root without CAP_SETUID: exit $rc: $(cat "$work/err")"
exit $fails
