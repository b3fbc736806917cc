#!/usr/bin/env python3
"""bench/insn-lines.py CONSOLE PLUGIN_OUT JIT TRACER MOUNT WRITE: where a tracer's guest
instructions per RPC go, by source line and by source file (make bench-insn-lines).

CONSOLE: the VM's console (bench/insn.sh's INSN lines name the two marks around each write and
the RPCs mountstats counted); PLUGIN_OUT: the insncount plugin's blocks run between marks; JIT:
bench/jitlines' dump of the programs loaded for that write. Each block the plugin counted inside
a JIT image is walked instruction by instruction (objdump of the image's bytes), and each
instruction is put on the last line_info record at or before it. The kernel's side (helpers,
map operations, the tracepoints' and trampolines' entry) is not in a JIT image: bench/INSN.md's
"helpers" column counts it.
"""
import bisect
import collections
import os
import subprocess
import sys
import tempfile


def write_marks(console, tracer, mount, write):
    for line in open(console, errors="replace"):
        q = line.replace("\r", "").split()
        if len(q) >= 10 and q[0] == "INSN" and q[2] == mount and q[3] == tracer and q[5] == write:
            return int(q[7]), int(q[8])
    sys.exit(f"insn-lines: no INSN line for {tracer} {mount} {write} in {console}")


def jit_dump(path):
    funcs, lines = {}, []
    for line in open(path):
        p = line.rstrip("\n").split(" ", 3)
        if p[0] == "JF":
            funcs[int(p[1], 16)] = [int(p[2]), p[3], None]
        elif p[0] == "JX" and int(p[1], 16) in funcs:
            funcs[int(p[1], 16)][2] = bytes.fromhex(p[2].strip())
        elif p[0] == "JL":
            lines.append((int(p[1], 16), p[2], p[3] if len(p) > 3 else ""))
    lines.sort()
    return funcs, lines


def disassemble(funcs):
    """[(address, program name)] of every instruction of every function, in address order"""
    insns = []
    for addr, (_, name, image) in funcs.items():
        if not image:
            continue
        with tempfile.NamedTemporaryFile(suffix=".bin") as t:
            t.write(image)
            t.flush()
            out = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                                  f"--adjust-vma={addr:#x}", t.name],
                                 capture_output=True, text=True, check=True).stdout
        for ol in out.splitlines():
            q = ol.split("\t")
            head = q[0].strip()
            if len(q) >= 3 and head.endswith(":"):
                try:
                    insns.append((int(head[:-1], 16), name))
                except ValueError:
                    pass
    insns.sort()
    return insns


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__.splitlines()[0])
    console, plugin, jit, tracer, mount, write = sys.argv[1:]
    to, rpcs = write_marks(console, tracer, mount, write)
    if not rpcs:
        sys.exit(f"insn-lines: no RPCs counted for {tracer} {mount} {write}")
    funcs, lines = jit_dump(jit)
    insns = disassemble(funcs)
    addrs = [a for a, _ in insns]
    runs = collections.Counter()
    mark = None
    for line in open(plugin):
        p = line.split()
        if p[0] == "M":
            mark = int(p[1])
        elif p[0] == "B" and mark == to:
            # the plugin prints the full address; kernel addresses share the top 16 bits
            a = int(p[1], 16) | 0xffff000000000000
            i = bisect.bisect_left(addrs, a)
            if i < len(addrs) and addrs[i] == a:
                for j in range(i, min(i + int(p[2]), len(addrs))):
                    runs[j] += int(p[3])
    laddr = [a for a, _, _ in lines]
    by_line, by_file, by_prog = collections.Counter(), collections.Counter(), collections.Counter()
    text = {}
    for j, n in runs.items():
        a, prog = insns[j]
        k = bisect.bisect_right(laddr, a) - 1
        where = lines[k][1] if k >= 0 else "?"
        text[(prog, where)] = lines[k][2] if k >= 0 else ""
        by_line[(prog, where)] += n
        by_file[where.split(":")[0]] += n
        by_prog[prog] += n
    total = sum(by_prog.values())
    print(f"# {tracer} {mount} {write}: {rpcs} RPCs, {total / rpcs:.0f} BPF instructions per RPC")
    print("\n## per program")
    for prog, n in by_prog.most_common():
        print(f"{n / rpcs:8.1f}  {prog}")
    print("\n## per source file")
    for f, n in by_file.most_common():
        print(f"{n / rpcs:8.1f}  {f}")
    print("\n## per source line")
    for (prog, where), n in by_line.most_common(int(os.environ.get("TOP", "60"))):
        print(f"{n / rpcs:8.1f}  {prog[:16]:16} {where:24} {text[(prog, where)][:80]}")


if __name__ == "__main__":
    main()
