#!/usr/bin/env python3
"""Resource budgets of gpuh_kernels.cuh's shipped kernels, as a check that can fail.

    check_budget.py capture DIR -- COMPILER ARGS...
    check_budget.py check NVCC SOURCE INCLUDE_DIR DIR

capture: the compiler launcher of gpuh::kernels' sources (CMake's
CUDA_COMPILER_LAUNCHER, set by cmake/compile_checks.cmake with -Xptxas=-v):
runs the compile and keeps ptxas's report of each kernel it builds in
DIR/<object>.ptxas, passing the rest of its output through. So the check reads
the kernels the library ships, as built, at no compile of its own.

check: compiles SOURCE (tools/kernel_budget.cu: the dynamic shared memory of
each shipped GEMM configuration, as static_asserts; it instantiates no kernel)
for sm_90a, then reads the reports in DIR and fails (exit 1) when a kernel
spills (stack frame, spill stores or spill loads above 0), uses more registers
or static shared memory than BUDGETS below allows, or matches no budget (a new
kernel needs one). A build without sm_90a code (CMAKE_CUDA_ARCHITECTURES
without 90a-real) leaves no sm_90a report: the check says it skipped.

Register limits are the measured counts rounded up to a multiple of 8: the
register file is allocated per warp in units of 256 registers (8 per thread),
so any count up to the limit keeps the blocks per SM the kernel was tuned
with (bench/gemm_tune.cu). A change that needs more is a change to look at:
measure it (bench/), then raise the limit in the same commit.
"""
import re
import subprocess
import sys
import glob
import tempfile
import os

# (pattern on the demangled kernel name, most registers, most static shared bytes)
# First match wins.
BUDGETS = [
    (r"gpuh_vector_add_kernel<(float|double|int), \1>", 40, 0),  # one element per load
    (r"gpuh_vector_add_kernel<", 64, 0),  # 16-byte vectors
    (r"gpuh_reduce_kernel<.*, (float|double|int), \1>", 64, 256),  # one element per load
    (r"gpuh_reduce_kernel<gpuh_plus<double>, gpuh_impl_map_product,", 120, 256),  # dot, two double2 streams
    (r"gpuh_reduce_kernel<", 88, 256),  # 16-byte vectors; 32 · sizeof(T) for gpuh_block_reduce
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<256, 128, 16, 4, 2, 8, 1, 1>", 256, 0),  # gpuh_sgemm_big
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<64, 64, 16, 2, 4, 8, 2, 0>", 120, 0),  # gpuh_sgemm_small
    (r"gpuh_gemm_simt_kernel<double, gpuh_gemm_simt_config<64, 64, 16, 2, 4, 8, 2, 0>", 128, 0),  # gpuh_dgemm_simt
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<16, 128, 16, 1, 2, 2, 4, 0>", 256, 0),  # gpuh_sgemm_wide
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<128, 16, 16, 2, 1, 16, 4, 0>", 256, 0),  # gpuh_sgemm_tall
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<32, 128, 16, 1, 4, 4, 3, 0>", 168, 0),  # gpuh_sgemm_wide32
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<128, 32, 16, 4, 1, 8, 3, 0>", 168, 0),  # gpuh_sgemm_tall32
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<64, 256, 8, 2, 2, 2, 2, 0>", 256, 0),  # gpuh_sgemm_wide64
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<128, 64, 8, 2, 2, 8, 3, 0>", 168, 0),  # gpuh_sgemm_tall64
    (r"gpuh_gemm_dmma_kernel<gpuh_gemm_dmma_config<64, 128, 16, 2, 2, 3, 2, 8, 1>", 256, 0),  # gpuh_dgemm_big: 2 blocks of 128 threads allow 255
    (r"gpuh_gemm_dmma_kernel<gpuh_gemm_dmma_config<64, 64, 16, 2, 2, 3, 3, 8, 1>", 168, 0),  # gpuh_dgemm_small
    (r"gpuh_gemm_dmma_kernel<gpuh_gemm_dmma_config<16, 128, 16, 1, 4, 3, 3, 8, 1>", 168, 0),  # gpuh_dgemm_wide
    (r"gpuh_gemm_dmma_kernel<gpuh_gemm_dmma_config<32, 128, 16, 2, 2, 3, 3, 8, 1>", 168, 0),  # gpuh_dgemm_wide32
    (r"gpuh_gemm_dmma_kernel<gpuh_gemm_dmma_config<128, 16, 16, 4, 1, 3, 3, 8, 1>", 168, 0),  # gpuh_dgemm_tall
    (r"gpuh_gemm_split_reduce_kernel<", 120, 0),  # split-K's second pass: up to 16 float or 8 double slices of 4 in flight
    (r"gpuh_gemv_col_kernel<float", 104, 0),
    (r"gpuh_gemv_col_kernel<double", 128, 0),
    (r"gpuh_gemv_row_kernel<float", 72, 8448),  # s_part: 64 rows of 33 floats
    (r"gpuh_gemv_row_kernel<double", 120, 16896),
    (r"gpuh_tc_simt_kernel<", 80, 8320),  # the tensor-core GEMM's portable path: two 16 x 65 float tiles
    (r"gpuh_tc_mma_kernel<", 232, 0),  # empty in an sm_90a build; sm_80: 128 accumulators, 2 blocks of 128 per SM
    (r"gpuh_tc_wgmma_kernel<", 168, 0),  # 384 threads, 1 block per SM: 65536 / 384 rounded down to 8
    (r"gpuh_tc_decode_kernel<[^>]*, 8>", 224, 16),  # 8 products: 2 blocks of 128 per SM; the tile's `last` flag
    (r"gpuh_tc_decode_kernel<[^>]*, 4>", 168, 16),  # 4 products: 3 blocks of 128 per SM (op(A) is dynamic)
    (r"gpuh_tc_decode_kernel<", 128, 16),  # 1 or 2 products: 4 blocks of 128 per SM
    (r"gpuh_tc_decode_wgmma_kernel<", 96, 16),  # 2 blocks of 160 per SM; 32 accumulators at most; the `last` flag
    (r"gpuh_tc_transpose_kernel<", 32, 4224),  # one 32 x 33 float tile
    (r"gpuh_pack_rows_kernel<", 32, 0),  # the aligning copy of A or B: one 16-byte word per thread and row
]

ENTRY = re.compile(r"Compiling entry function '(\w+)' for 'sm_90a?'")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers(?:, used \d+ barriers)?(?:, (\d+) bytes smem)?")


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
        return dict(zip(names, out.stdout.splitlines()))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def capture(argv):
    """Runs the compile argv[2:] after "--", keeps ptxas's lines in DIR (argv[0])."""
    out_dir, cmd = argv[0], argv[argv.index("--") + 1:]
    obj = cmd[cmd.index("-o") + 1] if "-o" in cmd else "kernels"
    run = subprocess.run(cmd, capture_output=True, text=True)
    kept, passed = [], []
    for line in run.stderr.splitlines(keepends=True):
        (kept if line.startswith("ptxas info") or FRAME.search(line) else passed).append(line)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, os.path.basename(obj) + ".ptxas"), "w") as f:
        f.writelines(kept)
    sys.stdout.write(run.stdout)
    sys.stderr.write("".join(passed))
    return run.returncode


def read_reports(out_dir):
    """mangled name -> [regs, smem, frame, spill stores, spill loads], from every report's sm_90a entries."""
    kernels, current = {}, None
    for path in sorted(glob.glob(os.path.join(out_dir, "*.ptxas"))):
        with open(path) as f:
            for line in f:
                m = ENTRY.search(line)
                if m:
                    current = kernels.setdefault(m.group(1), [None, 0, 0, 0, 0])
                    continue
                if line.startswith("ptxas info") and "Compiling entry function" in line:
                    current = None  # another architecture's kernel
                    continue
                if current is None:
                    continue
                m = FRAME.search(line)
                if m:
                    current[2:5] = [int(g) for g in m.groups()]
                m = USED.search(line)
                if m:
                    current[0], current[1] = int(m.group(1)), int(m.group(2) or 0)
    return kernels


def check(nvcc, source, include, out_dir):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [nvcc, "-std=c++17", "-arch=sm_90a", "-c", "-I", include, "-o", os.path.join(tmp, "k.o"), source]
        run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print(" ".join(cmd), "\n", run.stdout, run.stderr, sep="")
        print("check_budget: FAIL (a shared memory budget of tools/kernel_budget.cu)")
        return 1
    kernels = read_reports(out_dir)
    if not kernels:
        print(f"gpuh test skipped: no sm_90a kernel in gpuh::kernels' ptxas reports ({out_dir}): "
              "the build has no 90a-real architecture")
        return 0
    names = demangle(sorted(kernels))
    used = [0] * len(BUDGETS)
    failures = 0
    for mangled in sorted(kernels, key=lambda k: names[k]):
        regs, smem, frame, st, ld = kernels[mangled]
        name = names[mangled]
        rule = next((i for i, b in enumerate(BUDGETS) if re.search(b[0], name)), None)
        problems = []
        if regs is None:
            problems.append("no register count in ptxas's report")
        if rule is None:
            problems.append("no budget in tools/check_budget.py")
        else:
            used[rule] += 1
            _, max_regs, max_smem = BUDGETS[rule]
            if regs is not None and regs > max_regs:
                problems.append(f"{regs} registers > {max_regs}")
            if smem > max_smem:
                problems.append(f"{smem} bytes of static shared memory > {max_smem}")
        if frame or st or ld:
            problems.append(f"stack frame {frame} bytes, spill stores {st}, spill loads {ld} (must be 0)")
        status = "FAIL " + "; ".join(problems) if problems else "ok"
        print(f"{regs:>4} regs {smem:>6} B smem  spills {st}/{ld}  {status}  {name}")
        failures += bool(problems)
    for i, n in enumerate(used):
        if n == 0:
            print(f"FAIL budget {BUDGETS[i][0]!r} matches no kernel (renamed? update the table)")
            failures += 1
    print(f"check_budget: {len(kernels)} kernels, {failures} failures: {'FAIL' if failures else 'PASS'}")
    return 1 if failures else 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "capture" and "--" in sys.argv:
        return capture(sys.argv[2:])
    if len(sys.argv) == 6 and sys.argv[1] == "check":
        return check(*sys.argv[2:6])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
