#!/bin/bash
# The container examples (tools/container) pass options that exist and parse: their argument
# lists, run through slotscope's own parser (with --version last, after every one is checked),
# exit 0; a misspelt option in them would exit 64. The DaemonSet and the Containerfile agree.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
args() { grep -o "$1 *\[[^]]*\]" "$2" | head -n 1 | sed 's/^[^[]*\[//; s/\]$//' | tr -d '",'; }
cf=$(args CMD "$top/tools/container/Containerfile")
ds=$(args 'args:' "$top/tools/container/daemonset.yaml")
[ -n "$cf" ] && [ "$cf" = "$ds" ] && ok "Containerfile CMD = DaemonSet args: $cf" || bad "Containerfile '$cf' vs DaemonSet '$ds'"
# shellcheck disable=SC2086
out=$("$O/slotscope" $cf --version 2>&1); rc=$?
[ $rc = 0 ] && [ "${out%% *}" = slotscope ] && ok "their options parse: $out" || bad "slotscope $cf: exit $rc: $out"
"$O/slotscope" $cf --mounts-ofx 1 --version >/dev/null 2>&1
[ $? = 64 ] && ok "a misspelt option would fail (64)" || bad "a misspelt option was accepted"
grep -q '"SYS_PTRACE"' "$top/tools/container/daemonset.yaml" && bad "DaemonSet adds SYS_PTRACE (as strong as root)" ||
	ok "DaemonSet without SYS_PTRACE"
for c in BPF PERFMON; do
	grep -q "\"$c\"" "$top/tools/container/daemonset.yaml" && ok "DaemonSet adds CAP_$c" || bad "DaemonSet lacks $c"
done
grep -q 'drop: \["ALL"\]' "$top/tools/container/daemonset.yaml" && ok "DaemonSet drops every other capability" || bad "DaemonSet keeps capabilities"
grep -q '^      hostNetwork: true$' "$top/tools/container/daemonset.yaml" && ok "DaemonSet in the host's network namespace" ||
	bad "DaemonSet without hostNetwork: transports would map to the pod's devices"
grep -q '^        - operator: Exists$' "$top/tools/container/daemonset.yaml" && ok "DaemonSet tolerates every taint (GPU nodes)" ||
	bad "DaemonSet tolerates no taint"
# its arguments in a network namespace of their own (a pod without hostNetwork): one line says
# why the links would be wrong; in the host's, none. This host has no sunrpc: the exporter waits
# for it, so a few seconds show the start.
if command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
	d=$(mktemp -d)
	# shellcheck disable=SC2086
	timeout 3 unshare -n "$O/slotscope" ${ds/\/textfile/$d} --procfs-root / --sysfs-root / 2>"$d/other.err"
	# shellcheck disable=SC2086
	timeout 3 "$O/slotscope" ${ds/\/textfile/$d} --procfs-root / --sysfs-root / 2>"$d/host.err"
	n=$(grep -c 'whose mounts are read, is in another network namespace: .*hostNetwork: true' "$d/other.err")
	[ "$n" = 1 ] && ok "another network namespace: said in one line" || bad "another network namespace: $(cat "$d/other.err")"
	grep -q 'network namespace' "$d/host.err" && bad "the host's namespace taken for another" || ok "the host's network namespace: nothing said"
	rm -rf "$d"
else
	echo "note unshare -n unavailable: the namespace check is not run"
fi
exit $fails
