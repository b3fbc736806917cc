#!/bin/bash
# fetch-tools.sh OUTDIR: prometheus, promtool and node_exporter from Debian's packages, unpacked (not
# installed: no service starts) into OUTDIR, for the exporter tests.
set -euo pipefail
out=${1:?usage: fetch-tools.sh OUTDIR}
mkdir -p "$out/debs"
cd "$out/debs"
for p in prometheus prometheus-node-exporter; do
	compgen -G "${p}_*.deb" >/dev/null || apt-get download -q "$p" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && apt-get download -q "$p" >/dev/null; }
done
rm -rf ../x
for d in prometheus_*.deb prometheus-node-exporter_*.deb; do dpkg -x "$d" ../x; done
cp ../x/usr/bin/promtool ../promtool
cp ../x/usr/bin/prometheus ../prometheus
cp ../x/usr/bin/prometheus-node-exporter ../node_exporter
rm -rf ../x
