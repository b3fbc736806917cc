#!/bin/bash
# Every libFuzzer target (tests/fuzz/, built by `make fuzzers` under ASan and UBSan) for
# FUZZ_SECONDS (10; make test sets 4) each, from tests/fuzz/corpus and what earlier runs found: a crash, a leak or
# a sanitizer report fails, with the fuzzer's last lines. `make fuzz FUZZ_SECONDS=N` runs the same.
#% timeout: 300
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
n=0
for f in "$O"/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	t=${f##*/fuzz_}
	n=$((n + 1))
	mkdir -p "$O/fuzz/corpus-$t"
	if "$f" -max_total_time="${FUZZ_SECONDS:-10}" -print_final_stats=1 "$O/fuzz/corpus-$t" \
		"$top/tests/fuzz/corpus/$t" >"$O/fuzz/$t.log" 2>&1; then
		ok "$t: $(sed -n 's/^stat::number_of_executed_units: *//p' "$O/fuzz/$t.log") runs, no report"
	else
		bad "$t: $(grep -m1 -E 'ERROR|SUMMARY|runtime error' "$O/fuzz/$t.log")"
		tail -n 30 "$O/fuzz/$t.log" | sed 's/^/    | /'
	fi
done
[ $n = "$(ls "$top"/tests/fuzz/fuzz_*.c | wc -l)" ] || bad "$n fuzzers built of $(ls "$top"/tests/fuzz/fuzz_*.c | wc -l): make fuzzers"
exit $fails
