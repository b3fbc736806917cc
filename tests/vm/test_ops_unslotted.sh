# Ops past the per-CPU op slots count in their own map entries at every RPC, and no program
# announces it (a bump of the ops generation there would bounce a global cache line at every RPC
# on a large node): user space must read the ops map every tick while its copy holds such an op.
# The test build takes 2 op slots; a mount is written twice, the second time with every op it
# needs already made, so nothing else moves the generation. Its counts against mountstats.
# Beside it, the node's CPUs as each record reads them, against a load the test makes.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/b 3 16 >/dev/null || exit 1
w0=$(mountstats_op /mnt/b WRITE ops)
c0=$(mountstats_op /mnt/b COMMIT ops)
# a run of its own length, as the exporter runs: no command whose end would read the maps afresh
SLOTSCOPE_TEST_OP_SLOTS=2 slotscope-faults --json 1 -d 30 >/tmp/s.json 2>/tmp/s.err &
p=$!
i=0
until grep -q '"type":"interval"' /tmp/s.json 2>/dev/null || [ $i -ge 240 ]; do sleep 0.5; i=$((i + 1)); done
writers /mnt/b 16 1
sleep 2
writers /mnt/b 16 1
sleep 2
bpftool map dump name ops | grep -c '"pslot": 4294967295' >/tmp/unslotted
# the node's CPUs (cpu_busy_pct, /proc/stat's time at work): idle for 3 s, then both spun for 5 s
sleep 3
for c in 0 1; do timeout 5 taskset -c $c sh -c 'while :; do :; done' & done
wait
# its summary at the end of its 30 s (writers' wait may have reaped it: no wait on its pid)
i=0
until grep -q '"type":"summary"' /tmp/s.json 2>/dev/null || [ $i -ge 240 ]; do sleep 0.5; i=$((i + 1)); done
w1=$(mountstats_op /mnt/b WRITE ops)
c1=$(mountstats_op /mnt/b COMMIT ops)
jq -c 'select(.type == "summary")' /tmp/s.json >/tmp/sum.json
check_eq "one summary" "$(wc -l </tmp/sum.json)" 1
# an event the kernel skipped (a program already running on that CPU) is lost to every count
miss=$(jq '.counters.recursion_misses' /tmp/sum.json)
check_gt "ops past the 2 slots (counting in their entries)" "$(cat /tmp/unslotted)" 0
check_within "WRITE ops = mountstats delta" "$(ss_op /tmp/sum.json /mnt/b WRITE .count)" $((w1 - w0)) "$miss"
check_within "COMMIT ops = mountstats delta" "$(ss_op /tmp/sum.json /mnt/b COMMIT .count)" $((c1 - c0)) "$miss"
jq -r 'select(.type == "interval") | .cpu_busy_pct' /tmp/s.json >/tmp/cpu
check_eq "every interval's cpu_busy_pct read, 0..100" \
	"$(awk '$1 == "null" || $1 < 0 || $1 > 100 { bad++ } END { print bad + 0 }' /tmp/cpu)" 0
check_ge "the spun seconds: an interval with both CPUs 95 % busy or more" \
	"$(awk '$1 >= 95 { n++ } END { print n + 0 }' /tmp/cpu)" 1
check_ge "the idle seconds: an interval under half busy" "$(awk '$1 < 50 { n++ } END { print n + 0 }' /tmp/cpu)" 1
jq -s . /tmp/cpu >/tmp/cpu.json
check_eq "the summary's share between its intervals' least and most" "$(jq -r --slurpfile c /tmp/cpu.json \
	'.cpu_busy_pct >= ($c[0] | min) - 0.5 and .cpu_busy_pct <= ($c[0] | max) + 0.5' /tmp/sum.json)" true
exit $CHECK_FAILED
