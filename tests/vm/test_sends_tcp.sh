# NFS over TCP: slotscope's BPF count of successful transmits on a transport equals the kernel's
# own mountstats "sends" delta for it over the same write.
nfsd_start >/dev/null || exit 1
mount_tcp /mnt/t 3 || exit 1
srv=$LAST_SERVER
before=$(mountstats_xprt /mnt/t sends)
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/t 8 4" >/tmp/s.json || exit 1
after=$(mountstats_xprt /mnt/t sends)
check_eq "tcp transport sends = mountstats sends delta" "$(ss_get /tmp/s.json $srv .sends)" $((after - before))
check_gt "some sends at all" $((after - before)) 16
check_eq "transport class" "$(ss_get /tmp/s.json $srv .proto)" tcp
exit $CHECK_FAILED
