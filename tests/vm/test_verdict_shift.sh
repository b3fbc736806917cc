# The demo's claim, tested: a checkpoint write over NFS/TCP on a transport with 128 slots to a
# server whose RTT does not grow with load (netem: >= 1 s) is slot-bound, achieves no more than
# Little's law allows (128 x wsize / RTT), and the same write on a transport with 4096 slots is
# faster, as the writers' own clock says, with a verdict that is no longer slot-bound: 4096 slots hold
# the whole burst (96 writers x 1 MiB in 32 KiB WRITEs), so none waits for a slot.
#% lane: idle
nfsd_start 16 >/dev/null || exit 1
N=96 MIB=1
# run MNT OUT: the write under slotscope; prints the writers' seconds
run() {
	s=$(cut -d' ' -f1 /proc/uptime)
	slotscope --json --ckpt-threshold 1 --ckpt-quiet 4 -- sh -c ". /src/tools/vm/lib.sh; writers $1 $N $MIB" \
		>"$2" || return 1
	e=$(cut -d' ' -f1 /proc/uptime)
	awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'
}
# ckpt FILE SERVER JQ: a value of the NFS transport to SERVER in the first checkpoint record
ckpt() {
	jq -c --arg s "$2" 'select(.type == "checkpoint" and .n == 1) | .transports[] |
		select(.server == $s and .port == "2049")' "$1" | jq -r "$3"
}
# a directory per writer, made on the server's side: creates in one directory serialize
writer_dirs /export/a $N && writer_dirs /export/b $N || exit 1
mount_tcp /mnt/s128 3 128 wsize=32768 >/dev/null || exit 1
a=$LAST_SERVER
server_latency $a 1000 >/dev/null || exit 1
t1=$(run /mnt/s128/a /tmp/a.json) || exit 1
mount_tcp /mnt/s4096 3 4096 wsize=32768 >/dev/null || exit 1
b=$LAST_SERVER
server_latency $b 1000 >/dev/null || exit 1
t2=$(run /mnt/s4096/b /tmp/b.json) || exit 1
for f in a b; do
	eval "srv=\$$f"
	echo "note $f: checkpoints $(jq -c 'select(.type == "checkpoint") | {n, duration_s, GBps}' /tmp/$f.json | tr '\n' ' ')"
	echo "note $f: $(ckpt /tmp/$f.json $srv '{limit, peak, at_limit_pct, verdict: .verdict | {class, why}}' | jq -c .)"
done
check_eq "128 slots: limit" "$(ckpt /tmp/a.json $a .limit)" 128
check_eq "128 slots: verdict" "$(ckpt /tmp/a.json $a .verdict.class)" slot-bound
check_eq "128 slots: peak = mountstats max_slots" "$(ckpt /tmp/a.json $a .peak)" "$(mountstats_xprt /mnt/s128 max_slots)"
# the window opens with up to 128 WRITEs already in flight, whose bytes land inside it: ~128 of
# the ~3000 WRITEs, so the bound holds to within a few percent
check_eq "128 slots: achieved <= Little's-law ceiling (+10 %)" \
	"$(ckpt /tmp/a.json $a '.verdict.achieved_Bps <= .verdict.ceiling_Bps * 1.1')" true
check_eq "4096 slots: limit" "$(ckpt /tmp/b.json $b .limit)" 4096
v2=$(ckpt /tmp/b.json $b .verdict.class)
check_eq "4096 slots: verdict is no longer slot-bound ($v2)" "$([ "$v2" != slot-bound ] && [ -n "$v2" ] && echo yes)" yes
# the writers' own clock, not slotscope's, says the second write was faster
# 128 slots take ~24 RTTs whatever the CPU; 4096 are CPU-bound under TCG, slower on a slower host
check_eq "4096 slots: writers 1.2x faster ($t1 s -> $t2 s)" "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print (a >= 1.2 * b) ? "yes" : "no" }')" yes
g1=$(jq 'select(.type == "checkpoint" and .n == 1) | .GBps' /tmp/a.json)
g2=$(jq 'select(.type == "checkpoint" and .n == 1) | .GBps' /tmp/b.json)
check_eq "slotscope's checkpoint GB/s agrees ($g1 -> $g2)" "$(awk -v a="$g1" -v b="$g2" 'BEGIN { print (b >= 1.2 * a && a > 0) ? "yes" : "no" }')" yes
exit $CHECK_FAILED
