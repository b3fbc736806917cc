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
exit $fails
