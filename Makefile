# slotscope. All outputs go under $(O); the source tree stays clean. `make V=1` shows commands.
# ARCH=arm64 cross-builds for aarch64 (Grace) on an amd64 machine: Debian's gcc-aarch64-linux-gnu
# and the :arm64 -dev packages through multiarch (`make deps ARCH=arm64`), the BPF object against
# arch/arm64/vmlinux.h (kprobe registers are arm64's), everything under build/arm64.
ARCH     ?= x86
ifeq ($(ARCH),arm64)
O        ?= build/arm64
CROSS    ?= aarch64-linux-gnu-
VMLINUX_DIR := arch/arm64
DEB_ARCH := arm64
else ifeq ($(ARCH),x86)
O        ?= build
CROSS    ?=
VMLINUX_DIR := .
DEB_ARCH := amd64
else
$(error ARCH=$(ARCH): want x86 (the default) or arm64)
endif
# One spelling of every output path: O=$(CURDIR)/build (as tools/vm/run and the host tests pass
# it) and O=build must name the same targets, or the dependency files written under one spelling
# never apply to the other and a changed header leaves objects of the old layout linked in.
override O := $(patsubst $(CURDIR)/%,%,$(abspath $(O)))
ifeq ($(origin CC),default)
CC       := $(CROSS)gcc
endif
# tools run here while building (btfmerge): this machine's compiler whatever ARCH is
HOSTCC   ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
VERSION  := 0.2.0

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	    -Wno-format-truncation
# the commit built: git's, or the .revision a package's copy of the tree carries (mk/package.mk)
REVISION ?= $(shell cat .revision 2>/dev/null || git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
CPPFLAGS += -I$(O) -Ibpf -Iuser -DSLOTSCOPE_BIN='"$(abspath $(O))/slotscope"' -DFIXTURES='"$(CURDIR)/tests/fixtures"' -MMD -MP -D_GNU_SOURCE -DSLOTSCOPE_VERSION='"$(VERSION)"'
# libbpf, libelf and zlib are linked in statically so the binary runs on any host (and in the VM)
# whatever libbpf it has; libc stays dynamic.
# STATIC_LIBS=0 (the Debian package) links Debian's shared libraries instead.
# --web-config's TLS (OpenSSL), its file (libyaml) and basic auth's bcrypt (libxcrypt) the same way.
STATIC_LIBS ?= 1
ifeq ($(STATIC_LIBS),1)
LDLIBS   += -Wl,-Bstatic -lbpf -lelf -lz -lssl -lcrypto -lyaml -lcrypt -Wl,-Bdynamic -lm
else
LDLIBS   += -lbpf -lelf -lz -lssl -lcrypto -lyaml -lcrypt -lm
endif
# active_speed_ex (XDR) exists only in newer rdma-core headers
HAVE_SPEED_EX := $(shell printf '\043include <infiniband/verbs.h>\nint x = sizeof(((struct ibv_port_attr *)0)->active_speed_ex);\n' | \
	$(CC) -x c -c -o /dev/null - 2>/dev/null && echo -DHAVE_ACTIVE_SPEED_EX)
CPPFLAGS += $(HAVE_SPEED_EX)
# BPF_PROG() expands to an unused ctx parameter, so no -Wextra here
# build paths out of every object (the debug info's, the BPF objects' BTF line info): the SRPM
# rebuilt in another directory links the same binary, build ID and all
REPRO_FLAGS := -ffile-prefix-map=$(CURDIR)=.
BPF_CFLAGS := -g -O2 -mcpu=v3 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -I$(VMLINUX_DIR) -I. -Ibpf -MMD -MP \
	$(REPRO_FLAGS) $(if $(BPF_PAD),-DSLOTSCOPE_PAD=$(BPF_PAD)) \
	$(if $(BPF_HELPER_PAD),-DSLOTSCOPE_HELPER_PAD=$(BPF_HELPER_PAD))
# The release hardening, in the one compile the .deb and the RPM share: Debian's hardening=+all
# (dpkg-buildflags) and RHEL's %optflags and %build_ldflags together (stack protector and clash
# protection, FORTIFY, format checks, CET's IBT and shadow stack on x86, BTI and PAC on arm64,
# full RELRO, BIND_NOW; PIE is gcc's default on both). The packages build with these and no
# flags of their own, so the same source makes the same binary whichever package builds it.
HARDEN_CFLAGS := -fstack-protector-strong -fstack-clash-protection -D_FORTIFY_SOURCE=2 -Wformat \
	-Werror=format-security $(if $(filter arm64,$(ARCH)),-mbranch-protection=standard,-fcf-protection) $(REPRO_FLAGS)
HARDEN_LDFLAGS := -Wl,-z,relro -Wl,-z,now

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
SKELS     := $(patsubst bpf/%.bpf.c,$(O)/%.skel.h,$(BPF_SRCS))
LIB_OBJS  := $(patsubst %.c,$(O)/%.o,$(filter-out user/run/main.c,$(wildcard user/*/*.c)))
UNIT_BINS := $(patsubst %.c,$(O)/%,$(wildcard tests/unit/test_*.c))
VM_TESTS  := $(sort $(wildcard tests/vm/test_*.sh))
# The core VM tests, run by `make test` on more kernels than the default (absent: none).
CORE_TESTS := $(wildcard tests/vm/test_core.sh)
CORE_KERNELS := 6.12 7
HOST_TESTS := $(sort $(wildcard tests/host/test_*.sh))

# Debian packages: what building needs (`make` names the missing ones, `make deps` installs them),
# and what testing adds (`make deps-test`; `make test` and `make demo` install them first).
BUILD_DEBS := make gcc libc6-dev clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libibverbs-dev \
	pkg-config libssl-dev libyaml-dev libcrypt-dev
ifeq ($(ARCH),arm64)
BUILD_DEBS += gcc-aarch64-linux-gnu libc6-dev-arm64-cross libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 \
	libibverbs-dev:arm64 libssl-dev:arm64 libyaml-dev:arm64 libcrypt-dev:arm64
endif
# what booting the test VM needs (the demo's whole list beside the build's)
VM_DEBS := qemu-system-x86 qemu-system-data cpio xz-utils zstd kmod gawk debian-archive-keyring
TEST_DEBS := $(VM_DEBS) libcmocka-dev python3 libcap2-bin \
	libxml2-utils libclang-rt-14-dev chromium systemd dpkg-dev debhelper lintian fakeroot rpm rpmlint kmod \
	qemu-system-arm qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross libbpf-dev:arm64 libelf-dev:arm64 \
	zlib1g-dev:arm64 libibverbs-dev:arm64 libssl-dev:arm64 libyaml-dev:arm64 libcrypt-dev:arm64 jq curl umoci \
	runc python3-yaml debootstrap python3-prometheus-client openssl

# install: PREFIX and DESTDIR as usual; the unit and the defaults where Debian keeps them
PREFIX     ?= /usr
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share/slotscope
# the docs; the alerts' runbook_url points at file:///usr/share/doc/slotscope/runbook.md by default
DOCDIR     ?= $(PREFIX)/share/doc/slotscope
UNITDIR    ?= /lib/systemd/system
SYSCONFDIR ?= /etc
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOC_PAGES := $(notdir $(wildcard docs/*.md))

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.PHONY: all deps deps-test deps-vm check-deps vm-image test test-run test-kernels unit-test vm-test demo \
	demo-run vmlinux clean distclean install uninstall deb
all: $(O)/slotscope

# the Debian packages of $(1) that are not installed
missing_debs = $$(command -v dpkg-query >/dev/null && for p in $(1); do \
	dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done)
define apt_install
	@missing="$(call missing_debs,$(1))"; \
	if [ -n "$$missing" ]; then \
		echo "  DEPS     apt-get install" $$missing; \
		case " $$missing" in *:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 || \
			{ echo "  DEPS     dpkg --add-architecture arm64 (multiarch: Debian's arm64 port)"; \
			  dpkg --add-architecture arm64; } ;; esac; \
		apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing >/dev/null; \
	fi
endef
deps:
	$(call apt_install,$(BUILD_DEBS))
deps-test:
	$(call apt_install,$(BUILD_DEBS) $(TEST_DEBS))
deps-vm:
	$(call apt_install,$(BUILD_DEBS) $(VM_DEBS))
# the packages' own build dependencies, no more (no qemu, no chromium): make deb, make rpm
PKG_DEBS := dpkg-dev debhelper lintian fakeroot rpm rpmlint
.PHONY: deps-pkg
deps-pkg:
	$(call apt_install,$(BUILD_DEBS) $(PKG_DEBS))
# a build names what is missing and installs nothing
check-deps:
	@missing="$(call missing_debs,$(BUILD_DEBS))"; \
	if [ -n "$$missing" ]; then \
		echo "slotscope: missing Debian packages to build:" $$missing": run 'make deps'" \
			"(or apt-get install" $$missing")" >&2; exit 1; fi

$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX_DIR)/vmlinux.h | check-deps
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D) && $(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# skeletons must exist before the first compile of anything that includes them (a unit test
# that includes engine_int.h too: a clean clone's -j build compiled one first)
$(LIB_OBJS) $(O)/user/run/main.o $(patsubst %,%.o,$(UNIT_BINS)): | $(SKELS)

$(O)/%.o: %.c | check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c $< -o $@

$(O)/user/%.o: CFLAGS += $(HARDEN_CFLAGS)
# the commit in a header rewritten only when it changes: buildinfo.o alone rebuilds then, in the
# same make (the header's own recipe: a phony prerequisite's would be seen one make late)
.PHONY: FORCE
FORCE:
$(O)/revision.h: FORCE
	@mkdir -p $(@D) && echo '#define SLOTSCOPE_REVISION "$(REVISION)"' >$@.new && \
		{ cmp -s $@.new $@ && rm $@.new || mv $@.new $@; }
$(O)/user/lib/buildinfo.o $(O)/fuzz/obj/lib/buildinfo.o: $(O)/revision.h
$(O)/slotscope $(O)/slotscope-faults: LDFLAGS += $(HARDEN_LDFLAGS)
$(O)/slotscope: $(O)/user/run/main.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The test build: SLOTSCOPE_TEST_REFUSE makes hooks refused (tests/vm/test_fallback.sh). Never
# installed or packaged; the release binary has no such hook.
$(O)/tests/faults/refuse.o: | $(SKELS)
$(O)/slotscope-faults: $(O)/user/run/main.o $(LIB_OBJS) $(O)/tests/faults/refuse.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The leak checks' view of the heap (tests/vm/test_churn.sh): LD_PRELOAD into the release binary.
# Never installed or packaged.
$(O)/heapwatch.so: tests/faults/heapwatch.c
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(CFLAGS) -fPIC -shared $(LDFLAGS) $< -o $@

# write(fd, NULL, n) in the VM (test_jobs), a cached MiB rewritten or re-read (test_job_rpcbytes):
# static, the image's libc is not the build's
$(O)/nullwrite $(O)/cachehog: $(O)/%: tests/faults/%.c
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(WARN) -O2 -static $< -o $@

# random snapshot sequences through the textfile's pipeline (tests/host/test_counters.sh)
$(O)/tests/snapgen: $(O)/tests/fleet/snapgen.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# the simulated fleet's textfiles, written by slotscope's own writer (tests/host/test_fleet.sh)
$(O)/tests/fleetgen: $(O)/tests/fleet/fleetgen.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -lm -o $@

$(O)/tests/unit/%: $(O)/tests/unit/%.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -lcmocka -o $@

$(O)/btfmerge: tools/btfmerge.c user/engine/btfmerge.c | check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(HOSTCC) $(WARN) $(CFLAGS) -Iuser $^ -Wl,-Bstatic -lbpf -lelf -lz -Wl,-Bdynamic -o $@

# One image per kernel: the default (6.1) in $(O)/vm, KERNEL=X (5.10, 6.12, 7, 7.3, a package name:
# see tools/vm/build-image) in $(O)/vm/k/X; `default` in a kernel list is the default image.
KERNEL ?=
vm_img = $(if $(filter-out default,$(1)),$(O)/vm/k/$(1),$(O)/vm)
VM_IMG := $(call vm_img,$(KERNEL))
VM_IMAGE_DEPS := tools/vm/build-image tools/vm/packages.txt tools/vm/init
vm-image: $(VM_IMG)/initrd.cpio
$(O)/vm/initrd.cpio: $(VM_IMAGE_DEPS) | deps-vm
	$(Q)tools/vm/build-image $(O)/vm ''
$(O)/vm/k/%/initrd.cpio: $(VM_IMAGE_DEPS) | deps-test
	$(Q)tools/vm/build-image $(O)/vm '$*'
# VAST's stack over the default kernel: built from ../shared/vendor (tools/vm/build-vastnfs)
$(O)/vm/k/vastnfs/initrd.cpio: tools/vm/build-vastnfs
# Debian 12 by debootstrap, systemd its PID 1, on the default kernel (tools/vm/build-sysroot)
$(O)/vm/k/systemd/initrd.cpio: tools/vm/build-sysroot $(O)/vm/initrd.cpio | deps-test
	$(Q)tools/vm/build-sysroot $(O)/vm
# SCRIPT@KERNEL[@VAR=VAL] runs of tests/run-tests.sh; CORE_RUNS: the core tests on each
# CORE_KERNELS and the tracepoint design with the fallback attach on the default kernel (raw_tp);
# the tracepoint design's tp_btf is loaded on 6.12 by LEVEL_RUNS (its counts against bpftrace's),
# on the default kernel by the VM suite and test_fallback (the core set's own run of it on 6.12,
# 47 s of CPU, went for the suite's budget, 2026-12-04). The function hooks' kprobes are arm64's
# (no BPF trampoline there), and on amd64 VAST's stack's (no module BTF), test_fallback's and
# test_jobs' (kretprobes at perf_event_paranoid 3): the core set with every hook forced to its
# fallback on the default kernel loaded nothing else.
vm_runs = $(foreach k,$(2),$(addsuffix @$(filter-out default,$(k)),$(1)))
# and the core set on arm64 (Debian's arm64 6.1 under qemu-system-aarch64, the arm64 build)
CORE_RUNS := $(call vm_runs,$(CORE_TESTS),$(CORE_KERNELS) arm64) \
	$(addsuffix @@SLOTSCOPE_EVENTS=tracepoints@SLOTSCOPE_ATTACH=fallback,$(CORE_TESTS))
# time at each level against bpftrace's hand-off-aware truth: the VM suite runs it in the function
# design on the default kernel, this in the tracepoint design on 6.12 (each design and each kernel
# once; the other two pairings' programs are loaded by the core set's runs below, and all four by
# make level-truth: ~60 s of CPU each was 5 % of the suite's budget)
LEVEL_RUNS := tests/vm/test_level_truth.sh@6.12@SLOTSCOPE_EVENTS=tracepoints
# test_level_truth LEVEL_REPEAT times (20) in both designs on the default kernel and 6.12 (not in
# CI: ~80 s a run); each run's worst level deviation is its "note at the limit" line
LEVEL_REPEAT ?= 20
LEVEL_ALL := tests/vm/test_level_truth.sh tests/vm/test_level_truth.sh@@SLOTSCOPE_EVENTS=tracepoints \
	tests/vm/test_level_truth.sh@6.12 tests/vm/test_level_truth.sh@6.12@SLOTSCOPE_EVENTS=tracepoints
.PHONY: level-truth
level-truth: all vm-image $(call vm_img,6.12)/initrd.cpio
	$(Q)tests/run-tests.sh $(foreach i,$(shell seq $(LEVEL_REPEAT)),$(LEVEL_ALL))
# an NFSv4.1 session's limit moving during a write (nfsd sizes sessions on demand: Debian's 7.x)
SESSION_RUNS := tests/vm/session_limit.sh@7
# Debian 11's 5.10, which slotscope cannot count on: it must refuse in one line (test_old_kernel)
OLD_RUNS := tests/vm/test_old_kernel.sh@5.10
# the core set on other NFS stacks: VAST Data's (KERNEL=vastnfs), no module BTF
STACK_RUNS := tests/vm/stack_vastnfs.sh@vastnfs
# the RDMA backlog stall where the kernel has it: bookworm's 6.1.0-50 (6.1.176: a721035477fb, and
# not yet "xprtrdma: Avoid 250 ms delay on backlog wakeup", 6.1.178); the VM suite's own run of
# test_backlog_stall on the default kernel (6.1.192) shows none where it is fixed
STALL_KERNEL := linux-image-6.1.0-50-amd64-unsigned
STALL_RUNS := tests/vm/test_backlog_stall.sh@$(STALL_KERNEL)@STALL=1@LONG=0
CORE_IMAGES := $(foreach k,default $(CORE_KERNELS) arm64 5.10 $(STALL_KERNEL),$(call vm_img,$(k))/initrd.cpio)
# VAST's image builds on its own beside the rest (its stack's build is ~10 CPU-min; its makefile's
# make -j8 made -j$(nproc)), at the late build's priority: only the stack test waits for it, taken
# by the first lane free once it is in. At nice 19 it had only the lanes' idle time and came in
# after every other test (2026-12-04: the rest done at 2,165 s, VAST at 2,281 s, then the stack
# test alone on one core for 94 s); at nice 10 it takes a tenth of the cores under the lanes
VAST_IMAGE := $(call vm_img,vastnfs)/initrd.cpio
VAST_RC := $(O)/test-vast.rc

SAN_FLAGS := CFLAGS='-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all' \
	LDFLAGS='-fsanitize=address,undefined'
SAN_BINS := $(patsubst $(O)/%,$(O)/san/%,$(UNIT_BINS))

# The one test command: the unit tests plain and under sanitizers, a short run of every fuzzer,
# the host tests, then every VM test, then the core VM tests on 6.12 and 7 and with the fallback
# attach, and the refusal on 5.10; one closing line over all of them.
# What the default kernel's VM tests need is built first, $(NPROC) jobs at a time; the rest (the
# packages, the arm64 build, the sanitizer build, the fuzzers, the other kernels' images: the VM
# images under build-image's own locks on their shared apt lists and package cache) builds beside the first
# tests at a lower priority, and the tests that need it wait for it (@wait in run-tests.sh).
NPROC := $(shell nproc 2>/dev/null || echo 2)
LATE_RC := $(O)/test-late.rc
# VM tests of the late build's artifacts (test_caps: the .deb's binary; deb_systemd: the .deb
# installed, upgraded, removed and purged under Debian 12's own systemd, KERNEL=systemd)
VM_LATE := tests/vm/test_caps.sh tests/vm/deb_systemd.sh@systemd
# make test's short run of each fuzzer (its corpus carried from run to run in $(O)/fuzz: what the
# long runs found is replayed first); `make fuzz` keeps FUZZ_SECONDS
TEST_FUZZ_SECONDS ?= 4
test:
	$(Q)t0=$$(date +%s); \
	$(MAKE) --no-print-directory deps-test && \
	$(MAKE) --no-print-directory -j$(NPROC) test-early && \
	echo "  TIME     packages and the first build: $$(($$(date +%s) - t0)) s" && \
	TEST_T0=$$t0 $(MAKE) --no-print-directory test-run
.PHONY: test-early test-late test-build san-bins
test-early: unit-test-bins all vm-image tools
test-late: packages arm64 $(CORE_IMAGES) $(call vm_img,systemd)/initrd.cpio san-bins fuzzers image \
	$(O)/insncount.so $(O)/insnmark
test-build: test-early test-late $(VAST_IMAGE)
san-bins:
	$(Q)$(MAKE) --no-print-directory O=$(O)/san unit-test-bins $(SAN_FLAGS)
test-run: test-early
	$(Q)rm -f $(LATE_RC) $(VAST_RC); { t=$$(date +%s); nice -n 10 $(MAKE) --no-print-directory -j$(NPROC) test-late \
		>$(O)/test-late.log 2>&1; st=$$?; times >$(LATE_RC).times; echo "$$st $$(($$(date +%s) - t))" >$(LATE_RC); } &
	$(Q){ t=$$(date +%s); nice -n 10 $(MAKE) --no-print-directory $(VAST_IMAGE) >$(O)/test-vast.log 2>&1; \
		st=$$?; times >$(VAST_RC).times; echo "$$st $$(($$(date +%s) - t))" >$(VAST_RC); } &
	$(Q)FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) tests/run-tests.sh $(UNIT_BINS) $(filter-out $(VM_LATE),$(VM_TESTS)) \
		@wait:$(VAST_RC):$(O)/test-vast.log $(STACK_RUNS) @wait:$(LATE_RC):$(O)/test-late.log \
		$(SAN_BINS) $(HOST_TESTS) $(VM_LATE) $(LEVEL_RUNS) $(STALL_RUNS) $(SESSION_RUNS) $(CORE_RUNS) $(OLD_RUNS)

# Every VM test on each of KERNELS (default: 6.12 7; `default` is the default kernel); one closing line.
KERNELS ?= 6.12 7
test-kernels: all $(foreach k,$(KERNELS),$(call vm_img,$(k))/initrd.cpio)
	$(Q)tests/run-tests.sh $(call vm_runs,$(VM_TESTS),$(KERNELS))

# Every unit test under ASan and UBSan, in a tree of its own; a leak fails.
.PHONY: check
check:
	$(Q)$(MAKE) --no-print-directory O=$(O)/san unit-test $(SAN_FLAGS)

# libFuzzer targets for every parser, seeded from tests/fuzz/corpus; FUZZ_SECONDS each
FUZZ_SECONDS ?= 10
FUZZERS := $(patsubst tests/fuzz/%.c,$(O)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SRCS := $(filter-out user/run/main.c,$(wildcard user/*/*.c))
.PHONY: fuzz
fuzz: fuzzers
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) O=$(O) tests/host/test_fuzz.sh
# the sources compiled once, instrumented, and linked into every fuzzer
FUZZ_OBJS := $(patsubst user/%.c,$(O)/fuzz/obj/%.o,$(FUZZ_SRCS))
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined
$(O)/fuzz/obj/%.o: user/%.c | $(SKELS) deps-test
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D) && $(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS) -c $< -o $@
$(O)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS) | deps-test
	$(call msg,FUZZER,$@)
	$(Q)mkdir -p $(@D) && $(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined $(CPPFLAGS) \
		$< $(FUZZ_OBJS) -Wl,-Bstatic -lbpf -lelf -lz -lssl -lcrypto -lyaml -lcrypt -Wl,-Bdynamic -lm -o $@
.PHONY: fuzzers
fuzzers: $(FUZZERS)

include mk/bench.mk

# promtool and node_exporter, unpacked from Debian's packages
.PHONY: tools
tools: $(O)/tools/promtool
$(O)/tools/promtool: tools/fetch-tools.sh | deps-test
	$(Q)tools/fetch-tools.sh $(O)/tools

unit-test: unit-test-bins
	$(Q)tests/run-tests.sh $(UNIT_BINS)

vm-test: all vm-image
	$(Q)tests/run-tests.sh $(VM_TESTS)

# one test by name: `make unit T=test_hist`, `make vm T=test_core [KERNEL=6.12]`, `make host T=test_fleet`
.PHONY: unit vm host help
unit:
	$(Q)[ -f tests/unit/$(T).c ] || { echo "make unit: T=NAME, one of: $(notdir $(basename $(wildcard tests/unit/test_*.c)))"; exit 64; }
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(O)/tests/unit/$(T) $(O)/slotscope
	$(Q)tests/run-tests.sh $(O)/tests/unit/$(T)
vm:
	$(Q)[ -f tests/vm/$(T).sh ] || { echo "make vm: T=NAME [KERNEL=X], one of: $(notdir $(basename $(VM_TESTS)))"; exit 64; }
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all $(VM_IMG)/initrd.cpio $(if $(filter arm64,$(KERNEL)),arm64)
	$(Q)tests/run-tests.sh tests/vm/$(T).sh@$(KERNEL)
host:
	$(Q)[ -f tests/host/$(T).sh ] || { echo "make host: T=NAME, one of: $(notdir $(basename $(HOST_TESTS)))"; exit 64; }
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) unit-test-bins tools
	$(Q)tests/run-tests.sh tests/host/$(T).sh
help:
	@echo "slotscope: make targets a developer uses (O=DIR for the build directory, V=1 for commands)"
	@echo "  all              the binary, $(O)/slotscope"
	@echo "  deps             install the Debian packages a build needs (deps-test: the tests' too)"
	@echo "  demo             checkpoint writes over NFS/TCP and NFS/RDMA in VMs, traced (~5 min)"
	@echo "  test             everything CI runs (42-48 min from a clean clone with no cache here, as the machine's pace goes; CI's machine ran the same tests in 37 min); ends 'tests: N passed, N failed, N skipped'"
	@echo "  unit-test        the unit tests; check: the same under ASan and UBSan; fuzz: every fuzzer"
	@echo "  unit T=NAME      one unit test (tests/unit/NAME.c)"
	@echo "  host T=NAME      one host test (tests/host/NAME.sh)"
	@echo "  vm T=NAME        one VM test (tests/vm/NAME.sh); KERNEL=6.12, 7, arm64, 5.10 for another kernel"
	@echo "  vm-test          every VM test on the default kernel; test-kernels KERNELS=\"6.12 7\": on others"
	@echo "  level-truth      test_level_truth $(LEVEL_REPEAT) times on 6.1 and 6.12 in both designs"
	@echo "  bench            the overhead benchmark (not in CI, ~10 min a kernel); bench-insn: in guest instructions; bench-insn-lines: by source line; bench-jobcost: the jobs' time alone"
	@echo "  deb, rpm, arm64  the packages; the arm64 binary and packages"
	@echo "  packages         the .deb and the RPM from one compile"
	@echo "  k8s              the PrometheusRules, the dashboard's ConfigMap and the kustomize base and overlays (build/k8s; IMAGE=REGISTRY/slotscope)"
	@echo "  image            the container image, amd64 and arm64, as an OCI layout in build/oci (no daemon)"
	@echo "  install          PREFIX, DESTDIR as usual"
	@echo "  vmlinux          regenerate vmlinux.h from Debian's kernels (KERNEL_PKG=)"

.PHONY: unit-test-bins
# (tickbench: make bench-tick's, built here so a change of the map ABI cannot leave it behind)
unit-test-bins: $(UNIT_BINS) $(O)/slotscope $(O)/slotscope-faults $(O)/heapwatch.so $(O)/nullwrite $(O)/cachehog $(O)/tests/fleetgen $(O)/tests/snapgen $(O)/tests/tickbench

# one VM (TCP behind a slow server, RDMA credits), then two VMs joined by a wire (RDMA link)
demo:
	$(Q)$(MAKE) --no-print-directory deps-vm
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all vm-image
	$(Q)$(MAKE) --no-print-directory demo-run
demo-run: all vm-image
	$(Q)SLOTSCOPE_NO_MAKE=1 O=$(O) tools/vm/run tools/vm/demo.sh
	$(Q)SLOTSCOPE_NO_MAKE=1 O=$(O) VM_SERVER=tests/vm/server_rdma.sh tools/vm/run tools/vm/demo-rdma.sh

vmlinux: $(O)/btfmerge
	ARCH=$(ARCH) O=$(O) tools/gen-vmlinux.sh $(KERNEL_PKG) > $(VMLINUX_DIR)/vmlinux.h.tmp && \
		mv $(VMLINUX_DIR)/vmlinux.h.tmp $(VMLINUX_DIR)/vmlinux.h

install: all
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(O)/slotscope $(DESTDIR)$(SBINDIR)/slotscope
	$(Q)install -D -m 0644 slotscope.8 $(DESTDIR)$(MANDIR)/man8/slotscope.8
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)sed 's|/usr/sbin/slotscope|$(SBINDIR)/slotscope|' tools/systemd/slotscope.service \
		> $(DESTDIR)$(UNITDIR)/slotscope.service
	$(Q)install -D -m 0644 tools/systemd/slotscope.default $(DESTDIR)$(SYSCONFDIR)/default/slotscope
	$(Q)install -D -m 0644 tools/prometheus/slotscope.rules.yml \
		$(DESTDIR)$(DATADIR)/prometheus/slotscope.rules.yml
	$(Q)install -D -m 0644 tools/prometheus/slotscope-fleet.rules.yml \
		$(DESTDIR)$(DATADIR)/prometheus/slotscope-fleet.rules.yml
	$(Q)install -D -m 0644 tools/grafana/slotscope.json $(DESTDIR)$(DATADIR)/grafana/slotscope.json
	$(Q)install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	$(Q)for d in $(DOC_PAGES); do install -D -m 0644 docs/$$d $(DESTDIR)$(DOCDIR)/$$d || exit 1; done
	$(Q)install -D -m 0644 tools/systemd/60-slotscope.conf $(DESTDIR)$(DATADIR)/sysctl/60-slotscope.conf
	$(Q)install -d $(DESTDIR)$(DATADIR)/systemd
	$(Q)sed 's|/usr/sbin/slotscope|$(SBINDIR)/slotscope|' tools/systemd/listen.conf \
		> $(DESTDIR)$(DATADIR)/systemd/listen.conf
	$(Q)install -D -m 0644 tools/systemd/slotscope.sysusers $(DESTDIR)$(SYSUSERSDIR)/slotscope.conf
	$(Q)install -D -m 0644 tools/systemd/slotscope.tmpfiles $(DESTDIR)$(TMPFILESDIR)/slotscope.conf
	$(Q)install -D -m 0644 tools/completion/slotscope.bash $(DESTDIR)$(BASHCOMPDIR)/slotscope

uninstall:
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/slotscope $(DESTDIR)$(MANDIR)/man8/slotscope.8 $(DESTDIR)$(BASHCOMPDIR)/slotscope \
		$(DESTDIR)$(UNITDIR)/slotscope.service $(DESTDIR)$(SYSCONFDIR)/default/slotscope \
		$(DESTDIR)$(DATADIR)/prometheus/slotscope.rules.yml $(DESTDIR)$(DATADIR)/grafana/slotscope.json \
		$(DESTDIR)$(DATADIR)/prometheus/slotscope-fleet.rules.yml \
		$(DESTDIR)$(DATADIR)/sysctl/60-slotscope.conf $(DESTDIR)$(DATADIR)/systemd/listen.conf \
		$(DESTDIR)$(SYSUSERSDIR)/slotscope.conf \
		$(DESTDIR)$(TMPFILESDIR)/slotscope.conf $(DESTDIR)$(DOCDIR)/README.md \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_PAGES))
	$(Q)rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true
	$(Q)rmdir $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR)/grafana $(DESTDIR)$(DATADIR)/sysctl \
		$(DESTDIR)$(DATADIR)/systemd \
		$(DESTDIR)$(DATADIR) 2>/dev/null || true

include mk/package.mk

clean:
	$(call msg,CLEAN,$(O))
	$(Q)rm -rf $(O)/slotscope $(O)/slotscope-faults $(O)/heapwatch.so $(O)/nullwrite $(O)/cachehog $(O)/user $(O)/bpf $(O)/tests $(O)/*.skel.h $(O)/btfmerge $(O)/san

.DELETE_ON_ERROR:
.SECONDARY:
-include $(patsubst %.o,%.d,$(LIB_OBJS) $(O)/user/run/main.o) \
	 $(patsubst $(O)/%.skel.h,$(O)/bpf/%.bpf.d,$(SKELS)) \
	 $(addsuffix .d,$(UNIT_BINS)) $(O)/tests/fleet/fleetgen.d $(O)/tests/fleet/snapgen.d $(O)/bench/prombench.d $(O)/bench/tickbench.d $(O)/tests/faults/refuse.d

distclean:
	rm -rf $(O)
