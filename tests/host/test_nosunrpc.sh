#!/bin/bash
# A node with no NFS client (this machine has no sunrpc): an exporter waits for it at one access()
# a tick, within -d and COUNT; `-- COMMAND` exits 77 naming --run-untraced, which runs the job
# untraced, as --user, else as the user who ran sudo, with no capability to regain (empty
# bounding set, no ambient ones), else as the invoker; a stop signal ends it.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
[ ! -d /sys/module/sunrpc ] || { echo "SKIP sunrpc is loaded here: the host cannot show a node without it"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP not root: the identities cannot be switched"; exit 77; }
ss=$O/slotscope
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

# the exporter's wait: bounded by -d, cheap, said in one line, exit 77, its textfile removed
t0=$(date +%s.%N)
timeout 20 "$ss" -q 0.2 -d 2 --prom-file "$work/x.prom" 2>"$work/wait.err" &
pid=$!
sleep 1
[ -f "$work/x.prom" ] && grep -qx 'slotscope_tracing 0' "$work/x.prom" && ok "waiting: the textfile says slotscope_tracing 0" ||
	bad "waiting: no textfile saying slotscope_tracing 0"
wait $pid
rc=$?
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cpu=$(awk '{ print ($14 + $15) / 100 }' /proc/$$/stat 2>/dev/null)
[ $rc = 77 ] && ok "-d 2 ends the wait: exit 77 after ${secs} s" || bad "-d 2: exit $rc after ${secs} s"
awk -v s="$secs" 'BEGIN { exit !(s < 5) }' && ok "within -d (${secs} s < 5 s)" || bad "waited ${secs} s for -d 2"
grep -q 'sunrpc did not appear in [0-9]* s (no NFS mount): nothing was traced' "$work/wait.err" &&
	ok "said in one line: $(cat "$work/wait.err")" || bad "wait's end not said: $(cat "$work/wait.err")"
[ ! -e "$work/x.prom" ] && ok "its textfile removed at the end" || bad "the textfile left behind"
# the wait's cost: CPU over 3 s of 0.1 s ticks, from the process's own stat, at its end
timeout 20 "$ss" -q 0.1 -d 3 --prom-file "$work/y.prom" 2>/dev/null &
pid=$!
sleep 2.8
cpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' /proc/$pid/stat)
wait $pid
awk -v c="$cpu" 'BEGIN { exit !(c < 0.3) }' && ok "30 ticks of waiting cost ${cpu} s of CPU (< 0.3)" ||
	bad "waiting cost ${cpu} s of CPU in 3 s"
# COUNT bounds it too
timeout 10 "$ss" -q --prom-file "$work/z.prom" 0.2 3 2>/dev/null
rc=$?
[ $rc = 77 ] && ok "COUNT 3 ends the wait (exit 77)" || bad "COUNT 3: exit $rc"

# -- COMMAND without sunrpc: 77, the job not run, the option named
"$ss" -- touch "$work/ran" 2>"$work/cmd.err"
rc=$?
[ $rc = 77 ] && [ ! -e "$work/ran" ] && grep -q -- '--run-untraced' "$work/cmd.err" &&
	ok "-- COMMAND: exit 77, not run, --run-untraced named" || bad "-- COMMAND: exit $rc: $(cat "$work/cmd.err")"
# --run-untraced: run, said in one line, its exit status ours
"$ss" --run-untraced -- sh -c 'exit 3' 2>"$work/u.err"
rc=$?
[ $rc = 3 ] && [ "$(grep -c 'running sh untraced' "$work/u.err")" = 1 ] && ok "--run-untraced: the job ran, its status (3) ours, said once" ||
	bad "--run-untraced: exit $rc: $(cat "$work/u.err")"
# who the job runs as
caps() { "$ss" "$@" --run-untraced -- sh -c 'echo $(id -u) $(id -g); grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status' 2>/dev/null; }
out=$(caps --user nobody)
[ "$(echo "$out" | head -n 1 | cut -d' ' -f1)" = "$(id -u nobody)" ] && ok "--user nobody: the job runs as nobody" || bad "--user nobody: $out"
n=$(echo "$out" | grep -c ':[[:space:]]*0000000000000000$')
[ "$n" = 4 ] && ok "--user: no capability in the job (effective, permitted, bounding, ambient)" || bad "--user: job capabilities: $out"
out=$(SUDO_UID=1000 SUDO_GID=1000 caps)
[ "$(echo "$out" | head -n 1)" = "1000 1000" ] && ok "under sudo (SUDO_UID/GID 1000): the job runs as 1000:1000" || bad "under sudo: $out"
n=$(echo "$out" | grep -c ':[[:space:]]*0000000000000000$')
[ "$n" = 4 ] && ok "under sudo: no capability in the job" || bad "under sudo: job capabilities: $out"
out=$(SUDO_UID=1000 SUDO_GID=1000 caps --user nobody)
[ "$(echo "$out" | head -n 1 | cut -d' ' -f1)" = "$(id -u nobody)" ] && ok "--user beats SUDO_UID" || bad "--user with SUDO_UID: $out"
out=$(caps)
[ "$(echo "$out" | head -n 1 | cut -d' ' -f1)" = 0 ] && ok "root without sudo or --user: the job is root's own" || bad "as root: $out"
# a stop signal reaches the job, and our status is its (#44: waitpid() restarted after it, and the
# job ran on to its end)
"$ss" --run-untraced -- sleep 30 2>/dev/null &
pid=$!
sleep 1
kill -TERM $pid
t0=$(date +%s)
wait $pid
rc=$?
[ $rc = 143 ] && [ $(($(date +%s) - t0)) -le 5 ] && ok "--run-untraced: SIGTERM ends the job, status 143" ||
	bad "--run-untraced: SIGTERM: exit $rc after $(($(date +%s) - t0)) s"
[ "$(pgrep -xf 'sleep 30' | wc -l)" = 0 ] && ok "--run-untraced: the job is gone" || bad "--run-untraced: the job runs on"
# a non-root caller's ambient capabilities are not its job's
if command -v capsh >/dev/null; then
	out=$(capsh --caps="cap_bpf,cap_perfmon,cap_setpcap,cap_setuid,cap_setgid+eip" --keep=1 --user=nobody \
		--addamb="cap_bpf,cap_perfmon" --shell=/bin/sh -- -c \
		"exec $ss --run-untraced -- sh -c 'grep CapAmb /proc/self/status | cut -f2'" 2>/dev/null)
	[ "$out" = 0000000000000000 ] && ok "a caller's ambient CAP_BPF, CAP_PERFMON: none in the job" ||
		bad "a caller's ambient capabilities in the job: $out"
fi
# An out-of-tree sunrpc (VAST NFS's: loadable, taint O, no BTF of its own) as the kernel
# publishes it, in fixture trees: never read through a layout of vmlinux's BTF (#43: ten
# transports of garbage and 0 of 512 WRITEs). Its BTF is made from its DWARF only once its file
# (modules.dep's) is proven the module loaded by its GNU build id; else refused in one line,
# exit 77, naming why: no build id published, then a file of another build id.
fx=$work/vast
rel=6.1.0-56-amd64
mkdir -p "$fx/sys/module/sunrpc/notes" "$fx/sys/kernel/btf" "$fx/proc/sys/kernel" "$fx/lib/modules/$rel/updates/dkms"
echo OE >"$fx/sys/module/sunrpc/taint"
echo $rel >"$fx/proc/sys/kernel/osrelease"
printf 'sunrpc 786432 12 nfsv3,nfs,lockd,rpcrdma, Live 0x0000000000000000 (OE)\n' >"$fx/proc/modules"
echo 'updates/dkms/sunrpc.ko:' >"$fx/lib/modules/$rel/modules.dep"
# an ELF with a GNU build id stands for the module's file
printf 'int sunrpc_fixture;\n' >"$work/m.c"
cc -shared -fPIC -Wl,--build-id=sha1 -o "$fx/lib/modules/$rel/updates/dkms/sunrpc.ko" "$work/m.c"
refused() {	# WHAT WHY: a run on the fixture is refused in one line naming WHY
	"$ss" --sysfs-root "$fx" --procfs-root "$fx" -d 1 2>"$work/vast.err"
	rc=$?
	[ $rc = 77 ] && [ "$(wc -l <"$work/vast.err")" = 1 ] &&
		grep -q "sunrpc is a loadable module without BTF (no /sys/kernel/btf/sunrpc; taint OE, built out of tree) and its layout cannot be proven: $2" "$work/vast.err" &&
		ok "an out-of-tree sunrpc without BTF, $1: refused, exit 77, one line" ||
		bad "an out-of-tree sunrpc without BTF, $1: exit $rc: $(cat "$work/vast.err")"
}
refused "no build id published" "the kernel publishes no build id for it"
# the loaded module's note: namesz 4, descsz 20, type 3 (NT_GNU_BUILD_ID), "GNU", 20 bytes of id
printf '\004\000\000\000\024\000\000\000\003\000\000\000GNU\000abcdefghijklmnopqrst' \
	>"$fx/sys/module/sunrpc/notes/.note.gnu.build-id"
refused "its file another build" "$fx/lib/modules/$rel/updates/dkms/sunrpc.ko is not the module loaded (its build id differs)"
# -h is asked for: on stdout, as --help, nothing on stderr
out=$("$ss" -h 2>"$work/h.err")
[ $? = 0 ] && echo "$out" | grep -q '^Usage: slotscope' && [ ! -s "$work/h.err" ] && ok "-h: the help on stdout" ||
	bad "-h: $(head -c 200 "$work/h.err")"
"$ss" --user no-such-user-here --run-untraced -- true 2>"$work/nu.err"
rc=$?
[ $rc != 0 ] && grep -q 'no such user' "$work/nu.err" && ok "an unknown --user: exit $rc, said: $(head -n 1 "$work/nu.err")" ||
	bad "an unknown --user: exit $rc: $(cat "$work/nu.err")"
# a lock file an earlier root run left, which the service's user cannot open: exit 1 (the unit
# retries it, unlike 64 and 77) and one line naming the file to remove
if command -v setpriv >/dev/null; then
	mkdir -p "$work/tf" && chmod 1777 "$work/tf" && touch "$work/tf/.slotscope.prom.lock"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ss" -q --prom-file "$work/tf/slotscope.prom" 2>"$work/lock.err"
	rc=$?
	[ $rc = 1 ] && grep -q 'cannot open the lock file of .*(.slotscope.prom.lock in its directory): Permission denied: an earlier run as another user left it; remove it' "$work/lock.err" &&
		ok "a foreign lock file: exit 1 (retried by the unit), said: $(cat "$work/lock.err")" || bad "a foreign lock file: exit $rc: $(cat "$work/lock.err")"
fi
exit $fails
