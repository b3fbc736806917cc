# report.awk: BENCH and SCALE lines (bench/bench.sh) -> the tables of bench/RESULTS.md, the
# targets among them.
# BENCH kernel mnt mode round secs bpf_ns bpf_cnt rpcs
# SCALE kernel transports steady_s cpu_s max_rss_kib bpf_ns bpf_cnt rpcs
# SERIAL kernel mnt mode bpf_cnt rpcs waits [file_ns file_cnt [bpf_ns]]
# PROG kernel mnt tracer program runs ns
# OWN kernel what cpu_pct
BEGIN { PROCINFO["sorted_in"] = "@ind_str_asc"; nm = split("none slotscope slotscope-tp bpftrace counter", modes, " ") }
function pct(x) { return sprintf("%.2f %%", x) }
function verdict(ok, by) { return ok ? "met" : sprintf("**missed by %s**", by) }
$1 == "BENCH" {
	k = $2 SUBSEP $3 SUBSEP $4; n[k]++; secs[k] += $6; s2[k] += $6 * $6; ns[k] += $7; cnt[k] += $8; rpc[k] += $9
	wt[k] += $10; ho[k] += $11
	kt[$2 SUBSEP $3] = 1
	next
}
$1 == "SCALE" {
	k = $2 SUBSEP $3; sc[k] = 1
	after[k] = $4 > 0 ? 100 * $5 / $4 : 0; rss[k] = $6 / 1024
	sper[k] = $8 ? $7 / $8 : 0; sruns[k] = $9 ? $8 / $9 : 0; srpc[k] = $9
	next
}
# the serial write's rounds pooled: runs, RPCs, waits and ns summed over them
$1 == "SERIAL" {
	k = $2 SUBSEP $3 SUBSEP $4; ser[k] = 1; sern[k]++
	sercnt[k] += $5; serrpc[k] += $6; serw[k] += $7
	serruns[k] = serrpc[k] ? sercnt[k] / serrpc[k] : 0
	if (NF >= 9 && $4 ~ /^slotscope/) { fns[k] += $8; fcnt[k] += $9 }
	if (NF >= 10) sns[k] += $10
	next
}
$1 == "PROG" {
	k = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5; prog[k] = 1; pruns[k] += $6; pns[k] += $7
	next
}
$1 == "OWN" {
	own[$2 SUBSEP $3] = $4; ownk[$2] = 1
	next
}
END {
	print "## Rounds: 96 writers, two designs, bpftrace, a bare counter"
	print ""
	print "Per kernel and transport, ROUNDS alternating rounds of WRITERS (96) writers x 2 MiB, fsync'd,"
	print "below the 128-slot table. BPF CPU is bpf_stats' `run_time_ns` summed over the tracer's programs"
	print "during the write, as a share of one vCPU over the write time; runs per RPC are its `run_cnt`"
	print "over the RPCs mountstats counted in the same write. `slotscope-tp` is slotscope with"
	print "`SLOTSCOPE_EVENTS=tracepoints`, the design kept for kernels whose functions cannot be hooked."
	print ""
	print "| kernel | transport | tracer | rounds | write s (mean ± sd) | MiB/s vs untraced | BPF CPU, % of a vCPU | runs per RPC | waits per RPC | ns per run | BPF CPU vs bpftrace | vs counter |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (t in kt) {
		split(t, a, SUBSEP)
		b = t SUBSEP "none"; base = n[b] ? secs[b] / n[b] : 0
		for (i = 1; i <= nm; i++) {
			k = t SUBSEP modes[i]; if (!n[k]) continue
			mean[k] = secs[k] / n[k]; v = s2[k] / n[k] - mean[k] * mean[k]; sd[k] = v > 0 ? sqrt(v) : 0
			cpu[k] = secs[k] > 0 ? 100 * ns[k] / 1e9 / secs[k] : 0
			per[k] = cnt[k] ? ns[k] / cnt[k] : 0
			runs[k] = rpc[k] ? cnt[k] / rpc[k] : 0
			ratio[k] = mean[k] > 0 ? base / mean[k] : 0
			sp = mean[k] > 0 ? sd[k] / mean[k] : 0; if (sp > spread) spread = sp
			if (modes[i] != "none") { if (lo == "" || ratio[k] < lo) lo = ratio[k]; if (ratio[k] > hi) hi = ratio[k] }
		}
		bt = t SUBSEP "bpftrace"; ct = t SUBSEP "counter"
		for (i = 1; i <= nm; i++) {
			k = t SUBSEP modes[i]; if (!n[k]) continue
			vb = (cpu[bt] > 0 && modes[i] != "none") ? sprintf("%.2f×", cpu[k] / cpu[bt]) : "–"
			vc = (cpu[ct] > 0 && modes[i] != "none") ? sprintf("%.1f×", cpu[k] / cpu[ct]) : "–"
			wr = modes[i] ~ /^slotscope/ && rpc[k] ? sprintf("%.2f", wt[k] / rpc[k]) : "–"
			printf "| %s | %s | %s | %d | %.1f ± %.1f | %.2f | %.3f | %.2f | %s | %.0f | %s | %s |\n", a[1], a[2], modes[i], n[k], mean[k], sd[k], ratio[k], cpu[k], runs[k], wr, per[k], vb, vc
		}
	}
	print ""
	print "## The path where nothing waits"
	print ""
	print "One writer, `dd oflag=direct bs=64k` (512 writes, each one RPC, one at a time), traced by"
	print "slotscope in each design, by the bpftrace script and by the counter, the tracers interleaved"
	print "over ROUNDS rounds and pooled (runs, RPCs and ns summed): program runs and BPF time"
	print "on the RPC path over the RPCs mountstats counted; waits from slotscope's summary. slotscope's"
	print "program on NFS's file write (the jobs' bytes, one run per write(2), here one per RPC) is apart:"
	print "its runs and ns per write call."
	print ""
	print "| kernel | transport | tracer | RPCs | waits | runs per RPC | BPF ns per RPC | vs bpftrace | file-write runs | ns per write call |"
	print "|---|---|---|---|---|---|---|---|---|---|"
	for (k in ser) {
		split(k, a, SUBSEP)
		bk = a[1] SUBSEP a[2] SUBSEP "bpftrace"
		nsr = (k in sns) && serrpc[k] ? sns[k] / serrpc[k] : -1
		nsb = (bk in sns) && serrpc[bk] ? sns[bk] / serrpc[bk] : 0
		who = a[3] == "slotscope" ? "slotscope (functions)" : a[3] == "slotscope-tp" ? "slotscope (tracepoints)" : a[3]
		w = a[3] ~ /^slotscope/ ? serw[k] : "–"
		nss = nsr >= 0 ? sprintf("%.0f", nsr) : "–"
		vb = (nsr >= 0 && nsb > 0) ? sprintf("%.2f×", nsr / nsb) : "–"
		fr = k in fcnt ? fcnt[k] : "–"
		fw = (k in fcnt) && fcnt[k] ? sprintf("%.0f", fns[k] / fcnt[k]) : "–"
		printf "| %s | %s | %s | %d | %s | %.2f | %s | %s | %s | %s |\n", a[1], a[2], who, serrpc[k], w, serruns[k], nss, vb, fr, fw
	}
	print ""
	print "Each program in the same writes (runs over the RPCs mountstats counted, and ns per run):"
	print "where the time per RPC goes, and so where the next step is."
	print ""
	print "| kernel | transport | tracer | program | runs | runs per RPC | ns per run | ns per RPC |"
	print "|---|---|---|---|---|---|---|---|"
	for (k in prog) {
		split(k, a, SUBSEP)
		sk = a[1] SUBSEP a[2] SUBSEP a[3]
		r = serrpc[sk] ? pruns[k] / serrpc[sk] : 0
		printf "| %s | %s | %s | %s | %d | %.2f | %.0f | %.0f |\n", a[1], a[2], a[3], a[4], pruns[k], r, pruns[k] ? pns[k] / pruns[k] : 0, serrpc[sk] ? pns[k] / serrpc[sk] : 0
	}
	print ""
	print "## Transports: slotscope alone, 1, 16 and 64 TCP transports"
	print ""
	print "`--json 1` (a record every second) over one mount, one with nconnect=16, and four servers with"
	print "nconnect=16 each; 64 writers x 1 MiB spread over them inside 20 s of steady 1 s ticks, after"
	print "one such write unmeasured (every transport and op seen once). Own CPU over those 20 s from"
	print "/proc/PID/stat; runs and ns per run over the measured write; RSS is the peak."
	print ""
	print "| kernel | transports | RPCs | runs per RPC | ns per run | own CPU, % of a vCPU at 1 s ticks | peak RSS MiB |"
	print "|---|---|---|---|---|---|---|"
	for (k in sc) {
		split(k, a, SUBSEP)
		printf "| %s | %d | %d | %.2f | %.0f | %.2f | %.1f |\n", a[1], a[2], srpc[k], sruns[k], sper[k], after[k], rss[k]
	}
	print ""
	print "Own CPU by what a tick does, from the scheduler's nanoseconds of slotscope's threads over 20 s:"
	print "one TCP transport written alone; the same beside the 64 idle transports of four nconnect=16"
	print "mounts; all 64 written; the exporter (`-q 15 --prom-file`, as the unit runs it) over the 65,"
	print "idle and written."
	print ""
	print "| kernel | what | own CPU, % of a vCPU |"
	print "|---|---|---|"
	for (k in own) {
		split(k, a, SUBSEP)
		printf "| %s | %s | %.3f |\n", a[1], a[2], own[k]
	}
	print ""
	print "## Against the targets"
	print ""
	print "| target | kernel | transport | measured | verdict |"
	print "|---|---|---|---|---|"
	for (t in kt) {
		split(t, a, SUBSEP)
		s = t SUBSEP "slotscope"; bt = t SUBSEP "bpftrace"; ct = t SUBSEP "counter"
		if (serruns[s] > 0)
			printf "| ≤ 2.5 program runs per RPC where nothing waits | %s | %s | %.2f with %d waits in %d RPCs (tracepoint design: %.2f) | %s |\n", a[1], a[2], serruns[s], serw[s], serrpc[s], serruns[t SUBSEP "slotscope-tp"], verdict(serruns[s] <= 2.5, sprintf("%.2f runs", serruns[s] - 2.5))
		if ((s in sns) && (bt in sns) && serrpc[s] && serrpc[bt] && sns[bt] > 0) {
			r = (sns[s] / serrpc[s]) / (sns[bt] / serrpc[bt])
			printf "| BPF CPU per RPC ≤ 1/3 of the bpftrace script's where nothing waits | %s | %s | %.0f ns vs %.0f ns per RPC: %.2f× | %s |\n", a[1], a[2], sns[s] / serrpc[s], sns[bt] / serrpc[bt], r, verdict(r <= 1 / 3, sprintf("%.1f×", r * 3))
		}
		if (cpu[bt] > 0) {
			r = cpu[s] / cpu[bt]
			printf "| BPF CPU ≤ 0.5× the bpftrace script's in the rounds (with waits) | %s | %s | %s vs %s: %.2f× | %s |\n", a[1], a[2], pct(cpu[s]), pct(cpu[bt]), r, verdict(r <= 0.5, sprintf("%.1f×", r * 2))
		}
		if (per[ct] > 0) {
			r = per[s] / per[ct]
			printf "| per run ≤ 2× the bare counter's | %s | %s | %.1f µs vs %.1f µs: %.2f× | %s |\n", a[1], a[2], per[s] / 1000, per[ct] / 1000, r, verdict(r <= 2, sprintf("%.2f×", r / 2))
		}
	}
	for (k in sc) {
		split(k, a, SUBSEP); kern[a[1]] = 1
	}
	for (kk in kern) {
		one = kk SUBSEP 1; top = kk SUBSEP 64
		if ((one in sc) && (top in sc) && sper[one] > 0) {
			r = sper[top] / sper[one]
			printf "| per-run cost flat from 1 to 64 transports (within ±25 %%) | %s | tcp | %.0f ns at 1, %.0f ns at 64: %.2f× | %s |\n", kk, sper[one], sper[top], r, verdict(r <= 1.25 && r >= 0.8, sprintf("%.0f %%", 100 * (r - 1)))
		}
		if (top in sc) {
			printf "| own CPU ≤ 3 %% of a TCG vCPU at 1 s `--json` ticks, 64 transports written | %s | tcp | %s over the write's 20 s (scheduler ns: %s) | %s |\n", kk, pct(after[top]), (kk SUBSEP "busy64-json1") in own ? pct(own[kk SUBSEP "busy64-json1"]) : "–", verdict(after[top] <= 3, sprintf("%.1f×", after[top] / 3))
			m = 0; for (k in sc) { split(k, q, SUBSEP); if (q[1] == kk && rss[k] > m) m = rss[k] }
			printf "| RSS ≤ 16 MiB | %s | tcp | %.1f MiB peak | %s |\n", kk, m, verdict(m <= 16, sprintf("%.1f MiB", m - 16))
		}
	}
	for (kk in ownk) {
		o1 = kk SUBSEP "busy1-alone"; o64 = kk SUBSEP "busy1-beside-64-idle"
		st = kk SUBSEP "busy64-steady-json1"
		if (st in own)
			printf "| own CPU ≤ 3 %% of a TCG vCPU at 1 s `--json` ticks, 64 transports written throughout (#47) | %s | tcp | %s over 20 s of steady writes | %s |\n", kk, pct(own[st]), verdict(own[st] <= 3, sprintf("%.1f×", own[st] / 3))
		if ((o1 in own) && (o64 in own) && own[o1] > 0) {
			r = own[o64] / own[o1]
			printf "| 64 idle transports and one written ≤ 1.5× one alone | %s | tcp | %s vs %s: %.2f× | %s |\n", kk, pct(own[o64]), pct(own[o1]), r, verdict(r <= 1.5, sprintf("%.2f×", r / 1.5))
		}
		e1 = kk SUBSEP "exporter15-idle"; e2 = kk SUBSEP "exporter15-busy"
		if ((e1 in own) && (e2 in own))
			printf "| exporter at a 15 s interval, 65 transports (reported) | %s | tcp | %s idle, %s written | reported |\n", kk, pct(own[e1]), pct(own[e2])
	}
	printf "| throughput | all | all | traced/untraced MiB/s %.2f–%.2f, round-to-round sd up to ±%.0f %% | TCG cannot resolve a 1 %% cost from throughput: not claimed |\n", lo, hi, 100 * spread
}
