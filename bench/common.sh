# bench/common.sh: what bench/bench.sh and bench/ab.sh share in the VM (sourced, after lib.sh):
# nfsd, soft-RoCE, NFSv3 over TCP (/mnt/tcp, 128 slots) and over RDMA (/mnt/rdma), BPF run
# statistics on; and the two readings both take.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/tcp 3 128 >/dev/null || exit 1
mount_rdma /mnt/rdma 3 >/dev/null || exit 1
echo 1 >/proc/sys/kernel/bpf_stats_enabled
# RPCs the mounts on MNT... have counted: the ops column of every per-op line of mountstats
rpcs() {
	for m; do
		awk -v m="$m" '$1 == "device" { on = ($5 == m) } on && /^[ \t]+[A-Z_0-9]+: [0-9]/ { n += $2 } END { print n + 0 }' /proc/self/mountstats
	done | awk '{ n += $1 } END { print n + 0 }'
}
# every loaded program with run statistics: "name run_time_ns run_cnt" (bpftool shows them only
# once a program has run: a sentinel line keeps the file non-empty)
progstat() { echo "_ 0 0"; bpftool prog show 2>/dev/null | awk '/run_time_ns/ { n = ""; t = 0; c = 0; for (i = 1; i <= NF; i++) { if ($i == "name") n = $(i+1); if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) } print n, t, c }'; }
