#!/bin/bash
# The bash completion (tools/completion/slotscope.bash): every long option --help lists is offered
# for "--" and a prefix narrows them; an option's argument gets what it takes (files, users, NFS
# mounts, nothing for a number); after "--" the command's completion takes over.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
ss=$O/slotscope
# complete WORDS...: what the completion offers for the last word, one per line
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _slotscope; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$top/tools/completion/slotscope.bash" "$@"
}
want=$("$ss" --help | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u)
got=$(complete_words "$ss" -- | sed 's/^-- *$//' | grep . | sort -u)
[ -n "$want" ] && [ "$(comm -23 <(echo "$want") <(echo "$got"))" = "" ] &&
	ok "every long option of --help offered ($(echo "$want" | wc -l))" || bad "missing: $(comm -23 <(echo "$want") <(echo "$got") | tr '\n' ' ')"
echo "$got" | grep -qx -- '--listen' && ok "--listen offered" || bad "--listen not offered"
got=$(complete_words "$ss" --prom-)
[ -n "$got" ] && ! echo "$got" | grep -qv '^--prom-' && ok "a prefix narrows: $(echo $got)" || bad "--prom-: $got"
got=$(complete_words "$ss" -d '')
[ -z "$got" ] && ok "-d SECONDS: nothing offered" || bad "-d: $got"
got=$(complete_words "$ss" --user ro)
echo "$got" | grep -qx root && ok "--user: users ($got)" || bad "--user: $got"
got=$(complete_words "$ss" --listen '')
echo "$got" | grep -qx ':9868' && ok "--listen: an address" || bad "--listen: $got"
d=$(mktemp -d)
touch "$d/x.prom"
got=$(complete_words "$ss" --prom-file "$d/x")
[ "$got" = "$d/x.prom" ] && ok "--prom-file: files" || bad "--prom-file: $got"
rm -rf "$d"
got=$(complete_words "$ss" -- ech)
echo "$got" | grep -qx echo && ok "after --: commands" || bad "after --: $got"
exit $fails
