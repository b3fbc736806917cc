#!/bin/bash
# --listen against a real Prometheus: on this host (no sunrpc) slotscope waits for NFS and serves
# that state; Prometheus scrapes it (up, slotscope_tracing 0, the build info) and evaluates the
# project's rules on it (SlotscopeNotTracing pending); /healthz answers the probes, promtool
# takes the exposition, curl sees the errors a client can cause, and bad --listen values are one
# line and exit 64. The VM's test_exporter scrapes a tracing one.
#% timeout: 240
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
[ ! -d /sys/module/sunrpc ] || { echo "SKIP sunrpc is loaded here: the host cannot show a node without it"; exit 77; }
TOOLS=$O/tools
[ -x "$TOOLS/prometheus" ] || "$top/tools/fetch-tools.sh" "$TOOLS" || exit 1
ss=$O/slotscope
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

# a port nobody holds: slotscope picks it (":0") and says which
"$ss" -v 0.5 --listen 127.0.0.1:0 --prom-rollup >/dev/null 2>"$work/ss.err" &
ssp=$!
pids+=($ssp)
port=$(listen_port "$work/ss.err")
[ -n "$port" ] && ok "listening, said in one line: $(grep serving "$work/ss.err")" || { bad "no port said: $(cat "$work/ss.err")"; exit $fails; }
url=http://127.0.0.1:$port
code=$(curl -s -o "$work/h" -w '%{http_code}' "$url/healthz")
[ "$code" = 200 ] && grep -qx 'ok: waiting for NFS' "$work/h" && ok "/healthz: 200, $(cat "$work/h")" || bad "/healthz: $code $(cat "$work/h")"
curl -s -D "$work/hdr" -o "$work/m.prom" "$url/metrics"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$work/hdr" && ok "/metrics: Prometheus's text format" || bad "/metrics headers: $(cat "$work/hdr")"
grep -qx 'slotscope_tracing 0' "$work/m.prom" && ok "/metrics: slotscope_tracing 0 while waiting" || bad "/metrics: $(head -c 300 "$work/m.prom")"
out=$("$TOOLS/promtool" check metrics <"$work/m.prom" 2>&1) && ok "promtool check metrics on the scrape" || bad "promtool: $out"
code() { curl -s -o /dev/null -w '%{http_code}' --path-as-is "$@"; }
got=$(code "$url/nope"); [ "$got" = 404 ] && ok "/nope: 404" || bad "/nope: $got"
got=$(code "$url/metrics/../healthz"); [ "$got" = 404 ] && ok "/metrics/../healthz: 404" || bad "/metrics/../healthz: $got"
got=$(code -X POST "$url/metrics"); [ "$got" = 405 ] && ok "POST /metrics: 405" || bad "POST /metrics: $got"
got=$(exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET /metrics HTTP/9.9\r\n\r\n' >&3 && timeout 5 head -n 1 <&3 | tr -d '\r')
[ "$got" = "HTTP/1.1 505 HTTP Version Not Supported" ] && ok "HTTP/9.9: $got" || bad "HTTP/9.9: '$got'"

# a real Prometheus: scrapes it every second and evaluates the project's rules on what it reads
pport=$(free_ports 1)
cat >"$work/prometheus.yml" <<EOF
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [ "$top/tools/prometheus/slotscope.rules.yml" ]
scrape_configs:
  - job_name: slotscope
    static_configs: [ { targets: [ "127.0.0.1:$port" ] } ]
EOF
"$TOOLS/prometheus" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$work/prom.log" 2>&1 &
pp=$!
pids+=($pp)
q() { curl -s --get "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" | jq -r "$2"; }
for _ in $(seq 60); do
	[ "$(q 'ALERTS{alertname="SlotscopeNotTracing"}' '.data.result[0].metric.alertstate // empty' 2>/dev/null)" = pending ] && break
	sleep 1
done
[ "$(q 'up{job="slotscope"}' '.data.result[0].value[1]')" = 1 ] && ok "Prometheus scrapes it: up 1" || bad "up: $(q up '.data.result')"
[ "$(q 'slotscope_tracing' '.data.result[0].value[1]')" = 0 ] && ok "Prometheus reads slotscope_tracing 0" || bad "slotscope_tracing: $(q slotscope_tracing '.data.result')"
[ "$(q 'count(slotscope_build_info)' '.data.result[0].value[1]')" = 1 ] && ok "Prometheus reads slotscope_build_info" || bad "no slotscope_build_info"
[ "$(q 'ALERTS{alertname="SlotscopeNotTracing"}' '.data.result[0].metric.alertstate')" = pending ] &&
	ok "the rules evaluated on the scrape: SlotscopeNotTracing pending" || bad "SlotscopeNotTracing: $(q ALERTS '.data.result')"
n=$(curl -s "http://127.0.0.1:$pport/api/v1/rules" | jq '[.data.groups[].rules[] | select(.health == "ok")] | length')
t=$(curl -s "http://127.0.0.1:$pport/api/v1/rules" | jq '[.data.groups[].rules[]] | length')
[ "$n" = "$t" ] && [ "$t" -gt 10 ] && ok "every rule evaluated without error: $n of $t" || bad "rules healthy: $n of $t"
[ "$(q 'scrape_samples_scraped{job="slotscope"}' '.data.result[0].value[1]')" = "$(grep -vc '^#' "$work/m.prom")" ] &&
	ok "samples scraped = samples served ($(grep -vc '^#' "$work/m.prom"))" || bad "samples scraped: $(q scrape_samples_scraped '.data.result')"

# a stop signal: a clean exit, the port closed
kill -TERM $ssp
wait $ssp
rc=$?
[ $rc = 0 ] && ok "SIGTERM: exit 0" || bad "SIGTERM: exit $rc"
curl -s -o /dev/null "$url/healthz" && bad "the port still answers after exit" || ok "the port closed at exit"

# bad values: one line, exit 64, before anything is loaded; a port held: the same
for spec in 9868 ':99999' '::1:9868' 'nohost.invalid:9868'; do
	"$ss" -d 1 --listen "$spec" >/dev/null 2>"$work/e"
	rc=$?
	[ $rc = 64 ] && [ "$(wc -l <"$work/e")" = 1 ] && ok "--listen $spec: exit 64, $(cat "$work/e")" ||
		bad "--listen $spec: exit $rc, $(cat "$work/e")"
done
"$ss" -d 1 --listen "127.0.0.1:$pport" >/dev/null 2>"$work/e"
rc=$?
[ $rc = 64 ] && grep -q 'pick another port' "$work/e" && ok "a port in use: exit 64, $(cat "$work/e")" || bad "port in use: exit $rc, $(cat "$work/e")"
"$ss" -d 1 --prom-rollup >/dev/null 2>"$work/e"
[ $? = 64 ] && grep -q -- '--listen' "$work/e" && ok "--prom-rollup alone names --listen too" || bad "--prom-rollup alone: $(cat "$work/e")"
exit $fails
