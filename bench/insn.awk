# gawk -f bench/insn.awk LINES PLUGIN_OUT: bench/insn.sh's RANGE, INSN and WAITS lines (LINES)
# joined with the insncount plugin's marks and blocks: per write, the instructions between its
# two marks in all (the guest's) and inside the BPF code loaded then (programs, trampolines,
# dispatchers), per RPC and per program run. Prints
#   ROUND kernel mnt mode round write rpcs runs insns_per_rpc bpf_insns_per_rpc bpf_insns_per_run
#         helper_insns_per_rpc (the kernel functions of the programs' work: HRANGE)
# and, per kernel, mount, write and mode, the rounds' mean and spread, against the script and the
# counter (bench/INSN.md).
# Addresses: the low 48 bits of each (a double holds them exactly; kernel addresses share the rest).
function lo48(h) { return strtonum("0x" substr(h, length(h) - 11)) }
# a range of "-" size (a trampoline, a dispatcher) reaches the next symbol, at most a page
function sizes(   key, i) {
	for (key in nr)
		for (i = 0; i < nr[key]; i++)
			if (rs[key, i] == "-")
				rs[key, i] = (i + 1 < nr[key] && ra[key, i + 1] - ra[key, i] < 4096) ? ra[key, i + 1] - ra[key, i] : 4096
}
FNR == NR {
	if ($1 == "RANGE") { key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5; i = nr[key]++; ra[key, i] = lo48($6); rs[key, i] = $7 }
	else if ($1 == "HRANGE") { key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5; i = nh[key]++; ha[key, i] = lo48($6); he[key, i] = lo48($7) }
	else if ($1 == "INSN") {
		w = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP $6
		at[$8] = w; from[w] = $7; to[w] = $8; rpcs[w] = $9; runs[w] = $10; order[nw++] = w
	}
	next
}
FNR == 1 { sizes() }
$1 == "M" { cur = $2; tot[cur] = $3; next }
$1 == "B" && (cur in at) {
	w = at[cur]
	split(w, q, SUBSEP)
	key = q[1] SUBSEP q[2] SUBSEP q[3] SUBSEP q[4]
	a = lo48($2)
	for (i = 0; i < nr[key]; i++)
		if (a >= ra[key, i] && a < ra[key, i] + rs[key, i]) { bpf[w] += $3 * $4; next }
	# the kernel functions of the programs' work, in address order (kallsyms sorted): bisection
	lo = 0; hi = nh[key] - 1
	while (lo <= hi) {
		mid = int((lo + hi) / 2)
		if (a < ha[key, mid]) hi = mid - 1
		else if (a >= he[key, mid]) lo = mid + 1
		else { hlp[w] += $3 * $4; break }
	}
}
END {
	for (j = 0; j < nw; j++) {
		w = order[j]
		split(w, q, SUBSEP)
		if (!(to[w] in tot) || !(from[w] in tot) || !rpcs[w]) { printf "INSN-FAIL no marks or RPCs for %s %s %s %s %s\n", q[1], q[2], q[3], q[4], q[5]; continue }
		ins = (tot[to[w]] - tot[from[w]]) / rpcs[w]
		b = bpf[w] / rpcs[w]
		printf "ROUND %s %s %s %s %s %d %d %.0f %.0f %.1f %.0f\n", q[1], q[2], q[3], q[4], q[5], rpcs[w], runs[w], ins, b,
			runs[w] ? bpf[w] / runs[w] : 0, hlp[w] / rpcs[w]
	}
}
