# The exporter on a real checkpoint write: the Prometheus textfile is rewritten every interval and
# a reader looping meanwhile never sees a partial file; the folded stacks and the SVG are written
# at exit. test_exporter.host checks the files with promtool, node_exporter and xmllint.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_tcp /mnt/t 3 16 || exit 1
mount_rdma /mnt/r 3 || exit 1
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
slotscope -q 0.3 --prom-file /out/metrics.prom --folded /out/stacks.folded --svg /out/flame.svg \
	-- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 32 2 & writers /mnt/r 32 2; wait"
check_eq "slotscope exit status" $? 0
touch /tmp/stop
wait
read -r reads partial </tmp/reader
check_gt "reads of the textfile while it was rewritten" "$reads" 10
check_eq "partial files seen" "$partial" 0
check_eq "no temporary file left" "$(ls -a /out | grep -c '\.tmp$')" 0
check_eq "textfile mode" "$(stat -c %a /out/metrics.prom)" 644
check_gt "folded stacks" "$(grep -cE '^[^ ;]+;[^ ;]+;[^ ;]+;(slot-wait|queue|rtt|other);[^ ;]+ [0-9]+$' /out/stacks.folded)" 5
check_eq "malformed folded lines" "$(grep -cvE '^[^ ;]+;[^ ;]+;[^ ;]+;[^ ;]+;[^ ;]+ [0-9]+$' /out/stacks.folded)" 0
check_gt "SVG rectangles" "$(grep -c '<rect' /out/flame.svg)" 10
# a textfile directory that does not exist: a usage error before anything is loaded
slotscope -q 0.3 --prom-file /tmp/nodir/x.prom -d 1 2>/tmp/e1
check_eq "missing textfile directory: usage error" $? 64
exit $CHECK_FAILED
