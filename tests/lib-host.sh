# Sourced by the host tests after setting $top: the build directory $O (absolute), and the
# ok/bad reporting whose failures count in $fails, the script's exit status.
O=${O:-$top/build}
case $O in /*) ;; *) O=$top/$O ;; esac
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# free_ports N: N free ports on loopback, all bound at once so that none repeats (one python
# start: they cost ~0.4 s each)
free_ports() {
	python3 - "$1" <<'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}
# listen_port FILE [TENTHS]: the port a "slotscope -v --listen HOST:0" said it bound ("serving
# /metrics and /healthz on ... (port N)") in its stderr FILE, waited for up to TENTHS tenths of a
# second (default 50); nothing when it did not say
listen_port() {
	local p= i
	for ((i = 0; i < ${2:-50}; i++)); do
		p=$(sed -n 's/.*serving \/metrics and \/healthz on .* (port \([0-9]*\)).*/\1/p' "$1" 2>/dev/null)
		[ -n "$p" ] && break
		sleep 0.1
	done
	echo "$p"
}
