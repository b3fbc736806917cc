#!/bin/bash
# The house rules the build can check (tools/layout-check): user/ in wings along the data path, no
# arrow running up a wing (includes and calls), every user/WING/*.c, bpf/ source, the
# Makefile and mk/*.mk, tests/unit/*.c and *.h, tests/host/*.sh, tests/vm/*.sh, tools/vm/'s scripts
# and bench/*.c, *.sh and *.awk at most 600 lines, and no circle between the rooms (a file's
# includes, through headers without a .c of their own; the objects' calls, by nm).
# The check is run on the tree, then shown to fail on a copy with a 601-line file of each kind and
# on one with a circle made by one include.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib-host.sh"
if out=$("$top/tools/layout-check" "$top" --objects "$O" 2>&1); then
	ok "the tree keeps the rules, its objects' calls included: $out"
else
	bad "the tree: $out"
fi
# the counts say what was checked: arrows and calls found (a check that read nothing passes too)
[[ $out =~ ^layout:\ ([0-9]+)\ rooms\ in\ 8\ wings\;\ ([0-9]+)\ arrows,\ 0\ up,\ 0\ circles\;\ ([0-9]+)\ calls\ between\ objects,\ 0\ up,\ 0\ call\ circles$ ]] &&
	[ "${BASH_REMATCH[1]}" -ge 60 ] && [ "${BASH_REMATCH[2]}" -ge 100 ] && [ "${BASH_REMATCH[3]}" -ge 100 ] &&
	ok "counted: ${BASH_REMATCH[1]} rooms, ${BASH_REMATCH[2]} arrows, ${BASH_REMATCH[3]} calls; none up, no circle" ||
	bad "the counts line: $out"

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp -r "$top/user" "$t/user"
mkdir "$t/docs"
cp "$top/docs/layout.md" "$t/docs/"
# 601 lines: one more than the rule
{ echo '// SPDX-License-Identifier: GPL-2.0'; for i in $(seq 600); do echo "/* line $i */"; done; } >"$t/user/lib/big.c"
out=$("$top/tools/layout-check" "$t" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^user/lib/big.c: 601 lines, over 600' <<<"$out" && ok "a 601-line file fails, named: $out" ||
	bad "a 601-line file: exit $rc, said: $out"
mv "$t/user/lib/big.c" "$t/user/big.c"
out=$("$top/tools/layout-check" "$t" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^user/big.c: outside every wing' <<<"$out" && ok "a file outside the wings fails, named" ||
	bad "a file outside the wings: exit $rc, said: $out"
rm "$t/user/big.c"
sed -i '/^| `user\/links\/` |/d; s/^### `user\/links\/`$/### links/' "$t/docs/layout.md"
out=$("$top/tools/layout-check" "$t" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^docs/layout.md: no row for the wing user/links/' <<<"$out" && ok "a wing without its row in docs/layout.md fails" ||
	bad "a wing without its row: exit $rc, said: $out"
cp "$top/docs/layout.md" "$t/docs/"
mkdir "$t/bpf"
{ echo '/* SPDX-License-Identifier: GPL-2.0 */'; for i in $(seq 600); do echo "/* line $i */"; done; } >"$t/bpf/big.bpf.h"
out=$("$top/tools/layout-check" "$t" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^bpf/big.bpf.h: 601 lines, over 600' <<<"$out" && ok "a 601-line BPF header fails, named" ||
	bad "a 601-line BPF header: exit $rc, said: $out"
rm -r "$t/bpf"
# the build, the tests, the VM's scripts and the benchmarks: each kind of file, 601 lines, named
miss=
for f in Makefile mk/big.mk tests/unit/big.c tests/unit/big.h tests/host/big.sh tests/vm/big.sh \
	tools/vm/big.sh tools/vm/big bench/big.c bench/big.sh bench/big.awk; do
	mkdir -p "$t/$(dirname "$f")"
	{ echo '#!/bin/sh'; for i in $(seq 600); do echo "# line $i"; done; } >"$t/$f"
	out=$("$top/tools/layout-check" "$t" 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -q "^$f: 601 lines, over 600: split it by concern" <<<"$out" || miss="$miss $f (exit $rc: $out)"
	rm "$t/$f"
done
[ -z "$miss" ] && ok "a 601-line Makefile, mk/, unit test, host or VM script, VM tool or bench file fails, named" ||
	bad "not refused, or not named:$miss"
# a file of the VM's tools that is no script (its package list) is no concern of the rule
seq 601 >"$t/tools/vm/packages.txt"
"$top/tools/layout-check" "$t" >/dev/null && ok "a 601-line data file beside the VM's scripts passes" ||
	bad "a data file in tools/vm refused"
rm -r "$t/mk" "$t/tests" "$t/tools" "$t/bench"
yes '' | head -n 600 >"$t/user/lib/edge.c"
"$top/tools/layout-check" "$t" >/dev/null && ok "600 lines pass" || bad "600 lines refused"
rm "$t/user/lib/edge.c"
# util is the floor: it including the model makes a circle
sed -i '1a #include "model/model.h"' "$t/user/lib/util.c"
out=$("$top/tools/layout-check" "$t" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^circle: .*util' <<<"$out" && grep -Eq '^layout: .*, [1-9][0-9]* circles$' <<<"$out" &&
	ok "an include that closes a circle fails, named and counted" ||
	bad "a circle through util: exit $rc, said: $out"
cp "$top/user/lib/util.c" "$t/user/lib/util.c"
# an arrow up with no circle: a new room of the floor that includes the model's view
printf '#include "model/view.h"\nint up_probe(void) { return 0; }\n' >"$t/user/lib/up_probe.c"
out=$("$top/tools/layout-check" "$t" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^up: user/lib/up_probe uses user/model/view, a wing above' <<<"$out" && ! grep -q '^circle' <<<"$out" &&
	ok "an include up a wing fails, named, with no circle" || bad "an include up a wing: exit $rc, said: $out"
# an include must name its wing: "view.h" alone would hide the arrow's direction
printf '#include "view.h"\nint up_probe(void) { return 0; }\n' >"$t/user/lib/up_probe.c"
out=$("$top/tools/layout-check" "$t" 2>&1)
grep -q '^user/lib/up_probe.c: includes "view.h": write "model/view.h"' <<<"$out" && ok "an include without its wing fails" ||
	bad "an include without its wing: said: $out"
rm "$t/user/lib/up_probe.c"
# a call circle no include shows: the objects of the build, and two more whose functions call
# each other through a shared declaration (as a file cut off at the size bar calling back into
# its parent through the parent's header)
mkdir -p "$t/objs"
cp -r "$O/user" "$t/objs/"
find "$t/objs/user" -type f ! -name '*.o' -delete
printf 'int up(void);\nint down(void) { return up() + 1; }\n' >"$t/down.c"
printf 'int down(void);\nint up(void) { return down() - 1; }\n' >"$t/up.c"
cc -c -o "$t/objs/user/lib/down.o" "$t/down.c" && cc -c -o "$t/objs/user/lib/up.o" "$t/up.c" || bad "cc"
out=$("$top/tools/layout-check" "$t" --objects "$t/objs" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^call circle: down, up: down calls up (up); up calls down (down)' <<<"$out" &&
	grep -q ', 1 call circles$' <<<"$out" &&
	ok "a call circle fails, named with the calls that close it, counted" || bad "a call circle: exit $rc, said: $out"
rm "$t/objs/user/lib/up.o"
"$top/tools/layout-check" "$t" --objects "$t/objs" >/dev/null && ok "one way only, within a wing: passes" ||
	bad "a call one way refused: $("$top/tools/layout-check" "$t" --objects "$t/objs" 2>&1)"
# a call up a wing that no include shows (a declaration written out by hand)
printf 'int up(void) { return 1; }\n' >"$t/up.c"
cc -c -o "$t/objs/user/run/up.o" "$t/up.c" || bad "cc"
out=$("$top/tools/layout-check" "$t" --objects "$t/objs" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^up: lib/down.o calls run/up.o (up), a wing above' <<<"$out" &&
	ok "a call up a wing fails, named with the call" || bad "a call up a wing: exit $rc, said: $out"
# a VM test or bench that runs bpftrace boots the image that has it (tools/vm/run, "#% needs:
# bpftrace"; without it the bench's bpftrace was not there, and its start timed out unsaid)
miss=
for f in "$top"/tests/vm/*.sh "$top"/tests/vm/*.inc "$top"/bench/bench.sh "$top"/bench/insn.sh; do
	grep -qE '^[^#]*\<bpftrace\>' "$f" && ! grep -qE '^#% needs:.*\<bpftrace\>' "$f" && miss="$miss ${f#"$top"/}"
done
[ -z "$miss" ] && ok "every VM test and bench that runs bpftrace says so" || bad "running bpftrace without '#% needs: bpftrace':$miss"
exit $fails
