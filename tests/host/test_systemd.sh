#!/bin/bash
# make install lays out the files where Debian keeps them; the unit it installs passes
# systemd-analyze verify and rates "OK" or better in systemd-analyze security; the .deb that
# make deb built is lintian-clean (no error) and holds the same files, the unit disabled.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -C "$top" --no-print-directory O="$O" install DESTDIR="$dest" >"$dest.log" 2>&1 || { bad "make install: $(tail -3 "$dest.log")"; exit 1; }
want="etc/default/slotscope lib/systemd/system/slotscope.service usr/sbin/slotscope
usr/share/man/man8/slotscope.8 usr/share/slotscope/grafana/slotscope.json usr/share/doc/slotscope/README.md
usr/share/slotscope/prometheus/slotscope.rules.yml usr/share/slotscope/prometheus/slotscope-fleet.rules.yml
usr/share/slotscope/sysctl/60-slotscope.conf usr/share/slotscope/systemd/listen.conf
usr/lib/sysusers.d/slotscope.conf usr/lib/tmpfiles.d/slotscope.conf usr/share/bash-completion/completions/slotscope
$(cd "$top/docs" && ls *.md | sed 's|^|usr/share/doc/slotscope/|')"
got=$(cd "$dest" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
[ "$got" = "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" ] && ok "make install DESTDIR: $got" || bad "make install laid out: $got"
unit=$dest/lib/systemd/system/slotscope.service
# verify wants ExecStart's binary where the unit says: point it at the one installed here
sed "s|/usr/sbin/slotscope|$dest/usr/sbin/slotscope|" "$unit" >"$dest/slotscope.service"
if out=$(systemd-analyze verify --man=no "$dest/slotscope.service" 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify: clean"
else
	bad "systemd-analyze verify: $out"
fi
level=$(systemd-analyze security --offline=true "$dest/slotscope.service" 2>&1 | sed -n 's/.*Overall exposure level for slotscope.service: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p')
case ${level#* } in
SAFE|OK) ok "systemd-analyze security: $level" ;;
*) bad "systemd-analyze security: '$level' (want OK or better)" ;;
esac
for k in NoNewPrivileges=yes ProtectSystem=strict "CapabilityBoundingSet=CAP_BPF CAP_PERFMON" \
	"RestartPreventExitStatus=64 77"; do
	grep -qx "$k" "$unit" && ok "unit: $k" || bad "unit lacks $k"
done
deb=$(ls "$O"/deb/slotscope_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	bad "no .deb in $O/deb: make deb"
else
	grep -q '^E:' "$O/deb/lintian.txt" && bad "lintian errors: $(grep '^E:' "$O/deb/lintian.txt")" ||
		ok "lintian: no error ($(grep -c '^W:' "$O/deb/lintian.txt") warnings)"
	files=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./||' | grep -v '/$' | sort | tr '\n' ' ')
	for f in $want; do
		# dh compresses the man page
		case " $files " in *" $f "*|*" $f.gz "*) ;; *) bad ".deb lacks $f" ;; esac
	done
	ok ".deb holds the installed files"
	# the alerts' runbook_url default opens it by its name: not runbook.md.gz
	case " $files " in *" usr/share/doc/slotscope/runbook.md "*) ok ".deb keeps runbook.md uncompressed" ;;
	*) bad ".deb has no usr/share/doc/slotscope/runbook.md (compressed?): the runbook_url default opens it" ;; esac
	# installed disabled: no enable in the maintainer scripts, no start
	ctrl=$(mktemp -d)
	dpkg-deb -e "$deb" "$ctrl"
	# dh_installsystemd --no-enable: enabled again on upgrade only if the admin had enabled it
	# (the enable sits under "debian-installed", false on a first install); never started
	if grep -q 'deb-systemd-invoke' "$ctrl/postinst" ||
	   { grep -q 'deb-systemd-helper enable' "$ctrl/postinst" && ! grep -q 'deb-systemd-helper debian-installed' "$ctrl/postinst"; }; then
		bad "postinst enables or starts the unit"
	else
		ok "unit installed disabled and not started"
	fi
	grep -qx 'etc/default/slotscope\|/etc/default/slotscope' "$ctrl/conffiles" && ok "/etc/default/slotscope is a conffile" ||
		bad "/etc/default/slotscope not a conffile"
	rm -rf "$ctrl"
fi
exit $fails
