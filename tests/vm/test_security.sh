# After loading and attaching, slotscope holds no capability in any mode (jobs are named from the
# kernel's counts and cgroupfs, which take none) and, run as root, takes an unprivileged uid
# (the package's user, else nobody) unless an output directory only root may write; its maps stay
# readable, and it refuses to write through a symlink.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 16 || exit 1
caps() {	# USER_ARGS...: CapEff, CapPrm, CapAmb and Uid of a slotscope that is tracing
	# emptied before the start: the redirection runs in the child, and the last run's
	# "interval" would otherwise be read before this one has attached
	: >/tmp/sec.json
	( slotscope -v --json 0.5 -d 12 "$@" >>/tmp/sec.json 2>/tmp/sec.err ) &
	i=0
	until grep -q '"interval"' /tmp/sec.json 2>/dev/null || [ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
	p=$(pidof slotscope)
	eff=$(awk '/^CapEff/ {print $2}' /proc/$p/status)
	prm=$(awk '/^CapPrm/ {print $2}' /proc/$p/status)
	amb=$(awk '/^CapAmb/ {print $2}' /proc/$p/status)
	uid=$(awk '/^Uid/ {print $2}' /proc/$p/status)
	writers /mnt/t 16 1
	# the writes are counted: end it now (-d 12 is the bound), its summary as at any end
	kill -INT "$p" 2>/dev/null
	wait
}
nobody=$(awk -F: '$1 == "nobody" { print $3 }' /etc/passwd)
caps
check_eq "CapEff after attach" "$eff" 0000000000000000
check_eq "CapPrm after attach" "$prm" 0000000000000000
check_eq "CapAmb after attach" "$amb" 0000000000000000
check_eq "root with no output: uid after attach is nobody's" "$uid" "$nobody"
check_eq "...and -v says so" "$(grep -c "^slotscope: running as nobody (uid $nobody) after attach" /tmp/sec.err)" 1
check_gt "writes counted after the drop" "$(tail -n 1 /tmp/sec.json | jq '[.transports[].acquires] | add // 0')" 50
hook() { sed -n "s/^slotscope: hook $1  *//p" /tmp/sec.err; }
check_eq "jobs named: nfs_file_write hooked at its return" "$(hook nfs_file_write)" fexit
check_eq "jobs named: a new open context's return hooked" "$(hook alloc_nfs_open_context)" fexit
caps --no-jobs
check_eq "--no-jobs: CapEff" "$eff" 0000000000000000
check_eq "--no-jobs: uid" "$uid" "$nobody"
# no job named, so nothing hooked for it: NFS's file I/O costs no program run (-v lists the
# hooks of the design taken; these are not among them)
check_eq "--no-jobs: -v lists the hooks" "$(grep -c '^slotscope: hook rpc_stats_latency ' /tmp/sec.err)" 1
check_eq "--no-jobs: nfs_file_write not hooked" "$(grep -c '^slotscope: hook nfs_file_' /tmp/sec.err)" 0
check_eq "--no-jobs: nor the open context" "$(grep -c '^slotscope: hook alloc_nfs_open_context' /tmp/sec.err)" 0
check_eq "--no-jobs: nothing said of their loss" "$(grep -c 'jobs are not named' /tmp/sec.err)" 0
caps --user nobody
check_eq "--user nobody: uid" "$uid" 65534
check_eq "--user nobody: CapEff" "$eff" 0000000000000000
check_eq "--user nobody: CapPrm" "$prm" 0000000000000000
check_eq "--user nobody: CapAmb" "$amb" 0000000000000000
check_eq "--user nobody: summary written" "$(grep -c '"summary"' /tmp/sec.json)" 1
# a textfile in a directory only root may write (node_exporter's, as packaged): uid 0 stays,
# with no capability, and -v says why
mkdir -p /var/lib/sec-root && chmod 0755 /var/lib/sec-root
caps --prom-file /var/lib/sec-root/s.prom --prom-keep
check_eq "root-only textfile directory: uid stays 0" "$uid" 0
check_eq "root-only textfile directory: CapEff" "$eff" 0000000000000000
check_eq "root-only textfile directory: CapPrm" "$prm" 0000000000000000
check_eq "root-only textfile directory: CapAmb" "$amb" 0000000000000000
check_eq "root-only textfile directory: -v says why, in one line" \
	"$(grep -c '^slotscope: staying uid 0 after attach, with no capability: nobody could not write /var/lib/sec-root/s.prom' /tmp/sec.err)" 1
check_eq "root-only textfile directory: the textfile written" "$(grep -c '^slotscope_tracing 1' /var/lib/sec-root/s.prom)" 1
cp /tmp/sec.err /tmp/sec-root.err
# root's 0755 with an ACL that lets nobody write (the package's way with node_exporter's
# directory): it becomes nobody, as the ACL says
mkdir -p /var/lib/sec-acl && chmod 0755 /var/lib/sec-acl && setfacl -m u:nobody:rwx /var/lib/sec-acl
caps --prom-file /var/lib/sec-acl/s.prom --prom-keep
check_eq "ACL lets nobody write the textfile directory: uid" "$uid" "$nobody"
check_eq "ACL lets nobody write: the textfile, nobody's" "$(stat -c %U /var/lib/sec-acl/s.prom)" nobody
check_eq "root-only directory: the fix named" \
	"$(grep -c 'setfacl -m u:nobody:rwx /var/lib/sec-root)' /tmp/sec-root.err)" 1
# one nobody may write: it becomes nobody and writes there
mkdir -p /var/lib/sec-nobody && chown nobody /var/lib/sec-nobody
caps --prom-file /var/lib/sec-nobody/s.prom --prom-keep
check_eq "textfile directory nobody may write: uid" "$uid" "$nobody"
check_eq "textfile directory nobody may write: the textfile, nobody's" "$(stat -c %U /var/lib/sec-nobody/s.prom)" nobody
# An output is written to a new file renamed over its name: a symlink or a hard link planted at
# the name is replaced, never written through; a symlink in the directory path is refused.
echo keep >/tmp/target
ln -sf /tmp/target /tmp/link.folded
ln -f /tmp/target /tmp/hard.folded
slotscope -q -d 1 --folded /tmp/link.folded 2>/tmp/sym.err
check_eq "symlink at the name: exit status" $? 0
check_eq "symlink at the name: replaced by a file" "$([ -f /tmp/link.folded ] && [ ! -L /tmp/link.folded ] && echo yes)" yes
slotscope -q -d 1 --folded /tmp/hard.folded 2>>/tmp/sym.err
check_eq "hard link at the name: exit status" $? 0
check_eq "symlink and hard link: target untouched" "$(cat /tmp/target)" keep
mkdir -p /tmp/real && ln -sfn /tmp/real /tmp/ldir
slotscope -q -d 1 --folded /tmp/ldir/x.folded 2>/tmp/dir.err
check_eq "symlinked directory: exit status" $? 64
check_eq "symlinked directory: one line naming it" "$(grep -c 'symbolic link' /tmp/dir.err)/$(wc -l </tmp/dir.err)" 1/1
check_eq "symlinked directory: nothing written through it" "$(ls /tmp/real | wc -l)" 0
# the traced command is the user's job, not root's: --user, else sudo's caller, no capability
rm -f /tmp/cmd.out
slotscope -q --user nobody -- sh -c 'echo $(id -u) $(grep CapBnd /proc/self/status | cut -f2) >/tmp/cmd.out' 2>/tmp/cmd.err
check_eq "-- COMMAND with --user nobody: the job's uid and bounding set" "$(cat /tmp/cmd.out 2>/dev/null)" "65534 0000000000000000"
rm -f /tmp/cmd.out
SUDO_UID=1000 SUDO_GID=1000 slotscope -q -- sh -c 'echo $(id -u) $(grep CapBnd /proc/self/status | cut -f2) >/tmp/cmd.out' 2>/tmp/cmd.err
check_eq "-- COMMAND under sudo: the job runs as the caller" "$(cat /tmp/cmd.out 2>/dev/null)" "1000 0000000000000000"
# running CMDLINE: processes whose command line is CMDLINE
running() { for p in /proc/[0-9]*; do [ "$(tr '\0' ' ' <$p/cmdline 2>/dev/null)" = "$1 " ] && echo $p; done | wc -l; }
# A stop signal after the drop (#44): slotscope is nobody, the job uid 1000, which nobody may not
# signal: the command's keeper (uid 1000) passes it on; the summary is written.
# (A textfile too: the drop tries it as nobody in a child, whose exit is no end of the command.)
SUDO_UID=1000 SUDO_GID=1000 slotscope --json 1 --prom-file /var/lib/sec-nobody/stop.prom -- sleep 300 >/tmp/stop.json 2>/tmp/stop.err &
sp=$!
i=0; until grep -q '"interval"' /tmp/stop.json 2>/dev/null || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
sleep 3
check_eq "stop after the drop: slotscope runs as nobody" "$(awk '/^Uid/ { print $3 }' /proc/$sp/status)" "$nobody"
check_eq "under sudo, after attach: CapEff, CapAmb" "$(awk '/^Cap(Eff|Amb)/ { printf "%s ", $2 }' /proc/$sp/status)" "0000000000000000 0000000000000000 "
check_gt "stop after the drop: still tracing 3 s on (intervals)" "$(grep -c '"interval"' /tmp/stop.json)" 2
kill -TERM $sp
i=0; while kill -0 $sp 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
check_eq "stop after the drop: slotscope ended within 20 s" "$(kill -0 $sp 2>/dev/null && echo running || echo ended)" ended
wait $sp
check_eq "stop after the drop: its status is the command's (128 + SIGTERM)" $? 143
check_eq "stop after the drop: the command ended" "$(running 'sleep 300')" 0
check_eq "stop after the drop: the summary written" "$(grep -c '"summary"' /tmp/stop.json)" 1
# the keeper (the command's parent, which never execs) holds none of the tracer's BPF fds
slotscope -q -- sh -c 'for f in /proc/$PPID/fd/*; do readlink $f; done | grep -c "bpf" >/tmp/kfd.out' 2>/dev/null
check_eq "the command's keeper holds no BPF program, link or map" "$(cat /tmp/kfd.out 2>/dev/null)" 0
# a non-root caller's ambient CAP_BPF and CAP_PERFMON are the tracer's, not its command's
rm -f /tmp/amb.out
capsh --caps="cap_bpf,cap_perfmon,cap_setpcap,cap_setuid,cap_setgid+eip" --keep=1 --user=nobody \
	--addamb="cap_bpf,cap_perfmon" --shell=/bin/sh -- \
	-c "exec slotscope -q -d 1 -- sh -c 'grep CapAmb /proc/self/status | cut -f2 >/tmp/amb.out'" 2>/tmp/amb.err
check_eq "a non-root caller's ambient capabilities: none in its command" "$(cat /tmp/amb.out 2>/dev/null)" 0000000000000000
# --user that cannot write the textfile: the command, started before the drop, is stopped and
# waited for, not left running untraced
mkdir -p /var/lib/sec-ro && chmod 0755 /var/lib/sec-ro
timeout 120 slotscope --user nobody --prom-file /var/lib/sec-ro/s.prom -- sleep 200 2>/tmp/ro.err
rc=$?
check_eq "--user without write access: a failure, not a hang" "$([ $rc != 0 ] && [ $rc != 124 ] && echo yes)" yes
check_eq "--user without write access: the command stopped" "$(running 'sleep 200')" 0
check_eq "--user without write access: said so" "$(grep -c 'stopping sleep: it would run untraced' /tmp/ro.err)" 1
exit $CHECK_FAILED
