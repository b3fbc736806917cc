# report.awk: BENCH and SELF lines -> the tables of bench/RESULTS.md, the targets among them.
BEGIN { PROCINFO["sorted_in"] = "@ind_str_asc" }
# BENCH mnt mode round secs bpf_ns bpf_cnt
# SELF mnt/mode secs user_s sys_s max_rss_kib startup_cpu_s (slotscope's getrusage, one write)
function pct(x) { return sprintf("%.2f %%", x) }
$1 == "SELF" {
	# $2 is MNT/json (a JSON record every second) or MNT/quiet (1 s ticks, no interval records)
	after = 100 * ($4 + $5 - $7) / $3
	user[$2] = sprintf("%s: slotscope's own CPU after attaching %.2f %% of a core at 1 s ticks (%.2f s of %.2f s user+sys went to loading and attaching, %.1f s traced); peak RSS %.1f MiB", $2, after, $7, $4 + $5, $3, $6 / 1024)
	ucpu[$2] = after
	if ($6 > rss) rss = $6
	nself++
	next
}
$1 == "BENCH" {
	k = $2 " " $3; n[k]++; secs[k] += $5; s2[k] += $5 * $5; ns[k] += $6; cnt[k] += $7
	mnts[$2] = 1
}
END {
	printf "| transport | tracer | rounds | write s (mean ± sd) | MiB/s ratio to untraced | BPF CPU, %% of one vCPU | ns per event | events |\n"
	printf "|---|---|---|---|---|---|---|---|\n"
	split("none slotscope bpftrace counter", modes, " ")
	for (m in mnts) {
		base = secs[m " none"] / n[m " none"]
		for (i = 1; i <= 4; i++) {
			k = m " " modes[i]; if (!n[k]) continue
			mean = secs[k] / n[k]; sd = sqrt(s2[k] / n[k] - mean * mean)
			cpu[k] = secs[k] > 0 ? 100 * ns[k] / 1e9 / secs[k] : 0
			per[k] = cnt[k] ? ns[k] / cnt[k] : 0
			ev[k] = cnt[k] / n[k]
			ratio[k] = base / mean; rsd[k] = sd / mean
			printf "| %s | %s | %d | %.1f ± %.1f | %.2f | %.3f | %.0f | %d |\n", m, modes[i], n[k], mean, sd, ratio[k], cpu[k], per[k], ev[k]
		}
	}
	print ""
	for (m in user) print "- " user[m]
	print ""
	print "## Against the targets"
	print ""
	print "| target | transport | measured | verdict |"
	print "|---|---|---|---|"
	for (m in mnts) {
		s = m " slotscope"; b = m " bpftrace"; c = m " counter"
		if (cpu[b] > 0) {
			r = cpu[s] / cpu[b]
			printf "| BPF CPU ≤ 1/3 of the bpftrace script's | %s | %s vs %s: %.2f× | %s |\n", m, pct(cpu[s]), pct(cpu[b]), r, r <= 1 / 3 ? "met" : sprintf("**missed by %.1f×**", r * 3)
		}
		if (per[c] > 0) {
			r = per[s] / per[c]
			printf "| per-event cost within 3× of the bare counter | %s | %.1f µs vs %.1f µs: %.2f× | %s |\n", m, per[s] / 1000, per[c] / 1000, r, r <= 3 ? "met" : sprintf("**missed by %.1f×**", r / 3)
		}
		# the least slotscope could cost on its events: each at the bare counter's price
		if (cpu[b] > 0 && per[b] > 0) {
			fl = ev[s] * per[c] / (ev[b] * per[b])
			printf "| (floor: slotscope's events at the bare counter's cost) | %s | %d vs %d events per write: %.2f× the script's BPF CPU | what no handler can go below |\n", m, ev[s], ev[b], fl
		}
		for (i = 2; i <= 4; i++) {
			k = m " " modes[i]
			lo = (lo == "" || ratio[k] < lo) ? ratio[k] : lo; hi = ratio[k] > hi ? ratio[k] : hi
			sp = rsd[k] > sp ? rsd[k] : sp
		}
	}
	for (u in ucpu)
		printf "| user CPU ≤ 1 %% of a core at a 1 s interval | %s | %s of a TCG vCPU after attaching | %s |\n", u, pct(ucpu[u]), ucpu[u] <= 1 ? "met" : sprintf("**missed by %.1f×** (TCG)", ucpu[u])
	if (nself)
		printf "| RSS ≤ 16 MiB | all | %.1f MiB peak | %s |\n", rss / 1024, rss <= 16384 ? "met" : sprintf("**missed by %.1f MiB**", (rss - 16384) / 1024)
	printf "| throughput | all | traced/untraced MiB/s ratios %.2f–%.2f, round-to-round sd up to ±%.0f %% | TCG cannot resolve a 1 %% cost from throughput: not claimed |\n", lo, hi, 100 * sp
}
