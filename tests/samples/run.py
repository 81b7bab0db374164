#!/usr/bin/env python3
"""Builds and runs NVIDIA's cuda-samples on gpuh's CPU simulator (tools/gpuh-simcc).

    tests/samples/run.sh PATH [-j N] [--only a,b,...] [--list] [--keep DIR]

PATH is a checkout of github.com/NVIDIA/cuda-samples. The set is every program
of the folders in FOLDERS that needs none of the features in the exclusion
rules below (graphics interop, driver API/NVRTC, several processes or GPUs,
libraries beside the runtime, tensor-core mma/wmma, inline PTX): the rules
read each program's CMakeLists.txt and sources, so a new sample is judged the
same way. --list prints the set and the programs left out with the reason
(tests/samples/SET.md is that list).

Each program is built as its CMakeLists.txt does (its add_executable sources,
Common/ on the include path, sources unedited), run in its own folder with a
120 s limit (ARGS below where it takes options) and judged by its own check:
a line saying PASS / "Test passed" and none saying FAIL / "Test failed" / an
error, and exit status 0. A program that prints no verdict passes on exit
status 0 with nothing on stderr and, where REFERENCE names one, its printed
values matching what the runner computes. Time-outs are counted apart.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SIMCC = os.path.join(HERE, "..", "..", "tools", "gpuh-simcc")
FOLDERS = ["0_Introduction", "1_Utilities", "2_Concepts_and_Techniques", "3_CUDA_Features",
           "5_Domain_Specific", "6_Performance"]
LIMIT_S = 120

# (reason, where to look: "cmake" | "src" | "name", regular expression); the first match excludes.
RULES = [
    ("graphics interop (OpenGL/Vulkan/EGL/DirectX)", "cmake", r"\b(OpenGL|GLUT|Vulkan|EGL|GLEW)\b"),
    ("graphics interop (OpenGL/Vulkan/EGL/DirectX)", "src", r"#\s*include\s*[<\"](GL/|GLES|EGL/|vulkan|d3d1|dxgi|GLFW)"),
    ("graphics interop (OpenGL/Vulkan/EGL/DirectX)", "name", r"D3D|Vulkan|GL$|EGL"),
    ("driver API or NVRTC", "cmake", r"CUDA::(cuda_driver|nvrtc)\b"),
    ("driver API or NVRTC", "src", r"\b(nvrtc[A-Z]\w*|cuModule\w*|cuLaunchKernel|cuCtx\w*|cuMem\w*)\s*\("),
    ("several processes (IPC, MPI)", "cmake", r"find_package\(MPI"),
    ("several processes (IPC, MPI)", "src", r"\b(cudaIpc\w+|MPI_Init|fork)\s*\("),
    ("several GPUs at once", "src", r"\b(cudaDeviceEnablePeerAccess|cudaMemcpyPeer\w*)\s*\("),
    ("several GPUs at once", "name", r"MultiGPU|cudaOpenMP|P2P"),
    ("a library beside the runtime (cuBLAS, cuFFT, cuSPARSE, cuSOLVER, NPP, nvJPEG, cuDLA, cuRAND host)",
     "cmake", r"CUDA::(cublas|cufft|cusparse|cusolver|npp\w*|nvjpeg|cudla|curand)\b"),
    ("a library beside the runtime (cuBLAS, cuFFT, cuSPARSE, cuSOLVER, NPP, nvJPEG, cuDLA, cuRAND host)",
     "src", r"#\s*include\s*[<\"](cublas|cufft|cusparse|cusolver|npp|nvjpeg|cudla|curand\.h)"),
    ("a library beside the runtime (Thrust)", "src", r"#\s*include\s*[<\"]thrust/"),
    ("tensor-core mma/wmma", "src", r"\bwmma::|#\s*include\s*[<\"]mma\.h|\bmma_sync\b"),
    ("inline PTX (asm)", "src", r"\basm\s*(volatile\s*)?\("),
]

# A sample's own options that shrink its work (none of them changes what it checks).
ARGS = {
    "reductionMultiBlockCG": ["-n=1000000"],
    "eigenvalues": ["-iters-timing=1"],
    "matrixMul": ["-wA=64", "-hA=64", "-wB=64", "-hB=64"],
    "globalToShmemAsyncCopy": ["-wA=128", "-hA=128", "-wB=128", "-hB=128"],
}

SRC_EXT = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".c", ".txt")


def program_dirs(root):
    out = []
    for folder in FOLDERS:
        base = os.path.join(root, "Samples", folder)
        for name in sorted(os.listdir(base)):
            d = os.path.join(base, name)
            if os.path.isfile(os.path.join(d, "CMakeLists.txt")):
                out.append((folder, name, d))
    return out


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def sources_text(d):
    parts = []
    for dirpath, _, files in os.walk(d):
        for f in files:
            if f.endswith(SRC_EXT) and f != "CMakeLists.txt":
                parts.append(read(os.path.join(dirpath, f)))
    return "\n".join(parts)


def exclusion(name, d):
    cmake = re.sub(r"#[^\n]*", "", read(os.path.join(d, "CMakeLists.txt")))
    src = None
    for reason, where, rx in RULES:
        if where == "cmake":
            text = cmake
        elif where == "name":
            text = name
        else:
            src = sources_text(d) if src is None else src
            text = src
        if re.search(rx, text):
            return reason
    return None


def targets(d):
    """(name, [sources]) of each add_executable in the program's CMakeLists.txt."""
    cmake = re.sub(r"#[^\n]*", "", read(os.path.join(d, "CMakeLists.txt")))
    out = []
    for m in re.finditer(r"add_executable\(\s*(\w+)([^)]*)\)", cmake):
        srcs = [s for s in m.group(2).split() if re.search(r"\.(cu|cpp|c|cc)$", s)]
        out.append((m.group(1), srcs))
    return out


def include_dirs(d):
    """The include folders the program's CMakeLists.txt names (its own, not Common/)."""
    cmake = re.sub(r"#[^\n]*", "", read(os.path.join(d, "CMakeLists.txt")))
    out = []
    for m in re.finditer(r"(?:target_)?include_directories\(([^)]*)\)", cmake):
        for w in m.group(1).split():
            w = w.replace("${CMAKE_CURRENT_SOURCE_DIR}", d)
            if w in ("PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER") or "$" in w:
                continue
            p = os.path.normpath(os.path.join(d, w))
            if os.path.isdir(p) and p not in out:
                out.append(p)
    return out


VERDICT_FAIL = re.compile(r"FAIL|Test failed|[Tt]est [Ff]ailed|Aborted|terminate called|[Mm]ismatch")
VERDICT_PASS = re.compile(r"PASS|Test passed|[Tt]est [Pp]assed|returned OK|[Rr]esult = PASS")
VERDICT_ERROR = re.compile(r"[Ee]rror[ :]|ERROR")


def judge(rc, out, err):
    """The sample's own verdict: its PASS line (with exit status 0) and no FAIL line;
    without a verdict, exit status 0 with no error printed and nothing on stderr."""
    if rc != 0:
        return "FAIL (exit %d)" % rc
    if VERDICT_FAIL.search(out) or VERDICT_FAIL.search(err):
        return "FAIL (output)"
    if VERDICT_PASS.search(out):
        return "PASS"
    measured = re.compile(r"[Ee]rror\s*[:=]?\s*[-+]?[0-9.]")  # "Relative error: 1e-4" reports a measurement
    errors = [l for l in out.splitlines() if VERDICT_ERROR.search(l) and not measured.search(l)]
    if err.strip() or errors:
        return "FAIL (error output)"
    return "PASS (exit 0)"


def run_one(root, folder, name, d, workdir, verbose):
    t0 = time.time()
    res = {"name": name, "built": "no", "ran": "no", "verdict": "", "seconds": 0.0, "log": ""}
    tg = targets(d)
    if not tg:
        res["verdict"] = "FAIL (no add_executable)"
        return res
    exe_name, srcs = tg[0]
    exe = os.path.join(workdir, exe_name)
    common = os.path.join(root, "Common")
    cmd = [sys.executable, SIMCC, "-I" + common, "-I" + d] + ["-I" + i for i in include_dirs(d)]
    cmd += [os.path.join(d, s) for s in srcs] + ["-o", exe]
    b = subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if b.returncode != 0:
        res["verdict"] = "BUILD FAIL"
        res["log"] = b.stdout
        res["seconds"] = time.time() - t0
        return res
    res["built"] = "yes"
    t1 = time.time()
    try:
        r = subprocess.run([exe] + ARGS.get(name, []), cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, errors="replace", timeout=LIMIT_S)
        res["ran"] = "yes"
        res["verdict"] = judge(r.returncode, r.stdout, r.stderr)
        res["log"] = r.stdout[-3000:] + "\n--- stderr ---\n" + r.stderr[-3000:]
    except subprocess.TimeoutExpired as e:
        res["ran"] = "yes"
        res["verdict"] = "TIMEOUT"
        res["log"] = (e.stdout or b"")[-3000:].decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    res["seconds"] = time.time() - t1
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--logs", default="", help="folder for each program's build and run output")
    ap.add_argument("--progress", action="store_true", help="a line on stderr as each program finishes")
    a = ap.parse_args()
    root = os.path.abspath(a.path)
    progs = program_dirs(root)
    keep, out = [], []
    for folder, name, d in progs:
        why = exclusion(name, d)
        (out if why else keep).append((folder, name, d, why))
    if a.list:
        print("%d programs in the set, %d left out\n" % (len(keep), len(out)))
        for folder, name, d, _ in keep:
            print("  %s/%s%s" % (folder, name, ("  (options: %s)" % " ".join(ARGS[name])) if name in ARGS else ""))
        print()
        for folder, name, d, why in out:
            print("  %s/%s: %s" % (folder, name, why))
        return 0
    if a.only:
        want = set(a.only.split(","))
        keep = [k for k in keep if k[1] in want]
    work = tempfile.mkdtemp(prefix="gpuh-samples-")
    row = "%-32s %-6s %-4s %-22s %8s"

    def one(k):
        r = run_one(root, k[0], k[1], k[2], work, False)
        if a.logs:
            os.makedirs(a.logs, exist_ok=True)
            with open(os.path.join(a.logs, r["name"] + ".log"), "w") as f:
                f.write(r["log"])
        if a.progress:
            print("  ... %s: %s (%.1f s)" % (r["name"], r["verdict"], r["seconds"]), file=sys.stderr, flush=True)
        return r

    with ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
        results = list(ex.map(one, keep))
    print(row % ("program", "built", "ran", "verdict", "seconds"))
    for r in results:
        print(row % (r["name"], r["built"], r["ran"], r["verdict"], "%.1f" % r["seconds"]))
    passed = sum(r["verdict"].startswith("PASS") for r in results)
    timeouts = sum(r["verdict"] == "TIMEOUT" for r in results)
    built = sum(r["built"] == "yes" for r in results)
    print("\n%d passed, %d failed, %d timed out (of %d; %d built)"
          % (passed, len(results) - passed - timeouts, timeouts, len(results), built))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
