# report.awk: BENCH lines -> the Markdown table of bench/RESULTS.md
# BENCH mnt mode round secs bpf_ns bpf_cnt user_ticks rss_kb
# SELF mnt secs user_s sys_s max_rss_kib startup_cpu_s (slotscope's getrusage, one write)
$1 == "SELF" {
	# $2 is MNT/json (a JSON record every second) or MNT/quiet (1 s ticks, no interval records)
	user[$2] = sprintf("%s: slotscope's own CPU after attaching %.2f %% of a core at 1 s ticks (%.2f s of %.2f s user+sys went to loading and attaching, %.1f s traced); peak RSS %.1f MiB", $2, 100 * ($4 + $5 - $7) / $3, $7, $4 + $5, $3, $6 / 1024)
	next
}
$1 == "BENCH" {
	k = $2 " " $3; n[k]++; secs[k] += $5; s2[k] += $5 * $5; ns[k] += $6; cnt[k] += $7
	mnts[$2] = 1
}
END {
	printf "| transport | tracer | rounds | write s (mean ± sd) | MiB/s ratio to untraced | BPF CPU, %% of one vCPU | ns per event | events |\n"
	printf "|---|---|---|---|---|---|---|---|\n"
	for (m in mnts) {
		base = secs[m " none"] / n[m " none"]
		split("none slotscope bpftrace counter", modes, " ")
		for (i = 1; i <= 4; i++) {
			k = m " " modes[i]; if (!n[k]) continue
			mean = secs[k] / n[k]; sd = sqrt(s2[k] / n[k] - mean * mean)
			cpu = secs[k] > 0 ? 100 * ns[k] / 1e9 / secs[k] : 0
			per = cnt[k] ? ns[k] / cnt[k] : 0
			printf "| %s | %s | %d | %.1f ± %.1f | %.2f | %.3f | %.0f | %d |\n", m, modes[i], n[k], mean, sd, base / mean, cpu, per, cnt[k] / n[k]
		}
	}
	print ""
	for (m in user) print "- " user[m]
}
