# The core set, in one boot, for every kernel of the matrix (make test runs it on 6.12 and on
# sid's 7.x, and on the default kernel with every hook forced to its fallback variant): exact
# occupancy over TCP against mountstats, the RDMA limit against the request pool the kernel
# built (counted by a kprobe event of the kernel's own tracefs as the mount made it) with no
# interval above it, NFSv4.1 session slots, sends and connects against mountstats, and the
# Prometheus textfile (checked by promtool on the host, test_core.host).
# two vCPUs: the core set is where the programs run on CPUs that race each other (a hand-off
# on one CPU while the other takes a slot)
#% smp: 2
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
echo 4 >/sys/module/nfs/parameters/max_session_slots || exit 1
mount_tcp /mnt/t 3 16 || exit 1
srv_t=$LAST_SERVER
mount_tcp /mnt/s 4.1 || exit 1
srv_s=$LAST_SERVER
echo "note kernel $(uname -r), attach ${SLOTSCOPE_ATTACH:-preferred}, events ${SLOTSCOPE_EVENTS:-functions}"

# the pool as the kernel builds it, per struct rpcrdma_xprt: a kprobe event on the request
# constructor (its first argument, the transport), enabled before the mount; no BPF of any kind
# (bpftrace's LLVM cost this test most of its CPU under TCG, four times over on arm64)
kprobe_on req 'rpcrdma_req_create xprt=$arg1:x64' || exit 1

slotscope -v --json 0.5 -d 900 --prom-file /out/metrics.prom --prom-keep >/tmp/c.json 2>/tmp/c.err &
ss=$!
i=0
until grep -q '"type":"interval"' /tmp/c.json 2>/dev/null || [ $i -ge 240 ]; do sleep 0.5; i=$((i + 1)); done
grep -q '"type":"interval"' /tmp/c.json || { cat /tmp/c.err; fail "slotscope did not start"; exit 1; }
# a transport made while attached: its pool is counted as it is built
mount_rdma /mnt/r 3 || exit 1
srv_r=$LAST_SERVER
writer_dirs /export/d 192 || exit 1

s0=$(mountstats_xprt /mnt/t sends) c0=$(mountstats_xprt /mnt/t connect_count) w0=$(mountstats_op /mnt/t WRITE ops)
b0=$(mountstats_op /mnt/t WRITE bytes_sent) rw0=$(mountstats_op /mnt/r WRITE ops) rb0=$(mountstats_op /mnt/r WRITE bytes_sent)
writers /mnt/t 64 2 >/dev/null
writers /mnt/s 32 1 >/dev/null
WRITERS_TOGETHER=1 writers /mnt/r/d 192 1 >/dev/null
sync
sleep 1
s1=$(mountstats_xprt /mnt/t sends) c1=$(mountstats_xprt /mnt/t connect_count) w1=$(mountstats_op /mnt/t WRITE ops)
b1=$(mountstats_op /mnt/t WRITE bytes_sent) rw1=$(mountstats_op /mnt/r WRITE ops) rb1=$(mountstats_op /mnt/r WRITE bytes_sent)
kill -INT $ss
wait $ss
rc=$?
trace_off slotscope_test/req >/tmp/kp.out || exit 1
cp /tmp/c.err /out/slotscope.err
grep -E '^slotscope: (hook [a-z0-9_]+: the|hook .* refused|hook .* does not attach|no BPF trampoline|rpcrdma|transport|RDMA)' /tmp/c.err | sed 's/^/note /'
check_eq "slotscope exit status" $rc 0
# no trampoline for one fentry is none for any (ENOTSUPP is the arch's): the smallest fentry
# program finds it before the load, and the one load takes every function hook's fallback (arm64
# 6.1 loaded the object four times, then twice, ~30 s each here)
if grep -q 'no BPF trampoline' /tmp/c.err; then
	check_eq "no trampolines: found before the load" "$(grep -c 'no BPF trampoline on this kernel' /tmp/c.err)" 1
	check_eq "no trampolines: the BPF object loaded once" "$(grep -c "loading object 'slotscope_bpf'" /tmp/c.err)" 1
fi

# a kernel that skips a program re-entered on a CPU (7.x under emulation does, often) loses those
# events: every count must then be within that many of the truth, and exact when there were none
# every value the checks read from the summary, in one jq (jset)
tail -n 1 /tmp/c.json >/tmp/sum.json
T="xprt(\"$srv_t\")" R="xprt(\"$srv_r\")" S="xprt(\"$srv_s\")"
jset </tmp/sum.json miss=.counters.recursion_misses \
	drops='.counters.inflight_full + .counters.waiters_full + .counters.ops_full' \
	t_note="$T | {id,limit,limit_source,peak,at_limit_s,busy_s,slot_waits:.waits.slot.count,sends,connects}" \
	t_id="$T.id" t_limit="$T.limit" t_peak="$T.peak" t_waits="$T.waits.slot.count" t_sends="$T.sends" \
	t_connects="$T.connects" t_in_use="$T.in_use" t_releases="$T.releases" \
	t_curve="$T | [.inflight_curve[].rpcs] | add" t_curve_in="$T | ([.inflight_curve[].to] | max) <= .limit" \
	t_curve_full="$T | [.inflight_curve[] | select(.from == 16) | .rpcs] | add // 0" \
	t_ops='op("/mnt/t"; "WRITE"; .count)' t_bytes='op("/mnt/t"; "WRITE"; .bytes_sent)' \
	r_note="$R | {id,limit,limit_source,max_reqs,peak,slot_waits:.waits.slot.count,sends,credits}" \
	r_id="$R.id" r_limit="$R.limit" r_source="$R.limit_source" r_max_reqs="$R.max_reqs" r_peak="$R.peak" \
	r_sends="$R.sends" r_granted="$R.credits.granted" r_in_use="$R.in_use" r_releases="$R.releases" \
	r_curve="$R | [.inflight_curve[].rpcs] | add" \
	r_ops='op("/mnt/r"; "WRITE"; .count)' r_bytes='op("/mnt/r"; "WRITE"; .bytes_sent)' \
	s_waits="$S.waits.session.count" \
	session="$S.id as \$id | [.sessions[] | select(.xprt_id == \$id)] | first" || exit 1
echo "note runs the kernel skipped: $miss"

# which variant every hook took, from -v's list: the event design asked for (functions unless
# SLOTSCOPE_EVENTS=tracepoints) and nothing of the other design loaded
want=tp_btf fwant=fentry
[ "${SLOTSCOPE_ATTACH:-}" = fallback ] && want=raw_tp fwant=kprobe
events=${SLOTSCOPE_EVENTS:-functions}
# every program variant the kernel is offered loads: a refused one is a hook lost on that kernel
# (7.2 once refused every file I/O hook: no job named)
check_eq "no variant refused by the verifier" "$(grep -c 'the verifier refused' /tmp/c.err)" 0
check_eq "events" "$(sed -n 's/^slotscope: events  *\([a-z]*\)$/\1/p' /tmp/c.err)" "$events"
hook() { sed -n "s/^slotscope: hook $1  *\([a-z_]*\)$/\1/p" /tmp/c.err; }
for h in xprt_reserve rpc_stats_latency xprt_create xprt_destroy nfs4_setup_sequence rpc_clnt_free xprt_get_cong xprt_put_cong xprt_transmit; do
	check_eq "hook $h" "$(hook $h)" $want
done
if [ "$events" = functions ]; then
	for h in rpc_sleep_on rpc_sleep_on_priority rpc_sleep_on_priority_timeout rpc_delay __rpc_atrun __xprt_set_rq; do
		# a kernel that loads fentry but has no trampoline to attach it (arm64 before 6.5's
		# ftrace direct calls) says so, and the hook takes its kprobe
		if [ $fwant = fentry ] && grep -q "^slotscope: no BPF trampoline on this kernel" /tmp/c.err; then
			check_eq "hook $h (fentry does not attach here)" "$(hook $h)" kprobe
		else
			check_eq "hook $h" "$(hook $h)" $fwant
		fi
	done
	check_eq "no tracepoint of the other design" "$(hook rpc_task_sleep)$(hook rpc_task_wakeup)" ""
else
	for h in rpc_task_sleep rpc_task_wakeup; do check_eq "hook $h" "$(hook $h)" $want; done
	check_eq "no function of the other design" "$(hook rpc_sleep_on)$(hook __xprt_set_rq)" ""
fi

# a field of /sys/kernel/sunrpc/.../xprt-ID-PROTO/xprt_info, the kernel's own view of a transport
xprt_info() { cat /sys/kernel/sunrpc/xprt-switches/*/xprt-$1-*/xprt_info 2>/dev/null | sed -n "s/^$2=//p" | head -n 1; }

# TCP, 16 slots, 64 writers
echo "note tcp: $t_note"
check_eq "tcp limit" "$t_limit" 16
check_eq "tcp limit = sysfs xprt_info max_num_slots" "$t_limit" "$(xprt_info "$t_id" max_num_slots)"
check_within "tcp max in use = mountstats max_slots" "$t_peak" "$(mountstats_xprt /mnt/t max_slots)" $miss
check_within "tcp max in use = limit" "$t_peak" 16 $miss
check_gt "tcp slot waits" "$t_waits" 0
check_eq "tcp sends = mountstats delta (read from the kernel's own counter)" "$t_sends" $((s1 - s0))
check_eq "tcp connects = mountstats delta" "$t_connects" $((c1 - c0))
check_within "tcp WRITE ops = mountstats delta" "$t_ops" $((w1 - w0)) $miss
# bytes exact when no run was skipped; a skipped run's WRITE carries at most wsize (1 MiB here)
check_within "tcp WRITE bytes = mountstats delta" "$t_bytes" $((b1 - b0)) $((miss * 1048832))
check_within "tcp in use back to 0" "$t_in_use" 0 $miss
# the in-flight curve holds every counted release once, at a level no higher than the limit,
# and the full table's RPCs at the limit
check_eq "tcp in-flight curve RPCs = releases" "$t_curve" "$t_releases"
check_gt "tcp in-flight curve RPCs >= mountstats WRITEs of the write" "$t_curve" $((w1 - w0 - miss - 1))
check_eq "tcp in-flight curve within the limit" "$t_curve_in" true
check_gt "tcp in-flight curve: RPCs taken at the limit" "$t_curve_full" 0

# RDMA: the limit is the pool the kernel built, reached and never exceeded
pool=$(trace_counts /tmp/kp.out xprt | sort -n | tail -n 1)
echo "note rdma: $r_note, pool built: $pool"
check_eq "rdma limit = requests the kernel created for the pool" "$r_limit" "$pool"
check_eq "rdma limit counted as the transport was made" "$r_source" counted
check_eq "rdma max_reqs = sysfs xprt_info max_num_slots" "$r_max_reqs" "$(xprt_info "$r_id" max_num_slots)"
check_within "rdma max in use = limit" "$r_peak" "$pool" $miss
over=$(jq -c --argjson m $miss 'select(.type == "interval") | .transports[] | select(.interval_peak > .limit + $m or .in_use > .limit + $m or .in_use < -$m)' /tmp/c.json | wc -l)
check_eq "intervals above the limit or negative, any transport" "$over" 0
[ "$over" = 0 ] || jq -c 'select(.type == "interval") | .transports[] | select(.interval_peak > .limit or .in_use > .limit or .in_use < 0) | {id,proto,limit,limit_source,in_use,interval_peak,peak}' /tmp/c.json | head -5
check_eq "rdma sends = mountstats (transport made while traced)" "$r_sends" "$(mountstats_xprt /mnt/r sends)"
check_gt "rdma credits granted" "$r_granted" 0
check_gt "rdma WRITEs were made" $((rw1 - rw0)) 0
check_within "rdma WRITE ops = mountstats delta" "$r_ops" $((rw1 - rw0)) $miss
check_within "rdma WRITE bytes = mountstats delta" "$r_bytes" $((rb1 - rb0)) $((miss * 1048832))
check_within "rdma in use back to 0" "$r_in_use" 0 $miss
check_eq "rdma in-flight curve RPCs = releases" "$r_curve" "$r_releases"

# NFSv4.1: 4 session slots
echo "note session: $session"
# the session's slots against the limit in force (#46): nfs4_free_slot hooked in either design,
# as a function is (fentry, else its kprobe)
fhook=$(hook nfs4_free_slot)
check_eq "hook nfs4_free_slot (fentry or kprobe)" "$([ "$fhook" = fentry ] || [ "$fhook" = kprobe ] && echo yes)" yes
check_eq "the session's slots in use at most its limit, and back to none" \
	"$(echo "$session" | jq -c '[.in_use_peak <= .limit_max, .in_use, .at_limit_pct > 0]')" "[true,0,true]"
echo "$session" >/tmp/session.json
jset </tmp/session.json ms=.max_slots peak_slot=.peak_used_slotid target_ok='.target_highest_slotid + 1 >= .max_slots' || exit 1
check_le "highest used slot id below the table size" "$peak_slot" $((ms - 1))
check_eq "session table as the server sized it (target_highest_slotid + 1 >= max_slots)" "$target_ok" true
# 6.1 and 6.12 keep the table at the client's max_session_slots; 7.x grows it with the
# server's target (seen: 15 after asking for 4), and 32 writers then rarely wait for one
if [ "$ms" = 4 ]; then
	check_gt "session-slot waits (4 slots, 32 writers)" "$s_waits" 0
else
	# the table grew: then the 32 writers must have used slots past the 4 asked for
	check_gt "the grown session table ($ms slots) used past max_session_slots=4 (highest slot id)" "$peak_slot" 3
fi
check_eq "no map drops" "$drops" 0

# the function design with every hook through its fallback (kprobes, raw_tp: a root loader on a
# stack whose modules carry no BTF), loaded on every kernel of the matrix
env SLOTSCOPE_ATTACH=fallback SLOTSCOPE_EVENTS=functions slotscope -v --json 1 -d 2 >/tmp/k.json 2>/tmp/k.err
check_eq "every hook's fallback, the function design: traced to its end" "$?" 0
check_eq "every hook's fallback, the function design: its waits through kprobes" \
	"$(sed -n 's/^slotscope: hook rpc_sleep_on  *//p' /tmp/k.err | head -n 1)" kprobe
check_eq "every hook's fallback, the function design: nothing refused" "$(grep -c 'refused' /tmp/k.err)" 0

# the package unit's capabilities at Debian's default perf_event_paranoid: NFS's module cannot be
# hooked, and a new open context is seen from vmlinux's open (do_filp_open(), do_file_open() from
# 7.0), its program loaded on every kernel of the matrix while an NFS file is opened and written
echo 3 >/proc/sys/kernel/perf_event_paranoid
as_unit "exec slotscope -v --json 1 -d 4 >/tmp/u.json 2>/tmp/u.err" &
up=$!
i=0; until grep -q '"interval"' /tmp/u.json 2>/dev/null || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
dd if=/dev/zero of=/mnt/t/unit bs=64k count=1 oflag=direct 2>/dev/null || fail "a write as the unit traced"
wait $up
check_eq "unit's capabilities: traced to its end" "$?" 0
# where the kernel has BPF trampolines (arm64's 6.1 has none: then no vmlinux hook either, and no job)
vw=$(sed -n 's/^slotscope: hook vfs_write  *//p' /tmp/u.err | head -n 1)
if [ "$vw" = fexit ]; then
	check_eq "unit's capabilities: new open contexts from vmlinux's open" \
		"$(sed -n 's/^slotscope: hook do_fil[pe]_open  *//p' /tmp/u.err | head -n 1)" fexit
else
	echo "note unit's capabilities: no vmlinux fexit here (vfs_write: $vw): no job is named, no open hooked"
fi
exit $CHECK_FAILED
