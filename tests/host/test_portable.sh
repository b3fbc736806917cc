#!/bin/bash
# One binary runs on every distribution with glibc 2.34 or newer (RHEL 9 and its rebuilds,
# Ubuntu 22.04, Debian 12): no symbol version newer than GLIBC_2.34 is needed, libbpf, libelf and
# zlib are linked in (the only shared objects are glibc's), and the .deb depends on libc6 alone;
# for both architectures (the arm64 ones cross-built under $O/arm64).
# Read from the ELF's own version needs (readelf), not from how it was built.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
MAX_GLIBC=2.34
check_elf() {
	b=$1
	newest=$(readelf -V --wide "$b" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
	if [ -n "$newest" ] && [ "$(printf '%s\n%s\n' "$newest" $MAX_GLIBC | sort -V | tail -n 1)" = $MAX_GLIBC ]; then
		ok "$b: newest glibc symbol version $newest <= $MAX_GLIBC"
	else
		bad "$b: needs GLIBC_${newest:-?} (> $MAX_GLIBC): RHEL 9 and Ubuntu 22.04 cannot run it"
	fi
	needed=$(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
	other=$(echo $needed | tr ' ' '\n' | grep -Ev '^(libc|libm|libdl|libpthread|librt|ld-linux[-a-z0-9_]*)\.so' | tr '\n' ' ')
	if [ -z "$other" ]; then ok "$b: shared objects glibc's only ($needed)"; else bad "$b: needs $other"; fi
}
for b in "$O/slotscope" "$O/deb/root/usr/sbin/slotscope" "$O/arm64/slotscope" "$O/arm64/deb/root/usr/sbin/slotscope"; do
	[ -x "$b" ] && check_elf "$b" || echo "note $b not built: skipped"
done
for deb in "$O"/deb/slotscope_*.deb "$O"/arm64/deb/slotscope_*.deb; do
	[ -f "$deb" ] || { bad "no .deb in $O/deb: make deb"; continue; }
	dep=$(dpkg-deb -f "$deb" Depends)
	case $dep in
	"libc6 (>= 2."[0-9]*")") v=${dep#libc6 (>= }; v=${v%)}
		if [ "$(printf '%s\n%s\n' "$v" $MAX_GLIBC | sort -V | tail -n 1)" = $MAX_GLIBC ]; then
			ok "$(basename "$deb"): Depends: $dep"
		else bad "$(basename "$deb"): Depends: $dep (newer than $MAX_GLIBC)"; fi ;;
	*) bad "$(basename "$deb"): Depends: $dep (want libc6 (>= 2.34) or older alone)" ;;
	esac
	rec=$(dpkg-deb -f "$deb" Recommends)
	[ -z "$rec" ] && ok "$(basename "$deb"): no Recommends" || bad "$(basename "$deb"): Recommends: $rec"
done
exit $fails
