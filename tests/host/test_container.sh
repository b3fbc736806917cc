#!/bin/bash
# The Kubernetes manifests (tools/container) pass options that exist and parse, and hold what a
# cluster needs: the DaemonSet's argument list, run through slotscope's own parser (with --version
# last, after every one is checked), exits 0 (a misspelt option would exit 64); its namespace is
# Pod Security "privileged" (what hostPID, hostNetwork and hostPath need) with no API token; the
# pod has probes on /healthz, an explicit seccomp profile, the four capabilities it uses and no
# others, memory from what was measured; the PodMonitor scrapes the port the DaemonSet names. The
# PrometheusRules made from the rule files (gen-k8s) hold them unchanged (promtool checks their
# spec as a rules file, and their unit tests pass against it); the dashboard's ConfigMap is the dashboard.
# test_image runs the image with these arguments; test_caps (VM) runs them with these capabilities.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
d=$top/tools/container
args() { grep -o "$1 *\[[^]]*\]" "$2" | head -n 1 | sed 's/^[^[]*\[//; s/\]$//' | tr -d '",'; }
# the arguments as the kubelet passes them on a node whose address is 127.0.0.1 ($(NODE_IP))
ds_raw=$(args 'args:' "$d/daemonset.yaml")
ds=${ds_raw//\$(NODE_IP)/127.0.0.1}
yq() { python3 -c 'import sys, yaml, json; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))' "$1"; }
if ! command -v python3 >/dev/null || ! python3 -c 'import yaml' 2>/dev/null; then
	bad "python3-yaml missing: make deps-test"
	exit 1
fi
for f in namespace daemonset podmonitor; do
	yq "$d/$f.yaml" >"/tmp/ss-$f.json.$$" 2>&1 && ok "$f.yaml is YAML" || bad "$f.yaml: $(cat "/tmp/ss-$f.json.$$")"
done
j() { jq -r "$2" "/tmp/ss-$1.json.$$"; }
trap 'rm -f /tmp/ss-*.json.$$' EXIT
pod='.[0].spec.template.spec' c='.[0].spec.template.spec.containers[0]'
[ "$(j namespace '.[0].metadata.labels["pod-security.kubernetes.io/enforce"]')" = privileged ] &&
	ok "namespace: Pod Security privileged (hostPID, hostNetwork, hostPath)" || bad "namespace: no privileged Pod Security label"
[ "$(j namespace '.[1].automountServiceAccountToken')" = false ] && [ "$(j daemonset "$pod.automountServiceAccountToken")" = false ] &&
	ok "no ServiceAccount token, in the account and the pod" || bad "a ServiceAccount token is mounted"
[ "$(j daemonset "$pod.serviceAccountName")" = "$(j namespace '.[1].metadata.name')" ] && ok "the pod's ServiceAccount is the one made" ||
	bad "ServiceAccount: $(j daemonset "$pod.serviceAccountName")"
for p in startupProbe livenessProbe readinessProbe; do
	[ "$(j daemonset "$c.$p.httpGet.path")" = /healthz ] && ok "$p on /healthz" || bad "no $p on /healthz"
done
[ -n "$(j daemonset "$c.securityContext.seccompProfile.type // empty")" ] &&
	ok "seccompProfile: $(j daemonset "$c.securityContext.seccompProfile.type")" || bad "no seccompProfile"
[ "$(j daemonset "$c.securityContext.capabilities.add | sort | join(\",\")")" = BPF,PERFMON,SETGID,SETUID ] &&
	ok "capabilities: BPF, PERFMON (to load), SETUID, SETGID (to become nobody), nothing else" ||
	bad "capabilities: $(j daemonset "$c.securityContext.capabilities.add")"
[ "$(j daemonset "$c.securityContext.capabilities.drop | join(\",\")")" = ALL ] && ok "every other capability dropped" || bad "capabilities kept"
[ "$(j daemonset "$c.securityContext.allowPrivilegeEscalation")" = false ] && ok "no privilege escalation (no_new_privs)" || bad "privilege escalation allowed"
mem=$(j daemonset "$c.resources.requests.memory")
[ "${mem%Mi}" -ge 46 ] 2>/dev/null && ok "memory request $mem: the measured ~46 MiB (RSS and maps)" || bad "memory request $mem below the measured ~46 MiB"
[ "$(j daemonset "$c.ports[0].containerPort")" = "$(echo "$ds_raw" | sed -n 's/.*--listen \$(NODE_IP):\([0-9]*\).*/\1/p')" ] &&
	ok "the container port is --listen's" || bad "port $(j daemonset "$c.ports[0].containerPort") vs args $ds_raw"
# bound to the node's own address, the downward API's, not every interface of the node
[ "$(j daemonset "$c.env[] | select(.name == \"NODE_IP\") | .valueFrom.fieldRef.fieldPath")" = status.hostIP ] &&
	echo "$ds_raw" | grep -q -- '--listen $(NODE_IP):' &&
	ok "--listen on the node's address (NODE_IP: status.hostIP)" || bad "--listen not bound to the node's address: $ds_raw"
[ "$(j podmonitor '.[0].spec.podMetricsEndpoints[0].port')" = "$(j daemonset "$c.ports[0].name")" ] &&
	[ "$(j podmonitor '.[0].spec.selector.matchLabels | tojson')" = "$(j daemonset '.[0].spec.template.metadata.labels | tojson')" ] &&
	ok "the PodMonitor selects the pods and scrapes their port" || bad "PodMonitor does not match the DaemonSet"
[ "$(j podmonitor '.[0].metadata.namespace')" = "$(j namespace '.[0].metadata.name')" ] && ok "all in one namespace" || bad "namespaces differ"
k=$(mktemp -d)
TOOLS=$O/tools
[ -x "$TOOLS/promtool" ] || "$top/tools/fetch-tools.sh" "$TOOLS" >/dev/null || exit 1
if "$d/gen-k8s" "$k"; then
	for r in slotscope slotscope-fleet; do
		python3 -c 'import sys, yaml; o = yaml.safe_load(open(sys.argv[1])); assert o["kind"] == "PrometheusRule"
yaml.safe_dump(o["spec"], open(sys.argv[2], "w"))' "$k/$r.prometheusrule.yaml" "$k/$r.rules.yml" || bad "$r: not a PrometheusRule"
		out=$("$TOOLS/promtool" check rules "$k/$r.rules.yml" 2>&1) && ok "PrometheusRule $r: its spec passes promtool check rules" || bad "$r: $out"
		# the rule files' own unit tests, against the spec taken back out of the object
		sed "s|$r.rules.yml|$k/$r.rules.yml|" "$top/tools/prometheus/$r.rules.test.yml" >"$k/$r.test.yml"
		out=$(cd "$top/tools/prometheus" && "$TOOLS/promtool" test rules "$k/$r.test.yml" 2>&1) &&
			ok "PrometheusRule $r: the rules' unit tests pass on it" || bad "$r unit tests: $out"
	done
	python3 -c 'import sys, json, yaml; o = yaml.safe_load(open(sys.argv[1]))
assert json.loads(o["data"]["slotscope.json"]) == json.load(open(sys.argv[2]))' "$k/dashboard.configmap.yaml" \
		"$top/tools/grafana/slotscope.json" && ok "the dashboard's ConfigMap holds the dashboard" || bad "dashboard ConfigMap"
else
	bad "gen-k8s failed"
fi
rm -rf "$k"
# The kustomize base and overlays (#61), rendered by kubectl's own kustomize as an operator would
# apply them: the image by the digest of make image's index (a layout of one index here, and the
# real one when make image made it), the stacks' release label and instance shape, kube-prometheus'
# read access to the namespace. The rules' join on the host is promtool's (slotscope.rules.test.yml).
k=$(mktemp -d)
mkdir -p "$k/oci"
echo '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json","digest":"sha256:1111111111111111111111111111111111111111111111111111111111111111","size":1,"annotations":{"org.opencontainers.image.ref.name":"9.9.9"}}]}' >"$k/oci/index.json"
kust() {	# OVERLAY: its objects as JSON, one per line
	kubectl kustomize "$k/out/overlays/$1" 2>"$k/$1.err" |
		python3 -c 'import sys, yaml, json; [print(json.dumps(o)) for o in yaml.safe_load_all(sys.stdin) if o]'
}
if ! command -v kubectl >/dev/null || ! kubectl kustomize --help >/dev/null 2>&1; then
	bad "no kubectl with kustomize: the overlays cannot be rendered (apt-get install kubectl or kubernetes-client)"
elif "$d/gen-k8s" "$k/out" "$k/oci" 9.9.9 registry.test/hpc/slotscope; then
	kust kube-prometheus-stack >"$k/kps.json" && kust kube-prometheus >"$k/kp.json" ||
		bad "kubectl kustomize: $(cat "$k"/*.err)"
	img() { jq -r 'select(.kind == "DaemonSet") | .spec.template.spec.containers[0].image' "$1"; }
	want=registry.test/hpc/slotscope@sha256:1111111111111111111111111111111111111111111111111111111111111111
	[ "$(img "$k/kps.json")" = "$want" ] && [ "$(img "$k/kp.json")" = "$want" ] &&
		ok "both overlays: the image by the digest of the layout's index" || bad "image: $(img "$k/kps.json") $(img "$k/kp.json")"
	n=$(jq -r 'select(.kind == "PodMonitor" or .kind == "PrometheusRule") | .metadata.labels.release' "$k/kps.json" | sort | uniq -c | tr -s ' ')
	[ "$n" = " 3 kube-prometheus-stack" ] && ok "kube-prometheus-stack: the PodMonitor and both PrometheusRules carry the release label" ||
		bad "kube-prometheus-stack's release label: $n"
	[ "$(jq -r 'select(.kind == "PodMonitor") | .spec.podMetricsEndpoints[0].relabelings // [] | length' "$k/kps.json")" = 0 ] &&
		ok "kube-prometheus-stack: instance is the pod's address, as its node-exporter's" || bad "kube-prometheus-stack: instance relabelled"
	[ "$(jq -r 'select(.kind == "PodMonitor") | .spec.podMetricsEndpoints[0].relabelings[0].targetLabel' "$k/kp.json")" = instance ] &&
		ok "kube-prometheus: instance is the node's name, as its node-exporter's" || bad "kube-prometheus: instance not the node's name"
	[ "$(jq -r 'select(.kind == "RoleBinding") | "\(.metadata.namespace) \(.subjects[0].name) \(.subjects[0].namespace)"' "$k/kp.json")" = "slotscope prometheus-k8s monitoring" ] &&
		[ "$(jq -r 'select(.kind == "Role") | .rules[0].resources | sort | join(",")' "$k/kp.json")" = endpoints,pods,services ] &&
		ok "kube-prometheus: its Prometheus may discover slotscope's pods" || bad "kube-prometheus: no read access for prometheus-k8s"
	for o in kps kp; do
		ns=$(jq -r 'select(.kind != "Namespace") | .metadata.namespace' "$k/$o.json" | sort -u | tr '\n' ' ')
		[ "$ns" = "slotscope " ] && ok "$o: every object in the slotscope namespace" || bad "$o: namespaces $ns"
	done
	# without a layout: the tag, said in the base
	"$d/gen-k8s" "$k/tag" "$k/none" 9.9.9 && grep -q 'by tag' "$k/tag/base/kustomization.yaml" &&
		[ "$(kubectl kustomize "$k/tag/base" 2>/dev/null | sed -n 's/^ *image: //p')" = slotscope:9.9.9 ] &&
		ok "no layout: the image by its tag, said so" || bad "no layout: $(sed -n 's/^ *image: //p' "$k/tag/base/kustomization.yaml")"
	# make image's own layout, when it was made: its index's digest
	if [ -f "$O/oci/index.json" ]; then
		v=$(jq -r '.manifests[0].annotations["org.opencontainers.image.ref.name"]' "$O/oci/index.json")
		dg=$(jq -r '.manifests[0].digest' "$O/oci/index.json")
		"$d/gen-k8s" "$k/real" "$O/oci" "$v" &&
			[ "$(kubectl kustomize "$k/real/base" 2>/dev/null | sed -n 's/^ *image: //p')" = "slotscope@$dg" ] &&
			ok "make image's layout: the image by its index's digest" || bad "make image's layout: not pinned to $dg"
	fi
else
	bad "gen-k8s with a layout failed"
fi
rm -rf "$k"
# shellcheck disable=SC2086
out=$("$O/slotscope" $ds --version 2>&1); rc=$?
[ $rc = 0 ] && [ "${out%% *}" = slotscope ] && ok "their options parse: $out" || bad "slotscope $ds: exit $rc: $out"
"$O/slotscope" $ds --mounts-ofx 1 --version >/dev/null 2>&1
[ $? = 64 ] && ok "a misspelt option would fail (64)" || bad "a misspelt option was accepted"
grep -q '^      hostNetwork: true$' "$top/tools/container/daemonset.yaml" && ok "DaemonSet in the host's network namespace" ||
	bad "DaemonSet without hostNetwork: transports would map to the pod's devices"
grep -q '^        - operator: Exists$' "$top/tools/container/daemonset.yaml" && ok "DaemonSet tolerates every taint (GPU nodes)" ||
	bad "DaemonSet tolerates no taint"
# its arguments in a network namespace of their own (a pod without hostNetwork): one line says
# why the links would be wrong; in the host's, none. This host has no sunrpc: the exporter waits
# for it, so a few seconds show the start.
if command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
	d=$(mktemp -d)
	# shellcheck disable=SC2086
	timeout 3 unshare -n "$O/slotscope" ${ds/127.0.0.1:9868/127.0.0.1:0} --procfs-root / --sysfs-root / 2>"$d/other.err"
	# shellcheck disable=SC2086
	timeout 3 "$O/slotscope" ${ds/127.0.0.1:9868/127.0.0.1:0} --procfs-root / --sysfs-root / 2>"$d/host.err"
	n=$(grep -c 'whose mounts are read, is in another network namespace: .*hostNetwork: true' "$d/other.err")
	[ "$n" = 1 ] && ok "another network namespace: said in one line" || bad "another network namespace: $(cat "$d/other.err")"
	grep -q 'network namespace' "$d/host.err" && bad "the host's namespace taken for another" || ok "the host's network namespace: nothing said"
	rm -rf "$d"
else
	echo "note unshare -n unavailable: the namespace check is not run"
fi
exit $fails
