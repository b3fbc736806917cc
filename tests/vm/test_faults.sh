# Faults during a trace: maps full, the server stopped mid-write, the rxe device deleted, an
# unmount, the textfile directory removed. Nothing crashes or hangs; drops are counted and shown;
# the exit status is 0 and the summary is printed.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/t 3 16 || exit 1

# 1. BPF maps full: 4 tracked slots for 64 writers
slotscope --max-inflight 4 -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 64 1" >/tmp/f1.out 2>&1
check_eq "maps full: exit status" $? 0
check_eq "maps full: drops shown" "$(grep -c 'events not counted: BPF maps full' /tmp/f1.out)" 1
slotscope --json --max-inflight 4 -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 64 1" >/tmp/f1.json
check_gt "maps full: inflight_full counted" "$(tail -n 1 /tmp/f1.json | jq .counters.inflight_full)" 0
# what the cap does: at most 4 requests tracked at once, the others counted as not counted. A
# slot kept in use at a tracked release for the hand-off that follows it is counted until that
# hand-off takes it (in the same xprt_release() call chain, on the same CPU), while the freed
# entry may already track another request: one more per CPU at most.
ncpu=$(grep -c ^processor /proc/cpuinfo)
check_le "maps full: never more in use than the 4 tracked, and a hand-off per CPU" \
	"$(tail -n 1 /tmp/f1.json | jq '[.transports[].peak] | max')" $((4 + ncpu))
check_gt "maps full: the tracked ones still counted" "$(tail -n 1 /tmp/f1.json | jq '[.transports[].peak] | max')" 0

# failed_rpcs MNT: of every op of MNT in /proc/self/mountstats, (ntrans - ops) + timeouts + errors
failed_rpcs() {
	awk -v m="$1" '
		/^device / { on = ($5 == m); ops = 0; next }
		on && /per-op statistics/ { ops = 1; next }
		on && ops && $1 ~ /:$/ && NF >= 9 { n += $3 - $2 + $4 + (NF >= 10 ? $10 : 0) }
		END { print n + 0 }' /proc/self/mountstats
}

# 2. nfsd stopped mid-write on a soft mount: timeouts and retransmissions show, tracing goes on
mount_tcp /mnt/s 3 "" soft,timeo=10,retrans=1 || exit 1
srv=$LAST_SERVER
mkdir -p /tmp/prom
( slotscope --json 0.5 -d 25 --prom-file /tmp/prom/s.prom >/tmp/f2.json 2>/tmp/f2.err; echo $? >/tmp/f2.rc ) &
# counting once the audit, its first line, is out
i=0; until [ -s /tmp/f2.json ] || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1
( while [ ! -f /tmp/stop2 ]; do writers /mnt/s 8 1 >/dev/null 2>&1; done ) &
sleep 2
rpc.nfsd 0
# down until the kernel's own counters show a retransmission, a timeout or an error on the mount
# (at least 6 s): on a loaded host no RPC may be on the wire at the stop, and the first failure
# comes a major timeout after the writers' next call
i=0
until [ $i -ge 30 ] && [ "$(failed_rpcs /mnt/s)" -gt 0 ] || [ $i -ge 450 ]; do sleep 0.2; i=$((i + 1)); done
echo "note mountstats retransmissions + timeouts + errors on /mnt/s after $((i / 5)) s: $(failed_rpcs /mnt/s)"
# a rewrite may be creating its temporary file: remove until gone
while [ -d /tmp/prom ]; do rm -rf /tmp/prom 2>/dev/null; done
rpc.nfsd 8
touch /tmp/stop2
wait
check_eq "nfsd stopped: exit status" "$(cat /tmp/f2.rc)" 0
check_gt "nfsd stopped: retransmissions or timeouts seen" \
	"$(tail -n 1 /tmp/f2.json | jq --arg m /mnt/s '[.ops[] | select(.mountpoint == $m) | (.ntrans - .count) + .timeouts + .errors] | add // 0')" 0
check_eq "textfile directory removed: said once" "$(grep -c 'cannot write /tmp/prom/s.prom' /tmp/f2.err)" 1
echo "note $(head -n 3 /tmp/f2.err | tr '\n' ' ')"

# 3. the rxe device deleted and an unmount during a trace (nfsd restarted: RDMA listener again)
rxe_up || exit 1
mount_rdma /mnt/r 3 || exit 1
( slotscope --json 0.5 -d 14 >/tmp/f3.json 2>/tmp/f3.err; echo $? >/tmp/f3.rc ) &
# counting once the audit, its first line, is out
i=0; until [ -s /tmp/f3.json ] || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1
writers /mnt/r 4 1
umount /mnt/t
umount -f /mnt/r 2>/dev/null || umount -l /mnt/r
rdma link delete rxe0
wait
check_eq "rxe deleted, unmounts: exit status" "$(cat /tmp/f3.rc)" 0
check_eq "rxe deleted: reported removed" "$(jq -c 'select(.links) | .links.rdma_ports[] | select(.removed)' /tmp/f3.json | head -n 1 | jq -r .device)" rxe0
check_eq "summary printed" "$(grep -c '"summary"' /tmp/f3.json)" 1
exit $CHECK_FAILED
