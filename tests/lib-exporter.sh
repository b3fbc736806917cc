# Checks of a slotscope textfile, shared by tests/host/test_exporter.sh and the VM exporter test.
# Needs $TOOLS (promtool, node_exporter from tools/fetch-tools.sh).
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# check_textfile FILE: promtool clean, buckets cumulative ending in +Inf, served by node_exporter
check_textfile() {
	f=$1
	if out=$("$TOOLS/promtool" check metrics <"$f" 2>&1); then ok "promtool check metrics $f"; else bad "promtool: $out"; fi
	# promtool does not check that buckets are cumulative and end in +Inf with _count's value
	if awk '
		/_bucket\{/ { split($0, a, ",le="); k = a[1]; v = $NF + 0
			if (k == pk && v < pv) { print "not cumulative: " $0; bad = 1 }
			pk = k; pv = v; if ($0 ~ /le="\+Inf"/) inf[k] = v; next }
		/_count\{/ { c = $0; sub(/ [^ ]*$/, "", c); sub(/_count\{/, "_bucket{", c); sub(/\}$/, "", c)
			if (!(c in inf)) { print "no +Inf bucket before " $0; bad = 1 }
			else if (inf[c] != $NF + 0) { print "+Inf != _count: " $0; bad = 1 } }
		END { exit bad }' "$f"; then ok "histograms cumulative, +Inf = _count"; else bad "histograms"; fi
	dir=$(mktemp -d)
	cp "$f" "$dir/slotscope.prom"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$TOOLS/node_exporter" --web.listen-address=127.0.0.1:$port --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$dir" >"$dir/ne.log" 2>&1 &
	ne=$!
	page=
	for _ in $(seq 50); do
		page=$(python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=2).read().decode())" 2>/dev/null) && break
		sleep 0.2
	done
	kill $ne 2>/dev/null
	wait $ne 2>/dev/null
	if echo "$page" | grep -q '^node_textfile_scrape_error 0'; then ok "node_exporter: node_textfile_scrape_error 0"; else bad "node_exporter scrape error: $(echo "$page" | grep textfile_scrape_error) $(tail -3 "$dir/ne.log")"; fi
	n=$(echo "$page" | grep -c '^slotscope_slot_limit{')
	if [ "$n" -ge 1 ]; then ok "node_exporter serves slotscope_slot_limit ($n series)"; else bad "node_exporter does not serve slotscope metrics"; fi
	rm -rf "$dir"
}

# check_grafana FILE: every slotscope metric the dashboard queries is in FILE (a recording rule's
# level:slotscope_...:ops is the rules' own, checked by tests/host/test_dashboard.sh)
check_grafana() {
	missing=
	for m in $(grep -oE '(^|[^:a-z_])slotscope_[a-z_]*' "$top/tools/grafana/slotscope.json" | sed 's/^[^s]//' | sort -u); do
		base=$m
		case $m in *_bucket|*_sum|*_count) base=${m%_*} ;; esac
		grep -q "^# TYPE $base " "$1" || missing="$missing $m"
	done
	if [ -z "$missing" ]; then ok "every metric of the dashboard is in $1"; else bad "dashboard metrics missing from $1:$missing"; fi
}
