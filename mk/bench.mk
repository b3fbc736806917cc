# The benchmarks (not in CI): bench-prom, bench-tick, bench, bench-insn, bench-ab, bench-report, their binaries

# the textfile writer's size and CPU for 1, 16 and 64 transports (host only, seconds)
$(O)/tests/prombench: $(O)/bench/prombench.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
.PHONY: bench-prom
bench-prom: $(O)/tests/prombench
	$(Q){ echo "# The textfile: size, series and writer CPU"; echo; \
	  echo "Reproduce: \`make bench-prom\` ($$(date -u +%F), $$(nproc) CPUs, $$(uname -r)). prom_write() of a"; \
	  echo "cumulative view with N RDMA transports, two mounts with a dozen ops each, every bucket"; \
	  echo "filled: render, fsync and rename into the build directory, mean of 200 writes (process CPU);"; \
	  echo "the JSON record: out_json() of the same view (one --json interval line) into /dev/null."; echo; \
	  $(O)/tests/prombench $(O); } > bench/PROM.md
	$(Q)cat bench/PROM.md

# one --json tick's user-space work with a textfile (model, JSON, textfile, ledger) for 1, 16 and
# 64 transports and 63 idle + 1 busy: CPU and minor faults per tick (host only, ~1 minute)
$(O)/tests/tickbench: $(O)/bench/tickbench.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
.PHONY: bench-tick
TICK_INSN ?= 21
bench-tick: $(O)/tests/tickbench $(O)/insncount.so
	$(call apt_install,qemu-user)
	$(Q){ echo "# One tick's user-space work"; echo; \
	  echo "Reproduce: \`make bench-tick\` ($$(date -u +%F), $$(nproc) CPUs, $$(uname -r)). What trace_tick()"; \
	  echo "does with a snapshot at 1 s \`--json\` ticks with a textfile, natively: the interval view with the"; \
	  echo "textfile's sums (model_build), the JSON line into /dev/null, prom_write() into the build"; \
	  echo "directory (render, fsync, rename), ledger_add(). N TCP transports (nconnect 16 to a server,"; \
	  echo "a mount each) with 6 ops each, every one busy, or 63 idle and one busy; synthetic snapshots"; \
	  echo "(bench/tickbench.c), no BPF, no links (as --no-rdma). Process CPU and minor page faults,"; \
	  echo "mean of $(or $(TICKS),300) ticks after the first. The output hash covers every byte of the JSON lines and"; \
	  echo "textfiles of 20 ticks: a change that keeps it keeps the output."; echo; \
	  $(O)/tests/tickbench $(O) $(or $(TICKS),300); \
	  echo; echo "The same ticks' user-space instructions, counted by bench/insncount.c under qemu-user"; \
	  echo "(\`qemu-x86_64 -plugin\`, Debian's qemu-user; tickbench marks each step's ends), mean of"; \
	  echo "$(TICK_INSN) ticks less the first: the same from run to run where time is not. The system"; \
	  echo "calls' kernel side (the textfile's write, fsync and rename) is not in them."; echo; \
	  qemu-x86_64 -plugin $(abspath $(O))/insncount.so,out=$(abspath $(O))/tick-insn.out \
	    $(O)/tests/tickbench $(O) $(TICK_INSN) >/dev/null && \
	  awk -v ticks=$(TICK_INSN) -f bench/tick-insn.awk $(O)/tick-insn.out; } > bench/TICK.md
	$(Q)cat bench/TICK.md

# The overhead benchmark (not in CI): bench/bench.sh on each of BENCH_KERNELS (the default 6.1
# and 6.12), ROUNDS alternating rounds each (default 2), ~10 minutes per kernel under TCG; then
# bench/RESULTS.md from every line of that one run. `make bench-report` remakes it from the
# kept lines (bench/rounds.txt).
BENCH_KERNELS ?= default 6.12
.PHONY: bench bench-report
bench: all $(foreach k,$(BENCH_KERNELS),$(call vm_img,$(k))/initrd.cpio)
	$(Q)rm -f $(O)/bench.txt
	$(Q)for k in $(BENCH_KERNELS); do \
	  kk=$$([ $$k = default ] || echo $$k); img=$$([ -z "$$kk" ] && echo $(O)/vm || echo $(O)/vm/k/$$k); \
	  KERNEL=$$kk SLOTSCOPE_NO_MAKE=1 VM_TIMEOUT=5400 VM_QUIET=1 O=$(O) tools/vm/run bench/bench.sh $(or $(ROUNDS),2) || \
	    { echo "make bench failed on $$k:"; grep -ah 'BENCH-FAIL' $$img/runs/bench/console.log | tr -d '\r'; \
	      echo "(the console: $$img/runs/bench/console.log)"; exit 1; }; \
	  grep -ah '^\(BENCH\|SCALE\|SERIAL\|PROG\|OWN\) ' $$img/runs/bench/console.log | tr -d '\r' >> $(O)/bench.txt; \
	done
	$(Q){ echo "# date $$(date -u +%F)"; cat $(O)/bench.txt; } >bench/rounds.txt
	$(Q)$(MAKE) --no-print-directory bench-report
# Instructions per RPC, counted by qemu's TCG plugin interface (bench/insncount.c, built against
# the plugin header of Debian's qemu source: bench/qemu-header.sh) in a guest whose vCPUs run one
# at a time: bench/insn.sh ROUNDS rounds (default 3) on each of BENCH_KERNELS, bench/insn.awk per
# write, bench/insn-rounds.txt and bench/INSN.md (~15 minutes per kernel under TCG)
.PHONY: bench-insn
$(O)/qemu-plugin/qemu-plugin.h: bench/qemu-header.sh
	$(Q)bench/qemu-header.sh $(O)/qemu-plugin
$(O)/insncount.so: bench/insncount.c $(O)/qemu-plugin/qemu-plugin.h
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -shared -fPIC -I$(O)/qemu-plugin $< -o $@
$(O)/insnmark: bench/insnmark.S
	$(call msg,AS,$@)
	$(Q)$(CC) -nostdlib -static $< -o $@
INSN_REL = $(patsubst $(CURDIR)/%,%,$(abspath $(O)))
# the rounds alone, into $(O)/insn.txt: INSN_ENV (bench/insn.sh's INSN_MOUNTS, INSN_TRACERS,
# INSN_WAITS_ON) picks a part of the matrix
.PHONY: bench-insn-rounds bench-jobcost
bench-insn-rounds: all $(O)/insncount.so $(O)/insnmark $(foreach k,$(BENCH_KERNELS),$(call vm_img,$(k))/initrd.cpio)
	$(Q)rm -f $(O)/insn.txt
	$(Q)for k in $(BENCH_KERNELS); do \
	  kk=$$([ $$k = default ] || echo $$k); img=$$([ -z "$$kk" ] && echo $(O)/vm || echo $(O)/vm/k/$$k); \
	  KERNEL=$$kk SLOTSCOPE_NO_MAKE=1 VM_TIMEOUT=5400 VM_QUIET=1 O=$(O) VM_ENV="$(INSN_ENV)" \
	    VM_PLUGIN=$(abspath $(O))/insncount.so,out=$(abspath $(O))/insn-$$k.out \
	    tools/vm/run bench/insn.sh $(or $(ROUNDS),3) /src/$(INSN_REL)/insnmark || \
	    { echo "make bench-insn failed on $$k:"; grep -ah 'BENCH-FAIL' $$img/runs/insn/console.log | tr -d '\r'; \
	      echo "(the console: $$img/runs/insn/console.log)"; exit 1; }; \
	  grep -ah '^\(H*RANGE\|INSN\|WAITS\) ' $$img/runs/insn/console.log | tr -d '\r' >$(O)/insn-$$k.lines; \
	  grep -h '^WAITS ' $(O)/insn-$$k.lines >>$(O)/insn.txt; \
	  gawk -f bench/insn.awk $(O)/insn-$$k.lines $(O)/insn-$$k.out >>$(O)/insn.txt || exit 1; \
	done
# The jobs' time alone (#63): slotscope less slotscope --no-jobs in the same boot, one O_DIRECT
# writer (nothing waits), one round, on BENCH_KERNELS over TCP and RDMA (~6 min): $(O)/jobcost.txt
bench-jobcost:
	$(Q)$(MAKE) --no-print-directory bench-insn-rounds ROUNDS=1 \
	  INSN_ENV="INSN_WAITS_ON=none INSN_TRACERS=none,slotscope,slotscope-tp,slotscope-nojobs"
	$(Q)awk -f bench/jobcost.awk $(O)/insn.txt | tee $(O)/jobcost.txt
bench-insn: bench-insn-rounds
	$(Q)cp $(O)/insn.txt bench/insn-rounds.txt
	$(Q){ echo "# Instructions per RPC, counted"; echo; \
	  echo "Reproduce: \`make bench-insn ROUNDS=$(or $(ROUNDS),3)\` ($$(date -u +%F), qemu $$(dpkg-query -W -f '$${Version}' qemu-system-x86) TCG, 2 vCPUs run one at a time, the insncount plugin)."; \
	  echo; awk -f bench/insn-report.awk bench/insn-rounds.txt; echo; echo "Raw rounds: bench/insn-rounds.txt"; } >bench/INSN.md
	$(Q)cat bench/INSN.md
# Where the instructions go (not a figure of record: a developer's profile): one round of
# bench/insn.sh on KERNEL's image for INSN_TRACERS (default slotscope and slotscope-nojobs) on
# INSN_MOUNTS (default /mnt/tcp), each program's JIT image and lines dumped (bench/jitlines.c),
# then bench/insn-lines.py per tracer, mount and write: build/insn-lines/*.txt
INSN_LINES_TRACERS ?= slotscope,slotscope-nojobs
INSN_LINES_MOUNTS ?= /mnt/tcp
.PHONY: bench-insn-lines
$(O)/jitlines: bench/jitlines.c
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -static $< -o $@ -lbpf -lelf -lz
bench-insn-lines: all $(O)/insncount.so $(O)/insnmark $(O)/jitlines $(VM_IMG)/initrd.cpio
	$(Q)rm -rf $(O)/insn-lines && mkdir -p $(O)/insn-lines
	$(Q)KERNEL=$(KERNEL) SLOTSCOPE_NO_MAKE=1 VM_TIMEOUT=3600 VM_QUIET=1 VM_BPFTRACE=0 O=$(O) VM_OUT=$(abspath $(O))/insn-lines/run \
	  VM_ENV="INSN_MOUNTS=$(INSN_LINES_MOUNTS) INSN_TRACERS=$(INSN_LINES_TRACERS) INSN_JIT_TOOL=/src/$(INSN_REL)/jitlines" \
	  VM_PLUGIN=$(abspath $(O))/insncount.so,out=$(abspath $(O))/insn-lines/plugin.out \
	  tools/vm/run bench/insn.sh 1 /src/$(INSN_REL)/insnmark >/dev/null || \
	  { echo "make bench-insn-lines failed: $(O)/insn-lines/run/console.log"; exit 1; }
	$(Q)for t in $$(echo $(INSN_LINES_TRACERS) | tr , ' '); do for m in $$(echo $(INSN_LINES_MOUNTS) | tr , ' '); do \
	  for w in serial waits; do \
	    bench/insn-lines.py $(O)/insn-lines/run/console.log $(O)/insn-lines/plugin.out \
	      $(O)/insn-lines/run/jit-$$t-1-$${m##*/}.txt $$t $$m $$w >$(O)/insn-lines/$$t-$${m##*/}-$$w.txt || exit 1; \
	    head -n 1 $(O)/insn-lines/$$t-$${m##*/}-$$w.txt; \
	  done; done; done
	$(Q)echo "per program, source file and line: $(O)/insn-lines/*.txt"
# An A/B of slotscope builds on the path every RPC takes, in one boot of KERNEL's image:
# bench/ab.sh with BINS (binaries under the source tree, e.g. "build/ab/old build/slotscope"),
# ROUNDS interleaved rounds (default 3); each program's median ns per run (bench/ab.awk).
.PHONY: bench-ab
bench-ab: all $(VM_IMG)/initrd.cpio
	$(Q)[ -n "$(BINS)" ] || { echo "make bench-ab: BINS=\"build/ab/old build/slotscope\" (binaries under the source tree)"; exit 64; }
	$(Q)KERNEL=$(KERNEL) SLOTSCOPE_NO_MAKE=1 VM_TIMEOUT=3600 VM_QUIET=1 O=$(O) tools/vm/run bench/ab.sh $(or $(ROUNDS),3) \
	  $(addprefix /src/,$(BINS)) || { echo "make bench-ab failed: $(VM_IMG)/runs/ab/console.log"; exit 1; }
	$(Q)grep -a '^AB' $(VM_IMG)/runs/ab/console.log | tr -d '\r' | awk -f bench/ab.awk
bench-report:
	$(Q){ echo "# slotscope overhead benchmark"; echo; \
	  echo "Reproduce: \`make bench ROUNDS=$(or $(ROUNDS),2)\` ($$(sed -n 's/^# date //p' bench/rounds.txt | grep . || echo undated), kernels: $$(awk '$$1 != "#" {print $$2}' bench/rounds.txt | sort -u | paste -sd' '), qemu TCG, 2 vCPUs)."; \
	  echo; cat bench/insn-why.md; echo; awk -f bench/report.awk bench/rounds.txt; echo; cat bench/why.md; echo; \
	  echo "Raw rounds: bench/rounds.txt"; } > bench/RESULTS.md
	$(Q)cat bench/RESULTS.md
