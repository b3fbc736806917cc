#!/bin/bash
# The exposition is valid OpenMetrics as an independent parser reads it (#61): Debian's
# python3-prometheus-client parses the goldens (per transport, --prom-rollup) and the files of a
# random snapshot history (tests/fleet/snapgen.c), and no family name comes twice: a counter's
# family is its name without _total, a histogram's without _bucket/_sum/_count, so
# slotscope_wait_seconds_total and a histogram slotscope_wait_seconds were one family twice
# (prometheus_client rendered two "# TYPE slotscope_wait_seconds"). A control with that pair
# must be refused.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
# Debian's own interpreter, whose packages apt installed (a pyenv on PATH has none of them)
py=/usr/bin/python3
$py -c 'import prometheus_client' 2>/dev/null || { echo "FAIL no python3-prometheus-client: make deps-test"; exit 1; }
[ -x "$O/tests/snapgen" ] || { echo "FAIL no $O/tests/snapgen: make unit-test-bins"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# families FILE...: each file parsed whole; a family name twice, or a parse error, is said
# and counted (exit 1); else "families N" of the last
families() {
	$py - "$@" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
bad = 0
for path in sys.argv[1:]:
    seen = {}
    try:
        for fam in text_string_to_metric_families(open(path).read()):
            if fam.name in seen:
                print(f"{path}: family {fam.name} twice: {seen[fam.name]} and {fam.type}")
                bad += 1
            seen[fam.name] = fam.type
    except Exception as e:
        print(f"{path}: does not parse: {e}")
        bad += 1
print(f"families {len(seen)}")
sys.exit(1 if bad else 0)
PY
}
for g in "$top"/tests/golden/*.prom; do
	out=$(families "$g") && ok "${g#"$top"/}: $(echo "$out" | tail -n 1), none twice" || bad "${g#"$top"/}: $out"
done
"$O/tests/snapgen" "$work/s" 120 7 >/dev/null || bad "snapgen"
out=$(families "$work"/s/*.prom) && ok "snapgen's 120 files parse, no family twice ($(echo "$out" | tail -n 1) in the last)" ||
	bad "snapgen's files: $(echo "$out" | head -n 3)"
# the control: the pair 0.2 wrote
cat >"$work/control.prom" <<'PROM'
# HELP slotscope_wait_seconds_total Time spent waiting.
# TYPE slotscope_wait_seconds_total counter
slotscope_wait_seconds_total{kind="slot"} 1
# HELP slotscope_wait_seconds Waits.
# TYPE slotscope_wait_seconds histogram
slotscope_wait_seconds_bucket{le="+Inf"} 1
slotscope_wait_seconds_sum 1
slotscope_wait_seconds_count 1
PROM
out=$(families "$work/control.prom") && bad "the control's one family twice passed: $out" ||
	{ grep -q 'family slotscope_wait_seconds twice' <<<"$out" && ok "the control refused: $(echo "$out" | head -n 1)" || bad "the control: $out"; }
exit $fails
