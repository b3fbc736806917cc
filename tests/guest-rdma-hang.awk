#!/usr/bin/awk -f
# A guest kernel's log (dmesg, one or more files): does it show the RDMA client hung under
# soft-RoCE? Exit 0 and print the evidence when it does, 1 when not. Two signs:
# - soft-RoCE's own fault ("rdma_rxe: rxe_reg_fast_mr: mr->lkey = 0xe690 not free": CI's
#   test_whatif_rdma, whose mount then hung to its timeout);
# - a task the hung-task detector reports (blocked for more than hung_task_timeout_secs, which
#   tools/vm/init sets to 60 s) whose call trace runs through the RDMA stack's modules: a drain or
#   a disconnect that soft-RoCE never completes. A task blocked in sunrpc or NFS alone is not
#   one: a test that silences its server blocks writers there on purpose.
# Used by tests/run-tests.sh to stop such a VM and boot it once more; tested by
# tests/host/test_rdma_hang.sh on fixture logs.

/rdma_rxe: rxe_reg_fast_mr: .*not free/ {
	print "soft-RoCE fault: " strip($0)
	found = 1
	exit
}
/ blocked for more than [0-9]+ seconds/ {
	task = strip($0)
	in_trace = 1
	lines = 0
	next
}
in_trace {
	# a report ends where the next begins or after its trace (at most 80 lines)
	if (++lines > 80 || /<\/TASK>/) { in_trace = 0; next }
	# "? frame": a guess the unwinder read off the stack, not a call in progress
	if (/\] +\? /)
		next
	if (match($0, /[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+ \[(rdma_rxe|rpcrdma|ib_core|rdma_cm|ib_cm|iw_cm)\]/)) {
		print "RDMA client hung: " task "; in " substr($0, RSTART, RLENGTH)
		found = 1
		exit
	}
}
END { exit !found }

function strip(s) {
	sub(/^\[ *[0-9.]+\] /, "", s)
	return s
}
