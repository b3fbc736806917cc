#!/bin/bash
# The RPM (RHEL 9 family): rpmlint without error; it requires glibc (<= GLIBC_2.34) and nothing of
# libbpf, libelf or zlib; it holds the binary, unit, sysusers.d and tmpfiles.d files and the
# sysconfig options the unit reads; and its scriptlets, run in the order rpm runs them against a
# recorded service state (systemctl and the user tools replaced by recorders): install makes the
# user and starts nothing, an upgrade restarts a running service and leaves a stopped one
# stopped, an erase stops it before its files go.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
# the x86_64 RPM, then (make arm64) the aarch64 one: TEST_RPM names the one this run checks
if [ -z "${TEST_RPM:-}" ]; then
	rc=0
	for f in "$O"/rpm/RPMS/*/slotscope-*.rpm "$O"/arm64/rpm/RPMS/*/slotscope-*.rpm; do
		[ -f "$f" ] || continue
		echo "-- $(basename "$f")"
		TEST_RPM=$f "$0" || rc=1
	done
	[ -n "${f:-}" ] && [ -f "$f" ] || { echo "FAIL no RPM in $O/rpm/RPMS: make rpm"; exit 1; }
	exit $rc
fi
rpmf=$TEST_RPM
lint=$(dirname "$(dirname "$(dirname "$rpmf")")")/rpmlint.txt
command -v rpm >/dev/null || { echo "FAIL rpm is not installed (Debian package rpm): make deps-test"; exit 1; }
grep -q ' E: ' "$lint" && bad "rpmlint: $(grep ' E: ' "$lint")" ||
	ok "rpmlint: no error ($(grep -c ' W: ' "$lint") warnings)"
req=$(rpm -qp --requires "$rpmf" 2>/dev/null | grep -v '^rpmlib(' | sort -u | tr '\n' ';')
libs=$(echo "$req" | tr ';' '\n' | grep '\.so' | grep -Ev '^(libc|libm|ld-linux[-a-z0-9_]*)\.so')
[ -z "$libs" ] && ok "requires glibc's libraries only" || bad "requires $libs"
newest=$(echo "$req" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
[ "$(printf '%s\n2.34\n' "$newest" | sort -V | tail -n 1)" = 2.34 ] && ok "newest GLIBC required: $newest" ||
	bad "requires GLIBC_$newest (> 2.34)"
files=$(rpm -qpl "$rpmf" 2>/dev/null | tr '\n' ' ')
for f in /usr/sbin/slotscope /usr/lib/systemd/system/slotscope.service /usr/lib/sysusers.d/slotscope.conf \
	/usr/lib/tmpfiles.d/slotscope.conf /etc/sysconfig/slotscope /usr/share/man/man8/slotscope.8.gz \
	/usr/share/slotscope/prometheus/slotscope.rules.yml /usr/share/doc/slotscope/README.md \
	/usr/share/doc/slotscope/runbook.md; do
	case " $files " in *" $f "*) ;; *) bad "RPM lacks $f" ;; esac
done
ok "RPM holds the binary, unit, sysusers.d, tmpfiles.d, sysconfig, man page, rules, README and runbook"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rpm2cpio "$rpmf" | (cd "$work" && cpio -idm --quiet 2>/dev/null)
grep -q '^EnvironmentFile=-/etc/sysconfig/slotscope$' "$work/usr/lib/systemd/system/slotscope.service" &&
	ok "the unit reads /etc/sysconfig/slotscope" || bad "the unit does not read /etc/sysconfig/slotscope"
for s in PREIN POSTIN PREUN POSTUN; do
	rpm -qp --queryformat "%{$s}" "$rpmf" 2>/dev/null >"$work/$s"
done
mkdir -p "$work/bin"
for t in systemctl systemd-sysusers systemd-tmpfiles useradd getent; do
	cat >"$work/bin/$t" <<EOF
#!/bin/sh
echo "$t \$*" >>"$work/log"
state=\$(cat "$work/active" 2>/dev/null)
case "$t \$*" in
*"disable --now slotscope.service"|*"stop slotscope.service") echo no >"$work/active" ;;
"systemctl try-restart slotscope.service") [ "\$state" = yes ] && echo restarted >>"$work/log" ;;
"systemd-sysusers"*|"useradd"*) cat >/dev/null; echo user >"$work/user" ;;
"getent passwd slotscope") [ -f "$work/user" ]; exit ;;
esac
exit 0
EOF
	chmod +x "$work/bin/$t"
done
# let SCRIPTLET ARG: one scriptlet as rpm runs it ($1: packages of this name after the operation)
let_() { PATH="$work/bin:$PATH" sh -e "$work/$1" "$2" </dev/null || bad "%$1 $2 failed"; }
state() { cat "$work/active" 2>/dev/null || echo no; }
echo no >"$work/active"
let_ PREIN 1
let_ POSTIN 1
[ -f "$work/user" ] && [ "$(state)" = no ] && ok "install: user made, nothing started" || bad "install: $(tr '\n' ';' <"$work/log")"
echo yes >"$work/active"
: >"$work/log"
let_ PREIN 2
let_ POSTIN 2
let_ PREUN 1
[ "$(state)" = yes ] && ok "upgrade: still running after the old %preun" || bad "upgrade: the old %preun stopped it"
let_ POSTUN 1
grep -q '^restarted' "$work/log" && [ "$(state)" = yes ] && ok "upgrade: restarted on the new files" ||
	bad "upgrade: not restarted: $(tr '\n' ';' <"$work/log")"
echo no >"$work/active"
: >"$work/log"
let_ PREUN 1
let_ POSTUN 1
! grep -q '^restarted' "$work/log" && [ "$(state)" = no ] && ok "upgrade of a stopped service: stays stopped" ||
	bad "upgrade started a stopped service"
echo yes >"$work/active"
let_ PREUN 0
[ "$(state)" = no ] && ok "erase: stopped by %preun, before the files go" || bad "erase: still running after %preun"
let_ POSTUN 0
exit $fails
