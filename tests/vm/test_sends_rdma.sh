# NFS over RDMA on soft-RoCE: the same equality as over TCP, on the rdma transport.
nfsd_start >/dev/null || exit 1
rxe_up || exit 1
mount_rdma /mnt/r 3 || exit 1
srv=$LAST_SERVER
before=$(mountstats_xprt /mnt/r sends)
slotscope --json -- sh -c ". /src/tools/vm/lib.sh; writers /mnt/r 8 4" >/tmp/s.json || exit 1
after=$(mountstats_xprt /mnt/r sends)
check_eq "rdma transport sends = mountstats sends delta" "$(ss_get /tmp/s.json $srv .sends)" $((after - before))
check_gt "some sends at all" $((after - before)) 16
check_eq "transport class" "$(ss_get /tmp/s.json $srv .proto)" rdma
exit $CHECK_FAILED
