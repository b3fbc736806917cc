#!/bin/bash
# The fleet rules (tools/prometheus/slotscope-fleet.rules.yml) against promtool: they check, their
# unit tests pass (the knee of a scripted server, none for nodes slot-bound on their own, the
# GPU-seconds of scripted stalls joined with dcgm-exporter's series), and every rule they record
# is named in those tests. Seconds; the same rules in a real Prometheus: tests/host/test_fleet.sh.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
TOOLS=$O/tools
[ -x "$TOOLS/promtool" ] || "$top/tools/fetch-tools.sh" "$TOOLS" || exit 1
cd "$top/tools/prometheus" || exit 1
if out=$("$TOOLS/promtool" check rules slotscope-fleet.rules.yml 2>&1); then
	ok "promtool check rules: $(echo "$out" | grep -o '[0-9]* rules found')"
else
	bad "promtool check rules: $out"
fi
if out=$("$TOOLS/promtool" test rules slotscope-fleet.rules.test.yml 2>&1); then
	ok "promtool test rules slotscope-fleet.rules.test.yml"
else
	bad "promtool test rules: $out"
fi
untested=
for r in $(sed -n 's/^ *- record: *//p' slotscope-fleet.rules.yml); do
	grep -Eq -- "- expr: .*$r([^a-z0-9_:]|$)" slotscope-fleet.rules.test.yml || untested="$untested $r"
done
[ -z "$untested" ] && ok "every recorded rule is tested" || bad "rules no test queries:$untested"
exit $fails
