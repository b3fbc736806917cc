# The exporter on a real checkpoint write: the Prometheus textfile is rewritten every interval and
# a reader looping meanwhile never sees a partial file; the folded stacks and the SVG are written
# at exit. test_exporter.host checks the files with promtool, node_exporter and xmllint. The
# early exporter also serves them (--listen): a real Prometheus (on the host) scrapes it and
# evaluates the project's rules on what it reads, and /metrics is the textfile of the same tick.
#% needs: prometheus
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
# an exporter started before any NFS mount (a node that mounts per job): it waits, then reports
# the mounts that come; at a clean stop its textfile goes
mkdir -p /tmp/early
# on every address: the host's Prometheus (tools/vm/run) scrapes it through the forward to eth0
slotscope -q 0.3 --prom-file /tmp/early/e.prom --listen :9868 --prom-per-transport 2>/tmp/early.err &
early=$!
[ -n "${PROM_URL:-}" ] || { echo "FAIL no PROM_URL: run by tools/vm/run (#% needs: prometheus)"; exit 1; }
sleep 1
mount_tcp /mnt/t 3 16 || exit 1
mount_rdma /mnt/r 3 || exit 1
# it attaches once the mounts come: a BPF load under TCG, seconds, longer beside another VM (a
# clean run saw it start tracing 0.8 s before the end of a write it was to count). The write
# starts once it is tracing.
i=0
until grep -q '^slotscope_tracing 1$' /tmp/early/e.prom 2>/dev/null || [ $i -ge 600 ]; do sleep 0.2; i=$((i + 1)); done
( n=0 partial=0
  while [ ! -f /tmp/stop ]; do
	if [ -f /out/metrics.prom ]; then
		cp /out/metrics.prom /tmp/read.prom
		# complete: starts with HELP, ends with the timestamp written last
		head -n 1 /tmp/read.prom | grep -q '^# HELP' && tail -n 1 /tmp/read.prom |
			grep -q '^slotscope_last_update_timestamp_seconds ' || partial=$((partial + 1))
		n=$((n + 1))
	fi
  done
  echo "$n $partial" >/tmp/reader ) &
reader=$!
slotscope -q 0.3 --prom-file /out/metrics.prom --prom-detail --prom-keep --folded /out/stacks.folded --svg /out/flame.svg \
	-- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 32 2 & writers /mnt/r 32 2; wait"
check_eq "slotscope exit status" $? 0
touch /tmp/stop
wait $reader
read -r reads partial </tmp/reader
check_gt "reads of the textfile while it was rewritten" "$reads" 10
check_eq "partial files seen" "$partial" 0
check_eq "no temporary file left" "$(ls -a /out | grep -c '\.tmp$')" 0
check_eq "textfile mode" "$(stat -c %a /out/metrics.prom)" 644
check_gt "folded stacks" "$(grep -cE '^[^ ;]+;[^ ;]+;[^ ;]+;(slot-wait|queue|rtt|other);[^ ;]+ [0-9]+$' /out/stacks.folded)" 5
check_eq "malformed folded lines" "$(grep -cvE '^[^ ;]+;[^ ;]+;[^ ;]+;[^ ;]+;[^ ;]+ [0-9]+$' /out/stacks.folded)" 0
check_gt "SVG rectangles" "$(grep -c '<rect' /out/flame.svg)" 10
check_eq "early exporter still running" "$(kill -0 $early 2>/dev/null && echo yes)" yes
cp /tmp/early/e.prom /tmp/e.prom 2>/dev/null
check_eq "early exporter: tracing" "$(grep -c '^slotscope_tracing 1$' /tmp/e.prom)" 1
check_gt "early exporter: the TCP mount's WRITEs, mounted after it started" \
	"$(awk '/^slotscope_op_seconds_count\{mountpoint="\/mnt\/t",op="WRITE"/ { print $2 }' /tmp/e.prom)" 0
check_eq "early exporter: RDMA transport named with its port" \
	"$(grep -c '^slotscope_transport_info{.*proto="rdma".*rdma_device="rxe0",port="1"' /tmp/e.prom)" 1

# what Prometheus read of the early exporter, and the rules it evaluated on it
pq() { busybox wget -qO- "$PROM_URL/api/v1/query?query=$1" | jq -r "$2"; }
i=0
until [ "$(pq 'slotscope_tracing' '.data.result[0].value[1]' 2>/dev/null)" = 1 ] || [ $i -ge 60 ]; do sleep 1; i=$((i + 1)); done
sleep 3
check_eq "Prometheus: the target up" "$(pq 'up%7Bjob%3D%22slotscope%22%7D' '.data.result[0].value[1]')" 1
check_eq "Prometheus: slotscope_tracing" "$(pq slotscope_tracing '.data.result[0].value[1]')" 1
# the write is over: the count stands still, in the textfile and in what Prometheus last scraped
check_eq "Prometheus: the TCP mount's WRITEs scraped = the textfile's" \
	"$(pq 'slotscope_op_seconds_count%7Bmountpoint%3D%22%2Fmnt%2Ft%22%2Cop%3D%22WRITE%22%7D' '.data.result[0].value[1] // 0')" \
	"$(awk '/^slotscope_op_seconds_count\{mountpoint="\/mnt\/t",op="WRITE"/ { print $2 }' /tmp/early/e.prom)"
# a rate needs two scrapes inside its window, and the rule's next evaluation after them: waited
# for (a run here: no series 3 s after the first scrape read tracing)
i=0
until [ "$(pq 'slotscope%3Aslot_full_ratio%3Arate5m' '.data.result | length' 2>/dev/null)" -gt 0 ] 2>/dev/null || [ $i -ge 30 ]; do
	sleep 1
	i=$((i + 1))
done
check_gt "Prometheus: a recording rule over the scrapes (slotscope:slot_full_ratio:rate5m series)" \
	"$(pq 'slotscope%3Aslot_full_ratio%3Arate5m' '.data.result | length')" 0
check_eq "Prometheus: every rule evaluated without error" \
	"$(busybox wget -qO- $PROM_URL/api/v1/rules | jq '[.data.groups[].rules[] | select(.health != "ok")] | length')" 0
# /metrics is the textfile of the same tick: a scrape between two equal reads of the file
same=0
for _ in 1 2 3 4 5; do
	cat /tmp/early/e.prom >/tmp/f1 && busybox wget -qO /tmp/scrape.prom http://127.0.0.1:9868/metrics &&
		cat /tmp/early/e.prom >/tmp/f2 || continue
	busybox cmp -s /tmp/f1 /tmp/f2 || continue
	busybox cmp -s /tmp/f1 /tmp/scrape.prom && same=1
	break
done
check_eq "/metrics = the textfile of the same tick" $same 1
cp /tmp/scrape.prom /out/scrape.prom
check_eq "/healthz" "$(busybox wget -qO- http://127.0.0.1:9868/healthz)" "ok: tracing"
kill -INT $early
wait $early
check_eq "early exporter: exit status at a clean stop" $? 0
check_eq "early exporter: textfile removed at a clean stop" "$(ls /tmp/early | wc -l)" 0
# a textfile directory that does not exist: a usage error before anything is loaded
slotscope -q 0.3 --prom-file /tmp/nodir/x.prom -d 1 2>/tmp/e1
check_eq "missing textfile directory: usage error" $? 64
exit $CHECK_FAILED
