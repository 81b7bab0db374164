#!/usr/bin/env python3
"""Resource budgets of gpuh_kernels.cuh's shipped kernels, as a check that can fail.

    check_budget.py NVCC SOURCE [INCLUDE_DIR]

Compiles SOURCE (tools/kernel_budget.cu: every shipped kernel) for sm_90a with
`-Xptxas -v` (no GPU needed), reads ptxas's report and fails (exit 1) when a
kernel spills (stack frame, spill stores or spill loads above 0), uses more
registers or static shared memory than BUDGETS below allows, or matches no
budget (a new kernel needs one). Dynamic shared memory is checked at compile
time by static_asserts in SOURCE.

Register limits are the measured counts rounded up to a multiple of 8: the
register file is allocated per warp in units of 256 registers (8 per thread),
so any count up to the limit keeps the blocks per SM the kernel was tuned
with (bench/gemm_tune.cu). A change that needs more is a change to look at:
measure it (bench/), then raise the limit in the same commit.
"""
import re
import subprocess
import sys
import tempfile
import os

# (pattern on the demangled kernel name, most registers, most static shared bytes)
# First match wins.
BUDGETS = [
    (r"gpuh_vector_add_kernel<(float|double|int), \1>", 40, 0),  # one element per load
    (r"gpuh_vector_add_kernel<", 64, 0),  # 16-byte vectors
    (r"gpuh_reduce_kernel<.*, (float|double|int), \1>", 64, 256),  # one element per load
    (r"gpuh_reduce_kernel<gpuh_op_sum<double>, gpuh_map_product,", 120, 256),  # dot, two double2 streams
    (r"gpuh_reduce_kernel<", 88, 256),  # 16-byte vectors; 32 · sizeof(T) for gpuh_block_reduce
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<256, 128, 16, 4, 2, 8, 1>", 256, 0),  # gpuh_sgemm_big
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<64, 64, 16, 2, 4, 8, 2>", 120, 0),  # gpuh_sgemm_small
    (r"gpuh_gemm_simt_kernel<double, gpuh_gemm_simt_config<64, 64, 16, 2, 4, 8, 2>", 128, 0),  # gpuh_dgemm_simt
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<16, 128, 16, 1, 2, 2, 4>", 256, 0),  # gpuh_sgemm_wide
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<128, 16, 16, 2, 1, 16, 4>", 256, 0),  # gpuh_sgemm_tall
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<32, 128, 16, 1, 4, 4, 3>", 168, 0),  # gpuh_sgemm_wide32
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<128, 32, 16, 4, 1, 8, 3>", 168, 0),  # gpuh_sgemm_tall32
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<64, 256, 8, 2, 2, 2, 2>", 256, 0),  # gpuh_sgemm_wide64
    (r"gpuh_gemm_simt_kernel<float, gpuh_gemm_simt_config<128, 64, 8, 2, 2, 8, 3>", 168, 0),  # gpuh_sgemm_tall64
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


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    nvcc, source = sys.argv[1], sys.argv[2]
    include = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.dirname(os.path.abspath(source)))
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [nvcc, "-std=c++17", "-arch=sm_90a", "-cubin", "-Xptxas", "-v", "-I", include, "-o",
               os.path.join(tmp, "k.cubin"), source]
        run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print(" ".join(cmd), "\n", run.stdout, run.stderr, sep="")
        print("check_budget: FAIL (the shipped kernels do not compile)")
        return 1
    kernels, current = {}, None  # mangled name -> [regs, smem, frame, spill stores, spill loads]
    for line in (run.stdout + run.stderr).splitlines():
        m = ENTRY.search(line)
        if m:
            current = kernels.setdefault(m.group(1), [None, 0, 0, 0, 0])
            continue
        if current is None:
            continue
        m = FRAME.search(line)
        if m:
            current[2:5] = [int(g) for g in m.groups()]
        m = USED.search(line)
        if m:
            current[0], current[1] = int(m.group(1)), int(m.group(2) or 0)
    if not kernels:
        print(run.stderr)
        print("check_budget: FAIL (no ptxas report read)")
        return 1
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


if __name__ == "__main__":
    sys.exit(main())
