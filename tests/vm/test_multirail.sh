# A multi-rail client: a second link (rail1, a macvlan on the wire with its own address and MAC)
# and a policy rule that sends traffic for one server address (.3) over rail1, which the main
# table does not prefer (it routes the whole subnet by eth1). Each transport must be mapped to the
# link its traffic crosses, as the kernel decided it: NFS/TCP to .3 by the route the kernel
# resolves for the socket's addresses (rail1), to .1 by eth1. The rails' own byte counters say
# which link carried each write. (An RDMA transport's link comes from its own rdma_cm connection:
# test_links and test_rdma_slot_bound check that against iproute2. NFS/RDMA over a soft-RoCE
# device on a macvlan never connects under TCG, so it is not part of this test.)
#% server: tests/vm/server_rdma.sh
wire_up 192.168.100.2 || exit 1
modprobe macvlan || { fail "modprobe macvlan"; exit 1; }
# each rail answers ARP for its own address only, so the server's replies to .4 reach rail1
sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
ip link add link eth1 name rail1 type macvlan mode bridge &&
	ip link set rail1 up &&
	ip addr add 192.168.100.4/24 dev rail1 noprefixroute &&
	ip route add 192.168.100.3 dev rail1 src 192.168.100.4 table 100 &&
	ip rule add to 192.168.100.3 lookup 100 pref 100 || { fail "rail1 and its rule"; exit 1; }
echo "note main table: $(ip route show | tr '\n' ';')"
echo "note route to .3: $(ip route get 192.168.100.3 | head -n 1)"
check_eq "the kernel routes .3 by rail1" "$(ip -o route get 192.168.100.3 | sed -n 's/.* dev \([^ ]*\).*/\1/p')" rail1
check_eq "the main table alone says eth1" "$(ip route show table main 192.168.100.0/24 | sed -n 's/.* dev \([^ ]*\).*/\1/p')" eth1

mount_tcp_at 192.168.100.3 /mnt/t3 3 "" >/dev/null || exit 1
mount_tcp_at 192.168.100.1 /mnt/t1 3 >/dev/null || exit 1

r0=$(cat /sys/class/net/rail1/statistics/tx_bytes) e0=$(cat /sys/class/net/eth1/statistics/tx_bytes)
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t3 2 8; writers /mnt/t1 2 8" \
	>/tmp/m.json 2>/tmp/m.err || { cat /tmp/m.err; exit 1; }
r1=$(cat /sys/class/net/rail1/statistics/tx_bytes) e1=$(cat /sys/class/net/eth1/statistics/tx_bytes)
xp() { tail -n 1 /tmp/m.json | jq -c --arg s "$1" --arg p "$2" '.transports[] | select(.server == $s and .proto == $p)'; }
t3=$(xp 192.168.100.3 tcp) t1=$(xp 192.168.100.1 tcp)
echo "note links: tcp .3 $(echo "$t3" | jq -c .link) tcp .1 $(echo "$t1" | jq -c .link)"
echo "note rail1 tx $((r1 - r0)) B, eth1 tx $((e1 - e0)) B"
check_eq "TCP to .3: rail1, by the kernel's route" "$(echo "$t3" | jq -r '[.link.netdev, .link.from] | join(" ")')" "rail1 route"
check_eq "TCP to .1: eth1" "$(echo "$t1" | jq -r '[.link.netdev, .link.from] | join(" ")')" "eth1 route"
# 16 MiB over each rail at least; rail1's counters are its own (the macvlan's), not eth1's
check_ge "rail1 carried the writes to .3 (MiB)" $(((r1 - r0) / 1048576)) 16
check_ge "eth1 carried the writes to .1 (MiB)" $(((e1 - e0) / 1048576)) 16
# each transport's link figures are its own rail's: rail1's bytes, not eth1's
check_gt "the .3 transport's link carried bytes" "$(echo "$t3" | jq '.link.tx_gbps * 1e6 | floor')" 0
check_eq "...and they are rail1's (the netdev table)" \
	"$(tail -n 1 /tmp/m.json | jq --argjson g "$(echo "$t3" | jq .link.tx_gbps)" '[.links.netdevs[] | select(.name == "rail1" and .tx_gbps == $g)] | length')" 1
exit $CHECK_FAILED
