#!/bin/bash
# The SVG as a person sees it: headless Chromium renders the golden flame.svg to a PNG, which
# must not be blank (a blank page has a handful of byte values; a chart has many).
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v chromium >/dev/null || { echo "chromium is not installed (make deps installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$tmp/ud" --window-size=1200,600 --screenshot="$tmp/flame.png" \
	"file://$top/tests/golden/flame.svg" >"$tmp/log" 2>&1
[ -s "$tmp/flame.png" ] || { echo "FAIL no PNG: $(tail -3 "$tmp/log")"; exit 1; }
python3 - "$tmp/flame.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w, h = 8, b'', 0, 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IHDR':
        w, h = struct.unpack('>II', data[pos + 8:pos + 16])
    elif kind == b'IDAT':
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
distinct = len(set(raw))
print(f"{'ok  ' if distinct > 40 else 'FAIL'} PNG {w}x{h}, {distinct} distinct byte values")
sys.exit(0 if distinct > 40 and w >= 1200 else 1)
PY
