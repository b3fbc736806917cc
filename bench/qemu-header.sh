#!/bin/bash
# bench/qemu-header.sh OUTDIR: qemu's TCG plugin header (qemu-plugin.h) of the qemu this machine
# runs, from Debian's source package of that version (apt-get source through a private deb-src
# list in OUTDIR/apt, as build-image fetches kernels: the machine's apt configuration is left
# alone). Writes OUTDIR/qemu-plugin.h. Debian's qemu-system packages ship no header.
set -euo pipefail
out=$(realpath -m "$1")
ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) ||
	{ echo "bench/qemu-header.sh: qemu-system-x86 is not installed (make deps-test)" >&2; exit 1; }
apt=$out/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$out/src"
k=/usr/share/keyrings/debian-archive-keyring.gpg
{
	for s in bookworm bookworm-updates trixie sid; do echo "deb-src [signed-by=$k] http://deb.debian.org/debian $s main"; done
	for s in bookworm trixie; do echo "deb-src [signed-by=$k] http://deb.debian.org/debian-security $s-security main"; done
} >"$apt/sources.list"
papt=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$apt/lists" -o Dir::Cache::Archives="$apt/archives" -o Dir::Cache="$apt"
	-o APT::Sandbox::User=root)
apt-get "${papt[@]}" update -q >"$apt/update.log" 2>&1 ||
	{ echo "bench/qemu-header.sh: apt-get update of the deb-src lists failed; see $apt/update.log" >&2; exit 1; }
(cd "$out/src" && apt-get "${papt[@]}" source --download-only "qemu=$ver" >"$apt/source.log" 2>&1) ||
	{ echo "bench/qemu-header.sh: no qemu source $ver in the deb-src lists; see $apt/source.log" >&2; exit 1; }
orig=$(ls "$out"/src/qemu_*.orig.tar.* | head -n 1)
tar -xf "$orig" -C "$out/src" --wildcards '*/include/qemu/qemu-plugin.h'
cp "$(ls "$out"/src/*/include/qemu/qemu-plugin.h | head -n 1)" "$out/qemu-plugin.h"
echo "  QEMU     plugin header of qemu $ver: $out/qemu-plugin.h"
