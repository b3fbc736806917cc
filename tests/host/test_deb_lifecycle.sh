#!/bin/bash
# The .deb's lifecycle, its maintainer scripts run in the order dpkg runs them, as root in a
# mount namespace of their own (a tmpfs /run that says systemd is running), with systemctl and the
# user tools replaced by recorders of a service state. At each step the service must be where a
# fleet needs it: a first install creates the user and starts nothing; an upgrade of a running
# service leaves it running throughout and restarts it on the new binary (a stopped one stays
# stopped); a removal stops it before anything else; a purge removes the ACL entry on
# node_exporter's directory, then the user, only then.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
deb=$(ls "$O"/deb/slotscope_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "FAIL no .deb in $O/deb: make deb"; exit 1; }
command -v unshare >/dev/null || { echo "SKIP no unshare"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -e "$deb" "$work/ctrl"
mkdir -p "$work/bin"
# the recorders: every call appended to $work/log; the service's state in $work/active
for t in systemctl deb-systemd-helper deb-systemd-invoke systemd-sysusers systemd-tmpfiles useradd userdel getent setfacl; do
	cat >"$work/bin/$t" <<EOF
#!/bin/sh
echo "$t \$*" >>"$work/log"
state=\$(cat "$work/active" 2>/dev/null)
case "$t \$*" in
"systemctl stop slotscope.service"|"deb-systemd-invoke stop slotscope.service") echo no >"$work/active" ;;
"getent passwd slotscope") [ -f "$work/user" ]; exit ;;
"systemctl start slotscope.service") echo yes >"$work/active" ;;
"systemctl restart slotscope.service") echo yes >"$work/active"; echo restarted >>"$work/log" ;;
"systemctl try-restart slotscope.service") [ "\$state" = yes ] && echo restarted >>"$work/log" ;;
"systemctl is-active"*) [ "\$state" = yes ] ;;
"systemd-sysusers"*|"useradd"*) echo user >"$work/user" ;;
"userdel"*) [ "\$state" = yes ] && echo "user deleted under a running service" >>"$work/log"; rm -f "$work/user" ;;
esac
exit 0
EOF
	chmod +x "$work/bin/$t"
done
# run SCRIPT ARGS...: one maintainer script as dpkg would
cat >"$work/run" <<EOF
#!/bin/sh
mount -t tmpfs none /run && mkdir -p /run/systemd/system || exit 1
# node_exporter's textfile directory, as a node with it has it (this namespace's own /var/lib)
mount -t tmpfs none /var/lib && mkdir -p /var/lib/prometheus/node-exporter || exit 1
# a purge removes the BTF cache: this namespace's own /var/cache, not the host's
mount -t tmpfs none /var/cache && mkdir -p /var/cache/slotscope/btf || exit 1
s=\$1; shift
echo "== \$s \$*" >>"$work/log"
PATH="$work/bin:\$PATH" sh -e "$work/ctrl/\$s" "\$@"
EOF
chmod +x "$work/run"
step() { [ -f "$work/ctrl/$1" ] || return 0; unshare -m "$work/run" "$@" || bad "$1 $* failed"; }
state() { cat "$work/active" 2>/dev/null || echo no; }
calls() { sed -n "/^== $1/,/^==/p" "$work/log" | grep -v '^=='; }
ver=$(dpkg-deb -f "$deb" Version)

# a first install
echo no >"$work/active"
step preinst install
step postinst configure ""
[ -f "$work/user" ] && ok "install: the slotscope user made (sysusers.d or useradd)" || bad "install: no user made"
[ "$(state)" = no ] && ! grep -q restarted "$work/log" && ok "install: the service not started (installed disabled)" ||
	bad "install: the service was started: $(cat "$work/log")"
# the operator starts it; an upgrade to the same package keeps it running, then restarts it
echo yes >"$work/active"
: >"$work/log"
step prerm upgrade "$ver"
[ "$(state)" = yes ] && ok "upgrade: still running after the old prerm" || bad "upgrade: the old prerm stopped it"
step preinst upgrade "$ver"
step postrm upgrade "$ver"
step postinst configure "$ver"
grep -q '^restarted' "$work/log" && [ "$(state)" = yes ] && ok "upgrade: restarted on the new binary, running" ||
	bad "upgrade: not restarted ($(state)): $(tr '\n' ';' <"$work/log")"
# a stopped service stays stopped through an upgrade
echo no >"$work/active"
: >"$work/log"
step prerm upgrade "$ver"
step postinst configure "$ver"
[ "$(state)" = no ] && ! grep -q '^restarted' "$work/log" && ok "upgrade of a stopped service: stays stopped" ||
	bad "upgrade started a stopped service"
# a removal stops it first
echo yes >"$work/active"
: >"$work/log"
step prerm remove
first=$(calls "prerm remove" | head -n 1)
[ "$(state)" = no ] && ok "remove: stopped by prerm, before anything is removed ($first)" || bad "remove: still running after prerm"
step postrm remove
[ -f "$work/user" ] && ok "remove: the user stays (its files may)" || bad "remove: the user went"
: >"$work/log"
step postrm purge
[ ! -f "$work/user" ] && ! grep -q 'under a running' "$work/log" && ok "purge: the user removed, the service stopped first" ||
	bad "purge: $(tr '\n' ';' <"$work/log")"
# the group's ACL entry on node_exporter's directory, before the group is gone
acl=$(grep -n '^setfacl -x group:slotscope /var/lib/prometheus/node-exporter' "$work/log" | cut -d: -f1)
del=$(grep -n '^userdel' "$work/log" | cut -d: -f1)
[ -n "$acl" ] && [ -n "$del" ] && [ "$acl" -lt "$del" ] && ok "purge: the group's ACL entry removed before the group" ||
	bad "purge: the ACL entry stays: $(tr '\n' ';' <"$work/log")"
exit $fails
