#!/bin/bash
# The container image (make image: tools/container/build-oci) as a runtime takes it: its OCI
# layout unpacked by umoci (digests checked) for each architecture, the same inputs giving the
# same digests, the amd64 image run by runc (Debian's) as its own user and with the DaemonSet's
# identity and arguments: --version, the no-sunrpc refusal (exit 77, one line) and /healthz while
# it waits for NFS in the host's network namespace; the arm64 image's binary run under
# qemu-aarch64 against the image's own libraries. Its default command is the DaemonSet's.
#% timeout: 300
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP not root: runc and umoci unpack need it"; exit 77; }
[ ! -d /sys/module/sunrpc ] || { echo "SKIP sunrpc is loaded here: the refusal cannot be shown"; exit 77; }
for t in umoci runc jq curl; do command -v $t >/dev/null || { bad "$t missing: make deps-test"; exit 1; }; done
version=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
oci=$O/oci
[ -f "$oci/index.json" ] || { bad "no image: make image"; exit 1; }
work=$(mktemp -d)
trap 'runc kill ss-hz KILL 2>/dev/null; runc delete -f ss-hz 2>/dev/null; rm -rf "$work"' EXIT

# the layout: the multi-arch index and one tag per architecture, each unpacked with its digests checked
ref() { jq -r --arg t "$1" '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"] == $t) | .digest' "$oci/index.json"; }
[ -n "$(ref "$version")" ] && ok "tag $version: the index of $(jq -r --arg d "$(ref "$version")" '$d' "$oci/index.json" | cut -c1-19)" || bad "no tag $version"
for a in amd64 arm64; do
	if out=$(umoci unpack --image "$oci:$version-$a" "$work/$a" 2>&1); then ok "umoci unpack $version-$a"; else bad "umoci unpack $version-$a: $out"; fi
done
cfg() { jq -r "$2" "$work/$1/config.json"; }
[ "$(cfg amd64 '.process.user.uid')" = 10868 ] && grep -q '^slotscope:x:10868:10868:' "$work/amd64/rootfs/etc/passwd" &&
	ok "the image's user: its own, slotscope (10868), not the node's shared nobody" || bad "image user: $(cfg amd64 .process.user)"
ds=$(sed -n 's/^ *args: *\(\[.*\]\)$/\1/p' "$top/tools/container/daemonset.yaml" | sed 's/\$(NODE_IP)//' | jq -c .)
[ "$(cfg amd64 '.process.args[1:]' | jq -c .)" = "$ds" ] && ok "its default command is the DaemonSet's: $ds" ||
	bad "image command $(cfg amd64 '.process.args' | jq -c .) vs DaemonSet $ds"
for a in amd64 arm64; do
	f=$(file -b "$work/$a/rootfs/usr/sbin/slotscope")
	case $a:$f in amd64:*x86-64* | arm64:*aarch64*) ok "$a: $(echo "$f" | cut -d, -f1-2)" ;; *) bad "$a binary: $f" ;; esac
	[ -e "$work/$a/rootfs/usr/lib/$( [ $a = amd64 ] && echo x86_64 || echo aarch64)-linux-gnu/libibverbs.so.1" ] &&
		ok "$a: libibverbs1 in the image (the RDMA ports' rates)" || bad "$a: no libibverbs.so.1"
done
# reproducible: built again from the same inputs, the same digests
	"$top/tools/container/build-oci" "$work/again" "$version" amd64="$O/slotscope" arm64="$O/arm64/slotscope" >/dev/null 2>"$work/again.err"
[ "$(jq -c . "$work/again/index.json")" = "$(jq -c . "$oci/index.json")" ] && ok "rebuilt from the same inputs: the same digests" ||
	bad "rebuilt: the digests differ ($(cat "$work/again.err"))"

# runc, as the image's user: --version
bundle=$work/amd64
spec() { jq "$1" "$bundle/config.json" >"$work/c.json" && cp "$work/c.json" "$bundle/config.json"; }
# no cgroup namespace or mount (this host's cgroups are hybrid), no terminal
spec 'del(.linux.resources) | .mounts |= map(select(.type != "cgroup")) | .linux.namespaces |= map(select(.type != "cgroup")) | .process.terminal = false'
cp "$bundle/config.json" "$work/base.json"
spec '.process.args = ["/usr/sbin/slotscope", "--version"]'
out=$(cd "$bundle" && runc run ss-v 2>&1 | head -n 1)
[ "$out" = "slotscope $version" ] && ok "runc, as nobody: $out" || bad "runc --version: $out"
# the DaemonSet's identity (uid 0, its four capabilities, no_new_privs) and a command: no NFS client
caps='["CAP_BPF","CAP_PERFMON","CAP_SETUID","CAP_SETGID"]'
cp "$work/base.json" "$bundle/config.json"
spec ".process.user = {uid: 0, gid: 0} | .process.noNewPrivileges = true | .process.capabilities = {bounding: $caps, effective: $caps, permitted: $caps} | .process.args += [\"--\", \"true\"]"
out=$(cd "$bundle" && runc run ss-77 2>&1)
rc=$?
[ $rc = 77 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && ok "runc, no sunrpc: exit 77, one line: $out" || bad "runc no sunrpc: exit $rc: $out"
# the DaemonSet's arguments, in the host's network namespace: /healthz while it waits for NFS
cp "$work/base.json" "$bundle/config.json"
port=$(free_ports 1)
spec ".process.user = {uid: 0, gid: 0} | .process.noNewPrivileges = true | .process.capabilities = {bounding: $caps, effective: $caps, permitted: $caps} | .linux.namespaces |= map(select(.type != \"network\")) | .process.args = [\"/usr/sbin/slotscope\", \"-q\", \"1\", \"--listen\", \"127.0.0.1:$port\", \"--procfs-root\", \"/\", \"--sysfs-root\", \"/\"]"
(cd "$bundle" && runc run -d ss-hz >/dev/null 2>"$work/hz.err")
for _ in $(seq 50); do curl -s -o "$work/hz" "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
[ "$(cat "$work/hz" 2>/dev/null)" = "ok: waiting for NFS" ] && ok "runc, the DaemonSet's way: /healthz says: $(cat "$work/hz")" ||
	bad "runc /healthz: '$(cat "$work/hz" 2>/dev/null)' $(cat "$work/hz.err")"
curl -s "http://127.0.0.1:$port/metrics" | grep -qx 'slotscope_tracing 0' && ok "runc: /metrics says slotscope_tracing 0" || bad "runc: /metrics"
# what answers the port: the image's own user, no capability (not the node's shared nobody)
srv=
for p in $(runc ps ss-hz 2>/dev/null | awk 'NR > 1 { print $2 }'); do
	[ "$(awk '/^Uid:/ { print $2 }' /proc/$p/status 2>/dev/null)" = 10868 ] && srv=$p
done
[ -n "$srv" ] && [ "$(awk '/^CapEff:/ { print $2 }' /proc/$srv/status)" = 0000000000000000 ] &&
	ok "runc: /metrics answered by uid 10868 (slotscope), no capability" ||
	bad "runc: no process of uid 10868 without capabilities: $(runc ps ss-hz 2>&1 | tr '\n' ';')"
runc kill ss-hz TERM 2>/dev/null
for _ in $(seq 50); do [ "$(runc state ss-hz 2>/dev/null | jq -r .status)" = stopped ] && break; sleep 0.1; done
[ "$(runc state ss-hz 2>/dev/null | jq -r .status)" = stopped ] && ok "runc: SIGTERM stops it" || bad "runc: still $(runc state ss-hz | jq -r .status)"

# the arm64 image's binary, on its own libraries
if command -v qemu-aarch64-static >/dev/null; then
	r=$work/arm64/rootfs
	out=$(qemu-aarch64-static -L "$r" "$r/usr/sbin/slotscope" --version 2>&1)
	# its identity's arch is the image's
	grep -q '^  arch: *arm64$' <<<"$out" && out=$(head -n 1 <<<"$out")
	[ "$out" = "slotscope $version" ] && ok "arm64 image: $out (qemu-aarch64, the image's glibc)" || bad "arm64 image: $out"
fi
exit $fails
