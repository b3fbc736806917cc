# Sourced by the host tests after setting $top: the build directory $O (absolute), and the
# ok/bad reporting whose failures count in $fails, the script's exit status.
O=${O:-$top/build}
case $O in /*) ;; *) O=$top/$O ;; esac
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
