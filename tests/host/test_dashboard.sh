#!/bin/bash
# The Grafana dashboard and the alerts' runbooks against a real Prometheus (Debian's, from
# tools/fetch-tools.sh), which loads every rules file and parses every query: the JSON is valid;
# every panel, rows' own included, has a unique integer id; rate(), irate() and increase() take
# Grafana's windows ($__rate_interval, $__interval, $__range), never a fixed one, which is wrong
# at every scrape interval but one; every query parses as PromQL once Grafana's variables are
# substituted; every metric a query names is slotscope's (docs/metrics.md's table or the golden
# textfile) or a recording rule; every alert has a runbook_url whose anchor is a heading of
# docs/runbook.md, the page the installed rules point at.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
TOOLS=$O/tools
[ -x "$TOOLS/prometheus" ] || "$top/tools/fetch-tools.sh" "$TOOLS" || exit 1
DASH=${DASH:-$top/tools/grafana/slotscope.json}
METRICS_DOC=${METRICS_DOC:-$top/docs/metrics.md}
RUNBOOK_DOC=${RUNBOOK_DOC:-$top/docs/runbook.md}
RULES_DIR=${RULES_DIR:-$top/tools/prometheus}
dir=$(mktemp -d)
pid=
cleanup() { [ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }; rm -rf "$dir"; }
trap cleanup EXIT

# every rules file, not their tests: the recording rules a query may use, the alerts to check
rules=
for f in "$RULES_DIR"/*.rules.yml; do
	[ -e "$f" ] && rules="$rules    - $f
"
done
[ -n "$rules" ] || { bad "no rules file in $RULES_DIR"; exit 1; }
printf 'global: {}\nrule_files:\n%s' "$rules" >"$dir/prometheus.yml"
port=$(free_ports 1)
"$TOOLS/prometheus" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
	--web.listen-address=127.0.0.1:$port >"$dir/prometheus.log" 2>&1 &
pid=$!
up=
for _ in $(seq 100); do
	python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/-/ready', timeout=1)" 2>/dev/null &&
		{ up=1; break; }
	kill -0 $pid 2>/dev/null || break
	sleep 0.2
done
[ -n "$up" ] || { bad "Prometheus did not start with the rules files: $(tail -3 "$dir/prometheus.log")"; exit 1; }
ok "Prometheus loads $(echo "$rules" | grep -c .) rules file(s)"

# one line a verdict: "ok<TAB>what" or "bad<TAB>what"
python3 - "$port" "$DASH" "$METRICS_DOC" "$top/tests/golden/metrics.prom" "$RUNBOOK_DOC" >"$dir/verdicts" 2>&1 <<'EOF'
import json, re, sys, urllib.parse, urllib.request

port, dash_path, readme_path, golden_path, runbook_path = sys.argv[1:6]
def say(good, what):
    print(("ok\t" if good else "bad\t") + what)

def api(path, **params):
    url = "http://127.0.0.1:%s/api/v1/%s?%s" % (port, path, urllib.parse.urlencode(params))
    try:
        return json.load(urllib.request.urlopen(url, timeout=10))
    except urllib.error.HTTPError as e:
        return json.load(e)

try:
    dash = json.load(open(dash_path))
    say(True, "dashboard is valid JSON")
except ValueError as e:
    say(False, "dashboard is not valid JSON: %s" % e)
    sys.exit(0)

# panels, those inside rows (collapsed rows hold theirs) included
def walk(panels):
    for p in panels or []:
        yield p
        yield from walk(p.get("panels"))
panels = list(walk(dash.get("panels")))
ids, bad_ids = {}, []
for p in panels:
    i = p.get("id")
    if type(i) is not int:
        bad_ids.append("%r has id %r" % (p.get("title"), i))
    elif i in ids:
        bad_ids.append("%r and %r share id %d" % (ids[i], p.get("title"), i))
    else:
        ids[i] = p.get("title")
say(not bad_ids and panels, "%d panels, each with its own integer id" % len(panels) if not bad_ids
    else "panel ids: " + "; ".join(bad_ids))

# every PromQL expression: panel targets and annotations
exprs = []
for p in panels:
    for t in p.get("targets") or []:
        if t.get("expr"):
            exprs.append(("panel %r" % p.get("title"), t["expr"]))
for a in (dash.get("annotations") or {}).get("list") or []:
    e = a.get("expr") or (a.get("target") or {}).get("expr")
    if e:
        exprs.append(("annotation %r" % a.get("name"), e))
say(len(exprs) > 0, "%d query expressions" % len(exprs))

# a PromQL-aware scan: strings, label matchers and ranges are skipped whole
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`|\{[^}]*\}|\[[^\]]*\]'
                   r'|[A-Za-z_:][A-Za-z0-9_:]*|\S')
def tokens(e):
    # braces may hold strings holding braces: take strings first, then the rest
    out, i = [], 0
    while i < len(e):
        if e[i].isspace():
            i += 1
            continue
        if e[i] == "{":
            j, q = i + 1, None
            while j < len(e) and (q or e[j] != "}"):
                if q:
                    if e[j] == "\\":
                        j += 1
                    elif e[j] == q:
                        q = None
                elif e[j] in "\"'`":
                    q = e[j]
                j += 1
            out.append(e[i:j + 1])
            i = j + 1
            continue
        m = TOKEN.match(e, i)
        out.append(m.group(0))
        i = m.end()
    return out

# range selectors inside rate(), irate(), increase(): Grafana's windows only
GRAFANA_WINDOWS = {"$__rate_interval", "$__interval", "$__range",
                   "${__rate_interval}", "${__interval}", "${__range}"}
def fixed_windows(e):
    t, found = tokens(e), []
    for k, tok in enumerate(t):
        if tok in ("rate", "irate", "increase") and k + 1 < len(t) and t[k + 1] == "(":
            depth = 0
            for u in t[k + 1:]:
                if u == "(":
                    depth += 1
                elif u == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif u.startswith("["):
                    parts = u[1:-1].split(":")
                    if any(x.strip() and x.strip() not in GRAFANA_WINDOWS for x in parts):
                        found.append("%s(...%s)" % (tok, u))
    return found
fixed = ["%s: %s" % (w, f) for w, e in exprs for f in fixed_windows(e)]
say(not fixed, "no fixed rate window in rate/irate/increase" if not fixed
    else "fixed rate windows: " + "; ".join(fixed))

# Grafana's variables: its own intervals as durations, the dashboard's as a regex (they stand in
# =~ matchers); a variable nobody defines is an error
variables = {v["name"] for v in (dash.get("templating") or {}).get("list") or []}
BUILTIN = {"__rate_interval": "1m", "__interval": "1m", "__range": "1h", "__interval_ms": "60000",
           "__range_s": "3600", "__range_ms": "3600000"}
def substitute(e):
    unknown = []
    def one(m):
        name = m.group(1) or m.group(2)
        if name in BUILTIN:
            return BUILTIN[name]
        if name in variables:
            return ".+"
        if name.isdigit():          # label_replace's "$1"
            return m.group(0)
        unknown.append(name)
        return m.group(0)
    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)", one, e), unknown

def names_in(e):
    t, out, k = tokens(e), [], 0
    LISTS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
    # PromQL's lexer takes these as keywords, never as metric names (sum by (le) (...))
    KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan", "atan2", "sum", "min",
                "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk",
                "topk", "quantile", "limitk", "limit_ratio"} | LISTS
    while k < len(t):
        tok = t[k]
        if tok in LISTS and k + 1 < len(t) and t[k + 1] == "(":
            k += 2
            while k < len(t) and t[k] != ")":
                k += 1
        elif re.match(r"[A-Za-z_:][A-Za-z0-9_:]*$", tok) and tok.lower() not in KEYWORDS \
                and not (k + 1 < len(t) and t[k + 1] == "("):
            out.append(tok)
        k += 1
    return out

parse_bad = []
used = set()
for where, e in exprs:
    s, unknown = substitute(e)
    if unknown:
        parse_bad.append("%s: undefined variable(s) %s" % (where, ", ".join(unknown)))
        continue
    r = api("format_query", query=s)
    if r.get("status") != "success":
        parse_bad.append("%s: %s: %s" % (where, r.get("error"), s))
    used.update((n, where, e) for n in names_in(s))
say(not parse_bad, "every query parses in Prometheus (%d)" % len(exprs) if not parse_bad
    else "queries that do not parse: " + "; ".join(parse_bad))

# what a query may name: slotscope's metrics (docs/metrics.md's table, the golden textfile), the rules'
# records, and ALERTS for the rules' alerts
def with_suffixes(name, typ):
    return {name, name + "_bucket", name + "_sum", name + "_count"} if typ == "histogram" else {name}
known = set()
readme = open(readme_path).read().split("\n")
in_metrics = False
for line in readme:
    if line.startswith("#"):
        in_metrics = line.strip() == "## Metrics"
    elif in_metrics and line.startswith("| `"):
        cells = line.split("|")
        for n in re.findall(r"`([a-z0-9_]+)`", cells[1]):
            known |= with_suffixes("slotscope_" + n, cells[2].strip())
readme_count = len(known)
for line in open(golden_path):
    m = re.match(r"# TYPE (\S+) (\S+)", line)
    if m:
        known |= with_suffixes(m.group(1), m.group(2))
say(readme_count > 0, "docs/metrics.md's table read (%d names)" % readme_count)
rule_groups = api("rules")["data"]["groups"]
records = {r["name"] for g in rule_groups for r in g["rules"] if r["type"] == "recording"}
alerts = [r for g in rule_groups for r in g["rules"] if r["type"] == "alerting"]
alert_names = {a["name"] for a in alerts}
unknown_names = sorted({"%s in %s" % (n, w) for n, w, e in used
                        if n not in known and n not in records and n != "ALERTS"})
say(not unknown_names, "every metric the queries name is slotscope's or a recording rule"
    if not unknown_names else "unknown metrics: " + "; ".join(unknown_names))
# ALERTS{alertname...}: the names must be the rules' alerts
bad_alerts = []
for n, w, e in used:
    if n == "ALERTS":
        for m in re.finditer(r'alertname\s*=~?\s*"([^"]*)"', e):
            for a in m.group(1).split("|"):
                if a not in alert_names:
                    bad_alerts.append("%s in %s" % (a, w))
say(not bad_alerts, "ALERTS queries name the rules' alerts" if not bad_alerts
    else "ALERTS queries name no such alert: " + "; ".join(sorted(set(bad_alerts))))
# the instance variable's label_values(METRIC, label)
for v in (dash.get("templating") or {}).get("list") or []:
    m = re.match(r"\s*label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*,", str(v.get("query", "")))
    if m:
        say(m.group(1) in known or m.group(1) in records,
            "variable %s: label_values of %s" % (v["name"], m.group(1)))

# runbooks: the anchor is GitHub's (and GitLab's) slug of a section heading of docs/runbook.md
def slug(h):
    return re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
runbook = set()
for line in open(runbook_path):
    m = re.match(r"## (.*)", line)
    if m:
        runbook.add(slug(m.group(1)))
say(len(runbook) > 0, "docs/runbook.md has %d sections" % len(runbook))
say(len(alerts) > 0, "%d alerts in the rules files" % len(alerts))
bases = set()
for a in alerts:
    url = (a.get("annotations") or {}).get("runbook_url", "")
    base, _, anchor = url.rpartition("#")
    if not url:
        say(False, "alert %s has no runbook_url" % a["name"])
    elif anchor not in runbook:
        say(False, "alert %s: runbook_url anchor #%s is no section of docs/runbook.md" % (a["name"], anchor))
    else:
        say(True, "alert %s: runbook #%s" % (a["name"], anchor))
        bases.add(base)
say(len(bases) <= 1, "one runbook address for every alert" if len(bases) <= 1
    else "runbook addresses differ: " + " | ".join(sorted(bases)))
say(not any("example." in b for b in bases), "runbook address is not a placeholder")
EOF
[ $? = 0 ] || bad "the checks did not run: $(tail -5 "$dir/verdicts")"
while IFS=$'\t' read -r v what; do
	case $v in
	ok) ok "$what" ;;
	bad) bad "$what" ;;
	*) bad "$v $what" ;;
	esac
done <"$dir/verdicts"
exit $fails
