# bench/ab.sh ROUNDS BIN... (in the VM: `make bench-ab`): an A/B of slotscope builds on the path
# every RPC takes, in one boot. Per round, for each BIN in turn (paths under /src, e.g.
# /src/build/ab/A): one writer, O_DIRECT 64 KiB, 1,024 writes over NFSv3/TCP and NFSv3/RDMA, one
# RPC in flight; each program's runs and run_time_ns over the write. One line per program:
#   AB kernel mnt bin round program runs ns rpcs
# Rounds interleave the builds, so a slower stretch of the host weighs on each alike; the report
# (bench/ab.awk) takes each program's median ns per run over the rounds.
ROUNDS=${1:-3}
shift
K=$(uname -r)
. /src/bench/common.sh
echo "AB-CLOCK $K $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
r=1
while [ $r -le $ROUNDS ]; do
	for m in /mnt/tcp /mnt/rdma; do
		for b; do
			rm -f /tmp/ab.json
			"$b" --json -d 3600 >/tmp/ab.json 2>/dev/null &
			p=$!
			i=0
			until [ -s /tmp/ab.json ] || [ $i -ge 600 ]; do sleep 0.2; i=$((i + 1)); done
			[ -s /tmp/ab.json ] || { echo "AB-FAIL $b printed no audit"; exit 1; }
			sleep 1
			progstat >/tmp/p.0
			r0=$(rpcs $m)
			dd if=/dev/zero of=$m/ckpt.ab bs=64k count=1024 oflag=direct 2>/dev/null
			r1=$(rpcs $m)
			progstat >/tmp/p.1
			kill -INT $p
			wait $p
			rm -f $m/ckpt.ab
			sync
			awk -v k=$K -v m=$m -v b=$(basename $b) -v r=$r -v n=$((r1 - r0)) \
				'FNR == NR { t[$1] = $2; c[$1] = $3; next } { d = $3 - c[$1]; if (d > 0) print "AB", k, m, b, r, $1, d, $2 - t[$1], n }' \
				/tmp/p.0 /tmp/p.1
		done
	done
	r=$((r + 1))
done
umount /mnt/rdma /mnt/tcp
