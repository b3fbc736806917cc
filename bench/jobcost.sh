#!/bin/bash
# bench/jobcost.sh O LABEL: the jobs' time in guest instructions per RPC (slotscope minus
# slotscope-nojobs, same boot), one O_DIRECT writer (nothing waits), one round, 6.1 and 6.12, TCP
# and RDMA, with the build in O (under the source tree; its vm/ and vm/k/6.12 images, make
# $O/insncount.so $O/insnmark). LABEL names the lines and $O/jobcost/LABEL-KERNEL; JOBCOST_KERNELS
# ("default 6.12") the kernels.
top=$(cd "$(dirname "$0")/.." && pwd) O=$(cd "$1" && pwd) label=$2
rel=${O#"$top"/}
for k in ${JOBCOST_KERNELS:-default 6.12}; do
	kk=$([ $k = default ] || echo $k)
	work=$O/jobcost/$label-$k
	rm -rf $work && mkdir -p $work
	VM_OUT=$work/run KERNEL=$kk VM_BPFTRACE=0 SLOTSCOPE_NO_MAKE=1 VM_TIMEOUT=1400 VM_QUIET=1 O=$O \
		VM_ENV="INSN_MOUNTS=/mnt/tcp,/mnt/rdma INSN_WAITS_ON=none INSN_TRACERS=none,slotscope,slotscope-tp,slotscope-nojobs" \
		VM_PLUGIN="$O/insncount.so,out=$work/plugin.out" \
		$top/tools/vm/run $top/bench/insn.sh 1 "/src/$rel/insnmark" >$work/run.log 2>&1 || { echo "FAIL $k"; tail -5 $work/run.log; continue; }
	grep -ah '^\(H*RANGE\|INSN\|WAITS\) ' $work/run/console.log | tr -d '\r' >$work/lines
	gawk -f $top/bench/insn.awk $work/lines $work/plugin.out >$work/rounds
	awk -v l=$label '$1 == "ROUND" { print l, $2, $3, $4, "bpf", $10, "helpers", $12, "total", $10 + $12, "guest", $9 }' $work/rounds
done
