# awk -f bench/insn-report.awk ROUND lines (bench/insn.awk's): bench/INSN.md's tables. Per kernel,
# mount and write, each tracer's BPF instructions per RPC, the kernel helpers' and map operations'
# it ran besides, and per program run (the mean over the
# rounds, and their spread: (max - min) / mean), the guest's instructions per RPC and what tracing
# added to them over the untraced rounds, and the ratios the targets are stated in: slotscope's
# BPF instructions per RPC over the bpftrace script's (alone, and with the helpers), per run over
# the counter's; and the tracer's BPF and helper instructions as a share of the untraced guest's own
# per RPC (what the node gives up to it, #63).
$1 == "ROUND" {
	g = $2 " | " $3 " | " $6; k = g SUBSEP $4
	if (!(g in seen)) { seen[g] = 1; groups[ng++] = g }
	n[k]++; r = n[k]
	b[k, r] = $10; t[k, r] = $9; u[k, r] = $11; h[k, r] = $12; bh[k, r] = $10 + $12
	uh[k, r] = $8 ? ($10 + $12) * $7 / $8 : 0
}
function mean(a, k,   s, i) { s = 0; for (i = 1; i <= n[k]; i++) s += a[k, i]; return n[k] ? s / n[k] : 0 }
function spread(a, k,   lo, hi, i, m) {
	m = mean(a, k); if (!m) return 0
	lo = hi = a[k, 1]
	for (i = 2; i <= n[k]; i++) { if (a[k, i] < lo) lo = a[k, i]; if (a[k, i] > hi) hi = a[k, i] }
	return 100 * (hi - lo) / m
}
END {
	split("slotscope slotscope-tp bpftrace counter none", modes, " ")
	print "| kernel | mount | write | tracer | rounds | BPF insns per RPC (spread) | + kernel helpers per RPC (spread) | per program run, BPF (spread) | guest insns per RPC (spread) | added over untraced | BPF per RPC vs the script | BPF + helpers vs the script | per run vs the counter | per run, BPF + helpers, vs the counter | BPF + helpers, share of the untraced guest's |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (j = 0; j < ng; j++) {
		g = groups[j]
		none = mean(t, g SUBSEP "none")
		for (i = 1; i <= 5; i++) {
			k = g SUBSEP modes[i]
			if (!n[k]) continue
			sb = mean(b, g SUBSEP "bpftrace"); sbh = mean(bh, g SUBSEP "bpftrace"); cu = mean(u, g SUBSEP "counter")
			cuh = mean(uh, g SUBSEP "counter")
			printf "| %s | %s | %.0f (%.1f %%) | %.0f (%.1f %%) | %.1f (%.1f %%) | %.0f (%.1f %%) | %+.0f | %s | %s | %s | %s | %s |\n",
				g " | " modes[i], n[k], mean(b, k), spread(b, k), mean(h, k), spread(h, k), mean(u, k), spread(u, k),
				mean(t, k), spread(t, k), mean(t, k) - none,
				(modes[i] ~ /^slotscope/ && sb) ? sprintf("%.2fx", mean(b, k) / sb) : "",
				(modes[i] ~ /^slotscope/ && sbh) ? sprintf("%.2fx", mean(bh, k) / sbh) : "",
				(modes[i] ~ /^slotscope/ && cu) ? sprintf("%.2fx", mean(u, k) / cu) : "",
				(modes[i] ~ /^slotscope/ && cuh) ? sprintf("%.2fx", mean(uh, k) / cuh) : "",
				(modes[i] != "none" && none) ? sprintf("%.2f %%", 100 * mean(bh, k) / none) : ""
		}
	}
}
