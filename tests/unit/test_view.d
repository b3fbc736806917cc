tests/unit/test_view: tests/unit/test_view.c user/output.h user/audit.h \
 user/mounts.h user/ckpt.h user/engine.h bpf/slotscope.h bpf/hist.h \
 user/jobs.h user/rdma.h user/view.h user/linkmap.h user/verdict.h \
 user/view.h
user/output.h:
user/audit.h:
user/mounts.h:
user/ckpt.h:
user/engine.h:
bpf/slotscope.h:
bpf/hist.h:
user/jobs.h:
user/rdma.h:
user/view.h:
user/linkmap.h:
user/verdict.h:
user/view.h:
