#!/bin/bash
# The exporter's files against real tools: the golden textfile passes promtool and is served by
# node_exporter; the alert rules pass their unit tests; the dashboard queries only real metrics.
top=$(cd "$(dirname "$0")/../.." && pwd)
TOOLS=${O:-$top/build}/tools
[ -x "$TOOLS/promtool" ] || "$top/tools/fetch-tools.sh" "$TOOLS" || exit 1
. "$top/tests/lib-exporter.sh"
check_textfile "$top/tests/golden/metrics.prom"
check_grafana "$top/tests/golden/metrics.prom"
if out=$(cd "$top/tools/prometheus" && "$TOOLS/promtool" test rules slotscope.rules.test.yml 2>&1); then
	ok "promtool test rules"
else
	bad "promtool test rules: $out"
fi
if xmllint --noout "$top/tests/golden/flame.svg" 2>/dev/null; then ok "golden SVG well-formed"; else bad "golden SVG"; fi
exit $fails
