#!/usr/bin/env python3
"""Builds and runs programs of HeCBench (github.com/zjin-lcf/HeCBench) on
gpuh's CPU simulator (tools/gpuh-simcc): a large public collection of CUDA
benchmarks that gpuh was not written against.

    tests/samples/hecbench.py PATH [--draw N] [--seed S] [--only a,b] [-j N] [--list] [--keep DIR]

PATH is a HeCBench checkout. The set is every src/NAME-cuda program that
  - checks itself (its sources print PASS or FAIL),
  - is built from its own folder (its Makefile's `source =` list, no ../ path),
  - has the input files its run names (HeCBench keeps large ones out of git),
  - needs nothing beside the CUDA runtime: the rules below leave out cuBLAS,
    cuFFT, cuSPARSE, cuRAND's host API, Thrust, CUB, inline PTX, tensor-core
    mma/wmma, OpenMP and MPI, each with its reason (--list prints them).
--draw N runs N programs drawn from the set at random (--seed repeats a draw;
default: the whole set). Each is built as its Makefile builds it (its sources,
its -D and -I options) with gpuh-simcc, and run in its folder with the
arguments of its Makefile's `run` target made small by one rule (SHRINK),
under a 120 s limit, on the CPU threads the machine has. It passes when it
exits with 0, prints no FAIL, and prints PASS (any case) if its sources can
(some print only FAIL, on a failure). Not part of CTest or
CI: the collection is large, and a run takes tens of minutes on 2 cores.
"""
import argparse
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SIMCC = os.path.join(HERE, "..", "..", "tools", "gpuh-simcc")
LIMIT_S = 120

# (reason, regular expression over the Makefile and the sources); the first match leaves a program out.
RULES = [
    ("a library beside the runtime (cuBLAS, cuFFT, cuSPARSE, cuSOLVER, cuRAND host, cuDNN, NCCL)",
     r"-l(cublas|cufft|cusparse|cusolver|curand|cudnn|nccl)\b|#\s*include\s*[<\"](cublas|cufft|cusparse|cusolver|"
     r"curand\.h|cudnn|nccl)"),
    ("Thrust or CUB", r"#\s*include\s*[<\"](thrust|cub)/|\bcub::"),
    ("inline PTX (asm)", r"\basm\s*(volatile\s*)?\("),
    ("tensor-core mma/wmma", r"\bwmma::|#\s*include\s*[<\"]mma\.h|\bmma_sync\b"),
    ("OpenMP or MPI beside CUDA", r"-fopenmp|#\s*include\s*[<\"](omp|mpi)\.h"),
    ("the driver API or NVRTC", r"-lcuda\b|-lnvrtc|\bcu(Module|LaunchKernel|Ctx)\w*\s*\("),
    ("sources or data outside its folder", r"\.\./"),
]

# The one rule that makes a GPU-sized run CPU-sized: every number of the run
# target's arguments from 4096 up is divided by 64 (a power of two stays one),
# and a last argument from 10 up (HeCBench's repeat count) becomes 2.
def shrink(args):
    out = list(args)
    for i, a in enumerate(out):
        if re.fullmatch(r"\d+", a) and int(a) >= 4096:
            out[i] = str(max(int(a) // 64, 64))
    if out and re.fullmatch(r"\d+", out[-1]) and int(out[-1]) >= 10:
        out[-1] = "2"
    return out


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def makefile_parts(d):
    """(sources, compile options, run arguments) from the program's Makefile, or None."""
    mk = os.path.join(d, "Makefile")
    if not os.path.isfile(mk):
        return None
    text = read(mk).replace("\\\n", " ")
    m = re.search(r"^source\s*=\s*(.*)$", text, re.M)
    if not m:
        return None
    sources = m.group(1).split()
    # the -D and -I of CFLAGS, as make reads them: ifeq ($(VAR),value) blocks decided by the Makefile's own values
    values = dict(re.findall(r"^(\w+)\s*[:?]?=[ \t]*(\S*)[ \t]*$", text, re.M))
    active, kept = [True], []
    for line in text.splitlines():
        cond = re.match(r"\s*(ifeq|ifneq)\s*\(\$\((\w+)\)\s*,\s*([^)]*)\)", line)
        if cond:
            same = values.get(cond.group(2), "") == cond.group(3).strip()
            active.append(active[-1] and same == (cond.group(1) == "ifeq"))
        elif re.match(r"\s*else\b", line) and len(active) > 1:
            active[-1] = active[-2] and not active[-1]
        elif re.match(r"\s*endif\b", line) and len(active) > 1:
            active.pop()
        elif active[-1]:
            m2 = re.match(r"\s*(?:CFLAGS|CXXFLAGS)\s*[:+]?=\s*(.*)$", line)
            if m2:
                kept.append(m2.group(1))
    flags = [f for f in re.findall(r"(?<!\S)(-D\S+|-I\S+)", " ".join(kept)) if "$(" not in f]
    run = re.search(r"^run\s*:[^\n]*\n\t([^\n]*)", text, re.M)
    args = []
    if run:
        words = shlex.split(run.group(1).replace("$(LAUNCHER)", ""), posix=True)
        if words and words[0].startswith("./"):
            args = words[1:]
    return sources, flags, args


def judge(d):
    """(program's parts, None) if it is in the set, else (None, reason)."""
    parts = makefile_parts(d)
    if parts is None:
        return None, "no Makefile with a source list"
    texts = [read(os.path.join(d, "Makefile"))]
    for f in sorted(os.listdir(d)):
        if f.endswith((".cu", ".cuh", ".h", ".hpp", ".cpp", ".c")):
            texts.append(read(os.path.join(d, f)))
    text = "\n".join(texts)
    for reason, rule in RULES:
        if re.search(rule, text):
            return None, reason
    if not re.search(r"PASS|FAIL", text):
        return None, "no check of its own (prints no PASS or FAIL)"
    if any(not os.path.isfile(os.path.join(d, s)) for s in parts[0]):
        return None, "a source its Makefile names is missing"
    for a in parts[2]:  # HeCBench keeps large inputs out of git (DVC): a file the run names must be there
        if re.fullmatch(r"[\w./-]*[A-Za-z_][\w-]*\.[A-Za-z]\w*|[\w.-]*/[\w./-]+", a) and not os.path.exists(
                os.path.join(d, a)):
            return None, "an input file not in the checkout (%s)" % a
    return parts + (bool(re.search(r"PASS", text, re.I)),), None


def run_one(root, name, parts, keep):
    d = os.path.join(root, "src", name + "-cuda")
    sources, flags, args, says_pass = parts
    flags = ["-I" + os.path.join(d, f[2:]) if f.startswith("-I") and not os.path.isabs(f[2:]) else f for f in flags]
    args = shrink(args)
    out_dir = keep or tempfile.mkdtemp(prefix="hecbench-")
    exe = os.path.join(out_dir, name)
    t0 = time.time()
    build = subprocess.run([sys.executable, SIMCC, "-std=c++17", "-I" + d] + flags +
                           [os.path.join(d, s) for s in sources] + ["-o", exe],
                           capture_output=True, text=True, errors="replace")
    built_s = time.time() - t0
    if build.returncode != 0:
        first = next((l for l in build.stderr.splitlines() if "error" in l), build.stderr.strip()[-200:])
        return name, "build", built_s, 0.0, args, first
    t0 = time.time()
    try:
        r = subprocess.run([exe] + args, cwd=d, capture_output=True, text=True, errors="replace", timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return name, "timeout", built_s, time.time() - t0, args, ""
    ran_s = time.time() - t0
    out = r.stdout + r.stderr
    ok = r.returncode == 0 and (re.search(r"pass", out, re.I) or not says_pass) and not re.search(r"\bFAIL", out)
    why = "" if ok else "exit %d: %s" % (r.returncode, " | ".join(l for l in out.splitlines()[-3:]))
    return name, "pass" if ok else "fail", built_s, ran_s, args, why[:300]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("--draw", type=int, default=0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--only", default="")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    names = sorted(n[: -len("-cuda")] for n in os.listdir(os.path.join(a.root, "src")) if n.endswith("-cuda"))
    chosen, left = {}, {}
    for n in names:
        parts, why = judge(os.path.join(a.root, "src", n + "-cuda"))
        if parts is None:
            left[n] = why
        else:
            chosen[n] = parts
    if a.list:
        print("in the set (%d): %s" % (len(chosen), " ".join(sorted(chosen))))
        for n in sorted(left):
            print("left out %s: %s" % (n, left[n]))
        return 0
    todo = sorted(chosen)
    if a.only:
        todo = [n for n in a.only.split(",") if n in chosen]
    elif a.draw:
        seed = a.seed if a.seed is not None else random.randrange(1 << 30)
        print("draw of %d from %d programs, --seed %d repeats it" % (a.draw, len(chosen), seed))
        todo = sorted(random.Random(seed).sample(todo, min(a.draw, len(todo))))
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    counts = {}
    with ThreadPoolExecutor(max_workers=a.j) as pool:
        for name, verdict, built_s, ran_s, args, why in pool.map(
                lambda n: run_one(a.root, n, chosen[n], a.keep), todo):
            counts[verdict] = counts.get(verdict, 0) + 1
            print("%-28s %-8s build %5.1f s  run %6.1f s  args %s%s" % (
                name, verdict, built_s, ran_s, " ".join(args) or "-", ("  " + why) if why else ""), flush=True)
    total = sum(counts.values())
    print("%d programs: %d pass, %d fail, %d time out (%d s), %d do not build" % (
        total, counts.get("pass", 0), counts.get("fail", 0), counts.get("timeout", 0), LIMIT_S,
        counts.get("build", 0)))
    return 0 if counts.get("pass", 0) == total else 1


if __name__ == "__main__":
    sys.exit(main())
