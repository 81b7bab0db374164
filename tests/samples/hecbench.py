#!/usr/bin/env python3
"""Builds and runs programs of HeCBench (github.com/zjin-lcf/HeCBench) on
gpuh's CPU simulator (tools/gpuh-simcc): a large public collection of CUDA
benchmarks that gpuh was not written against.

    tests/samples/hecbench.py PATH [--draw N] [--seed S] [--only a,b] [-j N] [--list] [--keep DIR]

PATH is a HeCBench checkout. The set is every src/NAME-cuda program that
  - checks itself (its sources print PASS or FAIL),
  - is built from its own folder (its Makefile's `source =` list, no ../ path),
  - needs nothing beside the CUDA runtime: the rules below leave out cuBLAS,
    cuFFT, cuSPARSE, cuRAND's host API, Thrust, CUB, inline PTX, tensor-core
    mma/wmma, OpenMP and MPI, each with its reason (--list prints them).
--draw N runs N programs drawn from the set at random (--seed repeats a draw;
default: the whole set). Each is built as its Makefile builds it (its sources,
its -D and -I options) with gpuh-simcc, and run in its folder with the
arguments of its Makefile's `run` target made small (shrink, by a factor
that a search per program sets: FACTORS), within 120 s of run time in all,
on the CPU threads the machine has. It passes when it
exits with 0, prints no FAIL, and prints PASS (any case) if its sources can
(some print only FAIL, on a failure). A program whose inputs the checkout
does not have (a file its run names is absent, or a DVC file beside its
sources names an archive that is not there: HeCBench keeps large inputs in
DVC, out of git) is built but not run, and counted as "no input": it stays
in the count, it does not pass. So is one whose PASS and FAIL lines the
build leaves out (preprocessor branches its Makefile does not enable, as
jaccard's #ifdef DEBUG): "no check". Not part of CTest or
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

# The rule that makes a GPU-sized run CPU-sized, with a factor f (a power of
# two): every number of the run target's arguments from 4096 up (alone or as
# the value of -x=N) is divided by f where f divides it, else by the largest
# power of two below f that divides it, so that the divisibility a program
# asks of its sizes (a multiple of its tile) survives; a number no power of
# two divides is divided by f; none goes below 64. With small, the sizes of a
# program whose arguments are all below 4096 (hadamard's batch of 1024):
# every number from 32 up is divided the same way, to no less than 16.
# HeCBench's repeat count (repeat_at) becomes `repeat` (REPEATS[0]), whatever
# f, or stays as it was where that is smaller.
def shrink(args, f, repeat=None, small=False, at=-1):
    repeat = REPEATS[0] if repeat is None else repeat
    def smaller(n):
        if n < (32 if small else 4096) or f == 1:
            return n
        d = f
        while d > 1 and n % d:
            d //= 2
        return max(n // (d if d > 1 else f), 64 if n >= 4096 else 16)

    at = repeat_at(args) if at == -1 else at
    out = [re.sub(r"^(-[\w-]+=)?(\d+)$", lambda m: (m.group(1) or "") + str(
        min(repeat, int(m.group(2))) if i == at else smaller(int(m.group(2)))), a) for i, a in enumerate(args)]
    return out


def repeat_at(args, usage=None):
    """The index in args of HeCBench's repeat count, or None. Where the
    program's usage line names as many arguments as the run has
    (usage_names), the last number whose name says repeat, iterations,
    steps (nt), loops, times, runs or passes (threadfence's `<repeat> <array
    length>`), and none where no name says so (lfib4's `<n>`, fsm's
    `trace_length`, overlay's `<width> <height>`).
    Otherwise its last argument, from 10 up, where it is a number that is not
    an option's value (`./main 2048 100`), or an option's value below 4096
    written -x=N (compute-score's -p=1000, histogram's --i=100; from 4096 up
    -x=N is a size: tridiagonal's -num_systems=524288)."""
    if not args:
        return None
    if usage and len(usage) == len(args):
        hits = [i for i, u in enumerate(usage) if re.search(r"repeat|iter|step|loop|times|pass|\bruns?\b|^nt$", u, re.I)
                and re.fullmatch(r"(-[\w-]+=)?\d+", args[i])]
        return hits[-1] if hits else None
    m = re.fullmatch(r"(-[\w-]+=)?(\d+)", args[-1])
    if not m or int(m.group(2)) < 10:
        return None
    if m.group(1):
        return len(args) - 1 if int(m.group(2)) < 4096 else None
    if len(args) > 1 and re.fullmatch(r"-[A-Za-z][\w-]*", args[-2]):
        return None
    return len(args) - 1


def usage_names(texts, n):
    """The names its usage line gives the program's n arguments, or None: the
    first line that says usage whose string literals, after the word, name n
    arguments, <name> each, else as words after %s (`usage: %s trace_length`)."""
    for text in texts:
        for line in re.findall(r"^.*\busage\b.*$", text, re.I | re.M):
            lit = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', line))
            lit = re.sub(r"\\[nt]", " ", lit)
            tail = re.split(r"usage\s*:?", lit, maxsplit=1, flags=re.I)[-1]
            names = re.findall(r"<([^<>]+)>", tail)
            if not names and "%s" in tail:
                names = tail.split("%s", 1)[1].split()
            if len(names) == n:
                return names
    return None


# The search over f, per program, within LIMIT_S of run time in all: it
# starts at FIRST; a run that times out tries a 4 times larger f (less work),
# one that fails tries a 4 times smaller f (the program may have rejected
# sizes too small for it), until one passes or the next f was tried or is out
# of FACTORS; where that ends in a time-out, the search starts again at FIRST
# with shrink's small rule (the work is in numbers below 4096), if that
# changes the arguments. A run that a smaller one may follow gets half the
# time left. The program passes if one run passes.
FACTORS = [1, 4, 16, 64, 256, 1024, 4096]
FIRST = 64
# Repeat counts in turn: a run that fails with the repeat count lowered is
# made again at the same sizes with the next one (a program may ask for more
# steps than 2: nbody's integration wants 3), up to the Makefile's own count,
# before the search changes the sizes; if none of them passes, the search
# goes on with REPEATS[0]. Only the first failing sizes climb the counts.
REPEATS = [2, 8, 32]


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
    at = repeat_at(parts[2], usage_names(texts[1:], len(parts[2])))
    return parts + (bool(re.search(r"PASS", text, re.I)), missing_inputs(d, parts[2]), at), None


def input_files(args):
    """The arguments of a run that name files: a name with an extension, or a path."""
    return [a for a in args if re.fullmatch(r"[\w./-]*[A-Za-z_][\w-]*\.[A-Za-z]\w*|[\w.-]*/[\w./-]+", a)]


def compressed(path):
    """path + .bz2, .gz or .xz where the checkout ships a file compressed (mcpr's alphas.csv.bz2), or None."""
    return next((path + z for z in (".bz2", ".gz", ".xz") if os.path.isfile(path + z)), None)


def run_folder(d, args, out_dir, name):
    """The folder a program runs in: d itself, or, where a file its run names is shipped
    compressed, a folder of links to d's entries with that file decompressed beside them."""
    packed = [(a, compressed(os.path.join(d, a))) for a in input_files(args) if not os.path.exists(os.path.join(d, a))]
    packed = [(a, z) for a, z in packed if z]
    if not packed:
        return d
    import bz2, gzip, lzma, shutil
    run = os.path.join(out_dir, name + "-run")
    os.makedirs(run, exist_ok=True)
    for e in os.listdir(d):
        if not os.path.lexists(os.path.join(run, e)):
            os.symlink(os.path.join(d, e), os.path.join(run, e))
    for a, z in packed:
        target = os.path.join(run, a)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        opener = {".bz2": bz2.open, ".gz": gzip.open, ".xz": lzma.open}[os.path.splitext(z)[1]]
        with opener(z, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return run


def missing_inputs(d, args):
    """What the program in folder d, run with args, reads that the checkout lacks, or "":
    a file its run names (a name with an extension, or a path), or what a DVC file
    beside its sources names (HeCBench keeps its larger inputs in DVC, out of git:
    data.tar.gz.dvc names data.tar.gz) when neither the archive nor a folder of its
    name without the extension is there."""
    for a in input_files(args):
        if not os.path.exists(os.path.join(d, a)) and not compressed(os.path.join(d, a)):
            return "%s is not in the checkout" % a
    for f in sorted(os.listdir(d)):
        if not f.endswith(".dvc"):
            continue
        for out in re.findall(r"^\s*-?\s*path:\s*(\S+)", read(os.path.join(d, f)), re.M):
            stem = re.sub(r"(\.tar)?\.(gz|bz2?|xz|zip|tgz)$", "", out)
            if not os.path.exists(os.path.join(d, out)) and not os.path.isdir(os.path.join(d, stem)):
                return "its inputs are in DVC (%s names %s), not in the checkout" % (f, out)
    return ""


def checks_in_build(d, sources, flags):
    """Whether the program in folder d, preprocessed as its Makefile builds it (gpuh-simcc -E
    with its -D and -I options), still holds a PASS or FAIL of its own: HeCBench's jaccard
    prints its verdict only under #ifdef DEBUG, which its default build leaves undefined.
    The preprocessor's line markers tell the program's own lines from the headers'."""
    own = []
    for s in sources:
        pre = subprocess.run([sys.executable, SIMCC, "-std=c++17", "-E", "-I" + d] + flags + [os.path.join(d, s)],
                             capture_output=True, text=True, errors="replace")
        if pre.returncode != 0:
            return True  # no answer: the sources' own words stand
        mine = True
        for line in pre.stdout.splitlines():
            marker = re.match(r'#\s*\d+\s+"([^"]*)"', line)
            if marker:
                mine = os.path.abspath(marker.group(1)).startswith(os.path.abspath(d) + os.sep)
            elif mine:
                own.append(line)
    return bool(re.search(r"PASS|FAIL", "\n".join(own)))


def run_one(root, name, parts, keep):
    d = os.path.join(root, "src", name + "-cuda")
    sources, flags, args, says_pass, missing, at = parts
    flags = ["-I" + os.path.join(d, f[2:]) if f.startswith("-I") and not os.path.isabs(f[2:]) else f for f in flags]
    out_dir = keep or tempfile.mkdtemp(prefix="hecbench-")
    exe = os.path.join(out_dir, name)
    t0 = time.time()
    build = subprocess.run([sys.executable, SIMCC, "-std=c++17", "-I" + d] + flags +
                           [os.path.join(d, s) for s in sources] + ["-o", exe],
                           capture_output=True, text=True, errors="replace")
    built_s = time.time() - t0
    if build.returncode != 0:
        first = next((l for l in build.stderr.splitlines() if "error" in l), build.stderr.strip()[-200:])
        return name, "build", built_s, 0.0, shrink(args, FIRST, at=at), first
    if missing:
        return name, "no input", built_s, 0.0, args, missing
    if not checks_in_build(d, sources, flags):
        return name, "no check", built_s, 0.0, args, "its PASS and FAIL lines are left out of the build its " \
            "Makefile makes (preprocessor branches it does not enable)"
    cwd = run_folder(d, args, out_dir, name)
    k, left, tried, trail = FACTORS.index(FIRST), float(LIMIT_S), {}, []
    full = None if at is None else int(re.sub(r"^-[\w-]+=", "", args[at]))  # the Makefile's repeat count
    rep = 0  # the index in REPEATS of the repeat count in use
    climb = full is not None  # the repeat counts are tried once, at the first sizes that fail
    small = False  # shrink's rule for sizes below 4096, once the sizes from 4096 up cannot go lower
    while True:
        f = FACTORS[k]
        run_args = shrink(args, f, REPEATS[rep], small, at)
        key = tuple(run_args)
        if key in tried:  # a factor that changes no argument: the same run as one already made
            verdict, why = tried[key]
        else:
            nexts = [shrink(args, FACTORS[k + 1], REPEATS[rep], small, at)] if k + 1 < len(FACTORS) else []
            if not small:
                nexts.append(shrink(args, FIRST, REPEATS[rep], True, at))
            smaller = any(tuple(n) not in tried and n != run_args for n in nexts)
            limit = left / 2 if smaller else left
            t0 = time.time()
            try:
                r = subprocess.run([exe] + run_args, cwd=cwd, capture_output=True, text=True, errors="replace",
                                   timeout=limit)
                out = r.stdout + r.stderr
                ok = r.returncode == 0 and (re.search(r"pass", out, re.I) or not says_pass) and not re.search(
                    r"\bFAIL", out)
                verdict = "pass" if ok else "fail"
                why = "" if ok else "exit %d: %s" % (r.returncode, " | ".join(l for l in out.splitlines()[-3:]))
            except subprocess.TimeoutExpired:
                verdict, why = "timeout", ""
            left -= time.time() - t0
            tried[key] = (verdict, why)
            trail.append("/%d%s%s %s" % (f, " small" if small else "",
                                         " x%d" % min(REPEATS[rep], full) if full else "", verdict))
        if verdict == "fail" and climb:
            if rep + 1 < len(REPEATS) and REPEATS[rep] < full and left >= 1:
                rep += 1  # the same sizes with more repeats: the program may have rejected the count
                continue
            rep, climb = 0, False  # more repeats did not help: the count was not the cause
        elif verdict == "timeout" and rep > 0:
            climb = False  # more repeats ran out of time: smaller sizes with this count
        nxt = k + 1 if verdict == "timeout" else k - 1
        if verdict == "pass" or left < 1:
            break
        if not 0 <= nxt < len(FACTORS) or tuple(shrink(args, FACTORS[nxt], REPEATS[rep], small, at)) in tried:
            if verdict == "timeout" and not small and \
                    tuple(shrink(args, FIRST, REPEATS[rep], True, at)) not in tried:
                small, k = True, FACTORS.index(FIRST)  # GPU-sized work in numbers below 4096
                continue
            break
        k = nxt
    # the verdict: a pass if one run passed, else a failure if one failed (its message), else a time-out
    results = list(tried.values())
    best = next((r for r in results if r[0] == "pass"), None) or next((r for r in results if r[0] == "fail"),
                                                                         results[-1])
    if best[0] != "pass":
        run_args = next(list(a) for a, r in tried.items() if r is best)
    note = "" if len(trail) == 1 else " [%s]" % ", ".join(trail)
    why = (best[1] + note).strip()
    return name, best[0], built_s, LIMIT_S - left, run_args, why[:300]


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
        for n in sorted(chosen):
            if chosen[n][4]:
                print("in the set, no input %s: %s" % (n, chosen[n][4]))
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
    print("%d programs: %d pass, %d fail, %d time out (%d s), %d do not build, %d have no input in the checkout, "
          "%d check nothing as built" % (
              total, counts.get("pass", 0), counts.get("fail", 0), counts.get("timeout", 0), LIMIT_S,
              counts.get("build", 0), counts.get("no input", 0), counts.get("no check", 0)))
    return 0 if counts.get("pass", 0) == total else 1


if __name__ == "__main__":
    sys.exit(main())
