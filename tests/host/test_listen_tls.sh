#!/bin/bash
# --listen with --web-config (exporter-toolkit's format) against independent clients: curl, and a
# real Prometheus scraping over TLS with basic auth and its own CA file. Basic auth: 401 without
# or with wrong credentials, 200 with them, /healthz open (a kubelet's probe); plain HTTP to the
# TLS port gets no answer; silent connections that never start TLS do not hold a scrape up.
# Client certificates (RequireAndVerifyClientCert): none or a stranger's refused, the CA's
# accepted; min_version TLS13 refuses a TLS 1.2 client. A bad file: one line, exit 64.
#% timeout: 240
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
[ ! -d /sys/module/sunrpc ] || { echo "SKIP sunrpc is loaded here: the host cannot show a node without it"; exit 77; }
TOOLS=$O/tools
[ -x "$TOOLS/prometheus" ] || "$top/tools/fetch-tools.sh" "$TOOLS" || exit 1
ss=$O/slotscope
w=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$w"' EXIT

# a CA, the server's certificate for 127.0.0.1 signed by it, a client's signed by it, a stranger's
cd "$w" || exit 1
ossl() { openssl "$@" 2>>"$w/openssl.log" || { bad "openssl $1 failed: $(tail -n 3 "$w/openssl.log")"; exit $fails; }; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca
for n in server client; do
	ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $n.key -out $n.csr -subj /CN=$n
done
printf 'subjectAltName=IP:127.0.0.1\n' >san.ext
ossl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext
ossl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout stranger.key -out stranger.pem -days 2 -subj /CN=x
hash=$(python3 -W ignore -c "import crypt; print(crypt.crypt('s3cret', crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))")
mkdir conf
# relative paths: against the file's directory, as exporter-toolkit reads them
cat >conf/web.yml <<YML
tls_server_config:
  cert_file: ../server.pem
  key_file: ../server.key
basic_auth_users:
  prom: $hash
YML

# start NAME ARGS...: slotscope on a port it picks, the port in $port
start() {
	local name=$1
	shift
	"$ss" -v 0.5 --listen 127.0.0.1:0 "$@" >/dev/null 2>"$w/$name.err" &
	pids+=($!)
	port=$(listen_port "$w/$name.err")
	[ -n "$port" ] || { bad "$name: no port said: $(cat "$w/$name.err")"; exit $fails; }
}
code() { curl -s -o "$w/body" -D "$w/hdr" -w '%{http_code}' --max-time 5 "$@"; }

start auth --web-config "$w/conf/web.yml"
grep -q 'as --web-config says' "$w/auth.err" && ok "serving, said: $(grep serving "$w/auth.err")" || bad "no word of --web-config: $(cat "$w/auth.err")"
url=https://127.0.0.1:$port
got=$(code --cacert ca.pem "$url/metrics")
[ "$got" = 401 ] && grep -qi '^WWW-Authenticate: Basic realm="slotscope"' "$w/hdr" && ok "no credentials: 401, WWW-Authenticate: Basic" ||
	bad "no credentials: $got $(cat "$w/hdr")"
got=$(code --cacert ca.pem -u prom:wrong "$url/metrics")
[ "$got" = 401 ] && ok "a wrong password: 401" || bad "a wrong password: $got"
got=$(code --cacert ca.pem -u prom:s3cret "$url/metrics")
[ "$got" = 200 ] && grep -qx 'slotscope_tracing 0' "$w/body" && ok "prom:s3cret over TLS: 200, the exposition" || bad "prom:s3cret: $got $(head -c 200 "$w/body")"
out=$("$TOOLS/promtool" check metrics <"$w/body" 2>&1) && ok "promtool check metrics on it" || bad "promtool: $out"
got=$(code --cacert ca.pem "$url/healthz")
[ "$got" = 200 ] && ok "/healthz without credentials: 200 ($(cat "$w/body"))" || bad "/healthz: $got"
got=$(code "http://127.0.0.1:$port/healthz")
[ "$got" = 000 ] && ok "plain HTTP to the TLS port: no answer" || bad "plain HTTP: $got"
got=$(code "$url/healthz")
[ "$got" = 000 ] && ok "a client that does not trust the certificate: refused" || bad "an untrusting client: $got"
# sixteen connections from four other addresses that never begin TLS, and a scrape beside them
cat >"$w/silent.py" <<'PY'
import socket, sys, time
socks = []
for i in range(16):
    s = socket.socket()
    s.bind(("127.0.0.%d" % (2 + i % 4), 0))
    s.connect(("127.0.0.1", int(sys.argv[1])))
    socks.append(s)
print("open", flush=True)
time.sleep(8)
PY
python3 "$w/silent.py" "$port" >"$w/silent.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q open "$w/silent.out" && break; sleep 0.1; done
t0=$(date +%s.%N)
got=$(code --cacert ca.pem -u prom:s3cret "$url/metrics")
t=$(echo "$(date +%s.%N) - $t0" | bc)
[ "$got" = 200 ] && [ "$(echo "$t < 1" | bc)" = 1 ] && ok "beside 16 silent connections: a scrape answered in ${t} s" ||
	bad "beside 16 silent connections: $got in ${t} s ($(cat "$w/silent.out"))"

# a real Prometheus: the CA and the credentials in its scrape config
pport=$(free_ports 1)
cat >"$w/prometheus.yml" <<YML
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: slotscope
    scheme: https
    tls_config: { ca_file: $w/ca.pem }
    basic_auth: { username: prom, password: s3cret }
    static_configs: [ { targets: [ "127.0.0.1:$port" ] } ]
  - job_name: nopassword
    scheme: https
    tls_config: { ca_file: $w/ca.pem }
    static_configs: [ { targets: [ "127.0.0.1:$port" ] } ]
YML
"$TOOLS/prometheus" --config.file="$w/prometheus.yml" --storage.tsdb.path="$w/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$w/prom.log" 2>&1 &
pids+=($!)
q() { curl -s --get "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" | jq -r "$2"; }
for _ in $(seq 60); do
	[ "$(q 'up{job="slotscope"}' '.data.result[0].value[1] // empty' 2>/dev/null)" = 1 ] &&
		[ -n "$(q 'up{job="nopassword"}' '.data.result[0].value[1] // empty' 2>/dev/null)" ] && break
	sleep 1
done
[ "$(q 'up{job="slotscope"}' '.data.result[0].value[1]')" = 1 ] && [ "$(q 'slotscope_tracing' '.data.result[0].value[1]')" = 0 ] &&
	ok "Prometheus scrapes it over TLS with basic auth: up 1, slotscope_tracing 0" || bad "Prometheus: $(q up '.data.result')"
[ "$(q 'up{job="nopassword"}' '.data.result[0].value[1]')" = 0 ] && ok "Prometheus without the password: up 0" ||
	bad "Prometheus without the password: $(q 'up{job="nopassword"}' '.data.result')"

# client certificates required, and TLS 1.3 alone
cat >conf/mtls.yml <<YML
tls_server_config:
  cert_file: $w/server.pem
  key_file: $w/server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: $w/ca.pem
  min_version: TLS13
YML
start mtls --web-config "$w/conf/mtls.yml"
url=https://127.0.0.1:$port
got=$(code --cacert ca.pem "$url/metrics")
[ "$got" = 000 ] && ok "mTLS: no client certificate, refused" || bad "mTLS without a certificate: $got"
got=$(code --cacert ca.pem --cert stranger.pem --key stranger.key "$url/metrics")
[ "$got" = 000 ] && ok "mTLS: a certificate of another CA, refused" || bad "mTLS with a stranger's certificate: $got"
got=$(code --cacert ca.pem --cert client.pem --key client.key "$url/metrics")
[ "$got" = 200 ] && ok "mTLS: the CA's client certificate, 200" || bad "mTLS with the client's certificate: $got"
got=$(code --cacert ca.pem --cert client.pem --key client.key --tls-max 1.2 "$url/metrics")
[ "$got" = 000 ] && ok "min_version TLS13: a TLS 1.2 client refused" || bad "a TLS 1.2 client: $got"

# bad files and uses: one line each, exit 64, before anything is loaded
bad_use() {
	local name=$1 words=$2 out rc
	shift 2
	out=$(timeout 20 "$ss" 1 "$@" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 64 ] && [ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] && [[ $out == *"$words"* ]] &&
		ok "$name: exit 64, $out" || bad "$name: exit $rc, said: $out"
}
printf 'tls_server_config:\n  cert_file: %s/server.pem\n  key_file: %s/nokey.pem\n' "$w" "$w" >conf/nokey.yml
printf 'tls_server_config:\n  cert_file: %s/server.pem\n  key_file: %s/client.key\n' "$w" "$w" >conf/otherkey.yml
printf 'tls_server_config:\n  cert_file: %s/server.pem\n  key_file: %s/server.key\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n' "$w" "$w" >conf/ciphers.yml
bad_use "a key file that is not there" "key_file $w/nokey.pem: No such file or directory" --listen 127.0.0.1:0 --web-config "$w/conf/nokey.yml"
bad_use "another certificate's key" "client.key: key values mismatch" --listen 127.0.0.1:0 --web-config "$w/conf/otherkey.yml"
bad_use "a setting slotscope cannot honour" "line 4: tls_server_config: cipher_suites is not honoured" \
	--listen 127.0.0.1:0 --web-config "$w/conf/ciphers.yml"
bad_use "no such web-config" "--web-config $w/none.yml: No such file" --listen 127.0.0.1:0 --web-config "$w/none.yml"
bad_use "--web-config without --listen" "give --listen ADDR:PORT too" --web-config "$w/conf/web.yml"
exit $fails
