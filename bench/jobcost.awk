# awk -f bench/jobcost.awk INSN_TXT (make bench-jobcost): from bench/insn.awk's ROUND lines, each
# kernel's and mount's jobs' time per RPC where nothing waits: slotscope less slotscope-nojobs
# (the same boot), in BPF code and in helpers, and the tracepoint design's total beside.
$1 == "ROUND" && $6 == "serial" { k = $2 " " $3; b[k, $4] = $10; h[k, $4] = $12; if (!(k in seen)) { seen[k]; order[n++] = k } }
END {
	print "# kernel mount: jobs' time per RPC, BPF + helpers = total (slotscope less slotscope --no-jobs); the tracepoint design's total less --no-jobs"
	for (i = 0; i < n; i++) {
		k = order[i]
		jb = b[k, "slotscope"] - b[k, "slotscope-nojobs"]; jh = h[k, "slotscope"] - h[k, "slotscope-nojobs"]
		tp = b[k, "slotscope-tp"] + h[k, "slotscope-tp"] - b[k, "slotscope-nojobs"] - h[k, "slotscope-nojobs"]
		printf "%s: %d + %d = %d; tracepoints %d\n", k, jb, jh, jb + jh, tp
	}
}
