#!/usr/bin/env python3
"""bench/torch_cupy.py - the operations of bench/bench.cu, in PyTorch and CuPy.

What it measures, for each framework present (a missing one is skipped with
a note), float32 unless said:
    copy    torch: dst.copy_(src)        cupy: cp.copyto(dst, src)     2*4*n bytes
    add     torch.add(a, b, out=c)       cp.add(a, b, out=c)           3*4*n
    sum     torch.sum(x)                 cp.sum(x)                     4*n
    min     torch.min(x)                 cp.min(x)                     4*n
    max     torch.max(x)                 cp.max(x)                     4*n
    dot     torch.dot(a, b)              cp.dot(a, b)                  8*n
    norm2   torch.linalg.vector_norm(x)  cp.linalg.norm(x)             4*n
    matmul  torch.matmul(A, B, out=C)    cp.matmul(A, B, out=C)        2*n^3 flops, float32 and float64
    tc      torch.matmul on bfloat16     -                             2*M*N*K flops, bf16 in and out,
            (fp32 accumulation)                                        4096^3, 8192^3 and one odd shape
The bf16 rows are a reference beside bench.cu's tensor-core rows (gpuh_gemm
and cublasGemmEx on bf16 inputs with float C): torch writes C in bf16.
Bytes are the fewest each op must move (inputs read once, outputs written
once), as in bench.cu, so a framework that makes extra passes shows a lower
rate. The copy is each framework's own ceiling: every memory-bound op is
reported as a ratio to it.

Method, the same as bench.cu's: random inputs with fixed seeds; one check per
op and size against a float64 reference before timing; CUDA events around
each call (torch.cuda.Event / cupy.cuda.Event) after warm-up; the median of 50
calls (matmul: 30, fewer for a slow one, never under 7); inputs rotated over
sets covering at least 4 x the L2 cache, one set per call. float32 matmul runs
in IEEE float32 (TF32 off in torch; CuPy does not use TF32 unless CUPY_TF32=1),
like bench.cu's cuBLAS calls with CUBLAS_DEFAULT_MATH.

Usage: python3 bench/torch_cupy.py [csv]     (default bench/results/bench.csv)
Appends rows (source torch / cupy) to the CSV that bench.cu wrote, and prints
its tables. Exit code 1 if a check failed.
"""
import csv
import math
import os
import statistics
import sys

SIZES = [2**k for k in range(10, 29, 2)] + [10**8 + 7]  # bench.cu's sizes, minus the odd powers and 2^31+17
MATMUL_SIZES = [256, 512, 1024, 2048, 4096, 4097, 8192]
# torch.matmul in bf16 (M, N, K, op as bench.cu names the row): the squares, and a
# shape whose dimensions are not multiples of 8, where cuBLAS leaves its fastest kernels.
TC_SHAPES = [(4096, 4096, 4096, "tc matmul"), (8192, 8192, 8192, "tc matmul"),
             (7749, 2419, 6044, "tc odd 7749x2419x6044")]
POOL = 2**28                 # elements of each input pool: the largest n
MEM_WARMUP, MEM_REPS = 5, 50
MAT_MIN_REPS, MAT_MAX_REPS, MAT_BUDGET_MS = 7, 30, 1500.0
# (op, bytes each element costs: float32 arrays read + written, times 4)
MEM_OPS = [("copy", 8), ("add", 12), ("sum", 4), ("min", 4), ("max", 4), ("dot", 8), ("norm2", 4)]
HEADER = ["source", "op", "dtype", "n", "bytes_or_flops", "time_ms", "rate", "rate_unit", "peer", "ratio"]


def fmt_n(n):
    """2^20, 1e8+7, or the number."""
    if (n & (n - 1)) == 0:
        return "2^%d" % (n.bit_length() - 1)
    if n == 10**8 + 7:
        return "1e8+7"
    return str(n)


# ---------------------------------------------------------------------------
# The two frameworks behind one small interface, so that the measuring code
# below is written once.

class TorchBackend:
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        self.dev = torch.device("cuda", 0)
        # IEEE float32 matmul, as bench.cu's cuBLAS (the default already; set so a
        # site-wide setting cannot turn TF32 on behind the numbers).
        if hasattr(torch.backends.cuda.matmul, "fp32_precision"):
            torch.backends.cuda.matmul.fp32_precision = "ieee"
        else:
            torch.backends.cuda.matmul.allow_tf32 = False
        # bf16 products accumulated in fp32 throughout, as bench.cu's cublasGemmEx
        # (CUBLAS_COMPUTE_32F): no reduced-precision split-K reduction.
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
        self.gen = torch.Generator(device=self.dev)
        self.dtypes = {"float32": torch.float32, "float64": torch.float64, "bf16": torch.bfloat16}
        self.ops = {
            "copy": lambda x, y, z: z.copy_(x),
            "add": lambda x, y, z: torch.add(x, y, out=z),
            "sum": lambda x, y, z: torch.sum(x),
            "min": lambda x, y, z: torch.min(x),
            "max": lambda x, y, z: torch.max(x),
            "dot": lambda x, y, z: torch.dot(x, y),
            "norm2": lambda x, y, z: torch.linalg.vector_norm(x),
        }

    def describe(self):
        p = self.torch.cuda.get_device_properties(0)
        return "torch %s, CUDA %s, %s" % (self.torch.__version__, self.torch.version.cuda, p.name)

    def l2_bytes(self):
        return getattr(self.torch.cuda.get_device_properties(0), "L2_cache_size", 60 * 10**6)

    def uniform(self, shape, dtype, seed):
        self.gen.manual_seed(seed)
        return self.torch.rand(shape, dtype=self.dtypes[dtype], device=self.dev, generator=self.gen)

    def normal(self, shape, dtype, seed):
        self.gen.manual_seed(seed)
        return self.torch.randn(shape, dtype=self.dtypes[dtype], device=self.dev, generator=self.gen)

    def empty(self, shape, dtype):
        return self.torch.empty(shape, dtype=self.dtypes[dtype], device=self.dev)

    def matmul(self, a, b, c):
        return self.torch.matmul(a, b, out=c)

    def poison(self, x):  # NaN everywhere: an element the op does not write fails the check
        x.fill_(float("nan"))

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def elapsed_ms(self, start, stop):
        return start.elapsed_time(stop)

    def f64(self, x):
        return x.double()

    def fnorm(self, x):  # the 2-norm of all elements (Frobenius for matrices), as a Python float
        return float(self.torch.linalg.vector_norm(x))

    def release(self):
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()


class CupyBackend:
    name = "cupy"

    def __init__(self):
        import cupy as cp
        self.cp = cp
        self.dtypes = {"float32": cp.float32, "float64": cp.float64}
        self.ops = {
            "copy": lambda x, y, z: cp.copyto(z, x),
            "add": lambda x, y, z: cp.add(x, y, out=z),
            "sum": lambda x, y, z: cp.sum(x),
            "min": lambda x, y, z: cp.min(x),
            "max": lambda x, y, z: cp.max(x),
            "dot": lambda x, y, z: cp.dot(x, y),
            "norm2": lambda x, y, z: cp.linalg.norm(x),
        }

    def describe(self):
        name = self.cp.cuda.runtime.getDeviceProperties(0)["name"]
        if isinstance(name, bytes):
            name = name.decode()
        return "cupy %s, CUDA runtime %d, %s, CUPY_ACCELERATORS=%s" % (
            self.cp.__version__, self.cp.cuda.runtime.runtimeGetVersion(), name,
            os.environ.get("CUPY_ACCELERATORS", "<unset: CuPy's default>"))

    def l2_bytes(self):
        return self.cp.cuda.Device(0).attributes.get("L2CacheSize", 60 * 10**6)

    def uniform(self, shape, dtype, seed):
        return self.cp.random.RandomState(seed).random_sample(shape, dtype=self.dtypes[dtype])

    def normal(self, shape, dtype, seed):
        return self.cp.random.RandomState(seed).standard_normal(shape, dtype=self.dtypes[dtype])

    def empty(self, shape, dtype):
        return self.cp.empty(shape, dtype=self.dtypes[dtype])

    def matmul(self, a, b, c):
        return self.cp.matmul(a, b, out=c)

    def poison(self, x):
        x.fill(float("nan"))

    def event(self):
        return self.cp.cuda.Event()

    def elapsed_ms(self, start, stop):
        return self.cp.cuda.get_elapsed_time(start, stop)

    def f64(self, x):
        return x.astype(self.cp.float64)

    def fnorm(self, x):
        return float(self.cp.linalg.norm(x.ravel()))

    def release(self):
        self.cp.cuda.Device(0).synchronize()
        self.cp.get_default_memory_pool().free_all_blocks()


# ---------------------------------------------------------------------------
# Timing

def median_ms(be, fn, calls, warmup):
    """Median time in ms of fn(*args) for the args of calls[warmup:], after
    running calls[:warmup] untimed. Events bracket each call on the current
    stream; the host waits for each stop event, as gpuh_time_median_ms does."""
    for args in calls[:warmup]:
        fn(*args)
    start, stop = be.event(), be.event()
    times = []
    for args in calls[warmup:]:
        start.record()
        fn(*args)
        stop.record()
        stop.synchronize()
        times.append(be.elapsed_ms(start, stop))
    return statistics.median(times)


def rotation(n, set_bytes, pool, rotate_bytes):
    """(stride, sets): sets of n elements, stride apart (n rounded up to 64
    elements, so each set is 256-byte aligned), enough of them to cover
    rotate_bytes, as many as fit in a pool of `pool` elements."""
    stride = (n + 63) // 64 * 64
    want = math.ceil(rotate_bytes / set_bytes)
    fit = max(1, pool // stride)
    return stride, max(1, min(want, fit))


# ---------------------------------------------------------------------------
# Checks: each returns (ok, error, text)

def check_mem(be, op, x, y, z, out):
    """op's result `out` (z for copy and add) against float64."""
    if op == "copy":
        ok = bool((z == x).all())
        return ok, 0.0 if ok else 1.0, "== src" if ok else "dst != src"
    if op == "add":
        ref = be.f64(x) + be.f64(y)  # exact: the sum of two floats in [0, 1) fits a double
        err = be.fnorm(be.f64(z) - ref) / be.fnorm(ref)
        return err <= 1e-7, err, "err %.0e" % err  # one rounding per element: <= 2^-24
    if op in ("min", "max"):
        ref = float(be.f64(x).min() if op == "min" else be.f64(x).max())
        got = float(out)
        return got == ref, abs(got - ref), "exact" if got == ref else "%r != %r" % (got, ref)
    if op == "sum":
        ref = float(be.f64(x).sum())
    elif op == "dot":
        ref = float((be.f64(x) * be.f64(y)).sum())
    else:  # norm2
        ref = be.fnorm(be.f64(x))
    err = abs(float(out) - ref) / abs(ref)
    return err <= 1e-5, err, "err %.0e" % err


def check_matmul(be, dtype, a, b, c):
    """float32: the whole product against float64 (1e-5: TF32 would give ~3e-4).
    float64: four columns against a product of A with those columns alone, a
    different cuBLAS path (1e-12)."""
    if dtype == "float32":
        ref = be.f64(a) @ be.f64(b)
        err = be.fnorm(be.f64(c) - ref) / be.fnorm(ref)
        tol = 1e-5
    else:
        ref = a @ b[:, :4].copy() if be.name == "cupy" else a @ b[:, :4].contiguous()
        err = be.fnorm(c[:, :4] - ref) / be.fnorm(ref)
        tol = 1e-12
    return err <= tol, err, "err %.0e (tol %.0e)" % (err, tol)


# ---------------------------------------------------------------------------
# Measuring one framework

def fail_row(be, op, dtype, n, err, text):
    """A failed check: no time; rate holds the error, rate_unit says FAIL."""
    return dict(source=be.name, op=op, dtype=dtype, n=n, bytes_or_flops="", time_ms="", rate="%.6g" % err,
                rate_unit="FAIL", peer="", ratio="", check="FAIL " + text)


def measure_memory(be, rotate_bytes):
    """Every memory-bound op at every n, float32. Returns CSV rows. The pools
    (and every view of them) die with this function's frame."""
    rows = []
    X = be.uniform(POOL, "float32", 1)
    Y = be.uniform(POOL, "float32", 2)
    Z = be.empty(POOL, "float32")
    for n in SIZES:
        copy_rate = None
        for op, per_elem in MEM_OPS:
            fn = be.ops[op]
            be.poison(Z[:n])
            out = fn(X[:n], Y[:n], Z[:n])  # set 0; also the first call (CuPy compiles here)
            ok, err, text = check_mem(be, op, X[:n], Y[:n], Z[:n], out)
            if not ok:
                rows.append(fail_row(be, op, "float32", n, err, text))
                continue
            stride, sets = rotation(n, per_elem * n, POOL, rotate_bytes)
            calls = []
            for i in range(MEM_WARMUP + MEM_REPS):
                o = (i % sets) * stride
                calls.append((X[o:o + n], Y[o:o + n], Z[o:o + n]))
            ms = median_ms(be, fn, calls, MEM_WARMUP)
            nbytes = per_elem * n
            rate = nbytes / (ms * 1e6)
            if op == "copy":
                copy_rate = rate
            ratio = rate / copy_rate if copy_rate else float("nan")
            rows.append(dict(source=be.name, op=op, dtype="float32", n=n, bytes_or_flops=nbytes,
                             time_ms="%.6g" % ms, rate="%.6g" % rate, rate_unit="GB/s",
                             peer="" if op == "copy" else be.name + "/copy",
                             ratio="" if op == "copy" else "%.4f" % ratio, check="ok " + text))
    return rows


def measure_matmul(be, dtype, n, rotate_bytes, cublas_rates):
    """C = A @ B, n x n x n, in dtype: one CSV row."""
    elem = 4 if dtype == "float32" else 8
    sets = max(1, math.ceil(rotate_bytes / (3 * n * n * elem)))
    A = be.normal((sets, n, n), dtype, 11)  # N(0, 1): products cancel, as in real use
    B = be.normal((sets, n, n), dtype, 12)
    C = be.empty((sets, n, n), dtype)
    be.poison(C[0])
    be.matmul(A[0], B[0], C[0])
    ok, err, text = check_matmul(be, dtype, A[0], B[0], C[0])
    if not ok:
        return fail_row(be, "matmul", dtype, n, err, text)
    probe = median_ms(be, be.matmul, [(A[0], B[0], C[0])] * 2, 1)
    reps = int(max(MAT_MIN_REPS, min(MAT_MAX_REPS, MAT_BUDGET_MS / probe)))
    warmup = 3 if reps >= 20 else 1
    calls = [(A[i % sets], B[i % sets], C[i % sets]) for i in range(warmup + reps)]
    ms = median_ms(be, be.matmul, calls, warmup)
    flops = 2 * n ** 3
    rate = flops / (ms * 1e9)
    peer = cublas_rates.get((dtype, n))
    return dict(source=be.name, op="matmul", dtype=dtype, n=n, bytes_or_flops=flops, time_ms="%.6g" % ms,
                rate="%.6g" % rate, rate_unit="TFLOP/s", peer="cublas/matmul" if peer else "",
                ratio="%.4f" % (rate / peer) if peer else "", check="ok " + text)


def measure_tc(be, M, N, K, op, rotate_bytes, cublas_rates):
    """C = A @ B in bf16 (M x K times K x N), torch only: one CSV row. Checked
    against a float64 product of the same bf16 inputs: C's rounding to bf16
    alone is up to 2^-9 relative, so 1e-2 over the Frobenius norm."""
    sets = max(1, math.ceil(rotate_bytes / (2 * (M * K + K * N + M * N))))
    A = be.normal((sets, M, K), "bf16", 21)
    B = be.normal((sets, K, N), "bf16", 22)
    C = be.empty((sets, M, N), "bf16")
    be.poison(C[0])
    be.matmul(A[0], B[0], C[0])
    ref = be.f64(A[0]) @ be.f64(B[0])
    err = be.fnorm(be.f64(C[0]) - ref) / be.fnorm(ref)
    text = "err %.0e (tol 1e-02)" % err
    if not err <= 1e-2:
        return fail_row(be, op, "bf16", M, err, text)
    probe = median_ms(be, be.matmul, [(A[0], B[0], C[0])] * 2, 1)
    reps = int(max(MAT_MIN_REPS, min(MAT_MAX_REPS, MAT_BUDGET_MS / probe)))
    warmup = 3 if reps >= 20 else 1
    calls = [(A[i % sets], B[i % sets], C[i % sets]) for i in range(warmup + reps)]
    ms = median_ms(be, be.matmul, calls, warmup)
    flops = 2 * M * N * K
    rate = flops / (ms * 1e9)
    peer = cublas_rates.get((op, "bf16", M))
    return dict(source=be.name, op=op, dtype="bf16", n=M, bytes_or_flops=flops, time_ms="%.6g" % ms,
                rate="%.6g" % rate, rate_unit="TFLOP/s", peer="cublas/" + op if peer else "",
                ratio="%.4f" % (rate / peer) if peer else "", check="ok " + text)


def run_backend(be, cublas_rates):
    """Checks and times every op of be; returns its CSV rows (dicts)."""
    rotate_bytes = max(4 * be.l2_bytes(), 4 * 60 * 10**6)
    print("%s; inputs rotate over >= %.0f MB per size" % (be.describe(), rotate_bytes / 1e6), flush=True)
    rows = measure_memory(be, rotate_bytes)
    be.release()
    for dtype in ("float32", "float64"):
        for n in MATMUL_SIZES:
            rows.append(measure_matmul(be, dtype, n, rotate_bytes, cublas_rates))
            be.release()
    if "bf16" in be.dtypes:
        for M, N, K, op in TC_SHAPES:
            rows.append(measure_tc(be, M, N, K, op, rotate_bytes, cublas_rates))
            be.release()
    return rows


# ---------------------------------------------------------------------------
# Tables

def print_tables(rows):
    by_key = {(r["source"], r["op"], r["dtype"], r["n"]): r for r in rows}
    sources = sorted({r["source"] for r in rows}, key=["torch", "cupy"].index)
    top = max(n for n in SIZES if (n & (n - 1)) == 0)  # 2^28: the targets' size
    print("\n==== torch / cupy, memory-bound, float32: ratio of each op's GB/s to the same framework's copy "
          "(dst <- src) GB/s")
    print("%-6s %-6s " % ("source", "op") + "".join("%7s" % fmt_n(n) for n in SIZES)
          + "  %9s %9s" % ("GB/s@" + fmt_n(top), "us@" + fmt_n(SIZES[0])))
    for s in sources:
        for op, _ in MEM_OPS:
            cells = []
            for n in SIZES:
                r = by_key.get((s, op, "float32", n))
                if r is None:
                    cells.append("%7s" % "-")
                elif r["rate_unit"] == "FAIL":
                    cells.append("%7s" % "FAIL")
                else:
                    cells.append("%7.2f" % (1.0 if op == "copy" else float(r["ratio"])))
            r_top = by_key.get((s, op, "float32", top))
            r_small = by_key.get((s, op, "float32", SIZES[0]))
            gbs = "%.1f" % float(r_top["rate"]) if r_top and r_top["rate_unit"] != "FAIL" else "-"
            us = "%.1f" % (float(r_small["time_ms"]) * 1e3) if r_small and r_small["time_ms"] else "-"
            print("%-6s %-6s " % (s, op) + "".join(cells) + "  %9s %9s" % (gbs, us))

    print("\n==== torch / cupy, matmul M = N = K = n: TFLOP/s (and / cuBLAS from bench.cu at 4096)")
    print("%-6s %-7s " % ("source", "dtype") + "".join("%8d" % n for n in MATMUL_SIZES) + "  %10s" % "/cuBLAS")
    for s in sources:
        for dtype in ("float32", "float64"):
            cells = []
            for n in MATMUL_SIZES:
                r = by_key.get((s, "matmul", dtype, n))
                cells.append("%8s" % ("-" if r is None else "FAIL" if r["rate_unit"] == "FAIL"
                                      else "%.2f" % float(r["rate"])))
            r = by_key.get((s, "matmul", dtype, 4096))
            ratio = r["ratio"] if r and r["ratio"] else "-"
            print("%-6s %-7s " % (s, dtype) + "".join(cells) + "  %10s" % ratio[:10])

    tc = [r for r in rows if r["dtype"] == "bf16"]
    if tc:
        print("\n==== torch.matmul, bf16 in and out, fp32 accumulation: TFLOP/s, and / cublasGemmEx (bf16 in, "
              "float C) from bench.cu")
        print("%-6s %-26s %10s %10s" % ("source", "shape", "TFLOP/s", "/cuBLAS"))
        for r in tc:
            shape = r["op"][len("tc odd "):] if r["op"].startswith("tc odd ") else "%s^3" % r["n"]
            rate = "FAIL" if r["rate_unit"] == "FAIL" else "%.1f" % float(r["rate"])
            print("%-6s %-26s %10s %10s" % (r["source"], shape, rate, r["ratio"][:6] if r["ratio"] else "-"))

    fails = [r for r in rows if r["rate_unit"] == "FAIL"]
    print("\nchecks: " + ("all passed" if not fails else "%d FAILED" % len(fails)))
    for r in fails:
        print("  %s %s %s n=%s: %s" % (r["source"], r["op"], r["dtype"], fmt_n(r["n"]), r["check"]))


def print_targets(gpuh_rows, rows):
    """gpuh (bench.cu's rows of this run) against torch and cupy, float32, at
    every size from 2^24 up: the targets for vector add and sum."""
    rate = {}
    for r in gpuh_rows + rows:
        if r["dtype"] == "float32" and r["rate_unit"] == "GB/s":
            rate[(r["source"], r["op"], int(r["n"]))] = float(r["rate"])
    big = [n for n in SIZES if n >= 2**24]
    pairs = [("gpuh add / torch.add", "add", "torch", "add"),
             ("gpuh add~ (unaligned) / torch.add", "add~", "torch", "add"),
             ("gpuh sum / torch.sum", "sum", "torch", "sum"),
             ("gpuh sum / cupy.sum", "sum", "cupy", "sum")]
    print("\n==== targets against torch and cupy (float32, GB/s ratios measured in this run; target >= 1.00)")
    print("%-36s " % "ratio" + "".join("%8s" % fmt_n(n) for n in big) + "  %8s  %s" % ("worst", "verdict"))
    for label, op, peer, peer_op in pairs:
        ratios = [rate[("gpuh", op, n)] / rate[(peer, peer_op, n)]
                  if ("gpuh", op, n) in rate and (peer, peer_op, n) in rate else float("nan") for n in big]
        known = [x for x in ratios if x == x]
        worst = min(known) if known else float("nan")
        verdict = "not measured" if not known else "met" if worst >= 1.0 else "MISSED"
        print("%-36s " % label + "".join("%8.3f" % x for x in ratios) + "  %8.3f  %s" % (worst, verdict))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/bench.csv"
    # cuBLAS's rates from bench.cu's rows, to compare the frameworks' matmul with.
    # and gpuh's memory-bound rates, for the targets block.
    cublas_rates, gpuh_rows = {}, []
    if os.path.exists(path):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["source"] == "cublas" and r["op"] == "matmul" and r["rate_unit"] == "TFLOP/s":
                    cublas_rates[(r["dtype"], int(r["n"]))] = float(r["rate"])
                if r["source"] == "cublas" and r["op"].startswith("tc ") and r["rate_unit"] == "TFLOP/s":
                    cublas_rates[(r["op"], r["dtype"], int(r["n"]))] = float(r["rate"])
                if r["source"] == "gpuh":
                    gpuh_rows.append(r)

    rows = []
    for make in (TorchBackend, CupyBackend):
        try:
            be = make()
        except Exception as e:  # not installed, or no GPU for it: say so, measure the other
            print("%s: skipped (%s: %s)" % (make.name, type(e).__name__, e), flush=True)
            continue
        rows += run_backend(be, cublas_rates)
        del be

    new_file = not os.path.exists(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=HEADER, extrasaction="ignore")
        if new_file:
            w.writeheader()
        w.writerows(rows)
    if rows:
        print_tables(rows)
        print_targets(gpuh_rows, rows)
    return 1 if any(r["rate_unit"] == "FAIL" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
