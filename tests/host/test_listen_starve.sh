#!/bin/bash
# --listen cannot be starved (#61): the real binary (this host has no sunrpc: it waits for NFS
# and serves that state) against 64 clients that each send a whole request and then stay silent
# (eight hosts of eight, 127.0.2.1-8) and a flood of connections that send nothing (127.0.3.1,
# as fast as it can connect), while a scraper and a health probe on 127.0.0.1 each ask every
# 200 ms for 8 s: every answer comes within 1 s (0.2 slotscope, 16 places held until each
# answer's drain ended: 34 of 40 probes refused at 20 silent clients a second). Each probe is a
# fresh connection, as Prometheus's and the kubelet's are.
#% timeout: 120
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
[ ! -d /sys/module/sunrpc ] || { echo "SKIP sunrpc is loaded here: the host cannot show a node without it"; exit 77; }
ss=$O/slotscope
work=$(mktemp -d)
trap 'kill $ssp 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
"$ss" -v 0.5 --listen 127.0.0.1:0 >/dev/null 2>"$work/ss.err" &
ssp=$!
port=$(listen_port "$work/ss.err")
[ -n "$port" ] || { bad "no port said: $(cat "$work/ss.err")"; exit $fails; }
/usr/bin/python3 - "$port" >"$work/out" 2>&1 <<'PY'
import socket, struct, sys, threading, time
port = int(sys.argv[1])
stop = time.monotonic() + 8
flooding, flood, errs = [], [0], {}
def silent(host):
    # ask, then hold the connection open and read nothing, again as soon as it is closed
    while time.monotonic() < stop:
        s = None
        try:
            s = socket.socket()
            s.bind((host, 0))
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            s.settimeout(max(0.05, stop - time.monotonic()))
            while s.recv(4096):
                pass
        except OSError:
            time.sleep(0.01)
        finally:
            # the server closed it (another took its place): ours closed too, not kept open
            if s:
                s.close()
def flooder():
    while time.monotonic() < stop:
        try:
            s = socket.socket()
            # closed with a reset: no TIME_WAIT, so the flood never runs out of ports
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.bind(("127.0.3.1", 0))
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            flooding.append(s)
            flood[0] += 1
            # well under the fd limit (1024 by default): the probes' sockets are this process's too
            if len(flooding) > 400:
                for x in flooding[:200]:
                    x.close()
                del flooding[:200]
        except OSError:
            time.sleep(0.001)
def probe(path, lat):
    while time.monotonic() < stop:
        t0 = time.monotonic()
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            s.settimeout(1)
            s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            data = b""
            while not data.endswith(b"\n") or b"\r\n\r\n" not in data:
                d = s.recv(65536)
                if not d:
                    break
                data += d
            s.close()
            ok = data.startswith(b"HTTP/1.1 200 ") or data.startswith(b"HTTP/1.1 503 ")
            lat.append(time.monotonic() - t0 if ok else None)
        except OSError as e:
            errs[type(e).__name__ + " " + str(e.errno)] = errs.get(type(e).__name__ + " " + str(e.errno), 0) + 1
            lat.append(None)
        time.sleep(max(0, 0.2 - (time.monotonic() - t0)))
threads = [threading.Thread(target=silent, args=("127.0.2.%d" % (1 + i // 8),)) for i in range(64)]
threads.append(threading.Thread(target=flooder))
m, h = [], []
threads += [threading.Thread(target=probe, args=(b"/metrics", m)), threading.Thread(target=probe, args=(b"/healthz", h))]
for t in threads:
    t.start()
for t in threads:
    t.join()
for name, lat in (("metrics", m), ("healthz", h)):
    got = [x for x in lat if x is not None]
    print(name, len(lat), len(lat) - len(got), "%.3f" % max(got or [99]))
print("flood", flood[0])
print("errors", errs)
PY
cat "$work/out" | sed 's/^/    | /'
read -r _ n miss worst < <(grep '^metrics ' "$work/out")
[ "${n:-0}" -ge 30 ] && [ "$miss" = 0 ] && awk -v w="$worst" 'BEGIN { exit !(w < 1) }' &&
	ok "a scrape every 200 ms: $n answered, the slowest in $worst s" || bad "scrapes: $n asked, $miss unanswered within 1 s, the slowest $worst s"
read -r _ n miss worst < <(grep '^healthz ' "$work/out")
[ "${n:-0}" -ge 30 ] && [ "$miss" = 0 ] && awk -v w="$worst" 'BEGIN { exit !(w < 1) }' &&
	ok "/healthz every 200 ms: $n answered, the slowest in $worst s" || bad "/healthz: $n asked, $miss unanswered within 1 s, the slowest $worst s"
read -r _ nf < <(grep '^flood ' "$work/out")
[ "${nf:-0}" -ge 500 ] && ok "beside a flood of $nf connections and 64 silent clients" || bad "the flood made only $nf connections: not a test"
kill -0 $ssp 2>/dev/null && ok "slotscope still running" || bad "slotscope died: $(tail -n 3 "$work/ss.err")"
exit $fails
