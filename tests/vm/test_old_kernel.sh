# On a kernel slotscope cannot count on (Debian 11's 5.10: no BPF atomics with fetch, no module
# BTF), it refuses at once with one line naming what is missing and the minimum kernel, exit 77.
# make test runs it on 5.10; on a kernel that has what it needs it runs and says so.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 16 || exit 1
echo "note kernel $(uname -r)"
slotscope -d 1 >/tmp/o.out 2>/tmp/o.err
rc=$?
echo "note $(cat /tmp/o.err)"
case $(uname -r) in
5.10.*)
	check_eq "exit status" $rc 77
	check_eq "one line" "$(grep -c . /tmp/o.err)" 1
	check_eq "names the missing feature and the minimum kernel" \
		"$(grep -c '^slotscope: .*Linux 5\.1[0-9] or newer' /tmp/o.err)" 1
	check_eq "nothing on stdout" "$(grep -c . /tmp/o.out)" 0 ;;
*)
	check_eq "exit status" $rc 0
	check_gt "a summary" "$(grep -c . /tmp/o.out)" 0 ;;
esac
exit $CHECK_FAILED
