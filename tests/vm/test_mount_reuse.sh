# A mount's textfile counters across an unmount and a new mount on the same transport: the new
# mount's client may take the old one's client id (the kernel's IDA) and, after another file
# system took the old device number, a new one. /mnt/keep holds the server's transport open, so
# both mounts' ops land on it. written_bytes_total of each mount path must be that mount's own
# WRITE bytes (mountstats), the old one's must not change (its series leaves the file), and none may move to mountpoint="".
nfsd_start >/dev/null || exit 1
new_server_addr
srv=$LAST_SERVER
mount_tcp_at $srv /mnt/keep 3 "" nosharecache || exit 1
mount_tcp_at $srv /mnt/a 3 "" nosharecache || exit 1
mkdir -p /tmp/p
slotscope -q 0.5 --prom-file /tmp/p/s.prom 2>/tmp/s.err &
pid=$!
i=0
until [ -s /tmp/p/s.prom ] && grep -q '^slotscope_tracing 1' /tmp/p/s.prom || [ $i -ge 240 ]; do sleep 0.5; i=$((i + 1)); done
written() { awk -v m="$2" '/^slotscope_written_bytes_total\{/ { s = $0; sub(/^[^"]*"/, "", s); sub(/"\} [^ ]*$/, "", s); if (s == m) print $NF }' "$1"; }
dd if=/dev/zero of=/mnt/a/f bs=1M count=8 conv=fsync 2>/dev/null
sleep 2
cp /tmp/p/s.prom /tmp/p1.prom
a_bytes=$(mountstats_op /mnt/a WRITE bytes_sent)
a_dev=$(awk '$5 == "/mnt/a" { print $3 }' /proc/self/mountinfo)
umount /mnt/a
# another file system takes the device number the unmount freed
mkdir -p /mnt/t && mount -t tmpfs t /mnt/t
mount_tcp_at $srv /mnt/b 3 "" nosharecache || exit 1
b_dev=$(awk '$5 == "/mnt/b" { print $3 }' /proc/self/mountinfo)
echo "note devices: /mnt/a was $a_dev, /mnt/b is $b_dev; clients: $(ls /sys/kernel/sunrpc/rpc-clients 2>/dev/null | tr '\n' ' ')"
dd if=/dev/zero of=/mnt/b/f bs=1M count=4 conv=fsync 2>/dev/null
sleep 2
cp /tmp/p/s.prom /tmp/p2.prom
b_bytes=$(mountstats_op /mnt/b WRITE bytes_sent)
kill -INT $pid
wait $pid
check_eq "/mnt/a before its unmount = its mountstats" "$(written /tmp/p1.prom /mnt/a)" "$a_bytes"
# gone from the maps, its series leaves the file; were it still there, it would be unchanged
a2=$(written /tmp/p2.prom /mnt/a)
check_eq "/mnt/a after it: gone or unchanged" "${a2:-$a_bytes}" "$a_bytes"
check_eq "/mnt/b = its mountstats" "$(written /tmp/p2.prom /mnt/b)" "$b_bytes"
u=$(written /tmp/p2.prom '')
check_eq "no WRITE bytes moved to mountpoint=\"\"" "${u:-0}" 0
exit $CHECK_FAILED
