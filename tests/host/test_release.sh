#!/bin/bash
# The release binary and the packaged one carry no test hook: SLOTSCOPE_TEST_REFUSE (which turns
# real hooks off) is in the test build alone (slotscope-faults). A string check: the variable's
# name is what getenv() would be called with.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
for b in "$O/slotscope" "$O/deb/root/usr/sbin/slotscope"; do
	[ -x "$b" ] || { echo "note $b not built: skipped"; continue; }
	n=$(grep -ac 'SLOTSCOPE_TEST_' "$b")
	if [ "$n" = 0 ]; then ok "$b: no test hook"; else bad "$b: $n mentions of SLOTSCOPE_TEST_"; fi
done
if [ -x "$O/slotscope-faults" ] && grep -aq SLOTSCOPE_TEST_REFUSE "$O/slotscope-faults"; then
	ok "the test build has its hook"
else
	bad "$O/slotscope-faults missing or without its hook: make unit-test-bins"
fi
# one version: the binary's, the man page's, the .deb's and the RPM's are the Makefile's
ver=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
[ "$("$O/slotscope" --version | head -n 1)" = "slotscope $ver" ] && ok "binary: version $ver" || bad "binary: $("$O/slotscope" --version)"
# the rest of the identity (#61): the commit git names for the tree, the libbpf linked in as it
# says itself, the architecture, the designs; the package's copy of the tree has no .git: its
# binary says the same commit from the .revision the build wrote beside it
field() { "$1" --version | sed -n "s/^  $2: *//p"; }
rev=$(git -C "$top" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
[ "$(field "$O/slotscope" revision)" = "$rev" ] && ok "binary: revision $rev (git describe)" ||
	bad "binary: revision $(field "$O/slotscope" revision), git says $rev"
lib=$(pkg-config --modversion libbpf 2>/dev/null | cut -d. -f1,2)
[ "$(field "$O/slotscope" libbpf)" = "$lib" ] && ok "binary: libbpf $lib (pkg-config's)" || bad "binary: libbpf $(field "$O/slotscope" libbpf), pkg-config $lib"
arch=$(dpkg --print-architecture)
[ "$(field "$O/slotscope" arch)" = "$arch" ] && ok "binary: arch $arch" || bad "binary: arch $(field "$O/slotscope" arch), dpkg $arch"
"$O/slotscope" --version | grep -q '^  BPF designs: functions .*, tracepoints ' && ok "binary: both BPF designs named" ||
	bad "binary: --version names no designs"
if [ -x "$O/deb/root/usr/sbin/slotscope" ]; then
	want=$(cat "$O/deb/src/.revision" 2>/dev/null)
	case $want in
	"" | unknown) bad "the .deb's tree: no .revision (mk/package.mk writes it)" ;;
	*) [ "$(field "$O/deb/root/usr/sbin/slotscope" revision)" = "$want" ] && ok "the .deb's binary: revision $want (its .revision)" ||
		bad "the .deb's binary: revision $(field "$O/deb/root/usr/sbin/slotscope" revision), its tree's $want" ;;
	esac
fi
grep -q "\"slotscope $ver\"" "$top/slotscope.8" && ok "man page: version $ver" || bad "man page: $(head -n 1 "$top/slotscope.8")"
deb=$(ls "$O"/deb/slotscope_*.deb 2>/dev/null | head -n 1)
[ -z "$deb" ] || { [ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] && ok ".deb: version $ver" || bad ".deb: $(dpkg-deb -f "$deb" Version)"; }
rpmf=$(ls "$O"/rpm/RPMS/*/slotscope-*.rpm 2>/dev/null | head -n 1)
[ -z "$rpmf" ] || ! command -v rpm >/dev/null ||
	{ [ "$(rpm -qp --qf '%{VERSION}' "$rpmf" 2>/dev/null)" = "$ver" ] && ok "RPM: version $ver" || bad "RPM: $(rpm -qp --qf '%{VERSION}' "$rpmf")"; }
exit $fails
