# bench/tick-insn.awk -v ticks=T: bench/insncount.c's marks over tickbench's timed runs (four
# cases, T ticks each, five marks a tick: before the model, after it, the JSON, the textfile, the
# ledger) -> user-space instructions per tick by step, the first tick of each case left out as in
# the time table
BEGIN { split("1|16|64|64: 63 idle + 1 busy", name, "|") }
$1 == "M" { m[$2] = $3; n = $2 + 1 }
END {
	per = 5 * ticks
	if (n != 4 * per) {
		printf "tick-insn.awk: %d marks, not the %d of 4 cases x %d ticks x 5\n", n, 4 * per, ticks > "/dev/stderr"
		exit 1
	}
	print "| transports | model insns | JSON insns | textfile insns | ledger insns | user-space instructions per tick |"
	print "|---|---|---|---|---|---|"
	for (c = 0; c < 4; c++) {
		for (s = 0; s < 4; s++) step[s] = 0
		for (t = 1; t < ticks; t++) {
			i = c * per + t * 5
			for (s = 0; s < 4; s++) step[s] += m[i + s + 1] - m[i + s]
		}
		sum = 0
		for (s = 0; s < 4; s++) { step[s] /= ticks - 1; sum += step[s] }
		printf "| %s | %.0f | %.0f | %.0f | %.0f | %.0f |\n", name[c + 1], step[0], step[1], step[2], step[3], sum
	}
}
