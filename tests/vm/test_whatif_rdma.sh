# What a change would buy over NFS/RDMA (#30): rdma_slot_table_entries 16 -> 64 (and 16 -> 512,
# the far step, #62), predicted from
# the first write's checkpoint window and scored against the second write on a new transport, as
# tests/vm/test_whatif.sh does over TCP. Two VMs joined by a wire, one vCPU each (two of two would
# share this machine's two cores and set the pace themselves): soft-RoCE to a local address loops
# back inside rxe past every qdisc, so only on a wire can netem set the round trip. The server
# (server_rdma_far.sh) holds each call 1 s on its way in, so a WRITE's round trip has a floor
# that the load does not move; 64 slots then ask of the two emulated CPUs about 60 RPCs a second,
# well under the ~200 they can do here.
#% server: tests/vm/server_rdma_far.sh
#% smp: 1
#% timeout: 1200
#% lane: idle
. /src/tests/vm/whatif.inc
wire_up 192.168.100.2 || exit 1
ip link set eth1 mtu 9000 || exit 1
rxe_up eth1 || exit 1

# dirs DIR N: writer_dirs' directories made at once (one at a time, each is a round trip of 1 s)
dirs() {
	mkdir -p $1 || return 1
	i=0
	while [ $i -lt $2 ]; do mkdir $1/w$i & i=$((i + 1)); done
	wait
	[ -d $1/w$(($2 - 1)) ] || { fail "mkdir $1/w*"; return 1; }
}

# 96 writers of 64 KiB O_DIRECT writes (one WRITE each): 96 want a slot, more than either table
N=96 COUNT=12 BS=64k
W=$((N * COUNT))
# two server addresses: the second mount makes a new transport, which reads the sysctl anew
mount_rdma_at 192.168.100.1 /mnt/e 3 16 wsize=65536 >/dev/null || exit 1
dirs /mnt/e/e $N || exit 1
# the sysctl at 512 while the 16-slot transport writes: the far step is among the what-ifs
old=$(cat /proc/sys/sunrpc/rdma_slot_table_entries)
echo 512 >/proc/sys/sunrpc/rdma_slot_table_entries
m1=$(measured /tmp/e.json /mnt/e /mnt/e/e $N $COUNT $BS $W) || exit 1
echo "$old" >/proc/sys/sunrpc/rdma_slot_table_entries
mount_rdma_at 192.168.100.3 /mnt/f 3 64 wsize=65536 >/dev/null || exit 1
dirs /mnt/f/f $N || exit 1
m2=$(measured /tmp/f.json /mnt/f /mnt/f/f $N $COUNT $BS $W) || exit 1
note_pair "rdma 16 -> 64 slots (1 s)" "$m1" "$m2"
score "NFSv3/RDMA 16 -> 64 slots (1 s)" /tmp/e.json 192.168.100.1 rdma_slot_table_entries 64 "$m1" "$m2" /tmp/f.json 192.168.100.3
# the far step (#62): 16 -> 512, from the same 16-slot write. The first
# address's transport goes with its mount, so a new one reads the sysctl anew.
umount /mnt/e || { fail "umount /mnt/e"; exit 1; }
mount_rdma_at 192.168.100.1 /mnt/g 3 512 wsize=65536 >/dev/null || exit 1
dirs /mnt/g/g $N || exit 1
m3=$(measured /tmp/g.json /mnt/g /mnt/g/g $N $COUNT $BS $W) || exit 1
note_pair "rdma 16 -> 512 slots (1 s)" "$m1" "$m3"
score "NFSv3/RDMA 16 -> 512 slots (1 s, the far step)" /tmp/e.json 192.168.100.1 rdma_slot_table_entries 512 "$m1" "$m3" /tmp/g.json 192.168.100.1

cp /tmp/[efg].json /out/ 2>/dev/null
exit $CHECK_FAILED
