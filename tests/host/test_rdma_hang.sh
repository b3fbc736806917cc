#!/bin/bash
# The run's detector of a hung RDMA client under soft-RoCE (tests/guest-rdma-hang.awk, which
# tests/run-tests.sh runs over each guest's kernel log to stop the VM and boot it once more), on
# fixture logs: soft-RoCE's own fault and a drain that never completes are hangs; writers blocked
# in NFS and sunrpc behind a silenced server (what test_silent_rdma does on purpose) are not, and
# neither are an RDMA frame the unwinder only guessed nor one past the report's end.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
d=$top/tests/fixtures/dmesg
det=$top/tests/guest-rdma-hang.awk
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# expect NAME WANT(0|1) WORDS FILE...: the detector's verdict, and what it quotes
expect() {
	local name=$1 want=$2 words=$3 out rc
	shift 3
	out=$(awk -f "$det" "$@")
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$words" ] || [[ $out == *"$words"* ]]; }; then
		ok "$name: exit $rc${out:+ ($out)}"
	else
		bad "$name: exit $rc, want $want${words:+ quoting \"$words\"}; said: ${out:-nothing}"
	fi
}
expect "soft-RoCE's fault" 0 "soft-RoCE fault: rdma_rxe: rxe_reg_fast_mr: mr->lkey = 0xe690 not free" "$d/rxe-fault.txt"
expect "a QP drain that never completes" 0 "RDMA client hung: INFO: task kworker/u4:3:212 blocked for more than 61 seconds.; in __ib_drain_sq+0x161/0x1d0 [ib_core]" "$d/rdma-drain-hung.txt"
expect "writers blocked behind a silenced server" 1 "" "$d/nfs-silent-server.txt"
# either file of a pair (client, server) may hold it
expect "the server's log of a pair" 0 "RDMA client hung" "$d/nfs-silent-server.txt" "$d/rdma-drain-hung.txt"
# the same trace with its RDMA frames only guessed ("? frame")
sed -E 's/^(\[ *[0-9.]+\] ) ((__ib_drain_sq|ib_drain_qp|rpcrdma_xprt_disconnect|xprt_rdma_close)\+)/\1 ? \2/' \
	"$d/rdma-drain-hung.txt" >"$t/guessed.txt"
expect "RDMA frames the unwinder guessed" 1 "" "$t/guessed.txt"
# an RDMA frame after the report's </TASK>
{ cat "$d/nfs-silent-server.txt"; echo "[  191.100000]  rpcrdma_ep_destroy+0x20/0x90 [rpcrdma]"; } >"$t/after.txt"
expect "an RDMA frame past the report's end" 1 "" "$t/after.txt"
expect "no log at all" 1 "" /dev/null
exit $fails
