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
for c in BPF PERFMON SYS_PTRACE; do
	grep -q "\"$c\"" "$top/tools/container/daemonset.yaml" && ok "DaemonSet adds CAP_$c" || bad "DaemonSet lacks $c"
done
grep -q 'drop: \["ALL"\]' "$top/tools/container/daemonset.yaml" && ok "DaemonSet drops every other capability" || bad "DaemonSet keeps capabilities"
exit $fails
