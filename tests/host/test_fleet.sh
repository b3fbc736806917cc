#!/bin/bash
# A simulated fleet in a real Prometheus: 34 node_exporters on loopback, each serving the textfile
# that slotscope's own writer makes for a scripted node (tests/fleet/fleetgen.c: slot-bound over
# TCP and over RDMA with an idle link, a multi-rail node whose compute rail is busy, link-bound,
# healthy, churning transports). Debian's Prometheus scrapes them every second and evaluates the
# shipped rules (windows scaled from minutes to seconds). PromQL must find: the alert on exactly
# the scripted nodes and transports, the fleet's recording rules right, histogram_quantile over
# the fleet monotonic and within one bucket of the true p99, every scrape clean, the series budget.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
TOOLS=$O/tools
NODES=34
[ -x "$TOOLS/prometheus" ] || "$top/tools/fetch-tools.sh" "$TOOLS" || exit 1
[ -x "$O/tests/fleetgen" ] || { echo "FAIL no $O/tests/fleetgen: make unit-test-bins"; exit 1; }
dir=$(mktemp -d)
pids=
cleanup() { kill $pids 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# it runs until the cleanup kills it: a slow Prometheus start must not outlive its data
"$O/tests/fleetgen" "$dir" $NODES 3600 2>"$dir/fleetgen.err" &
pids="$pids $!"
for _ in $(seq 50); do [ -f "$dir/node$((NODES - 1))/slotscope.prom" ] && break; sleep 0.1; done
targets=
for n in $(seq 0 $((NODES - 1))); do
	p=$(free_port)
	"$TOOLS/node_exporter" --web.listen-address=127.0.0.1:$p --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$dir/node$n" >"$dir/ne$n.log" 2>&1 &
	pids="$pids $!"
	targets="$targets    - targets: ['127.0.0.1:$p']
      labels: { instance: node$n }
"
done
# the shipped rules with their windows scaled: 5m -> 15s, 1h -> 30s, for 5m -> 5s
sed -e 's/\[5m\]/[15s]/g; s/\[1h\]/[30s]/g; s/for: 5m/for: 5s/' "$top/tools/prometheus/slotscope.rules.yml" >"$dir/rules.yml"
"$TOOLS/promtool" check rules "$dir/rules.yml" >/dev/null || bad "scaled rules do not check"
cat >"$dir/prometheus.yml" <<EOF
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [ rules.yml ]
scrape_configs:
  - job_name: node
    relabel_configs: []
    static_configs:
$targets
EOF
pp=$(free_port)
"$TOOLS/prometheus" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
	--web.listen-address=127.0.0.1:$pp >"$dir/prometheus.log" 2>&1 &
pids="$pids $!"
# q EXPR: the instant query's result as "labels value" lines, labels as k=v sorted ({} none)
q() {
	python3 - "$pp" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
r = json.load(urllib.request.urlopen(url, timeout=10))
for s in r["data"]["result"]:
    m = s["metric"]
    print(",".join("%s=%s" % (k, m[k]) for k in sorted(m)) or "{}", s["value"][1])
EOF
}
for _ in $(seq 100); do q up >/dev/null 2>&1 && break; sleep 0.3; done
# rate windows of 15 s, the alert's 5 s: 50 s of scrapes is plenty
sleep 50

up=$(q 'sum(up)' | awk '{ print $2 }')
[ "$up" = $NODES ] && ok "all $NODES node_exporters up" || bad "up: $up of $NODES"
errs=$(q 'sum(max_over_time(node_textfile_scrape_error[1m]))' | awk '{ print $2 }')
[ "$errs" = 0 ] && ok "no textfile scrape error at any scrape" || bad "textfile scrape errors: $errs"

want=$(awk '$1 == "alert" { print $2 }' "$dir/truth" | sort | tr '\n' ' ')
got=$(q 'ALERTS{alertname="SlotscopeSlotsFullLinkIdle",alertstate="firing"}' |
	sed 's/.*instance=\([^,]*\).*/\1/' | sort | tr '\n' ' ')
[ "$got" = "$want" ] && ok "slots-full-link-idle fires for exactly: $want" || bad "alert fired for '$got', want '$want'"
n=$(q 'count(ALERTS{alertname="SlotscopeSlotsFullLinkIdle",alertstate="firing",server!="",xprt!=""})' | awk '{ print $2 }')
[ "$n" = "$(echo $want | wc -w)" ] && ok "one alert per transport, with server and xprt labels" || bad "alerts with transport labels: $n"
mr=$(awk '$2 == "multirail" { print $1 }' "$dir/truth")
echo "$got" | grep -qw "$mr" && ok "multi-rail $mr: the busy compute rail does not hide the idle storage rail" ||
	bad "multi-rail $mr not alerted"

want=$(awk '$1 == "slot_bound_nodes" { print $2 }' "$dir/truth")
got=$(q 'slotscope:nodes_slot_bound:count' | awk '{ print $2 }')
[ "$got" = "$want" ] && ok "nodes slot-bound: $got" || bad "nodes slot-bound: $got, want $want"
want=$(awk '$1 == "checkpoint_slot_bound_ratio" { print $2 }' "$dir/truth")
got=$(q 'slotscope:checkpoint_slot_bound_ratio:rate1h' | awk '{ print $2 }')
awk -v g="$got" -v w="$want" 'BEGIN { exit !(g != "" && g - w < 0.01 && w - g < 0.01) }' &&
	ok "fleet checkpoint time slot-bound: $got (truth $want)" || bad "fleet checkpoint slot-bound ratio $got, truth $want"

# the fleet's slot-wait histogram: buckets non-decreasing in le, p99 within one bucket of the truth
q 'sum by (le) (rate(slotscope_wait_seconds_bucket{kind="slot"}[15s]))' |
	sed 's/^le=//' | sed 's/^+Inf/1e99/' | sort -g >"$dir/buckets"
if awk 'NR > 1 && $2 + 0 < prev - 1e-9 { bad = 1 } { prev = $2 + 0 } END { exit bad || NR != 17 }' "$dir/buckets"; then
	ok "fleet slot-wait buckets: 17, non-decreasing in le"
else
	bad "fleet slot-wait buckets: $(tr '\n' ';' <"$dir/buckets")"
fi
truth=$(awk '$1 == "slot_wait_p99_seconds" { print $2 }' "$dir/truth")
p99=$(q 'histogram_quantile(0.99, sum by (le) (rate(slotscope_wait_seconds_bucket{kind="slot"}[15s])))' | awk '{ print $2 }')
if awk -v p="$p99" -v t="$truth" -v f="$dir/buckets" 'BEGIN {
	while ((getline l < f) > 0) { split(l, a, " "); le[n++] = a[1] + 0 }
	for (i = 0; i < n && le[i] < t; i++) ; ti = i
	for (i = 0; i < n && le[i] < p; i++) ; pi = i
	exit !(p != "" && (pi - ti <= 1 && ti - pi <= 1)) }'; then
	ok "fleet p99 slot wait $p99 s within one bucket of the truth $truth s"
else
	bad "fleet p99 slot wait $p99 s, truth $truth s"
fi

# the budget: one transport and one mount per node: <= 60 + 40 + the node's own 30
q 'count by (instance) ({__name__=~"slotscope_.+"})' | awk '{ print $2 }' | sort -n | tail -n 1 >"$dir/max"
[ "$(cat "$dir/max")" -le 130 ] && ok "series per node within budget (max $(cat "$dir/max"))" ||
	bad "series per node $(cat "$dir/max") > 130"
total=$(q 'count({__name__=~"slotscope_.+"})' | awk '{ print $2 }')
[ "$total" -le $((NODES * 130)) ] && ok "fleet series $total <= $((NODES * 130))" || bad "fleet series $total"
# churning nodes: the replaced transports' series went stale, only the live one remains
n=$(q 'count by (instance) (slotscope_slot_limit{instance="node33"})' | awk '{ print $2 }')
[ "$n" = 1 ] && ok "churning node: one live transport's series" || bad "churning node: $n slot_limit series"
[ -s "$dir/fleetgen.err" ] && bad "fleetgen: $(cat "$dir/fleetgen.err")"
exit $fails
