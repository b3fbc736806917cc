#!/bin/bash
# run-tests.sh TEST...: run cmocka binaries, host test scripts and VM test scripts, each with a
# timeout and its seconds, then the ten slowest, the total, and one closing line over all:
#   tests: N passed, N failed, N skipped
# cmocka binaries count their own test cases; a binary that exits non-zero without reporting a
# failed case (a crash, a sanitizer or leak report, its timeout) counts one failure. A VM script
# (tests/vm/*.sh) is one test, run through tools/vm/run (with a server VM when it says "#% server:
# SCRIPT"): exit 0 passes, 77 skips, anything else fails; an executable NAME.host beside it then
# checks, on the host, what the VM left in its run directory. tests/host/*.sh run on the host.
# A VM script given as SCRIPT@KERNEL[@VAR=VAL...] runs on that kernel's image (empty: the default;
# see tools/vm/build-image) with those variables in its environment, and is named so in the
# output: "PASS tests/vm/test_core.sh [6.12] (95s)". A plain SCRIPT runs on $KERNEL (default: the
# default image).
#
# Timeouts (a test that overruns fails, named, and the run goes on): unit binaries
# UNIT_TIMEOUT (default 900 s: the sanitizer builds), host scripts HOST_TIMEOUT (300 s) or their
# "#% timeout: S", VM scripts VM_TIMEOUT (600 s) or their "#% timeout: S".
#
# Lanes: a VM script marked "#% lane: idle" spends its time waiting on a server that holds every
# call (a second of netem or of rdma_call_delay), not on the CPU: such scripts run one at a time
# beside the others. The other VM scripts are shared by VM_LANES lanes (default 2: one VM alone
# left a 2-core host a third idle), each taking the first one not yet taken whose build is in, in
# the order given: those after an @wait (up to the next) once its build is done, in whichever lane,
# the others going on meanwhile. Unit and host tests stay in the first lane, in order, which waits
# at an @wait followed by one of them. RUN_LANES=0 runs everything in order, one at a time.
# Reports print as tests end.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${O:-build}
case $out in /*) ;; *) out=$top/$out ;; esac
# the tests' own scripts read O too, from wherever they cd
export O=$out
logdir=$out/test-logs
# one results directory per invocation: two runs at once (make unit-test beside make vm) keep
# their tallies apart
mkdir -p "$logdir"
rm -rf "$logdir/results"	# the one shared directory of before
resdir=$(mktemp -d "$logdir/results.XXXXXX") || exit 1
# an interrupted run takes its lanes with it (background subshells ignore SIGINT)
lane= shared=()
trap 'for l in $lane ${shared[@]+"${shared[@]}"}; do pkill -TERM -P "$l" 2>/dev/null; kill "$l" 2>/dev/null; done; rm -rf "$resdir"' EXIT
trap 'exit 130' INT TERM
t_start=$SECONDS
# the machine's idle time over the run, from /proc/stat: what the lanes left unused
cpu_idle() { awk '/^cpu / { print $5 + $6 }' /proc/stat; }
idle0=$(cpu_idle)

# a guest kernel's own fault under TCG (text poking, emulated CPU state), as its console says it:
# the one failure that earns a second boot
# A soft lockup is one too: a CI-like run's test_attach_midway had both vCPUs stuck from about the
# attach under 64 writers (a writer and a kworker, 480 s, no trace at the console's log level),
# where no program of slotscope's can spin (no loop, no lock)
GUEST_FAULT='Oops:|BUG: unable to handle|general protection fault|Kernel panic|kernel BUG at|invalid opcode:|Internal error:|BUG: soft lockup - CPU#'

# the RDMA client hung under soft-RoCE in a guest kernel under TCG: soft-RoCE's own fault (CI,
# test_whatif_rdma: "rdma_rxe: rxe_reg_fast_mr: mr->lkey = 0xe690 not free", then the mount hung
# to the 1,200 s timeout), or a task the hung-task detector reports blocked in the RDMA stack's
# modules (tests/guest-rdma-hang.awk; not a writer blocked behind a silenced server). Not on the
# console (loglevel 3): in the kernel log each guest copies out every 20 s. Bounded: seen within
# the detector's 60 s, the log's 20 s and this watch's 10 s, not at the test's timeout
rxe_hung() {
	local f logs=()
	for f in "$runs/dmesg.txt" "$runs/server/dmesg.txt"; do [ -s "$f" ] && logs+=("$f"); done
	[ ${#logs[@]} -gt 0 ] && awk -f "$top/tests/guest-rdma-hang.awk" "${logs[@]}"
}

# guest_locked: a guest's console shows a CPU stuck for 60 s or more (its soft-lockup detector),
# which no test waits out: the VM is stopped then, not at its timeout
guest_locked() {
	# no console yet (the VM still booting): nothing to read, and nothing said of it
	[ -f "$runs/console.log" ] || return 1
	tr -d '\r' <"$runs/console.log" | grep -aoE 'soft lockup - CPU#[0-9]+ stuck for [0-9]+s' |
		awk '{ sub(/s$/, "", $NF); if ($NF + 0 >= 60) f = 1 } END { exit !f }'
}

# vm_run: the VM test $t on $kernel with $envs, its server, vCPUs and timeout, its output in $log.host;
# stopped as soon as a guest's kernel log shows the RDMA client hung (its VMs are tools/vm/run's children)
vm_run() {
	local vm w rc
	KERNEL=$kernel VM_ENV=$envs VM_SERVER=${server:+$top/$server} SLOTSCOPE_NO_MAKE=1 VM_QUIET=1 VM_OUT=$runs \
		VM_SMP=${smp:-${VM_SMP:-1}} VM_TIMEOUT=${tmo:-${VM_TIMEOUT:-600}} "$top/tools/vm/run" "$t" >"$log.host" 2>&1 &
	vm=$!
	( while sleep 10; do { rxe_hung >/dev/null || guest_locked; } && { pkill -TERM -P "$vm"; break; }; done ) &
	w=$!
	wait "$vm"
	rc=$?
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	return "$rc"
}

# times_secs FILE: the CPU seconds (user + system) of the children in a `times` output (its
# second line), bash's or dash's
times_secs() {
	awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); n += a[1] * 60 + a[2] } printf "%d\n", n }' "$1" 2>/dev/null
}

# child_cpu VAR: VAR set to the CPU seconds of every child this shell has waited for (here, not
# in a subshell, whose children are not these): a test's share is the growth over its run, its
# VMs' qemu included
child_cpu() {
	local f=$resdir/times.$BASHPID
	times >"$f"
	printf -v "$1" %s "$(times_secs "$f")"
}

# marker FILE KEY: the value of a "#% KEY: VALUE" line
marker() { sed -n "s/^#% $2: *//p" "$1" | head -n 1; }

# run_one SPEC N: one test; its report to $resdir/N.report, then "PASSED FAILED SKIPPED SECONDS
# NAME" to $resdir/N.result (written last: its presence says the test is over). In a subshell of
# its own, so that its CPU (child_cpu) is its processes' alone: the main lane's shell also reaps
# the other lanes when they end, and took their CPU as the test of the moment's
run_one() { (run_test "$@"); }
run_test() {
	local t=$1 n=$2 start=$SECONDS cpu0 cpu1 kernel=${KERNEL:-} envs= tag= rest rc p f s
	child_cpu cpu0
	local server smp tmo runs name log
	if [[ $t == *@* ]]; then
		rest=${t#*@}
		t=${t%%@*}
		kernel=${rest%%@*}
		[[ $rest == *@* ]] && envs=${rest#*@} envs=${envs//@/ }
		tag="[${kernel:-default}${envs:+, ${envs// /, }}]"
	elif [ -n "$kernel" ]; then
		tag="[$kernel]"
	fi
	name=${t#"$top"/}${tag:+ $tag}
	log=$logdir/$(basename "$t")${tag:+@$kernel${envs:+@${envs// /@}}}.log
	p=0 f=0 s=0
	exec 3>"$resdir/$n.report"
	case $t in
	*/host/*.sh)
		tmo=$(marker "$t" timeout)
		echo "--- host $name" >&3
		timeout -k 10 "${tmo:-${HOST_TIMEOUT:-300}}" "$t" >"$log" 2>&1
		rc=$?
		sed 's/^/    /' "$log" >&3
		case $rc in
		0) p=1; echo "PASS $name ($((SECONDS - start))s)" >&3 ;;
		77) s=1; echo "SKIP $name" >&3 ;;
		124 | 137) f=1; echo "FAIL $name (timed out after ${tmo:-${HOST_TIMEOUT:-300}}s)" >&3 ;;
		*) f=1; echo "FAIL $name (exit $rc)" >&3 ;;
		esac
		;;
	*.sh)
		echo "--- VM $name" >&3
		# "#% server: SCRIPT" in a test asks for a second VM running SCRIPT; "#% smp: N", N vCPUs
		# per VM. One by default: two lanes of two-vCPU VMs on a 2-core host spin on each other's
		# preempted vCPUs (test_rdma_slot_bound took 333 s of CPU in a full run for 43 alone;
		# test_churn and test_security beside each other took 291 s of CPU with two each, 209
		# with one); a test whose point is CPUs racing (the core set, the level truth) says 2;
		# "#% timeout:
		# S", a test that needs longer than the default
		server=$(marker "$t" server) smp=$(marker "$t" smp) tmo=$(marker "$t" timeout)
		# where tools/vm/run leaves this run's console, dmesg, stall.txt: one per variant, as
		# two variants of one script may run at once in two lanes
		runs=$out/vm${kernel:+/k/$kernel}/runs/$(basename "$t" .sh)${envs:+@${envs// /@}}
		# a spec given more than once (make level-truth) may run in two lanes at once
		[ "${repeats[$1]:-1}" = 1 ] || runs=$runs.$n
		vm_run
		rc=$?
		if [ "$rc" = 124 ]; then
			# the phase it hung in: the script's last words, and the kernel's view of it
			echo "    note: $name timed out after ${tmo:-${VM_TIMEOUT:-600}}s; its last lines:" >&3
			tr -d '\r' <"$runs/console.log" 2>/dev/null | grep -av '^\[ *[0-9.]*\] ' | tail -n 5 | sed 's/^/    last| /' >&3
			cp "$runs/dmesg.txt" "$log.hang-dmesg" 2>/dev/null &&
				grep -a -A12 'blocked for more than\|Call Trace' "$runs/dmesg.txt" | head -n 60 | sed 's/^/    hang| /' >&3
			cp "$runs/stall.txt" "$log.stall" 2>/dev/null &&
				awk '/^== [0-9]+ (dd|slotscope|bpftrace|sync|sh) / { p = 1 } /^== [0-9]+ / && !/ (dd|slotscope|bpftrace|sync|sh) / { p = 0 }
				     /^== \/sys/ { p = 1 } p' "$runs/stall.txt" | head -n 150 | sed 's/^/    stall| /' >&3
		fi
		# a guest kernel that faulted under TCG (an Oops while patching text, seen on 6.12) or whose
		# RDMA client hung under soft-RoCE gets one more boot, said in the output; any other
		# failure is the test's
		if [ "$rc" != 0 ] && [ "$rc" != 77 ] && grep -qaE "$GUEST_FAULT" "$runs/console.log" "$runs/server/console.log" 2>/dev/null; then
			echo "    note: $name: the guest kernel faulted (exit $rc); booting it once more" >&3
			grep -ahE -m 3 "$GUEST_FAULT|RIP:|pc :" "$runs/console.log" "$runs/server/console.log" 2>/dev/null |
				head -n 6 | sed 's/^/    fault| /' >&3
			retry=1
		elif [ "$rc" != 0 ] && [ "$rc" != 77 ] && hung=$(rxe_hung); then
			echo "    note: $name: stopped, the RDMA client hung under soft-RoCE (exit $rc); booting it once more" >&3
			echo "    fault| $hung" >&3
			retry=1
		else
			retry=
		fi
		if [ -n "$retry" ]; then
			cp "$runs/console.log" "$log.fault" 2>/dev/null
			cat "$runs/dmesg.txt" "$runs/server/dmesg.txt" >"$log.fault-dmesg" 2>/dev/null
			vm_run
			rc=$?
		fi
		cp "$runs/console.log" "$log" 2>/dev/null
		# NAME.host checks, on the host, what the VM left in its run directory
		if [ "$rc" = 0 ] && [ -x "${t%.sh}.host" ]; then
			"${t%.sh}.host" "$runs" >>"$log" 2>&1
			rc=$?
		fi
		# the checks the script made, and its own words on failure
		grep -aE '^(ok |FAIL|SKIP|note )' "$log" 2>/dev/null | sed 's/\r$//; s/^/    /' >&3
		case $rc in
		0) p=1; echo "PASS $name ($((SECONDS - start))s)" >&3 ;;
		77) s=1; echo "SKIP $name" >&3 ;;
		*) f=1; echo "FAIL $name (exit $rc; $((SECONDS - start))s; console: $log)" >&3
		   tail -n 30 "$log" 2>/dev/null | sed 's/\r$//; s/^/    | /' >&3
		   sed 's/^/    host| /' "$log.host" >&3 ;;
		esac
		;;
	*)
		timeout -k 10 "${UNIT_TIMEOUT:-900}" "$t" >"$log" 2>&1
		rc=$?
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
		s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
		p=${p:-0} f=${f:-0} s=${s:-0}
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
			f=1
		fi
		if [ "$f" != 0 ]; then
			case $rc in 124 | 137) echo "    timed out after ${UNIT_TIMEOUT:-900}s" >>"$log" ;; esac
			echo "FAIL $name ($p passed, $f failed, exit $rc, $((SECONDS - start))s)" >&3
			sed 's/^/    | /' "$log" >&3
		else
			[ "$s" = 0 ] && echo "PASS $name ($p passed, $((SECONDS - start))s)" >&3 ||
				echo "PASS $name ($p passed, $s skipped, $((SECONDS - start))s)" >&3
		fi
		;;
	esac
	exec 3>&-
	child_cpu cpu1
	echo "$((start - t_start)) $((SECONDS - t_start)) $((cpu1 - cpu0)) $name" >"$resdir/$n.span"
	echo "$p $f $s $((SECONDS - start)) $name" >"$resdir/$n.result.tmp" && mv "$resdir/$n.result.tmp" "$resdir/$n.result"
}

# wait_for @wait:RC[:LOG] N: the tests after it need what a build beside them makes; it writes
# "STATUS SECONDS" to RC when it ends. A failed build is one failure, with its log's end.
wait_for() {
	local spec=${1#@wait:} n=$2 start=$SECONDS rc log st secs cpu
	rc=${spec%%:*} log=${spec#*:}
	[ "$log" != "$spec" ] || log=
	until [ -s "$rc" ]; do sleep 2; done
	read -r st secs <"$rc"
	if [ "$st" = 0 ]; then
		# its CPU seconds, where it left its `times` beside RC
		cpu=$(times_secs "$rc.times")
		echo "    note: the build beside the tests took ${secs:-?} s${cpu:+ ($cpu s of CPU)}; waited $((SECONDS - start)) s for it" >"$resdir/$n.report"
		echo "0 0 0 0 build beside the tests" >"$resdir/$n.result"
	else
		{ echo "FAIL the build beside the tests (exit $st; ${log:-no log})"
		  [ -z "$log" ] || tail -n 30 "$log" | sed 's/^/    | /'; } >"$resdir/$n.report"
		echo "0 1 0 $((SECONDS - start)) build beside the tests" >"$resdir/$n.result"
	fi
}

# flush: print every finished report not printed yet, in the order the tests ended
flush() {
	local r
	for r in $(ls -tr "$resdir"/*.result 2>/dev/null); do
		[ -e "${r%.result}.shown" ] && continue
		cat "${r%.result}.report"
		: >"${r%.result}.shown"
	done
}

main=() idle=() i=0
declare -A repeats=()
for t in "$@"; do
	repeats[$t]=$((${repeats[$t]:-0} + 1))
done
for t in "$@"; do
	f=${t%%@*}
	if [ "${RUN_LANES:-1}" = 1 ] && [[ $f == */vm/*.sh ]] && [ -f "$f" ] && [ "$(marker "$f" lane)" = idle ]; then
		idle+=("$i:$t")
	else
		main+=("$i:$t")
	fi
	i=$((i + 1))
done
# the idle lane's longest first (by its timeout), so the lane ends as early as it can
if [ ${#idle[@]} -gt 1 ]; then
	mapfile -t idle < <(for e in "${idle[@]}"; do
		f=${e#*:}; f=${f%%@*}; echo "$(marker "$f" timeout | grep -E '^[0-9]+$' || echo "${VM_TIMEOUT:-600}") $e"
	done | sort -k1,1nr -s | cut -d' ' -f2-)
fi
if [ ${#idle[@]} -gt 0 ]; then
	( for e in "${idle[@]}"; do run_one "${e#*:}" "${e%%:*}"; done ) &
	lane=$!
fi
# claim N: test N is this lane's to run (no other lane took it)
claim() { mkdir "$resdir/claim.$1" 2>/dev/null; }
is_vm() { local f=${1%%@*}; [[ $f == */vm/*.sh ]]; }
# gate[N]: the RC file of the @wait before test N (none: it needs only the first build)
declare -A gate=()
g=
for e in "${main[@]}"; do
	case ${e#*:} in
	@wait:*) g=${e#*:}; g=${g#@wait:}; g=${g%%:*} ;;
	*) gate[${e%%:*}]=$g ;;
	esac
done
ready() { [ -z "${gate[$1]:-}" ] || [ -s "${gate[$1]}" ]; }
# share_vm: another lane over the VM tests of the main list, as the first lane takes them too:
# the first one not taken whose build is in, in the order given, so a test whose own build came
# early (VAST's stack) starts then and does not end the run alone
share_vm() {
	local e spec n left
	while :; do
		left=0
		for e in "${main[@]}"; do
			spec=${e#*:} n=${e%%:*}
			case $spec in @wait:*) continue ;; esac
			is_vm "$spec" && [ ! -d "$resdir/claim.$n" ] || continue
			left=1
			ready "$n" && claim "$n" || continue
			run_one "$spec" "$n"
			continue 2
		done
		[ $left = 0 ] && return
		sleep 2
	done
}
if [ "${RUN_LANES:-1}" = 1 ]; then
	for ((l = 1; l < ${VM_LANES:-2}; l++)); do
		share_vm &
		shared+=($!)
	done
fi
# the first lane: unit and host tests in order, each @wait before one of them waited for here;
# a @wait followed by VM tests alone is waited for (its report written) at the end, and a VM test
# whose build is not in yet is left to whichever lane is free once it is
later=()
for ((i = 0; i < ${#main[@]}; i++)); do
	e=${main[i]}
	case ${e#*:} in
	@wait:*)
		blocks=0
		[ "${RUN_LANES:-1}" = 1 ] || blocks=1
		for ((k = i + 1; k < ${#main[@]}; k++)); do
			case ${main[k]#*:} in @wait:*) break ;; esac
			is_vm "${main[k]#*:}" || { blocks=1; break; }
		done
		if [ $blocks = 1 ]; then wait_for "${e#*:}" "${e%%:*}"; else later+=("$e"); fi
		;;
	*) if ! is_vm "${e#*:}" || [ "${RUN_LANES:-1}" != 1 ]; then run_one "${e#*:}" "${e%%:*}"
	   elif ready "${e%%:*}" && claim "${e%%:*}"; then run_one "${e#*:}" "${e%%:*}"; fi ;;
	esac
	flush
done
for e in ${later[@]+"${later[@]}"}; do
	wait_for "${e#*:}" "${e%%:*}"
	flush
done
[ "${RUN_LANES:-1}" != 1 ] || share_vm
[ -z "$lane" ] || wait "$lane"
[ ${#shared[@]} = 0 ] || wait "${shared[@]}"
flush

pass=0 fail=0 skip=0 sum=0 failed=()
while read -r p f s secs name; do
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)) sum=$((sum + secs))
	[ "$f" = 0 ] || failed+=("$name")
done < <(cat "$resdir"/*.result 2>/dev/null)
if [ $# -gt 1 ]; then
	echo "slowest ten (seconds):"
	cat "$resdir"/*.result 2>/dev/null | sort -k4,4nr | head -n 10 | awk '{ s = $4; $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); printf "  %5d  %s\n", s, $0 }'
	echo "time: $((SECONDS - t_start)) s for $# tests ($sum s of test time, lanes overlapping)${TEST_T0:+; $(($(date +%s) - TEST_T0)) s since make test began}"
	# each test's start and end (s since the run began) and CPU seconds, for who ran beside whom
	sort -n "$resdir"/*.span >"$logdir/timeline.txt" 2>/dev/null
	echo "most CPU (seconds: CPU, wall):"
	sort -k3,3nr "$logdir/timeline.txt" | head -n 10 | awk '{ c = $3; w = $2 - $1; $1 = $2 = $3 = ""; sub(/^ +/, ""); printf "  %5d %5d  %s\n", c, w, $0 }'
	hz=$(getconf CLK_TCK 2>/dev/null || echo 100) cores=$(nproc 2>/dev/null || echo 1) el=$((SECONDS - t_start))
	[ "$el" -gt 0 ] && echo "cpu: $(( (cores * el - ($(cpu_idle) - idle0) / hz) * 100 / (cores * el) ))% of $cores cores busy over the run; each test's span in $logdir/timeline.txt"
fi
[ ${#failed[@]} = 0 ] || echo "failed: ${failed[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
