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
exit $CHECK_FAILED
