# The core set on VAST Data's NFS stack (KERNEL=vastnfs: Debian's 6.1 with vastnfs built from
# ../shared/vendor in place of its sunrpc, nfs, nfsd, rpcrdma; no module BTF). slotscope reads the
# stack's layout from the modules' own DWARF (pahole), the files proven the modules loaded by their
# build ids, and every transport against what sunrpc publishes in sysfs. Checked against the
# kernel's own counts: TCP nconnect=16 spread by remoteports over 4 addresses (as root, then as
# nobody with the unit's two capabilities, from the BTF --make-btf kept; mdconnect's metadata
# transports told apart), then RDMA (soft-RoCE)
# nconnect=4: per transport sends (mountstats, paired by source port) and limit (sysfs
# max_num_slots), highest slots in use (mountstats max_slots), per mount WRITE ops and bytes. The
# kernel's own 6.1 layout given instead (--btf, the modules' BTF of Debian's build) is refused,
# exit 77, nothing reported. The audit names the stack and takes its multipath as meant.
# two vCPUs: VAST's multipath transports written from two CPUs at once (the peak's bound counts
# the CPUs)
#% smp: 2
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
# nfsv4 unloaded: every mount here is NFSv3, and VAST's nfsv4's BTF made from its DWARF was 110 s of
# the test's 280 s of emulated CPU (pahole: 8 s on the host, its types shared with none of
# vmlinux's). The same DWARF path makes sunrpc's, nfs's and rpcrdma's below.
rmmod nfsv4 || { fail "rmmod nfsv4"; exit 1; }
kver=$(uname -r)
bundle=$(cat /sys/module/sunrpc/parameters/nfs_bundle_version 2>/dev/null)
echo "note kernel $kver, sunrpc $(cat /sys/module/sunrpc/srcversion 2>/dev/null) taint $(cat /sys/module/sunrpc/taint), nfs_bundle_version ${bundle:-none}"
check_eq "VAST's sunrpc loaded (nfs_bundle_version)" "$([ -n "$bundle" ] && echo yes)" yes
check_eq "no BTF of sunrpc" "$([ -e /sys/kernel/btf/sunrpc ] && echo present || echo absent)" absent

# 8 writers per address, 16 transports: writes spread over every transport
mount_tcp_at 127.0.0.21 /mnt/v 3 16 nconnect=16,remoteports=127.0.0.21-127.0.0.24 || exit 1
mountstats_xprts /mnt/v srcport sends max_slots | sort >/tmp/x00
grep -A200 "mounted on /mnt/v " /proc/self/mountstats | grep '^\s*xprt:' | head -n 3 | sed 's/^/note mountstats | /'

# ---- the BTF made as root and kept, for runs without root (the unit's ExecStartPre), under a
# hardened root's umask 077: still readable by the service's user (the runs as nobody below)
t0=$(cut -d' ' -f1 /proc/uptime)
( umask 077; slotscope --make-btf ) >/tmp/m.err 2>&1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
sed 's/^/note make-btf | /' /tmp/m.err
echo "note --make-btf took $(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }') s"
check_eq "--make-btf: exit status" $rc 0
check_eq "--make-btf: the three modules loaded made from their DWARF" "$(grep -c 'made from its DWARF, kept' /tmp/m.err)" 3
check_eq "--make-btf: kept by build id and as the latest" \
	"$(ls /var/cache/slotscope/btf/$kver | grep -cE '^(sunrpc|nfs|rpcrdma)(-[0-9a-f]{40})?\.btf$')" 6
# (/var/cache too: a minimal root has none, and --make-btf makes it)
check_eq "--make-btf under umask 077: the cache's directories 0755" \
	"$(stat -c %a /var/cache /var/cache/slotscope /var/cache/slotscope/btf /var/cache/slotscope/btf/$kver | sort -u | tr '\n' ' ')" "755 "
check_eq "--make-btf under umask 077: its files 0644" \
	"$(stat -c %a /var/cache/slotscope/btf/$kver/*.btf | sort -u | tr '\n' ' ')" "644 "

# a column of a mountstats_xprts file, sorted, on one line
col() { awk -v c=$1 '{ print $c }' $2 | sort -n | tr '\n' ' '; }
# ---- TCP multipath, read through the DWARF kept above
# the counts before, read when the mount's transports are done with their own first calls: a CI run
# read them as mount returned, and four transports then at 0 had sent 1 before slotscope started
for i in 1 2 3 4 5 6 7 8 9 10; do
	mountstats_xprts /mnt/v srcport sends max_slots | sort >/tmp/x0
	sleep 1
	mountstats_xprts /mnt/v srcport sends max_slots | sort | cmp -s - /tmp/x0 && break
done
echo "note mountstats sends as mount returned: $(col 2 /tmp/x00)and before slotscope: $(col 2 /tmp/x0)"
w0=$(mountstats_op /mnt/v WRITE ops) b0=$(mountstats_op /mnt/v WRITE bytes_sent)
t0=$(cut -d' ' -f1 /proc/uptime)
slotscope -v --json 1 -- sh -c '. /src/tools/vm/lib.sh; writers /mnt/v 64 2; sleep 1' >/tmp/v.json 2>/tmp/v.err
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo "note slotscope on the TCP mount took $(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }') s"
cp /tmp/v.err /out/tcp.err
grep -E 'DWARF|BTF|hook|layout' /tmp/v.err | head -n 12 | sed 's/^/note | /'
check_eq "TCP: exit status" $rc 0
mountstats_xprts /mnt/v srcport sends max_slots | sort >/tmp/x1
w1=$(mountstats_op /mnt/v WRITE ops) b1=$(mountstats_op /mnt/v WRITE bytes_sent)
sum=$(tail -n 1 /tmp/v.json)
nfs() { echo "$sum" | jq -c '.transports[] | select(.port == "2049" and (.mounts | map(.mountpoint) | index("/mnt/v")))'; }
echo "note slotscope: $(nfs | jq -c '{id,server,limit,peak,sends,slot_waits:.waits.slot.count}' | tr '\n' ' ')"
check_eq "TCP: transports of the mount in mountstats" "$(wc -l </tmp/x1)" 16
check_eq "TCP: transports traced on the mount" "$(nfs | wc -l)" 16
check_eq "TCP: servers of its transports" "$(nfs | jq -r .server | sort -u | tr '\n' ' ')" \
	"127.0.0.21 127.0.0.22 127.0.0.23 127.0.0.24 "
# not joined by source port: reserved ports are drawn at random per connection, and two
# transports to different addresses may share one (a CI run read one transport's delta against
# its port-mate's start: 49 against 48). Each transport's count where slotscope first saw it and
# at the end, as sets, against the lines' before and after; and the growth summed
check_eq "TCP: each transport's sends when first seen = its mountstats line's before" \
	"$(nfs | jq '.sends_kernel - .sends' | sort -n | tr '\n' ' ')" "$(col 2 /tmp/x0)"
check_eq "TCP: each transport's sends at the end = its mountstats line's after" \
	"$(nfs | jq .sends_kernel | sort -n | tr '\n' ' ')" "$(col 2 /tmp/x1)"
check_eq "TCP: sends summed = mountstats delta" "$(nfs | jq -s 'map(.sends) | add')" \
	"$(awk 'NR == FNR { a += $2; next } { b += $2 } END { print b - a }' /tmp/x0 /tmp/x1)"
# max_slots is num_reqs at its highest, and xprt_dynamic_alloc_slot() counts a request in num_reqs
# before its kzalloc() (the reserve lock dropped): on a table still growing, up to one allocation
# per other CPU is counted there and not yet taken (test_tcp_default). Per transport, then:
# max_slots - (CPUs - 1) <= peak <= max_slots, which holds of the sorted lists as of each pair.
ncpu=$(grep -c ^processor /proc/cpuinfo)
check_eq "TCP: highest in use per transport within mountstats max_slots less the other CPUs' allocations" \
	"$(nfs | jq .peak | sort -n >/tmp/pk; awk '{ print $3 }' /tmp/x1 | sort -n >/tmp/ms; paste -d' ' /tmp/pk /tmp/ms |
		awk -v k=$((ncpu - 1)) '$1 > $2 || $1 < $2 - k { bad = bad " " $1 "/" $2 } END { print bad == "" ? "yes" : "no:" bad }')" yes
lim=$(for d in /sys/kernel/sunrpc/xprt-switches/switch-*/xprt-*-tcp; do
	sed -n 's/^max_num_slots=//p' $d/xprt_info 2>/dev/null; done | sort -u | tr '\n' ' ')
check_eq "TCP: every transport's limit = sysfs max_num_slots" "$(nfs | jq .limit | sort -u | tr '\n' ' ')" "$lim"
check_eq "TCP: WRITE ops = mountstats delta" "$(ss_op /tmp/v.json /mnt/v WRITE .count)" $((w1 - w0))
check_eq "TCP: WRITE bytes sent = mountstats delta" "$(ss_op /tmp/v.json /mnt/v WRITE .bytes_sent)" $((b1 - b0))
check_eq "TCP: acquires = releases on every transport" \
	"$(nfs | jq -r 'select(.acquires != .releases) | .id' | wc -l)" 0
a=$(head -n 1 /tmp/v.json)
echo "note audit: $(echo "$a" | jq -c '{stack, warnings}')"
check_eq "audit: the stack named" "$(echo "$a" | jq -r '.stack.name + " " + .stack.version')" "vastnfs $bundle"
check_eq "audit: the stack's nconnect ceiling (the what-if's)" "$(echo "$a" | jq .stack.nconnect_max)" 64
check_eq "audit: multipath is not a warning" "$(echo "$a" | jq '[.warnings[]? | select(test("nconnect"))] | length')" 0
check_eq "audit: the mount's transports" \
	"$(echo "$a" | jq '.mounts[] | select(.mountpoint == "/mnt/v") | .transports')" 16
# the addresses the kernel's own sysfs shows the TCP transports reaching, and the option as mounted
naddr=$(cat /sys/kernel/sunrpc/xprt-switches/switch-*/xprt-*-tcp/dstaddr 2>/dev/null | grep -c '^127\.0\.0\.2[1-4]$')
naddr_u=$(cat /sys/kernel/sunrpc/xprt-switches/switch-*/xprt-*-tcp/dstaddr 2>/dev/null | grep '^127\.0\.0\.2[1-4]$' | sort -u | wc -l)
check_eq "audit: the mount's server addresses = sysfs's" \
	"$(echo "$a" | jq '.mounts[] | select(.mountpoint == "/mnt/v") | .addresses')" "$naddr_u"
check_eq "audit: remoteports as mounted" "$(echo "$a" | jq -r '.mounts[] | select(.mountpoint == "/mnt/v") | .remoteports')" \
	"$(sed -n 's|.* /mnt/v nfs .*remoteports=\([^,]*\).*|\1|p' /proc/mounts)"
echo "note sysfs: $naddr TCP transports to 127.0.0.21-24 over $naddr_u addresses"
# a slot-bound transport of the mount names nconnect as the mount's, over its addresses (unit
# test_whatif's test_multipath checks the rule whatever this run's verdicts)
echo "note slot-bound transports of the mount: $(nfs | jq -r 'select(.verdict.class == "slot-bound") | .id' | wc -l)"
check_eq "verdict: a slot-bound transport's nconnect is the mount's" \
	"$(nfs | jq -r 'select(.verdict.class == "slot-bound") | select(.verdict.knob | test("over 4 addresses") | not) | .id' | wc -l)" 0

# ---- as the unit runs it: nobody with CAP_BPF and CAP_PERFMON alone, which can neither write the
# cache nor (under the unit's ProtectKernelModules) read /lib/modules: the BTF --make-btf kept, by
# the build id the kernel publishes to all
caps=cap_bpf,cap_perfmon
o0=$(mountstats_op /mnt/v WRITE ops) b0=$(mountstats_op /mnt/v WRITE bytes_sent)
mkdir -p /tmp/nb /mnt/v/nb && chmod 777 /tmp/nb /mnt/v/nb
capsh --caps="$caps,cap_setpcap,cap_setuid,cap_setgid+eip" --keep=1 --user=nobody --addamb="$caps" \
	--shell=/bin/sh -- -c "slotscope -v --json 1 -- sh -c '. /src/tools/vm/lib.sh; writers /mnt/v/nb 16 2; sleep 1' \
	>/tmp/nb/n.json 2>/tmp/nb/n.err"
rc=$?
o1=$(mountstats_op /mnt/v WRITE ops) b1=$(mountstats_op /mnt/v WRITE bytes_sent)
grep -E 'BTF|layout|refused' /tmp/nb/n.err | head -n 6 | sed 's/^/note nobody | /'
check_eq "as nobody: exit status" $rc 0
check_eq "as nobody: the BTF root kept, by build id" "$(grep -cE 'BTF of build id [0-9a-f]{40} from /var/cache/slotscope/btf/' /tmp/nb/n.err)" 3
check_eq "as nobody: WRITE ops = mountstats delta" "$(ss_op /tmp/nb/n.json /mnt/v WRITE .count)" $((o1 - o0))
check_eq "as nobody: WRITE bytes sent = mountstats delta" "$(ss_op /tmp/nb/n.json /mnt/v WRITE .bytes_sent)" $((b1 - b0))

# ---- mdconnect: transports of metadata ops alone, made while traced (seen at xprt_create)
slotscope --json 1 -- sh -c '. /src/tools/vm/lib.sh; mount_tcp_at 127.0.0.31 /mnt/m 3 "" nconnect=4,mdconnect=2 &&
	writers /mnt/m 8 1 && for i in $(seq 40); do touch /mnt/m/f$i; stat /mnt/m/ckpt.0 >/dev/null; done; sleep 1' \
	>/tmp/md.json 2>/tmp/md.err
rc=$?
check_eq "mdconnect: exit status" $rc 0
md() { tail -n 1 /tmp/md.json | jq -r '.transports[] | select(.server == "127.0.0.31" and .port == "2049") | .role' | sort | uniq -c | tr -s ' \n' ' '; }
echo "note mdconnect roles: $(md); mountstats: $(grep -A30 'mounted on /mnt/m ' /proc/self/mountstats | grep -m1 mdconnect)"
check_eq "mdconnect=2, nconnect=4: transports by role" "$(md)" " 4 data 2 metadata "

# ---- the kernel's own layout read into VAST's stack: refused, nothing reported
st=/lib/modules/$kver/stock
t0=$(cut -d' ' -f1 /proc/uptime)
slotscope --btf sunrpc=$st/sunrpc.btf --btf nfs=$st/nfs.btf --btf rpcrdma=$st/rpcrdma.btf \
	--json 0.5 -d 20 \
	-- sh -c '. /src/tools/vm/lib.sh; writers /mnt/v 16 4' >/tmp/w.json 2>/tmp/w.err
rc=$?
sed 's/^/note wrong layout | /' /tmp/w.err | head -n 8
check_eq "wrong layout: exit status" $rc 77
check_eq "wrong layout: said in one error line" "$(grep -c 'layout slotscope reads sunrpc through is wrong' /tmp/w.err)" 1
check_eq "wrong layout: no interval or summary on stdout" "$(grep -c '"type":"\(interval\|summary\)"' /tmp/w.json)" 0

# ---- RDMA, nconnect=4 (VAST's multipath over one RDMA server address)
mount_rdma /mnt/r 3 "" nconnect=4 || exit 1
# the sysctl its transports were made with (rpcrdma is loaded by then)
rdma_slots=$(cat /proc/sys/sunrpc/rdma_slot_table_entries)
srv_r=$LAST_SERVER
mountstats_xprts /mnt/r srcport sends | sort >/tmp/r0
rw0=$(mountstats_op /mnt/r WRITE ops) rb0=$(mountstats_op /mnt/r WRITE bytes_sent)
slotscope --json 1 -- sh -c '. /src/tools/vm/lib.sh; writers /mnt/r 48 2; sleep 1' >/tmp/r.json 2>/tmp/r.err
rc=$?
cp /tmp/r.err /out/rdma.err
check_eq "RDMA: exit status" $rc 0
mountstats_xprts /mnt/r sends >/tmp/r1
rw1=$(mountstats_op /mnt/r WRITE ops) rb1=$(mountstats_op /mnt/r WRITE bytes_sent)
sum=$(tail -n 1 /tmp/r.json)
rd() { echo "$sum" | jq -c --arg s "$srv_r" '.transports[] | select(.server == $s and .port == "20049")'; }
echo "note slotscope: $(rd | jq -c '{id,limit,peak,sends,slot_waits:.waits.slot.count}' | tr '\n' ' ')"
check_eq "RDMA: transports traced" "$(rd | wc -l)" "$(wc -l </tmp/r1)"
check_eq "RDMA: transports of the mount" "$(wc -l </tmp/r1)" 4
# RDMA's xprt: lines carry no source port, and VAST's multipath reorders them: each transport's
# own count (sends_kernel), as a set, against the lines' after a quiet second; and the deltas summed
echo "note mountstats RDMA sends before: $(tr '\n' ' ' </tmp/r0) after: $(tr '\n' ' ' </tmp/r1)"
check_eq "RDMA: each transport's sends = its mountstats line's" "$(rd | jq .sends_kernel | sort -n | tr '\n' ' ')" \
	"$(sort -n /tmp/r1 | tr '\n' ' ')"
check_eq "RDMA: sends summed = mountstats delta" "$(rd | jq -s 'map(.sends) | add')" \
	"$(paste /tmp/r0 /tmp/r1 | awk '{ s += $3 - $2 } END { print s }')"
check_eq "RDMA: WRITE ops = mountstats delta" "$(ss_op /tmp/r.json /mnt/r WRITE .count)" $((rw1 - rw0))
check_eq "RDMA: WRITE bytes sent = mountstats delta" "$(ss_op /tmp/r.json /mnt/r WRITE .bytes_sent)" $((rb1 - rb0))
check_eq "RDMA: no map drops" "$(echo "$sum" | jq '.counters.inflight_full + .counters.waiters_full + .counters.ops_full')" 0
# the limit, the peak and the credits of each RDMA transport against the stack's own settings
# (#64). VAST's RDMA transports are in sysfs, but their xprt_info read nothing once the write
# was done (one run: four xprt-*-rdma directories, not a field read from them; a transport not
# connected answers -ENOTCONN there), so: max_reqs is the client's
# rdma_slot_table_entries when the transport was made, the limit the pool its rpcrdma's BTF
# proves (max_reqs, no slack in 5.15's code) or counts as built, the peak within it in every
# interval; the credits granted are what the server grants, svc_rdma's max_requests (the same
# VM's nfsd), and none in use once quiet
echo "note RDMA limits: $(rd | jq -c '{id,max_reqs,limit,limit_source,peak,credits:(.credits | {limit,level,level_peak,limit_max})}' | tr '\n' ' ')"
echo "note RDMA transports in sysfs: $(ls -d /sys/kernel/sunrpc/xprt-switches/*/xprt-*-rdma 2>/dev/null | tr '\n' ' ')"
for d in /sys/kernel/sunrpc/xprt-switches/*/xprt-*-rdma; do echo "note $d/xprt_info: $(cat $d/xprt_info 2>&1 | tr '\n' ' ')"; done
check_eq "RDMA: each transport's max_reqs = rdma_slot_table_entries" \
	"$(rd | jq .max_reqs | sort -u | tr '\n' ' ')" "$rdma_slots "
check_eq "RDMA: each transport's limit is its pool, proven or counted, at least max_reqs" \
	"$(rd | jq -r 'select((.limit_source != "counted" and .limit_source != "btf") or .limit < .max_reqs) | .id' | wc -l)" 0
check_eq "RDMA: each transport's peak within its limit, and in use" \
	"$(rd | jq -r 'select(.peak > .limit or .peak < 1) | .id' | wc -l)" 0
check_eq "RDMA: intervals above the limit or negative, any transport" \
	"$(jq -c 'select(.type == "interval") | .transports[] | select(.port == "20049") | select(.interval_peak > .limit or .in_use > .limit or .in_use < 0)' /tmp/r.json | wc -l)" 0
check_eq "RDMA: each transport's credit grant = the server's (svc_rdma max_requests)" \
	"$(rd | jq .credits.limit | sort -u | tr '\n' ' ')" "$(cat /proc/sys/sunrpc/svc_rdma/max_requests) "
check_eq "RDMA: credits in use, once quiet" "$(rd | jq .credits.level | sort -u | tr '\n' ' ')" "0 "
check_eq "RDMA: credits were in use, within the grant" \
	"$(rd | jq -r 'select(.credits.level_peak < 1 or .credits.level_peak > .credits.limit_max) | .id' | wc -l)" 0
exit $CHECK_FAILED
