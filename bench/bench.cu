/* bench/bench.cu - gpuh against its peers, measured in one run on one GPU.

   What it measures (float32 unless said). Bytes are the fewest each operation
   must move through device memory: every input read once, every output
   written once. Rates are those bytes (or flops) over the median time.

     copy    cudaMemcpyAsync device to device, 2·4·n bytes: the copy ceiling,
             the best any memory-bound kernel here can hope for
     add     gpuh_vector_add<float>, 3·4·n bytes            peer: the copy ceiling
     add~    the same with b one element and c three elements past a 16-byte
             boundary (no offset aligns all three: one element per load)
     sum     cub::DeviceReduce::Sum, then gpuh_sum, 4·n      peer of gpuh: CUB
     min, max, norm2 (4·n bytes), dot (8·n bytes): gpuh     peer: gpuh_sum's GB/s
     matmul  cublasSgemm / cublasDgemm (CUBLAS_DEFAULT_MATH: no TF32), then
             gpuh_gemm<float> / <double>, 2·M·N·K flops     peer of gpuh: cuBLAS
     tc      gpuh_gemm on bf16 / fp16 and gpuh_gemm_tf32 (tensor cores, C in
             float), 2·M·N·K flops; peer: cublasGemmEx with the same types and
             compute type; 4096³, 8192³, four odd shapes at which
             torch.matmul in bf16 runs at a sixth of its aligned rate, and a
             bf16 sweep (rows "tc ...", their own
             targets block). GPUH_BENCH_ONLY=tc runs these rows alone.

   Sizes: n = 2^10, 2^12, ..., 2^24, 2^25 ... 2^28 and the awkward 10^8+7 for
   every memory-bound op; n = 2^31+17 for copy, add and sum (64-bit indexing;
   skipped with a note when the device lacks the memory); matmul M = N = K in
   {256, 512, 1024, 2048, 4096, 4097, 8192}, and M × N × K = 1000 × 3000 × 500
   with its aligned neighbour 1024 × 3072 × 512, 1 × 4096 × 4096,
   4096 × 1 × 4096 (rows "matmul MxNxK", n = M); and a sweep of random
   shapes, drawn afresh each run from a printed seed (GPUH_SEED repeats it),
   in three families, big, medium and skinny (rows "sweep-FAMILY MxNxK", with
   " ld+" where the leading dimensions are padded): each family's geometric
   mean and worst ratio to cuBLAS are in the targets block.

   Method (the device tool's METHOD.md):
   - Random inputs (cuRAND through gpuh_random_*, fixed seeds), never zeros.
   - Each op is checked once per size before it is timed, with its output
     poisoned (all bits set: NaN) first, so an unwritten output fails:
     add: every element equals a + b exactly; sum, dot, norm2: against a
     float64 reference within a float bound, and gpuh sum against CUB's;
     min, max: equal to CUB's; matmul: ||C - C_cuBLAS|| / ||C_cuBLAS|| <= 1e-5
     (float) or 1e-12 (double). A failed check prints a FAIL row (and a CSV row
     with rate_unit FAIL) instead of a time, and the exit code is 1.
   - CUDA events around each repetition (gpuh_time_median_ms), after warm-up;
     the median of 50 repetitions for memory-bound ops, of 20 or more for
     matmul except the largest gpuh runs, which get fewer (at least 7) so that
     the bench stays short.
   - Inputs rotate: each size's data are carved into k sets, with k sets
     covering at least 4 × the L2 cache, and each repetition takes the next
     set, so no repetition finds its inputs in L2 left there by the previous one.
     An op whose one call touches 4 × L2 already uses one set.
   - Small sizes (2^10 .. 2^16) are launch-bound: the table gives their time in
     µs and, for reductions, the ratio of their time to CUB's sum at the same n.

   GPUH_BENCH_ONLY=matmul leaves the memory-bound ops out (a GEMM run alone);
   GPUH_BENCH_ONLY=tc runs the tensor-core rows alone.

   Output: a table on stdout, ending with the "targets" block; CSV rows
   source,op,dtype,n,bytes_or_flops,time_ms,rate,rate_unit,peer,ratio
   to argv[1] (default bench/results/bench.csv). ratio = rate / peer's rate
   (above 1: faster than the peer).

   Build: nvcc -std=c++17 -arch=sm_90a -DGPUH_USE_CURAND -I. bench/bench.cu -lcublas -lcurand -o /tmp/bench
   or the CMake target gpuh_bench; bench/run.sh does everything. */
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <sys/stat.h>

#include <cublas_v2.h>
#include <cub/cub.cuh>

#include "gpuh.h"
#include "gpuh_kernels.cuh"
#include "gpuh/half.cuh" /* the 16-bit GEMM's types, which a compiled-mode file names itself */

/* ===========================================================================
   Settings
   =========================================================================== */

/* Elements of float in each input pool: the largest regular n (2^28 floats,
   1 GiB). Every size below 2^31 and every matmul is carved out of the pools. */
static const size_t kPoolFloats = size_t(1) << 28;
static const size_t kHugeN = (size_t(1) << 31) + 17; /* past 2^31: 64-bit indices */
static const size_t kAwkwardN = 100000007;           /* 10^8 + 7: no power of two */
static const size_t kSlack = 64;                     /* floats after each regular pool */

static const int kMemReps = 50;         /* repetitions of a memory-bound op */
static const int kMatMinReps = 7;       /* fewest for a slow matmul */
static const int kMatMaxReps = 30;      /* most for a fast one */
static const double kMatBudgetMs = 1500; /* timed work per matmul row, roughly */

/* The bytes the rotation must cover per size: 4 × L2 (set from the device). */
static double g_rotate_bytes = 4.0 * 60e6;

static cudaStream_t g_stream;

/* ===========================================================================
   Rotation over input sets
   =========================================================================== */

/* A size's data sets are `sets` slices of the pools, `stride` elements apart.
   The stride is n rounded up to 64 elements (256 bytes), so every set is as
   aligned as cudaMalloc's memory and gpuh's kernels take their vector path on
   every set, as they would on freshly allocated arrays. take() gives the
   offset of the next set, in elements; set 0 (offset 0) is the checked one. */
struct Rotation {
    size_t stride = 0, sets = 1, next = 0;

    Rotation() {}
    /* n: elements per array; set_bytes: bytes one call touches; pool_elems:
       elements in each pool array (the sets must fit). */
    Rotation(size_t n, double set_bytes, size_t pool_elems)
    {
        stride = (n + 63) / 64 * 64;
        const size_t want = (size_t)std::ceil(g_rotate_bytes / set_bytes);
        const size_t fit = stride <= pool_elems ? pool_elems / stride : 1;
        sets = std::max<size_t>(1, std::min(want, fit));
    }
    size_t take()
    {
        const size_t offset = next * stride;
        next = (next + 1) % sets;
        return offset;
    }
};

/* ===========================================================================
   Results: the table on stdout and the CSV rows
   =========================================================================== */

struct Row {
    std::string source, op, dtype;
    size_t n = 0;          /* elements, or the matrix edge for matmul */
    double amount = 0;     /* bytes, or flops for matmul */
    double ms = NAN;       /* median time */
    double rate = NAN;     /* GB/s or TFLOP/s; for a FAIL row: the error found */
    std::string unit;      /* "GB/s", "TFLOP/s" or "FAIL" */
    std::string peer;      /* "source/op" of the peer, or "" */
    double ratio = NAN;    /* rate / peer's rate */
    double t_cub = NAN;    /* reductions: time / CUB sum's time at this n */
    int reps = 0;
    std::string check;     /* "ok ..." or "FAIL ..." */
};

static std::vector<Row> g_rows;
static FILE *g_csv;
static int g_failures;

/* "2^20", "2^31+17", "1e8+7", or the number itself. */
static std::string fmt_n(size_t n)
{
    char buf[64];
    int k = 0;
    while (k < 63 && (size_t(1) << (k + 1)) <= n)
        ++k;
    const size_t rest = n - (size_t(1) << k);
    if (rest == 0)
        snprintf(buf, sizeof buf, "2^%d", k);
    else if (rest < 1000)
        snprintf(buf, sizeof buf, "2^%d+%zu", k, rest);
    else if (n == kAwkwardN)
        snprintf(buf, sizeof buf, "1e8+7");
    else
        snprintf(buf, sizeof buf, "%zu", n);
    return buf;
}

static std::string fmt_time(double ms)
{
    char buf[32];
    if (!(ms == ms))
        return "-";
    if (ms < 1.0)
        snprintf(buf, sizeof buf, "%.1f us", ms * 1e3);
    else
        snprintf(buf, sizeof buf, "%.3f ms", ms);
    return buf;
}

static std::string fmt_num(double v, const char *format, const char *if_nan = "-")
{
    char buf[32];
    if (!(v == v))
        return if_nan;
    snprintf(buf, sizeof buf, format, v);
    return buf;
}

static void print_header(const char *title)
{
    printf("\n==== %s\n", title);
    printf("%-6s %-6s %-7s %-8s %11s %10s %-7s %-13s %6s %6s %4s  %s\n", "source", "op", "dtype", "n", "time",
           "rate", "unit", "peer", "ratio", "t/tCUB", "reps", "check");
}

/* Prints the row, writes it to the CSV, and keeps it for the targets block. */
static void emit(const Row &r)
{
    const bool fail = r.unit == "FAIL";
    if (fail)
        ++g_failures;
    const bool matrix = r.op.compare(0, 6, "matmul") == 0 || r.op.compare(0, 5, "sweep") == 0;
    const std::string n = matrix ? std::to_string(r.n) : fmt_n(r.n); /* matmul: M */
    const std::string rate = fail ? "-" : fmt_num(r.rate, r.unit == "GB/s" ? "%.1f" : "%.2f");
    const std::string reps = r.reps ? std::to_string(r.reps) : "-";
    printf("%-6s %-6s %-7s %-8s %11s %10s %-7s %-13s %6s %6s %4s  %s\n", r.source.c_str(), r.op.c_str(),
           r.dtype.c_str(), n.c_str(), fmt_time(r.ms).c_str(), rate.c_str(), fail ? "" : r.unit.c_str(),
           r.peer.empty() ? "-" : r.peer.c_str(), fmt_num(r.ratio, "%.3f").c_str(), fmt_num(r.t_cub, "%.2f").c_str(),
           reps.c_str(), r.check.c_str());
    fflush(stdout);
    fprintf(g_csv, "%s,%s,%s,%zu,%s,%s,%s,%s,%s,%s\n", r.source.c_str(), r.op.c_str(), r.dtype.c_str(), r.n,
            fail ? "" : fmt_num(r.amount, "%.0f", "").c_str(), fmt_num(r.ms, "%.6g", "").c_str(),
            fmt_num(r.rate, "%.6g", "").c_str(), r.unit.c_str(), r.peer.c_str(),
            fmt_num(r.ratio, "%.4f", "").c_str());
    fflush(g_csv);
    g_rows.push_back(r);
}

/* The rate of an emitted row, NaN if there is none (not run, or failed). */
static double find_rate(const char *source, const char *op, const char *dtype, size_t n)
{
    for (const Row &r : g_rows)
        if (r.source == source && r.op == op && r.dtype == dtype && r.n == n && r.unit != "FAIL")
            return r.rate;
    return NAN;
}
static double find_ms(const char *source, const char *op, const char *dtype, size_t n)
{
    for (const Row &r : g_rows)
        if (r.source == source && r.op == op && r.dtype == dtype && r.n == n && r.unit != "FAIL")
            return r.ms;
    return NAN;
}

static Row fail_row(const char *source, const char *op, const char *dtype, size_t n, double error,
                    const std::string &why)
{
    Row r;
    r.source = source;
    r.op = op;
    r.dtype = dtype;
    r.n = n;
    r.rate = error;
    r.unit = "FAIL";
    r.check = "FAIL " + why;
    return r;
}

/* ===========================================================================
   Timing
   =========================================================================== */

/* Median milliseconds of fn over `reps` repetitions after `warmup` runs. */
static double median_ms(gpuh_work_fn fn, void *ctx, int warmup, int reps)
{
    float ms = 0;
    GPUH_CHECK(gpuh_time_median_ms(fn, ctx, g_stream, warmup, reps, &ms));
    return ms;
}

/* For ops whose one run may take a large part of a second (the teaching
   matmul at 8192 takes ~0.15 s in float, more in double): one probe run says
   how long a run takes, and the repetitions are sized to about budget_ms,
   between min_reps and max_reps. */
static double median_ms_budget(gpuh_work_fn fn, void *ctx, double budget_ms, int min_reps, int max_reps,
                               int *reps_used)
{
    const double probe = median_ms(fn, ctx, 1, 1); /* also loads the module */
    const int reps = (int)std::max<double>(min_reps, std::min<double>(max_reps, budget_ms / probe));
    *reps_used = reps;
    return median_ms(fn, ctx, reps >= 20 ? 3 : 1, reps);
}

static Row timed_row(const char *source, const char *op, const char *dtype, size_t n, double amount,
                     bool flops, double ms, int reps)
{
    Row r;
    r.source = source;
    r.op = op;
    r.dtype = dtype;
    r.n = n;
    r.amount = amount;
    r.ms = ms;
    r.rate = flops ? amount / (ms * 1e9) : amount / (ms * 1e6); /* TFLOP/s or GB/s */
    r.unit = flops ? "TFLOP/s" : "GB/s";
    r.reps = reps;
    r.check = "ok";
    return r;
}

/* ===========================================================================
   Check kernels (grid-stride, any n; launched with kCheckGrid blocks of 256)
   =========================================================================== */

static const unsigned kCheckGrid = 4096, kCheckBlock = 256;

/* Float64 references for the reductions in one pass: out[0] += Σx,
   out[1] += Σx², out[2] += Σx·y. Each thread accumulates in double; each warp
   combines its lanes by shuffles and adds its total with one atomicAdd. The
   atomics' order varies between runs, which moves a double result by ~1e-16
   relative: far below the float errors this reference judges. */
__global__ void ref_sums_kernel(const float *__restrict__ g_x, const float *__restrict__ g_y, size_t n,
                                double *g_out)
{
    double s = 0, ss = 0, sxy = 0;
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride()) {
        const double x = g_x[i], y = g_y[i];
        s += x;
        ss += x * x;
        sxy += x * y;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        s += __shfl_down_sync(0xffffffffu, s, offset);
        ss += __shfl_down_sync(0xffffffffu, ss, offset);
        sxy += __shfl_down_sync(0xffffffffu, sxy, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&g_out[0], s);
        atomicAdd(&g_out[1], ss);
        atomicAdd(&g_out[2], sxy);
    }
}

/* Counts the i with c[i] != a[i] + b[i]. A float add is correctly rounded, so
   a right kernel matches bit for bit; a poisoned (NaN) element never matches. */
__global__ void add_mismatch_kernel(const float *__restrict__ g_a, const float *__restrict__ g_b,
                                    const float *__restrict__ g_c, size_t n, unsigned long long *g_count)
{
    unsigned long long bad = 0;
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride())
        bad += !(g_c[i] == g_a[i] + g_b[i]);
    if (bad)
        atomicAdd(g_count, bad);
}

/* out[0] += Σ(c − ref)², out[1] += Σ ref² over the rows × cols window of two
   matrices with leading dimension ld, in double: the relative Frobenius
   error of a matmul is sqrt(out[0] / out[1]). NaN anywhere makes it NaN. */
template <typename T>
__global__ void rel_error_2d_kernel(const T *__restrict__ g_c, const T *__restrict__ g_ref, size_t rows,
                                    size_t cols, size_t ld, double *g_out)
{
    double diff = 0, norm = 0;
    for (size_t i = gpuh_global_index(); i < rows * cols; i += gpuh_grid_stride()) {
        const size_t at = i / cols * ld + i % cols;
        const double c = g_c[at], r = g_ref[at];
        diff += (c - r) * (c - r);
        norm += r * r;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        diff += __shfl_down_sync(0xffffffffu, diff, offset);
        norm += __shfl_down_sync(0xffffffffu, norm, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&g_out[0], diff);
        atomicAdd(&g_out[1], norm);
    }
}

/* Copies `count` values from the device after the stream has finished. */
template <typename T> static void fetch(T *h_dst, const T *d_src, size_t count)
{
    GPUH_CHECK(cudaStreamSynchronize(g_stream));
    GPUH_CHECK(gpuh_copy_to_host(h_dst, d_src, count));
}

/* Sets every bit: NaN for float and double, so an unwritten output shows. */
static void poison(void *d, size_t bytes)
{
    GPUH_CHECK(cudaMemsetAsync(d, 0xff, bytes, g_stream));
}

/* ===========================================================================
   CUB
   =========================================================================== */

enum CubOp { CUB_SUM, CUB_MIN, CUB_MAX };

/* CUB takes its offset type from num_items' type. Callers pass an int when n
   fits, as most code does, so CUB runs its 32-bit-offset kernels; only past
   2^31 elements does it get a size_t (64-bit offsets). Min and max are used
   only as references below 2^31, so they have only the int form. */
static cudaError_t cub_reduce(CubOp op, void *d_temp, size_t &temp_bytes, const float *d_in, float *d_out,
                              size_t n, cudaStream_t stream)
{
    if (n > (size_t)INT_MAX) {
        if (op != CUB_SUM)
            return cudaErrorInvalidValue;
        return cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, stream);
    }
    const int n32 = (int)n;
    switch (op) {
    case CUB_SUM: return cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n32, stream);
    case CUB_MIN: return cub::DeviceReduce::Min(d_temp, temp_bytes, d_in, d_out, n32, stream);
    default: return cub::DeviceReduce::Max(d_temp, temp_bytes, d_in, d_out, n32, stream);
    }
}

/* ===========================================================================
   Memory-bound ops: the work functions gpuh_time_median_ms calls
   =========================================================================== */

/* Everything one size of the memory-bound ops needs. x and y are the input
   pools, z the output pool; rot picks the set each call uses. */
struct MemWork {
    const float *x, *y;
    float *z;
    size_t n;
    Rotation rot;
    float *d_result;  /* a reduction's output (one float) */
    void *d_temp;     /* gpuh's scratch: GPUH_REDUCE_TEMP_BYTES */
    void *cub_temp;   /* CUB's scratch, allocated once per size */
    size_t cub_temp_bytes;
};

static cudaError_t work_copy(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    const size_t o = w->rot.take();
    return cudaMemcpyAsync(w->z + o, w->x + o, w->n * sizeof(float), cudaMemcpyDeviceToDevice, s);
}
static cudaError_t work_add(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    const size_t o = w->rot.take();
    return gpuh_vector_add(w->x + o, w->y + o, w->z + o, w->n, s);
}
/* Misaligned from one another: b one element past the set's start, c three. */
static cudaError_t work_add_unaligned(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    const size_t o = w->rot.take();
    return gpuh_vector_add(w->x + o, w->y + o + 1, w->z + o + 3, w->n, s);
}
static cudaError_t work_cub_sum(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    size_t bytes = w->cub_temp_bytes;
    return cub_reduce(CUB_SUM, w->cub_temp, bytes, w->x + w->rot.take(), w->d_result, w->n, s);
}
static cudaError_t work_sum(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    return gpuh_sum(w->x + w->rot.take(), w->n, w->d_result, w->d_temp, s);
}
static cudaError_t work_min(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    return gpuh_min(w->x + w->rot.take(), w->n, w->d_result, w->d_temp, s);
}
static cudaError_t work_max(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    return gpuh_max(w->x + w->rot.take(), w->n, w->d_result, w->d_temp, s);
}
static cudaError_t work_dot(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    const size_t o = w->rot.take();
    return gpuh_dot(w->x + o, w->y + o, w->n, w->d_result, w->d_temp, s);
}
static cudaError_t work_norm2(void *ctx, cudaStream_t s)
{
    MemWork *w = static_cast<MemWork *>(ctx);
    return gpuh_norm2(w->x + w->rot.take(), w->n, w->d_result, w->d_temp, s);
}

/* One memory-bound op: its work function, bytes per element, and its peer. */
struct MemOp {
    const char *source, *op;
    gpuh_work_fn fn;
    double bytes_per_elem;
    const char *peer_source, *peer_op; /* NULL: no peer */
    bool reduction;                    /* gets the t/tCUB column */
};

static const MemOp kMemOps[] = {
    {"cuda", "copy", work_copy, 8, NULL, NULL, false},
    {"gpuh", "add", work_add, 12, "cuda", "copy", false},
    {"cub", "sum", work_cub_sum, 4, NULL, NULL, true},
    {"gpuh", "sum", work_sum, 4, "cub", "sum", true},
    {"gpuh", "min", work_min, 4, "gpuh", "sum", true},
    {"gpuh", "max", work_max, 4, "gpuh", "sum", true},
    {"gpuh", "dot", work_dot, 8, "gpuh", "sum", true},
    {"gpuh", "norm2", work_norm2, 4, "gpuh", "sum", true},
    {"gpuh", "add~", work_add_unaligned, 12, "cuda", "copy", false},
};

/* The float error bound for a sum of n positive terms, relative to the sum:
   the one gpuh_sum documents, gpuh_sum_depth(n, 4)·2^-24·Σ|x| (the
   longest chain of additions any element passes through, times the unit
   roundoff), so the check tests the documented contract. Actual errors are
   far smaller: rounding errors mostly cancel, and grow like the square root. */
static double sum_bound(size_t n)
{
    return (double)gpuh_sum_depth(n, sizeof(float)) * std::ldexp(1.0, -24); /* gpuh_sum's documented bound */
}

/* Checks every op of one size on set 0. Per op (the index follows kMemOps):
   why[i] is "" if it passed, else why not; err[i] the error found; note[i]
   what the table's check column says when it passed. */
static void check_mem_ops(MemWork &w, bool all_ops, std::string *why, double *err, std::string *note)
{
    const size_t n = w.n;
    const float *x = w.x, *y = w.y;
    float *z = w.z;
    double *d_ref;
    float *d_out;
    unsigned long long *d_bad;
    double ref[3];
    float out[8];
    unsigned long long bad[2] = {0, 0};

    GPUH_CHECK(gpuh_device_array(&d_ref, 3));
    GPUH_CHECK(gpuh_device_array(&d_out, 8));
    GPUH_CHECK(gpuh_device_array(&d_bad, 2));
    GPUH_CHECK(cudaMemsetAsync(d_ref, 0, 3 * sizeof(double), g_stream));
    GPUH_CHECK(cudaMemsetAsync(d_bad, 0, 2 * sizeof *d_bad, g_stream));
    poison(d_out, 8 * sizeof(float));
    GPUH_CHECK(GPUH_LAUNCH(ref_sums_kernel, kCheckGrid, kCheckBlock, 0, g_stream, x, y, n, d_ref));

    /* outputs: 0 CUB sum, 1 CUB min, 2 CUB max, 3 sum, 4 min, 5 max, 6 dot, 7 norm2 */
    size_t bytes = w.cub_temp_bytes;
    GPUH_CHECK(cub_reduce(CUB_SUM, w.cub_temp, bytes, x, d_out + 0, n, g_stream));
    GPUH_CHECK(gpuh_sum(x, n, d_out + 3, w.d_temp, g_stream));
    if (all_ops) {
        GPUH_CHECK(cub_reduce(CUB_MIN, w.cub_temp, bytes, x, d_out + 1, n, g_stream));
        GPUH_CHECK(cub_reduce(CUB_MAX, w.cub_temp, bytes, x, d_out + 2, n, g_stream));
        GPUH_CHECK(gpuh_min(x, n, d_out + 4, w.d_temp, g_stream));
        GPUH_CHECK(gpuh_max(x, n, d_out + 5, w.d_temp, g_stream));
        GPUH_CHECK(gpuh_dot(x, y, n, d_out + 6, w.d_temp, g_stream));
        GPUH_CHECK(gpuh_norm2(x, n, d_out + 7, w.d_temp, g_stream));
    }
    poison(z, n * sizeof(float));
    GPUH_CHECK(gpuh_vector_add(x, y, z, n, g_stream));
    GPUH_CHECK(GPUH_LAUNCH(add_mismatch_kernel, kCheckGrid, kCheckBlock, 0, g_stream, x, y, z, n, d_bad));
    if (all_ops) { /* the unaligned add, as work_add_unaligned calls it */
        poison(z, (n + 3) * sizeof(float));
        GPUH_CHECK(gpuh_vector_add(x, y + 1, z + 3, n, g_stream));
        GPUH_CHECK(GPUH_LAUNCH(add_mismatch_kernel, kCheckGrid, kCheckBlock, 0, g_stream, x, y + 1, z + 3, n,
                               d_bad + 1));
    }
    fetch(ref, d_ref, 3);
    fetch(out, d_out, 8);
    fetch(bad, d_bad, 2);
    GPUH_CHECK(gpuh_free(d_ref));
    GPUH_CHECK(gpuh_free(d_out));
    GPUH_CHECK(gpuh_free(d_bad));

    /* The inputs are positive, so Σ|x| = Σx and Σ|x·y| = Σx·y: the bounds are
       relative to the references themselves. */
    const double tol = sum_bound(n);
    char buf[160];
    for (size_t i = 0; i < sizeof kMemOps / sizeof kMemOps[0]; ++i) {
        why[i].clear();
        err[i] = NAN;
        note[i].clear();
    }
    /* 0 copy: cudaMemcpy is the reference of everything; not checked. */
    /* 1 add */
    err[1] = (double)bad[0];
    if (bad[0]) {
        snprintf(buf, sizeof buf, "%llu of %zu elements != a + b", bad[0], n);
        why[1] = buf;
    }
    /* 2 CUB sum, 3 gpuh sum: both against float64; gpuh also against CUB */
    const double e_cub = std::fabs(out[0] - ref[0]) / ref[0], e_sum = std::fabs(out[3] - ref[0]) / ref[0];
    const double e_agree = std::fabs((double)out[3] - (double)out[0]) / ref[0];
    err[2] = e_cub;
    err[3] = e_sum;
    snprintf(buf, sizeof buf, "err %.0e", e_cub);
    note[2] = buf;
    snprintf(buf, sizeof buf, "err %.0e, vs CUB %.0e", e_sum, e_agree);
    note[3] = buf;
    if (!(e_cub <= tol)) {
        snprintf(buf, sizeof buf, "CUB's sum: err %.1e > tol %.1e", e_cub, tol);
        why[2] = buf;
    }
    if (!(e_sum <= tol && e_agree <= 2 * tol)) {
        snprintf(buf, sizeof buf, "err %.1e (tol %.1e), vs CUB %.1e (tol %.1e)", e_sum, tol, e_agree, 2 * tol);
        why[3] = buf;
    }
    if (!all_ops)
        return;
    /* 4 min, 5 max: exact, against CUB */
    if (!(out[4] == out[1])) {
        snprintf(buf, sizeof buf, "min %.9g != CUB %.9g", out[4], out[1]);
        why[4] = buf;
        err[4] = std::fabs(out[4] - out[1]);
    }
    if (!(out[5] == out[2])) {
        snprintf(buf, sizeof buf, "max %.9g != CUB %.9g", out[5], out[2]);
        why[5] = buf;
        err[5] = std::fabs(out[5] - out[2]);
    }
    note[4] = note[5] = "== CUB";
    /* 6 dot: one more rounding per term (the product) than a sum */
    const double tol_dot = tol + std::ldexp(1.0, -24);
    err[6] = std::fabs(out[6] - ref[2]) / ref[2];
    snprintf(buf, sizeof buf, "err %.0e", err[6]);
    note[6] = buf;
    if (!(err[6] <= tol_dot)) {
        snprintf(buf, sizeof buf, "err %.1e > tol %.1e", err[6], tol_dot);
        why[6] = buf;
    }
    /* 7 norm2: the squares round once each, sqrt halves the sum's relative
       error and rounds once more: (bound + u) / 2 + u, within the sum's bound */
    const double norm_ref = std::sqrt(ref[1]);
    err[7] = std::fabs(out[7] - norm_ref) / norm_ref;
    snprintf(buf, sizeof buf, "err %.0e", err[7]);
    note[7] = buf;
    if (!(err[7] <= tol)) {
        snprintf(buf, sizeof buf, "err %.1e > tol %.1e", err[7], tol);
        why[7] = buf;
    }
    /* 8 add~ */
    err[8] = (double)bad[1];
    if (bad[1]) {
        snprintf(buf, sizeof buf, "%llu of %zu elements != a + b", bad[1], n);
        why[8] = buf;
    }
}

/* Input pools: x, y (random), z (output), each `elems` floats plus kSlack
   (which only the unaligned add reaches, past a set's end). */
struct Pools {
    float *x, *y, *z;
    size_t elems;
};

/* Checks and times every memory-bound op at one n (all_ops false: copy, add
   and the sums only, for the size past 2^31). */
static void bench_mem_size(const Pools &p, size_t n, void *d_temp, float *d_result, bool all_ops)
{
    const size_t nops = sizeof kMemOps / sizeof kMemOps[0];
    std::string why[nops], note[nops];
    double err[nops];
    MemWork w;
    w.x = p.x;
    w.y = p.y;
    w.z = p.z;
    w.n = n;
    w.d_result = d_result;
    w.d_temp = d_temp;
    w.cub_temp = NULL;

    /* CUB's scratch: the most any of its three reductions asks for at this n. */
    size_t most = 0;
    for (int op = CUB_SUM; op <= (all_ops ? CUB_MAX : CUB_SUM); ++op) {
        size_t bytes = 0;
        GPUH_CHECK(cub_reduce((CubOp)op, NULL, bytes, p.x, d_result, n, g_stream));
        most = std::max(most, bytes);
    }
    unsigned char *cub_temp = NULL;
    most = std::max<size_t>(most, 256); /* never NULL: CUB takes NULL as "how much do you need?" */
    GPUH_CHECK(gpuh_device_array(&cub_temp, most));
    w.cub_temp = cub_temp;
    w.cub_temp_bytes = most;

    check_mem_ops(w, all_ops, why, err, note);

    for (size_t i = 0; i < nops; ++i) {
        const MemOp &op = kMemOps[i];
        const bool in_reduced_set = !strcmp(op.op, "copy") || !strcmp(op.op, "add") || !strcmp(op.op, "sum");
        if (!all_ops && !in_reduced_set)
            continue;
        if (!why[i].empty()) {
            emit(fail_row(op.source, op.op, "float32", n, err[i], why[i]));
            continue;
        }
        const double bytes = op.bytes_per_elem * (double)n;
        w.rot = Rotation(n, bytes, p.elems);
        const double ms = median_ms(op.fn, &w, 5, kMemReps);
        Row r = timed_row(op.source, op.op, "float32", n, bytes, false, ms, kMemReps);
        if (op.peer_source) {
            r.peer = std::string(op.peer_source) + "/" + op.peer_op;
            r.ratio = r.rate / find_rate(op.peer_source, op.peer_op, "float32", n);
        }
        if (op.reduction)
            r.t_cub = ms / find_ms("cub", "sum", "float32", n);
        if (!note[i].empty())
            r.check += " " + note[i];
        emit(r);
    }
    GPUH_CHECK(gpuh_free(cub_temp));
}

/* ===========================================================================
   Matmul: cuBLAS and gpuh_gemm, float and double
   =========================================================================== */

static const char *cublas_status_name(cublasStatus_t st)
{
    switch (st) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_(other)";
    }
}

/* cuBLAS returns its own status; the work functions must return a cudaError_t. */
static cudaError_t from_cublas(cublasStatus_t st, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return cudaSuccess;
    fprintf(stderr, "bench: %s failed: %s\n", what, cublas_status_name(st));
    return cudaErrorUnknown;
}

/* A GEMM shape as gpuh_gemm takes it: C (m × n) = op(A) (m × k) · op(B)
   (k × n), row-major, leading dimensions in elements; ta: op(A) = Aᵀ (A
   stored k × m), tb: op(B) = Bᵀ (B stored n × k). */
struct GemmShape {
    size_t m, n, k, lda, ldb, ldc;
    bool ta, tb;
};

/* The packed, untransposed shape m × n × k. */
static GemmShape packed(size_t m, size_t n, size_t k)
{
    const GemmShape s = {m, n, k, k, n, n, false, false};
    return s;
}

/* Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: cuBLAS reads
   the row-major B as the column-major Bᵀ and A as Aᵀ (their leading
   dimensions unchanged), so it is called with B first, A second and the
   same op flags, and writes Cᵀ, which is the row-major C. No transposes are
   executed beyond the ones asked for. */
static cublasStatus_t cublas_gemm_row_major(cublasHandle_t h, const GemmShape &s, const float *A, const float *B,
                                            float *C)
{
    const float alpha = 1, beta = 0;
    return cublasSgemm(h, s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, s.ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)s.n, (int)s.m,
                       (int)s.k, &alpha, B, (int)s.ldb, A, (int)s.lda, &beta, C, (int)s.ldc);
}
static cublasStatus_t cublas_gemm_row_major(cublasHandle_t h, const GemmShape &s, const double *A, const double *B,
                                            double *C)
{
    const double alpha = 1, beta = 0;
    return cublasDgemm(h, s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, s.ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)s.n, (int)s.m,
                       (int)s.k, &alpha, B, (int)s.ldb, A, (int)s.lda, &beta, C, (int)s.ldc);
}

static gpuh_op gemm_op(bool t) { return t ? GPUH_OP_T : GPUH_OP_N; }

template <typename T> struct GemmWork {
    const T *a, *b; /* pools of A and B */
    T *c;           /* pool of C */
    GemmShape s;
    Rotation rot;
    cublasHandle_t handle;
};
template <typename T> static cudaError_t work_gemm_cublas(void *ctx, cudaStream_t)
{
    GemmWork<T> *w = static_cast<GemmWork<T> *>(ctx);
    const size_t o = w->rot.take();
    return from_cublas(cublas_gemm_row_major(w->handle, w->s, w->a + o, w->b + o, w->c + o), "cuBLAS gemm");
}
template <typename T> static cudaError_t work_gemm_gpuh(void *ctx, cudaStream_t stream)
{
    GemmWork<T> *w = static_cast<GemmWork<T> *>(ctx);
    const size_t o = w->rot.take();
    const GemmShape &s = w->s;
    return gpuh_gemm(gemm_op(s.ta), gemm_op(s.tb), s.m, s.n, s.k, T(1), w->a + o, s.lda, w->b + o, s.ldb, T(0),
                     w->c + o, s.ldc, stream);
}

/* Checks gpuh_gemm (alpha 1, beta 0) against cuBLAS at one shape (both
   outputs poisoned, then the relative Frobenius distance over C's m × n
   window), then times both on rotating inputs, each median_ms_budget(budget_ms,
   min_reps, max_reps), and emits the rows `op` (n = m). a, b, c are pools of
   pool_elems T; d_ref holds one C. Returns gpuh / cuBLAS, 0 when the check
   fails (so that a failure cannot hide in a mean). */
template <typename T>
static double bench_gemm_shape(cublasHandle_t handle, const T *a, const T *b, T *c, T *d_ref, size_t pool_elems,
                               const GemmShape &s, const char *op, const char *dtype, double tol, double budget_ms,
                               int min_reps, int max_reps)
{
    GemmWork<T> w;
    w.a = a, w.b = b, w.c = c, w.s = s, w.handle = handle;
    const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    const size_t c_elems = s.m * s.ldc;

    double *d_err, e[2];
    GPUH_CHECK(gpuh_device_array(&d_err, 2));
    GPUH_CHECK(cudaMemsetAsync(d_err, 0, 2 * sizeof(double), g_stream));
    poison(c, c_elems * sizeof(T));
    poison(d_ref, c_elems * sizeof(T));
    GPUH_CHECK(gpuh_gemm(gemm_op(s.ta), gemm_op(s.tb), s.m, s.n, s.k, T(1), a, s.lda, b, s.ldb, T(0), c, s.ldc,
                         g_stream));
    GPUH_CHECK(from_cublas(cublas_gemm_row_major(handle, s, a, b, d_ref), "cuBLAS gemm (check)"));
    GPUH_CHECK(GPUH_LAUNCH(rel_error_2d_kernel<T>, kCheckGrid, kCheckBlock, 0, g_stream, c, d_ref, s.m, s.n, s.ldc,
                           d_err));
    fetch(e, d_err, 2);
    GPUH_CHECK(gpuh_free(d_err));
    const double rel = std::sqrt(e[0] / e[1]);
    char note[64];
    snprintf(note, sizeof note, "err %.0e (tol %.0e)", rel, tol);

    int reps = 0;
    /* sets as large as the largest of A, B, C as stored; one call touches all three */
    const size_t set = std::max(std::max((s.ta ? s.k : s.m) * s.lda, (s.tb ? s.n : s.k) * s.ldb), c_elems);
    w.rot = Rotation(set, (double)(s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(T), pool_elems);
    const double ms_cublas = median_ms_budget(work_gemm_cublas<T>, &w, budget_ms, min_reps, max_reps, &reps);
    const Row peer = timed_row("cublas", op, dtype, s.m, flops, true, ms_cublas, reps);
    emit(peer);
    if (!(rel <= tol)) { /* NaN fails too: an unwritten element */
        emit(fail_row("gpuh", op, dtype, s.m, rel, note));
        return 0;
    }
    w.rot.next = 0;
    const double ms = median_ms_budget(work_gemm_gpuh<T>, &w, budget_ms, min_reps, max_reps, &reps);
    Row r = timed_row("gpuh", op, dtype, s.m, flops, true, ms, reps);
    r.peer = std::string("cublas/") + op;
    r.ratio = r.rate / peer.rate;
    r.check += std::string(" ") + note;
    emit(r);
    return r.ratio;
}

/* One of the fixed shapes (packed, untransposed): a square is the row
   "matmul" with n its edge; any other is "matmul MxNxK" with n = M. */
template <typename T>
static void bench_matmul_size(cublasHandle_t handle, const T *a, const T *b, T *c, T *d_ref, size_t pool_elems,
                              const GemmShape &s, const char *dtype, double tol)
{
    std::string op = "matmul";
    if (s.m != s.n || s.n != s.k)
        op += " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    bench_gemm_shape<T>(handle, a, b, c, d_ref, pool_elems, s, op.c_str(), dtype, tol, kMatBudgetMs, kMatMinReps,
                        kMatMaxReps);
}

/* ===========================================================================
   The random-shape sweep: gpuh_gemm against cuBLAS at shapes no list names
   =========================================================================== */

/* Shapes are drawn afresh each run from gpuh_random_seed() (printed; set
   GPUH_SEED to repeat a run), in three families of the sizes users have:
     big     M, N in [1000, 6000], K in [256, 4000]; every third shape with
             its leading dimensions padded by 1..7 elements (a sub-matrix)
     medium  M, N in [64, 900], K in [64, 2000]: too few big tiles to fill
             the GPU
     skinny  one of M, N in [2, 64], the other in [256, 8192], K in
             [256, 8192]
   A quarter of each family's shapes (every fourth) is transposed: op(A),
   op(B) in NT, TN, TT in turn, cuBLAS called with the matching ops (rows
   "sweep-FAMILY MxNxK op NT").
   float over all three, double over the big one. Each shape is checked
   against cuBLAS (the relative Frobenius distance over C's M x N window),
   then both are timed on rotating inputs; each family prints the geometric
   mean of gpuh / cuBLAS and the worst ratio. */
/* SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
   generators", OOPSLA 2014): a small, well-mixed host generator. */
struct SplitMix {
    unsigned long long s;
    unsigned long long next()
    {
        unsigned long long z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    size_t in(size_t lo, size_t hi) { return lo + (size_t)(next() % (hi - lo + 1)); } /* [lo, hi] */
};

static const char *const kFamilies[] = {"big", "medium", "skinny"};

static GemmShape draw_shape(SplitMix &r, int family, int index)
{
    GemmShape s;
    if (family == 0) {
        s.m = r.in(1000, 6000), s.n = r.in(1000, 6000), s.k = r.in(256, 4000);
    } else if (family == 1) {
        s.m = r.in(64, 900), s.n = r.in(64, 900), s.k = r.in(64, 2000);
    } else {
        const size_t thin = r.in(2, 64), wide = r.in(256, 8192);
        const bool thin_m = r.next() % 2 == 0;
        s.m = thin_m ? thin : wide, s.n = thin_m ? wide : thin, s.k = r.in(256, 8192);
    }
    const bool pad = family == 0 && index % 3 == 2;
    /* every fourth shape transposed, NT, TN, TT in turn (no draw: the other
       shapes of a seed stay those of a sweep without transposes) */
    const int ops = index % 4 == 3 ? index / 4 % 3 + 1 : 0;
    s.ta = (ops & 2) != 0, s.tb = (ops & 1) != 0;
    s.lda = (s.ta ? s.m : s.k) + (pad ? r.in(1, 7) : 0);
    s.ldb = (s.tb ? s.k : s.n) + (pad ? r.in(1, 7) : 0);
    s.ldc = s.n + (pad ? r.in(1, 7) : 0);
    return s;
}

/* The ratios gpuh / cuBLAS of one family and type, for the summary. */
struct SweepFamily {
    std::string name;
    std::vector<double> ratios;
    std::vector<std::string> shapes; /* "MxNxK", beside its ratio */
};
static std::vector<SweepFamily> g_sweep;

/* Checks and times one shape; appends its ratio to fam (a failed check
   counts as a ratio of 0, so it cannot hide in the mean). */
template <typename T>
static void sweep_shape(cublasHandle_t handle, const T *a, const T *b, T *c, T *d_ref, size_t pool_elems,
                        const GemmShape &s, const char *dtype, double tol, SweepFamily &fam)
{
    char op[96];
    const bool padded = s.lda != (s.ta ? s.m : s.k) || s.ldb != (s.tb ? s.k : s.n) || s.ldc != s.n;
    snprintf(op, sizeof op, "sweep-%s %zux%zux%zu%s%s", fam.name.c_str(), s.m, s.n, s.k, padded ? " ld+" : "",
             s.ta || s.tb ? (s.ta ? (s.tb ? " op TT" : " op TN") : " op NT") : "");
    const double ratio = bench_gemm_shape<T>(handle, a, b, c, d_ref, pool_elems, s, op, dtype, tol, 300, 5, 20);
    fam.ratios.push_back(ratio);
    fam.shapes.push_back(std::strchr(op, ' ') + 1);
}

/* The sweep over every family of one type: `count[f]` shapes of family f. */
template <typename T>
static void sweep(cublasHandle_t handle, const T *a, const T *b, T *c, T *d_ref, size_t pool_elems,
                  unsigned long long seed, const int (&count)[3], const char *dtype, double tol)
{
    for (int f = 0; f < 3; ++f) {
        if (count[f] == 0)
            continue;
        SplitMix rng = {seed ^ (0x1000ull * (f + 1) + sizeof(T))};
        SweepFamily fam;
        fam.name = kFamilies[f];
        for (int i = 0; i < count[f]; ++i)
            sweep_shape<T>(handle, a, b, c, d_ref, pool_elems, draw_shape(rng, f, i), dtype, tol, fam);
        fam.name = std::string(dtype) + " " + fam.name;
        g_sweep.push_back(fam);
    }
}

static const SweepFamily *find_family(const char *name)
{
    for (const SweepFamily &f : g_sweep)
        if (f.name == name)
            return &f;
    return NULL;
}

/* Geometric mean of the ratios (0 if any is 0: a failed check). */
static double geo_mean(const std::vector<double> &v)
{
    double log_sum = 0;
    for (double x : v) {
        if (!(x > 0))
            return 0;
        log_sum += std::log(x);
    }
    return v.empty() ? NAN : std::exp(log_sum / (double)v.size());
}

/* ===========================================================================
   The targets block
   =========================================================================== */

static void target_line(const char *what, double value, double goal, bool at_least, const char *goal_text)
{
    const bool met = at_least ? value >= goal : value <= goal;
    const char *verdict = !(value == value) ? "not measured" : met ? "met" : "MISSED";
    printf("  %-46s %7s   target %-10s %s\n", what, fmt_num(value, "%.3f").c_str(), goal_text, verdict);
}

/* Prints a family's geometric mean and worst ratio against their targets
   (worst_goal NaN: the mean alone has a target). */
static void sweep_target_lines(const char *family, double mean_goal, double worst_goal)
{
    const SweepFamily *f = find_family(family);
    if (f == NULL || f->ratios.empty()) {
        printf("  %-46s not measured\n", family);
        return;
    }
    const size_t w = std::min_element(f->ratios.begin(), f->ratios.end()) - f->ratios.begin();
    char what[96], goal[16];
    snprintf(what, sizeof what, "sweep %s (%zu shapes): geo. mean gpuh/cuBLAS", family, f->ratios.size());
    snprintf(goal, sizeof goal, ">= %.2f", mean_goal);
    target_line(what, geo_mean(f->ratios), mean_goal, true, goal);
    snprintf(what, sizeof what, "sweep %s: worst gpuh/cuBLAS", family);
    if (worst_goal == worst_goal) {
        snprintf(goal, sizeof goal, ">= %.2f", worst_goal);
        target_line(what, f->ratios[w], worst_goal, true, goal);
    } else {
        printf("  %-46s %7s   (informational)\n", what, fmt_num(f->ratios[w], "%.3f").c_str());
    }
    printf("  %-46s (the worst is %s)\n", "", f->shapes[w].c_str());
}

/* ===========================================================================
   Tensor-core GEMM: gpuh_gemm on bfloat16 / fp16 and gpuh_gemm_tf32 against
   cublasGemmEx with the same types and compute type (CUBLAS_COMPUTE_32F;
   CUBLAS_COMPUTE_32F_FAST_TF32 for TF32), C in float, alpha 1, beta 0
   =========================================================================== */

__global__ void to_half_kernel(const float *in, __nv_bfloat16 *bf, __half *h, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        bf[i] = __float2bfloat16_rn(in[i]);
        h[i] = __float2half_rn(in[i]);
    }
}

template <typename T> struct TcType;
template <> struct TcType<__nv_bfloat16> {
    static cudaDataType_t type() { return CUDA_R_16BF; }
    static cublasComputeType_t compute() { return CUBLAS_COMPUTE_32F; }
    static const char *name() { return "bf16"; }
    static cudaError_t gpuh(const GemmShape &s, const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c,
                            cudaStream_t st)
    {
        return gpuh_gemm(gemm_op(s.ta), gemm_op(s.tb), s.m, s.n, s.k, 1.0f, a, s.lda, b, s.ldb, 0.0f, c, s.ldc, st);
    }
};
template <> struct TcType<__half> {
    static cudaDataType_t type() { return CUDA_R_16F; }
    static cublasComputeType_t compute() { return CUBLAS_COMPUTE_32F; }
    static const char *name() { return "f16"; }
    static cudaError_t gpuh(const GemmShape &s, const __half *a, const __half *b, float *c, cudaStream_t st)
    {
        return gpuh_gemm(gemm_op(s.ta), gemm_op(s.tb), s.m, s.n, s.k, 1.0f, a, s.lda, b, s.ldb, 0.0f, c, s.ldc, st);
    }
};
template <> struct TcType<float> {
    static cudaDataType_t type() { return CUDA_R_32F; }
    static cublasComputeType_t compute() { return CUBLAS_COMPUTE_32F_FAST_TF32; }
    static const char *name() { return "tf32"; }
    static cudaError_t gpuh(const GemmShape &s, const float *a, const float *b, float *c, cudaStream_t st)
    {
        return gpuh_gemm_tf32(gemm_op(s.ta), gemm_op(s.tb), s.m, s.n, s.k, 1.0f, a, s.lda, b, s.ldb, 0.0f, c, s.ldc,
                              st);
    }
};
template <typename T> struct TcWork {
    const T *a, *b;
    float *c;
    GemmShape s;
    cublasHandle_t handle;
};
/* Row-major C = op(A)·op(B) through column-major cuBLAS, as cublas_gemm_row_major. */
template <typename T> static cudaError_t work_tc_cublas(void *ctx, cudaStream_t)
{
    TcWork<T> *w = static_cast<TcWork<T> *>(ctx);
    const GemmShape &s = w->s;
    const float alpha = 1, beta = 0;
    return from_cublas(cublasGemmEx(w->handle, s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, s.ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                    (int)s.n, (int)s.m, (int)s.k, &alpha, w->b, TcType<T>::type(), (int)s.ldb, w->a,
                                    TcType<T>::type(), (int)s.lda, &beta, w->c, CUDA_R_32F, (int)s.ldc,
                                    TcType<T>::compute(), CUBLAS_GEMM_DEFAULT),
                       "cublasGemmEx");
}
template <typename T> static cudaError_t work_tc_gpuh(void *ctx, cudaStream_t stream)
{
    TcWork<T> *w = static_cast<TcWork<T> *>(ctx);
    return TcType<T>::gpuh(w->s, w->a, w->b, w->c, stream);
}

/* Checks gpuh against cublasGemmEx at one shape (relative Frobenius
   distance over C), times both (median, after warm-up) and emits the rows;
   returns gpuh / cuBLAS (0 when the check fails). No rotation: at these
   sizes both are bound by the tensor cores, not by memory. */
template <typename T>
static double bench_tc_shape(cublasHandle_t handle, const T *a, const T *b, float *c, float *d_ref,
                             const GemmShape &s, const char *op, double tol, double budget_ms)
{
    TcWork<T> w = {a, b, c, s, handle};
    TcWork<T> ref = {a, b, d_ref, s, handle};
    const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    double *d_err, e[2];
    GPUH_CHECK(gpuh_device_array(&d_err, 2));
    GPUH_CHECK(cudaMemsetAsync(d_err, 0, 2 * sizeof(double), g_stream));
    poison(c, s.m * s.ldc * sizeof(float));
    poison(d_ref, s.m * s.ldc * sizeof(float));
    GPUH_CHECK(work_tc_gpuh<T>(&w, g_stream));
    GPUH_CHECK(work_tc_cublas<T>(&ref, g_stream));
    GPUH_CHECK(GPUH_LAUNCH(rel_error_2d_kernel<float>, kCheckGrid, kCheckBlock, 0, g_stream, c, d_ref, s.m, s.n, s.ldc,
                           d_err));
    fetch(e, d_err, 2);
    GPUH_CHECK(gpuh_free(d_err));
    const double rel = std::sqrt(e[0] / e[1]);
    char note[64];
    snprintf(note, sizeof note, "err %.0e (tol %.0e)", rel, tol);
    /* three rounds, the two in turn (cuBLAS first, then gpuh first, then
       cuBLAS first), each a median: a GPU that warms up and slows its clock
       over a long run then weighs on both alike; the median of the rounds */
    int reps = 0, reps_g = 0;
    double t_c[3], t_g[3];
    for (int round = 0; round < 3; ++round) {
        if (round % 2 == 0)
            t_c[round] = median_ms_budget(work_tc_cublas<T>, &w, budget_ms / 3, 5, 20, &reps);
        t_g[round] = rel <= tol ? median_ms_budget(work_tc_gpuh<T>, &w, budget_ms / 3, 5, 20, &reps_g) : NAN;
        if (round % 2 == 1)
            t_c[round] = median_ms_budget(work_tc_cublas<T>, &w, budget_ms / 3, 5, 20, &reps);
    }
    std::sort(t_c, t_c + 3);
    std::sort(t_g, t_g + 3);
    const Row peer = timed_row("cublas", op, TcType<T>::name(), s.m, flops, true, t_c[1], 3 * reps);
    emit(peer);
    if (!(rel <= tol)) {
        emit(fail_row("gpuh", op, TcType<T>::name(), s.m, rel, note));
        return 0;
    }
    Row r = timed_row("gpuh", op, TcType<T>::name(), s.m, flops, true, t_g[1], 3 * reps_g);
    r.peer = std::string("cublas/") + op;
    r.ratio = r.rate / peer.rate;
    r.check += std::string(" ") + note;
    emit(r);
    return r.ratio;
}

/* The tensor-core rows: bf16 and fp16 at 4096³ and 8192³, TF32 at 8192³,
   then random shapes in bf16 (M, N in [1000, 8192], K in [512, 8192],
   packed; `aligned` shapes with every dimension a multiple of 8, the others
   with none), the geometric means of gpuh / cuBLAS and the targets. */
static void bench_tensor_cores(cublasHandle_t handle, unsigned long long seed, int sweep_count)
{
    const size_t most = size_t(8192) * 8192;
    float *f32[2], *c, *ref;
    __nv_bfloat16 *bf[2];
    __half *h[2];
    for (int i = 0; i < 2; ++i) {
        GPUH_CHECK(gpuh_device_array(&f32[i], most));
        GPUH_CHECK(gpuh_device_array(&bf[i], most));
        GPUH_CHECK(gpuh_device_array(&h[i], most));
        GPUH_CHECK(gpuh_random_normal_f32(f32[i], most, 0.0f, 1.0f, 11 + i, g_stream));
        GPUH_CHECK(GPUH_LAUNCH(to_half_kernel, 4096, 256, 0, g_stream, f32[i], bf[i], h[i], most));
    }
    GPUH_CHECK(gpuh_device_array(&c, most));
    GPUH_CHECK(gpuh_device_array(&ref, most));
    print_header("tensor-core matmul: gpuh_gemm (bf16, f16 inputs, float C) and gpuh_gemm_tf32 vs cublasGemmEx, "
                 "fp32 accumulate (TFLOP/s = 2n^3 / time)");
    double r[5];
    r[0] = bench_tc_shape<__nv_bfloat16>(handle, bf[0], bf[1], c, ref, packed(4096, 4096, 4096), "tc matmul", 1e-4, 1500);
    r[1] = bench_tc_shape<__nv_bfloat16>(handle, bf[0], bf[1], c, ref, packed(8192, 8192, 8192), "tc matmul", 1e-4, 3000);
    r[2] = bench_tc_shape<__half>(handle, h[0], h[1], c, ref, packed(4096, 4096, 4096), "tc matmul", 1e-4, 1500);
    r[3] = bench_tc_shape<__half>(handle, h[0], h[1], c, ref, packed(8192, 8192, 8192), "tc matmul", 1e-4, 3000);
    r[4] = bench_tc_shape<float>(handle, f32[0], f32[1], c, ref, packed(8192, 8192, 8192), "tc matmul", 1e-2, 3000);
    (void)bench_tc_shape<float>(handle, f32[0], f32[1], c, ref, packed(4096, 4096, 4096), "tc matmul", 1e-2, 1500);
    /* odd shapes at which torch.matmul in bf16 leaves the tensor cores' fast
       path (bench/tc_torch.py times them in PyTorch) */
    const size_t odd[4][3] = {{7749, 2419, 6044}, {1028, 1364, 6018}, {7526, 6665, 1640}, {8188, 5964, 4322}};
    for (const auto &d : odd) {
        char op[64];
        snprintf(op, sizeof op, "tc odd %zux%zux%zu", d[0], d[1], d[2]);
        (void)bench_tc_shape<__nv_bfloat16>(handle, bf[0], bf[1], c, ref, packed(d[0], d[1], d[2]), op, 1e-4, 600);
    }
    print_header("tensor-core sweep, bf16: random shapes, M, N in [1000, 8192], K in [512, 8192] (seed below)");
    printf("tc sweep seed %llu\n", seed);
    SplitMix rng = {seed ^ 0x7c7c7cull};
    std::vector<double> ratios[2];
    for (int i = 0; i < 2 * sweep_count; ++i) {
        const int aligned = i % 2 == 0;
        size_t d[3] = {rng.in(1000, 8192), rng.in(1000, 8192), rng.in(512, 8192)};
        for (size_t &x : d)
            x = aligned ? x / 8 * 8 : (x % 8 == 0 ? x + 1 : x);
        char op[64];
        snprintf(op, sizeof op, "tc sweep %s %zux%zux%zu", aligned ? "x8" : "odd", d[0], d[1], d[2]);
        ratios[aligned].push_back(
            bench_tc_shape<__nv_bfloat16>(handle, bf[0], bf[1], c, ref, packed(d[0], d[1], d[2]), op, 1e-4, 300));
    }
    printf("\n==== tensor-core targets (ratios of the rates measured in this run)\n");
    const char *what[5] = {"bf16 4096^3 gpuh / cuBLAS", "bf16 8192^3 gpuh / cuBLAS", "f16 4096^3 gpuh / cuBLAS",
                           "f16 8192^3 gpuh / cuBLAS", "tf32 8192^3 gpuh / cuBLAS"};
    for (int i = 0; i < 5; ++i)
        target_line(what[i], r[i], 0.95, true, ">= 0.95");
    char line[96];
    snprintf(line, sizeof line, "bf16 sweep, multiples of 8 (%zu): geo. mean", ratios[1].size());
    target_line(line, geo_mean(ratios[1]), 0.90, true, ">= 0.90");
    snprintf(line, sizeof line, "bf16 sweep, not multiples of 8 (%zu): geo. mean", ratios[0].size());
    target_line(line, geo_mean(ratios[0]), 2.0, true, ">= 2.00");
    for (int i = 0; i < 2; ++i) {
        GPUH_CHECK(gpuh_free(f32[i]));
        GPUH_CHECK(gpuh_free(bf[i]));
        GPUH_CHECK(gpuh_free(h[i]));
    }
    GPUH_CHECK(gpuh_free(c));
    GPUH_CHECK(gpuh_free(ref));
}

static void print_targets(void)
{
    const size_t n = size_t(1) << 28;
    printf("\n==== targets (float32, n = 2^28; ratios of the rates measured in this run)\n");
    const double sum = find_rate("gpuh", "sum", "float32", n);
    target_line("vector add GB/s / copy ceiling GB/s", find_rate("gpuh", "add", "float32", n) /
                find_rate("cuda", "copy", "float32", n), 0.97, true, ">= 0.97");
    target_line("vector add, unaligned (add~) / copy ceiling", find_rate("gpuh", "add~", "float32", n) /
                find_rate("cuda", "copy", "float32", n), 0.97, true, ">= 0.97");
    target_line("gpuh sum GB/s / CUB sum GB/s", sum / find_rate("cub", "sum", "float32", n), 1.00, true, ">= 1.00");
    const char *ops[] = {"min", "max", "dot", "norm2"};
    for (const char *op : ops) {
        const std::string what = std::string("gpuh ") + op + " GB/s / gpuh sum GB/s";
        const double ratio = find_rate("gpuh", op, "float32", n) / sum;
        target_line(what.c_str(), ratio, 0.95, true, "within 5%");
        if (ratio > 1.05)
            printf("  %-46s (more than 5%% faster than sum: sum is the one to look at)\n", "");
    }
    /* Launch-bound sizes: time, not bandwidth. The worst over 2^10 .. 2^16. */
    double worst = NAN;
    size_t worst_n = 0;
    for (size_t m = size_t(1) << 10; m <= (size_t(1) << 16); m <<= 1) {
        const double t = find_ms("gpuh", "sum", "float32", m) / find_ms("cub", "sum", "float32", m);
        if (t == t && !(t <= worst)) {
            worst = t;
            worst_n = m;
        }
    }
    target_line("gpuh sum time / CUB time, worst of 2^10..2^16", worst, 1.2, false, "<= 1.20");
    if (worst_n)
        printf("  %-46s (the worst is at n = %s)\n", "", fmt_n(worst_n).c_str());
    printf("  %-46s %7s   (informational)\n", "vector add / copy ceiling at 1e8+7",
           fmt_num(find_rate("gpuh", "add", "float32", kAwkwardN) / find_rate("cuda", "copy", "float32", kAwkwardN),
                   "%.3f").c_str());
    printf("  %-46s %7s   (informational)\n", "gpuh sum / CUB sum at 1e8+7",
           fmt_num(find_rate("gpuh", "sum", "float32", kAwkwardN) / find_rate("cub", "sum", "float32", kAwkwardN),
                   "%.3f").c_str());
    for (size_t n : {4096, 8192})
        target_line((std::string("matmul ") + std::to_string(n) + " float32 gpuh / cuBLAS TFLOP/s").c_str(),
                    find_rate("gpuh", "matmul", "float32", n) / find_rate("cublas", "matmul", "float32", n), 0.92,
                    true, ">= 0.92");
    target_line("matmul 4097 / 4096 float32 gpuh TFLOP/s",
                find_rate("gpuh", "matmul", "float32", 4097) / find_rate("gpuh", "matmul", "float32", 4096), 0.85,
                true, ">= 0.85");
    target_line("matmul 1000x3000x500 / 1024x3072x512 float32 gpuh",
                find_rate("gpuh", "matmul 1000x3000x500", "float32", 1000) /
                    find_rate("gpuh", "matmul 1024x3072x512", "float32", 1024),
                0.85, true, ">= 0.85");
    printf("  %-46s %7s   (informational)\n", "matmul 2048 float32 gpuh / cuBLAS TFLOP/s",
           fmt_num(find_rate("gpuh", "matmul", "float32", 2048) / find_rate("cublas", "matmul", "float32", 2048),
                   "%.3f").c_str());
    /* The matrix-vector shapes are bound by memory: their yardstick is
       cuBLAS's GEMV-shaped call, and the bytes they move against the copy
       ceiling (reading A or B once: 4·(m·k + k·n + m·n) bytes). */
    for (const GemmShape &s : {packed(1, 4096, 4096), packed(4096, 1, 4096)}) {
        const std::string op = "matmul " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
        const double rate = find_rate("gpuh", op.c_str(), "float32", s.m);
        target_line((op + " float32 gpuh / cuBLAS").c_str(), rate / find_rate("cublas", op.c_str(), "float32", s.m),
                    0.85, true, ">= 0.85");
        const double bytes = 4.0 * (double)(s.m * s.k + s.k * s.n + s.m * s.n), flops = 2.0 * s.m * s.n * s.k;
        printf("  %-46s %7s   (informational)\n", (op + " GB/s / copy ceiling").c_str(),
               fmt_num(rate * 1e3 * bytes / flops / find_rate("cuda", "copy", "float32", n), "%.3f")
                   .c_str());
    }
    target_line("matmul 4096 float64 gpuh / cuBLAS TFLOP/s",
                find_rate("gpuh", "matmul", "float64", 4096) / find_rate("cublas", "matmul", "float64", 4096), 0.85,
                true, ">= 0.85");
    sweep_target_lines("float32 big", 0.92, 0.80);
    sweep_target_lines("float32 medium", 0.85, 0.65);
    sweep_target_lines("float32 skinny", 0.90, NAN);
    sweep_target_lines("float64 big", 0.90, 0.75);
    if (g_failures)
        printf("  checks: %d FAILED (the FAIL rows above)\n", g_failures);
    else
        printf("  checks: all passed\n");
}

/* ===========================================================================
   main
   =========================================================================== */

static FILE *open_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) { /* the default's folder may be missing: make it, once */
        std::string dir(path);
        const size_t slash = dir.find_last_of('/');
        if (slash != std::string::npos) {
            dir.resize(slash);
            mkdir(dir.c_str(), 0777);
            f = fopen(path, "w");
        }
    }
    return f;
}

int main(int argc, char **argv)
{
    const char *csv_path = argc > 1 ? argv[1] : "bench/results/bench.csv";
    const char *why = "";
    if (gpuh_device_count(&why) == 0) {
        printf("bench: no CUDA device: %s\n", why);
        return 77;
    }
    GPUH_CHECK(gpuh_select_device(0));
    g_csv = open_csv(csv_path);
    if (g_csv == NULL) {
        fprintf(stderr, "bench: cannot write %s\n", csv_path);
        return 2;
    }
    fprintf(g_csv, "source,op,dtype,n,bytes_or_flops,time_ms,rate,rate_unit,peer,ratio\n");

    cudaDeviceProp prop;
    int sm_khz = 0, runtime = 0;
    GPUH_CHECK(cudaGetDeviceProperties(&prop, 0));
    GPUH_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0));
    GPUH_CHECK(cudaRuntimeGetVersion(&runtime));
    g_rotate_bytes = std::max(4.0 * prop.l2CacheSize, 4.0 * 60e6);
    printf("gpuh bench: %s, sm_%d%d, %d SMs, L2 %.0f MB, %.1f GiB, SM clock max %d MHz, CUDA runtime %d.%d, "
           "CUB %d.%d.%d\n",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize / 1e6,
           prop.totalGlobalMem / 1073741824.0, sm_khz / 1000, runtime / 1000, runtime % 1000 / 10,
           CUB_VERSION / 100000, CUB_VERSION / 100 % 1000, CUB_VERSION % 100);
    printf("rotation: inputs cycle over sets covering >= %.0f MB per size; CSV: %s\n", g_rotate_bytes / 1e6,
           csv_path);

    GPUH_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    const char *only = getenv("GPUH_BENCH_ONLY");
    if (only != NULL && strcmp(only, "tc") == 0) { /* the tensor-core rows alone */
        cublasHandle_t handle;
        GPUH_CHECK(from_cublas(cublasCreate(&handle), "cublasCreate"));
        GPUH_CHECK(from_cublas(cublasSetStream(handle, g_stream), "cublasSetStream"));
        bench_tensor_cores(handle, gpuh_random_seed(), 12);
        GPUH_CHECK(from_cublas(cublasDestroy(handle), "cublasDestroy"));
        GPUH_CHECK(cudaStreamDestroy(g_stream));
        fclose(g_csv);
        return g_failures ? 1 : 0;
    }
    Pools pools;
    float *pool_w; /* matmul: cuBLAS's reference result */
    pools.elems = kPoolFloats;
    GPUH_CHECK(gpuh_device_array(&pools.x, kPoolFloats + kSlack));
    GPUH_CHECK(gpuh_device_array(&pools.y, kPoolFloats + kSlack));
    GPUH_CHECK(gpuh_device_array(&pools.z, kPoolFloats + kSlack));
    GPUH_CHECK(gpuh_device_array(&pool_w, kPoolFloats));
    /* Uniform in (0, 1]: positive, so sums have no cancellation and their
       relative errors can be judged against a bound. */
    GPUH_CHECK(gpuh_random_uniform_f32(pools.x, kPoolFloats + kSlack, 1, g_stream));
    GPUH_CHECK(gpuh_random_uniform_f32(pools.y, kPoolFloats + kSlack, 2, g_stream));
    void *d_temp;
    float *d_result;
    unsigned char *temp_bytes;
    GPUH_CHECK(gpuh_device_array(&temp_bytes, GPUH_REDUCE_TEMP_BYTES));
    GPUH_CHECK(gpuh_device_array(&d_result, 1));
    d_temp = temp_bytes;

    /* ---- memory-bound ops (left out with GPUH_BENCH_ONLY=matmul) ---- */
    const bool mem_ops = only == NULL || std::strcmp(only, "matmul") != 0;
    std::vector<size_t> sizes;
    for (int k = 10; k <= 24; k += 2)
        sizes.push_back(size_t(1) << k);
    for (int k = 25; k <= 28; ++k)
        sizes.push_back(size_t(1) << k);
    sizes.push_back(kAwkwardN);
    std::sort(sizes.begin(), sizes.end());
    if (mem_ops)
        print_header("memory-bound ops, float32 (GB/s = bytes read + written / time; t/tCUB = time / CUB sum's time)");
    for (size_t n : mem_ops ? sizes : std::vector<size_t>())
        bench_mem_size(pools, n, d_temp, d_result, true);

    /* ---- past 2^31 elements: copy, add, sum ---- */
    if (mem_ops) {
        gpuh_memory_stats mem;
        GPUH_CHECK(gpuh_memory_info(&mem));
        const double need = 3.0 * (double)kHugeN * sizeof(float) + (1u << 30); /* + 1 GiB for CUB and slack */
        if (mem.free_bytes < need) {
            printf("(n = %s skipped: needs %.1f GB of device memory, %.1f GB free)\n", fmt_n(kHugeN).c_str(),
                   need / 1e9, mem.free_bytes / 1e9);
        } else {
            Pools huge;
            huge.elems = kHugeN;
            GPUH_CHECK(gpuh_device_array(&huge.x, kHugeN));
            GPUH_CHECK(gpuh_device_array(&huge.y, kHugeN));
            GPUH_CHECK(gpuh_device_array(&huge.z, kHugeN));
            GPUH_CHECK(gpuh_random_uniform_f32(huge.x, kHugeN, 3, g_stream));
            GPUH_CHECK(gpuh_random_uniform_f32(huge.y, kHugeN, 4, g_stream));
            bench_mem_size(huge, kHugeN, d_temp, d_result, false);
            GPUH_CHECK(gpuh_free(huge.x));
            GPUH_CHECK(gpuh_free(huge.y));
            GPUH_CHECK(gpuh_free(huge.z));
        }
    }

    /* ---- matmul ---- */
    cublasHandle_t handle;
    GPUH_CHECK(from_cublas(cublasCreate(&handle), "cublasCreate"));
    GPUH_CHECK(from_cublas(cublasSetStream(handle, g_stream), "cublasSetStream"));
    GPUH_CHECK(from_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode"));
    /* Squares, then awkward shapes: both strips of small tiles around the
       big ones, a row vector times a matrix, a matrix times a column. */
    const GemmShape mat_sizes[] = {packed(256, 256, 256),    packed(512, 512, 512),    packed(1024, 1024, 1024),
                                   packed(2048, 2048, 2048), packed(4096, 4096, 4096), packed(4097, 4097, 4097),
                                   packed(8192, 8192, 8192), packed(1000, 3000, 500),  packed(1024, 3072, 512),
                                   packed(1, 4096, 4096),    packed(4096, 1, 4096)};

    /* Normal N(0, 1) entries: products cancel, as in real use, so the error
       check sees the summation order, not just its magnitude. */
    GPUH_CHECK(gpuh_random_normal_f32(pools.x, kPoolFloats, 0.0f, 1.0f, 5, g_stream));
    GPUH_CHECK(gpuh_random_normal_f32(pools.y, kPoolFloats, 0.0f, 1.0f, 6, g_stream));
    print_header("matmul, float32, M = N = K = n (TFLOP/s = 2n^3 / time)");
    for (const GemmShape &s : mat_sizes)
        bench_matmul_size<float>(handle, pools.x, pools.y, pools.z, pool_w, kPoolFloats, s, "float32", 1e-5);
    const unsigned long long seed = gpuh_random_seed();
    const int float_counts[3] = {12, 10, 10}, double_counts[3] = {8, 0, 0};
    print_header("matmul sweep, float32: random shapes (seed below; GPUH_SEED repeats it)");
    printf("sweep seed %llu\n", seed);
    sweep<float>(handle, pools.x, pools.y, pools.z, pool_w, kPoolFloats, seed, float_counts, "float32", 1e-5);

    /* The same pools as doubles: half as many elements. */
    double *dx = reinterpret_cast<double *>(pools.x), *dy = reinterpret_cast<double *>(pools.y);
    double *dz = reinterpret_cast<double *>(pools.z), *dw = reinterpret_cast<double *>(pool_w);
    GPUH_CHECK(gpuh_random_normal_f64(dx, kPoolFloats / 2, 0.0, 1.0, 7, g_stream));
    GPUH_CHECK(gpuh_random_normal_f64(dy, kPoolFloats / 2, 0.0, 1.0, 8, g_stream));
    print_header("matmul, float64, M = N = K = n (TFLOP/s = 2n^3 / time)");
    for (const GemmShape &s : mat_sizes)
        bench_matmul_size<double>(handle, dx, dy, dz, dw, kPoolFloats / 2, s, "float64", 1e-12);
    print_header("matmul sweep, float64: random shapes of the big family");
    sweep<double>(handle, dx, dy, dz, dw, kPoolFloats / 2, seed, double_counts, "float64", 1e-12);
    bench_tensor_cores(handle, seed, 8);

    print_targets();

    GPUH_CHECK(from_cublas(cublasDestroy(handle), "cublasDestroy"));
    GPUH_CHECK(gpuh_free(pools.x));
    GPUH_CHECK(gpuh_free(pools.y));
    GPUH_CHECK(gpuh_free(pools.z));
    GPUH_CHECK(gpuh_free(pool_w));
    GPUH_CHECK(gpuh_free(temp_bytes));
    GPUH_CHECK(gpuh_free(d_result));
    GPUH_CHECK(cudaStreamDestroy(g_stream));
    fclose(g_csv);
    return g_failures ? 1 : 0;
}
