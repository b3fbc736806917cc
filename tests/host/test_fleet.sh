#!/bin/bash
# A simulated fleet in a real Prometheus: 82 node_exporters on loopback, each serving the textfile
# that slotscope's own writer makes for a scripted node (tests/fleet/fleetgen.c: slot-bound over
# TCP and over RDMA with an idle link, a multi-rail node whose compute rail is busy, link-bound,
# healthy, churning transports; 36 writers joining a checkpoint to a server that takes 24 nodes'
# demand; 12 slot-bound on their own against another), and one more serving every node's GPUs as
# dcgm-exporter shows them (its own target per node, by honor_labels). Debian's Prometheus scrapes
# them every second and evaluates the shipped rules, both files, their windows scaled (minutes to
# seconds, the fleet rules' day to the whole run). PromQL must find: the alert on exactly the
# scripted nodes and transports, the fleet's recording rules right, histogram_quantile over the
# fleet monotonic and within one bucket of the true p99, the knee within 10 % of the script's,
# none for the server whose nodes are slot-bound on their own, the GPU-seconds lost within 5 % of
# the script's count, every scrape clean, the series budget. Costs about 2 minutes (96 s of them
# the script's sweep, started once Prometheus scrapes every target), about half a core.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
TOOLS=$O/tools
NODES=82
[ -x "$TOOLS/prometheus" ] || "$top/tools/fetch-tools.sh" "$TOOLS" || exit 1
[ -x "$O/tests/fleetgen" ] || { echo "FAIL no $O/tests/fleetgen: make unit-test-bins"; exit 1; }
# tmpfs: 83 textfiles written 5 times a second, each fsync'd
dir=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
pids=
cleanup() { kill $pids 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT

# it runs until the cleanup kills it: a slow Prometheus start must not outlive its data
"$O/tests/fleetgen" "$dir" $NODES 3600 2>"$dir/fleetgen.err" &
pids="$pids $!"
for _ in $(seq 50); do [ -f "$dir/node$((NODES - 1))/slotscope.prom" ] && [ -f "$dir/dcgm/dcgm.prom" ] && break; sleep 0.1; done
read -r -a ports <<<"$(free_ports $((NODES + 2)))"
targets=
for n in $(seq 0 $((NODES - 1))); do
	p=${ports[n]}
	"$TOOLS/node_exporter" --web.listen-address=127.0.0.1:$p --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$dir/node$n" >"$dir/ne$n.log" 2>&1 &
	pids="$pids $!"
	targets="$targets    - targets: ['127.0.0.1:$p']
      labels: { instance: node$n }
"
done
dp=${ports[NODES]}
"$TOOLS/node_exporter" --web.listen-address=127.0.0.1:$dp --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$dir/dcgm" >"$dir/dcgm.log" 2>&1 &
pids="$pids $!"
# the shipped rules with their windows scaled: 5m -> 15s, 1h -> 20s, for 5m -> 5s; the fleet
# rules' 2m -> 4s (four scrapes), 1d -> 600s (the whole run), their hour of minutes -> a minute
# of seconds, an hour -> a minute
sed -e 's/\[5m\]/[15s]/g; s/\[1h\]/[20s]/g; s/for: 5m/for: 5s/' "$top/tools/prometheus/slotscope.rules.yml" >"$dir/rules.yml"
sed -e 's/\[2m\]/[4s]/g; s/\[1d\]/[600s]/g; s/\[1h:1m\]) \* 60$/[60s:1s]) * 1/; s/\[1h\]/[60s]/g' \
	"$top/tools/prometheus/slotscope-fleet.rules.yml" >"$dir/fleet.rules.yml"
"$TOOLS/promtool" check rules "$dir/rules.yml" "$dir/fleet.rules.yml" >/dev/null || bad "scaled rules do not check"
left=$(grep -E '\[[0-9]+[mhd](:[0-9]+[mhd])?\]|\* 60$' "$dir/fleet.rules.yml")
[ -z "$left" ] || bad "windows left unscaled: $left"
cat >"$dir/prometheus.yml" <<EOF
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [ rules.yml, fleet.rules.yml ]
scrape_configs:
  - job_name: node
    relabel_configs: []
    static_configs:
$targets
  # dcgm-exporter runs on every node as its own target (port 9400): the series carry the
  # instance each would have
  - job_name: dcgm
    honor_labels: true
    static_configs:
    - targets: ['127.0.0.1:$dp']
EOF
pp=${ports[NODES + 1]}
"$TOOLS/prometheus" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
	--web.listen-address=127.0.0.1:$pp >"$dir/prometheus.log" 2>&1 &
pids="$pids $!"
# q EXPR [TIME]: the instant query's result as "labels value" lines, labels as k=v sorted ({} none);
# one python answers every query (a start each would cost ~0.4 s)
coproc QP {
	python3 -u -c '
import json, sys, urllib.parse, urllib.request
for line in sys.stdin:
    expr, _, at = line.rstrip("\n").partition("\t")
    url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(expr))
    if at:
        url += "&time=" + at
    try:
        r = json.load(urllib.request.urlopen(url, timeout=10))
        for s in r["data"]["result"]:
            m = s["metric"]
            print(",".join("%s=%s" % (k, m[k]) for k in sorted(m)) or "{}", s["value"][1])
    except Exception as e:
        print("query %r: %s" % (expr, e), file=sys.stderr)
    print(".")
' "$pp" 2>"$dir/query.err"
}
pids="$pids $QP_PID"
# fds of its own: command substitutions do not see a coproc's
exec 7>&"${QP[1]}" 8<&"${QP[0]}"
q() {
	local l
	printf '%s\t%s\n' "$1" "${2:-}" >&7
	while IFS= read -r l <&8 && [ "$l" != . ]; do echo "$l"; done
}
val() { q "$@" | awk '{ print $2 }'; }
# near GOT WANT SHARE: GOT within SHARE of WANT
near() { awk -v g="$1" -v w="$2" -v s="$3" 'BEGIN { exit !(g != "" && g - w <= s * w && w - g <= s * w) }'; }
for _ in $(seq 200); do [ "$(val 'sum(up)')" = $((NODES + 1)) ] && break; sleep 0.3; done
# the sweep starts once every target has been scraped: Prometheus sees it whole
touch "$dir/go"
go=$(date +%s.%N)
end=$(awk '$1 == "script_end_s" { print $2 }' "$dir/truth")
sleep "$(awk -v g="$go" -v e="$end" -v now="$(date +%s.%N)" 'BEGIN { s = g + e - now; print (s > 0 ? s : 0) }')"

up=$(val 'sum(up{job="node"})')
[ "$up" = $NODES ] && ok "all $NODES node_exporters up" || bad "up: $up of $NODES"
[ "$(val 'up{job="dcgm"}')" = 1 ] && ok "dcgm target up" || bad "dcgm target not up"
errs=$(val 'sum(max_over_time(node_textfile_scrape_error[5m]))')
[ "$errs" = 0 ] && ok "no textfile scrape error at any scrape" || bad "textfile scrape errors: $errs"

want=$(awk '$1 == "alert" { print $2 }' "$dir/truth" | sort | tr '\n' ' ')
got=$(q 'ALERTS{alertname="SlotscopeSlotsFullLinkIdle",alertstate="firing"}' |
	sed 's/.*instance=\([^,]*\).*/\1/' | sort | tr '\n' ' ')
[ "$got" = "$want" ] && ok "slots-full-link-idle fires for exactly: $want" || bad "alert fired for '$got', want '$want'"
n=$(val 'count(ALERTS{alertname="SlotscopeSlotsFullLinkIdle",alertstate="firing",server!="",xprt!=""})')
[ "$n" = "$(echo $want | wc -w)" ] && ok "one alert per transport, with server and xprt labels" || bad "alerts with transport labels: $n"
mr=$(awk '$2 == "multirail" { print $1 }' "$dir/truth")
echo "$got" | grep -qw "$mr" && ok "multi-rail $mr: the busy compute rail does not hide the idle storage rail" ||
	bad "multi-rail $mr not alerted"

[ -f "$dir/truth.final" ] || bad "fleetgen wrote no truth.final"
want=$(awk '$1 == "slot_bound_nodes" { print $2 }' "$dir/truth.final")
got=$(val 'slotscope:nodes_slot_bound:count')
[ "$got" = "$want" ] && ok "nodes slot-bound: $got" || bad "nodes slot-bound: $got, want $want"
want=$(awk '$1 == "checkpoint_slot_bound_ratio" { print $2 }' "$dir/truth.final")
got=$(val 'slotscope:checkpoint_slot_bound_ratio:rate1h')
awk -v g="$got" -v w="$want" 'BEGIN { exit !(g != "" && g - w < 0.01 && w - g < 0.01) }' &&
	ok "fleet checkpoint time slot-bound: $got (truth $want)" || bad "fleet checkpoint slot-bound ratio $got, truth $want"

# the fleet's slot-wait histogram: buckets non-decreasing in le, p99 within one bucket of the truth
q 'sum by (le) (rate(slotscope_wait_duration_seconds_bucket{kind="slot"}[15s]))' |
	sed 's/^le=//' | sed 's/^+Inf/1e99/' | sort -g >"$dir/buckets"
if awk 'NR > 1 && $2 + 0 < prev - 1e-9 { bad = 1 } { prev = $2 + 0 } END { exit bad || NR != 17 }' "$dir/buckets"; then
	ok "fleet slot-wait buckets: 17, non-decreasing in le"
else
	bad "fleet slot-wait buckets: $(tr '\n' ';' <"$dir/buckets")"
fi
truth=$(awk '$1 == "slot_wait_p99_seconds" { print $2 }' "$dir/truth.final")
p99=$(val 'histogram_quantile(0.99, sum by (le) (rate(slotscope_wait_duration_seconds_bucket{kind="slot"}[15s])))')
if awk -v p="$p99" -v t="$truth" -v f="$dir/buckets" 'BEGIN {
	while ((getline l < f) > 0) { split(l, a, " "); le[n++] = a[1] + 0 }
	for (i = 0; i < n && le[i] < t; i++) ; ti = i
	for (i = 0; i < n && le[i] < p; i++) ; pi = i
	exit !(p != "" && (pi - ti <= 1 && ti - pi <= 1)) }'; then
	ok "fleet p99 slot wait $p99 s within one bucket of the truth $truth s"
else
	bad "fleet p99 slot wait $p99 s, truth $truth s"
fi

# the knee: the writers, their rate and RTT at the end against the script's server, the knee
# named within 10 % of its K, no other server named (nodes slot-bound on their own are no knee)
read -r ks K <<<"$(awk '$1 == "knee_server" { print $2, $3 }' "$dir/truth")"
kw=$(awk '$1 == "knee_writers" { print $2 }' "$dir/truth")
os=$(awk '$1 == "own_server" { print $2 }' "$dir/truth")
on=$(awk '$1 == "own_nodes" { print $2 }' "$dir/truth")
got=$(val "server:slotscope_checkpoint_nodes:count{server=\"$ks\"}")/$(val "server:slotscope_checkpoint_nodes:count{server=\"$os\"}")
[ "$got" = "$kw/$on" ] && ok "checkpoint writers per server: $got" || bad "checkpoint writers $got, want $kw/$on"
# past the knee each of kw writers gets K/kw of its 2 GB/s, at K/kw x its 2 ms RTT
g=$(val "server:slotscope_checkpoint_written_bytes:avg_rate2m{server=\"$ks\"}")
r=$(val "server:slotscope_checkpoint_rtt_seconds:mean2m{server=\"$ks\"}")
gw=$(awk -v k="$K" -v w="$kw" 'BEGIN { print 2e9 * k / w }')
rw=$(awk -v k="$K" -v w="$kw" 'BEGIN { print 0.002 * w / k }')
near "$g" "$gw" 0.05 && near "$r" "$rw" 0.05 && ok "at $kw writers: $g B/s each (script $gw), RTT $r s (script $rw)" ||
	bad "at $kw writers: $g B/s each (script $gw), RTT $r s (script $rw)"
knee=$(val "server:slotscope_checkpoint_knee_nodes:estimate1d{server=\"$ks\"}")
plateau=$(val "server:slotscope_checkpoint_written_bytes:max_avg1d_avg_rate2m{server=\"$ks\"}")
cap=$(val "server:slotscope_checkpoint_written_bytes:max_avg1d_rate2m{server=\"$ks\"}")
near "$knee" "$K" 0.10 && ok "knee of $ks: $knee nodes (script $K; capacity $cap B/s over plateau $plateau B/s each)" ||
	bad "knee of $ks: '$knee', script $K (capacity $cap, plateau $plateau)"
named=$(q 'server:slotscope_checkpoint_knee_nodes:estimate1d' | sed 's/.*server=\([^ ,]*\).*/\1/' | tr '\n' ' ')
[ "$named" = "$ks " ] && ok "no knee named but $ks's ($os: slot-bound on their own)" || bad "knees named for: $named"
got=$(val "server:slotscope_checkpoint_nodes_slot_bound_own:count{server=\"$os\"}")/$(val "server:slotscope_checkpoint_nodes_slot_bound_own:count{server=\"$ks\"}")
[ "$got" = "$on/0" ] && ok "slot-bound on their own: $os $on, $ks none (its writers' slots full because it slowed)" ||
	bad "slot-bound on their own ($os/$ks): $got, want $on/0"

# GPU time: the fleet's hour (scaled: a minute) against the script's count over the same
# evaluations, each rate's 4 s window spread as the rule spreads it; every node's GPUs joined
# whichever of dcgm-exporter's instance and Hostname names it
at=$(awk -v n="$(date +%s.%N)" 'BEGIN { printf "%.3f", n - 1 }')
te=$(val 'timestamp(fleet:slotscope_checkpoint_gpu_idle_seconds:increase1h)' "$at")
got=$(val 'fleet:slotscope_checkpoint_gpu_idle_seconds:increase1h' "$at")
want=$(awk -v te="$te" '{ t[n] = $1; c[n++] = $2 }
	function cum(x,   i) { for (i = n - 1; i >= 0 && t[i] > x; i--) ; return i < 0 ? 0 : c[i] }
	END { for (u = 0; u <= 4.0001; u += 0.1) { s += cum(te - u) - cum(te - 60 - u); k++ } printf "%.1f", s / k }' "$dir/gpu.truth")
near "$got" "$want" 0.05 && ok "GPU-seconds lost over the last minute: $got (script $want)" ||
	bad "GPU-seconds lost over the last minute: '$got', script $want"
n=$(val 'count(instance:slotscope_checkpoint_gpu_idle_seconds:rate2m)')
[ "$n" = $NODES ] && ok "every node's GPUs joined with its slotscope series ($n)" || bad "GPUs joined for $n nodes of $NODES"

# the budget: one transport and one mount per node, as docs/metrics.md counts them: a transport 61, a
# mount 41, the node's own 30, three per RDMA port (two on the multi-rail node)
max=$(q 'count by (instance) ({__name__=~"slotscope_.+"})' | awk '{ print $2 }' | sort -n | tail -n 1)
[ "$max" -le 138 ] && ok "series per node within budget (max $max)" || bad "series per node $max > 138"
total=$(val 'count({__name__=~"slotscope_.+"})')
[ "$total" -le $((NODES * 137)) ] && ok "fleet series $total <= $((NODES * 137))" || bad "fleet series $total"
# churning nodes: the replaced transports' series went stale, only the live one remains
n=$(val 'count by (instance) (slotscope_slot_limit{instance="node33"})')
[ "$n" = 1 ] && ok "churning node: one live transport's series" || bad "churning node: $n slot_limit series"
[ -s "$dir/fleetgen.err" ] && bad "fleetgen: $(cat "$dir/fleetgen.err")"
exit $fails
