# Two mounts (two superblocks: nosharecache) of one server share one transport: it appears once,
# with both mounts, and each mount's op counts equal its own mountstats.
nfsd_start >/dev/null || exit 1
mkdir -p /export/a /export/b
mount_tcp /mnt/a 3 "" nosharecache || exit 1
srv=$LAST_SERVER
mkdir -p /mnt/b
mount.nfs $srv:/export /mnt/b -o vers=3,proto=tcp,nolock,nosharecache || exit 1
wa0=$(mountstats_op /mnt/a WRITE ops) wb0=$(mountstats_op /mnt/b WRITE ops)
ca0=$(mountstats_op /mnt/a COMMIT ops) cb0=$(mountstats_op /mnt/b COMMIT ops)
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/a/a 4 4 & writers /mnt/b/b 6 2; wait" >/tmp/s.json || exit 1
wa1=$(mountstats_op /mnt/a WRITE ops) wb1=$(mountstats_op /mnt/b WRITE ops)
ca1=$(mountstats_op /mnt/a COMMIT ops) cb1=$(mountstats_op /mnt/b COMMIT ops)
n=$(tail -n 1 /tmp/s.json | jq --arg s $srv '[.transports[] | select(.server == $s and .port == "2049")] | length')
x=$(ss_xprt /tmp/s.json $srv)
echo "note mounts: $(echo "$x" | jq -c .mounts)"
check_eq "transports to the server" "$n" 1
check_eq "mounts on the transport" "$(echo "$x" | jq '[.mounts[] | select(.mountpoint != null)] | length')" 2
check_eq "/mnt/a WRITE ops = its mountstats" "$(ss_op /tmp/s.json /mnt/a WRITE .count)" $((wa1 - wa0))
check_eq "/mnt/b WRITE ops = its mountstats" "$(ss_op /tmp/s.json /mnt/b WRITE .count)" $((wb1 - wb0))
check_eq "/mnt/a COMMIT ops = its mountstats" "$(ss_op /tmp/s.json /mnt/a COMMIT .count)" $((ca1 - ca0))
check_eq "/mnt/b COMMIT ops = its mountstats" "$(ss_op /tmp/s.json /mnt/b COMMIT .count)" $((cb1 - cb0))
check_gt "writes on /mnt/b" $((wb1 - wb0)) 0
# --prom-rollup: the shared transport counts under one mount, the first in path order, and its
# row's counter, summed over the run's half-second intervals (the writes in the first ones, none in
# the last), is the transport's own count
slotscope --json --prom-file /tmp/r.prom --prom-rollup --prom-keep 0.5 -- \
	sh -c ". /src/tools/vm/lib.sh; writers /mnt/a/a 2 2; sleep 1; writers /mnt/b/b 2 2; sleep 1" >/tmp/r.json || exit 1
acq=$(ss_xprt /tmp/r.json $srv | jq .acquires)
row() { awk -v k="slotscope_slot_acquires_total{mountpoint=\"$1\",server=\"$srv\"}" '$1 == k { print $2 }' /tmp/r.prom; }
echo "note rollup rows: $(grep -c '^slotscope_slot_acquires_total' /tmp/r.prom), /mnt/a $(row /mnt/a), transport $acq"
check_gt "transport acquires (rollup run)" "$acq" 0
check_eq "--prom-rollup: /mnt/a's row = the shared transport's acquires" "$(row /mnt/a)" "$acq"
check_eq "--prom-rollup: no row for /mnt/b (its transport counts under /mnt/a)" "$(row /mnt/b)" ""
# --prom-max-series below the node's own: both mounts left out whole (their ops, totals and the
# transport), said once, and the node's series kept
slotscope --prom-file /tmp/c.prom --prom-keep --prom-max-series 1 0.5 -- \
	sh -c ". /src/tools/vm/lib.sh; writers /mnt/a/a 1 1; writers /mnt/b/b 1 1; sleep 1" >/dev/null 2>/tmp/c.err
check_eq "--prom-max-series 1: exit status" $? 0
check_ge "--prom-max-series 1: mounts left out" \
	"$(awk '$1 == "slotscope_exposition_mounts_left_out" { print $2 }' /tmp/c.prom)" 2
check_eq "--prom-max-series 1: no series of a mount or transport" \
	"$(grep -v '^#' /tmp/c.prom | grep -cE 'mountpoint=|xprt=')" 0
check_eq "--prom-max-series 1: the node's own kept" "$(grep -c '^slotscope_tracing 1$' /tmp/c.prom)" 1
check_eq "--prom-max-series 1: said once" "$(grep -c 'over --prom-max-series 1:' /tmp/c.err)" 1
exit $CHECK_FAILED
