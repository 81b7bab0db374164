/* test_kernels.cu - the memory-bound kernels of gpuh_kernels.cuh against a CPU
   reference (GEMM: test_gemm.cu; the tensor-core GEMM: test_tc_gemm.cu).

   Inputs are fresh random numbers (gpuh_random_* from the printed seed; rerun
   with GPUH_SEED=<seed>), outputs are poisoned (all bits 1: NaN for floats, -1
   for ints) before every run, so an element the kernel forgets to write is
   caught. References are computed in float64 (or exactly, where the result is
   exact). Without a device: exit 77, "no CUDA device: <reason>".
   GPUH_TEST_QUICK=1 leaves out the big sizes (for compute-sanitizer runs); on
   the CPU simulator it also runs fewer repetitions (see on_simulator).

   Covered: vector add (float, double, int; aligned, offset and in-place
   pointers, no writes outside the output, int wrap-around), sum / min / max
   (float, double, int) and dot / norm2 (float, double) at the awkward sizes
   and offsets, against the error bound documented at gpuh_sum, NaN and
   infinities, d_temp rules, bitwise determinism (each reduction, 100 runs),
   NULL-pointer errors, every C entry point (GEMM's too), and n = 2^31 + 17.
   It links the compiled mode (gpuh::kernels), as a user's program would;
   built without it (the sanitizers' builds), it emits the C entry points
   itself (GPUH_KERNELS_IMPLEMENTATION).

   nvcc -std=c++17 -arch=sm_90 -DGPUH_USE_CURAND -I. tests/test_kernels.cu -lcurand
*/
#ifndef GPUH_KERNELS_LIBRARY
#define GPUH_KERNELS_IMPLEMENTATION
#endif
#include "kernels_test.h"
#include "gpuh/half.cuh" /* the 16-bit types, for the tensor-core C entry points */

#ifndef GPUH_USE_CURAND
#error "test_kernels.cu needs -DGPUH_USE_CURAND (and -lcurand) for its random inputs"
#endif

/* ===========================================================================
   VECTOR ADD
   IEEE-754 makes a + b correctly rounded on the host and the device alike, so
   the reference is exact and every element must match bit for bit: stronger
   than any norm. */

template <typename T> static size_t count_add_mismatches(const std::vector<T> &a, const std::vector<T> &b,
                                                        const std::vector<T> &c, size_t *first)
{
    size_t bad = 0;
    *first = c.size();
    for (size_t i = 0; i < c.size(); ++i) {
        T want = a[i] + b[i];
        if (!same_bits(c[i], want)) {
            if (bad++ == 0)
                *first = i;
        }
    }
    return bad;
}

template <typename T> static void test_vector_add(input_kind kind)
{
    for (size_t n : sizes) {
        dev_array<T> a(n), b(n), c(n);
        if (!a.ok() || !b.ok() || !c.ok())
            return;
        std::vector<T> ha = random_input(a.p, n, kind), hb = random_input(b.p, n, kind);
        poison(c.p, n);
        TEST_CUDA(gpuh_vector_add(a.p, b.p, c.p, n));
        std::vector<T> hc = download(c.p, n);
        size_t first, bad = count_add_mismatches(ha, hb, hc, &first);
        TEST_ASSERT(bad == 0, "vector_add<%s> n = %zu: %zu elements wrong; first at %zu: %.17g + %.17g gave %.17g",
                    type_name<T>(), n, bad, first, bad ? (double)ha[first] : 0.0, bad ? (double)hb[first] : 0.0,
                    bad ? (double)hc[first] : 0.0);
    }
    printf("vector_add<%s>: %zu sizes\n", type_name<T>(), sizeof sizes / sizeof sizes[0]);
}

/* Pointers that are not 16-byte aligned (offsets of 0-3 elements into
   cudaMalloc'd arrays), the same offset for all three (vectors after a few
   single elements) and different ones (one element at a time). Every output
   array is poisoned whole, and the elements around [d_c, d_c + n) must keep
   their poison: a vectorised kernel must not write past either end. */
template <typename T> static void test_vector_add_offsets(input_kind kind)
{
    static const size_t offs[][3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3},
                                     {1, 0, 0}, {0, 2, 1}, {0, 0, 3}, {3, 1, 2}};
    const size_t pad = 8;
    for (size_t n : {(size_t)1, (size_t)2, (size_t)3, (size_t)5, (size_t)7, (size_t)33, (size_t)1025, (size_t)4099,
                     (size_t)(1u << 20) + 3}) {
        dev_array<T> a(n + pad), b(n + pad), c(n + pad);
        if (!a.ok() || !b.ok() || !c.ok())
            return;
        const std::vector<T> ha = random_input(a.p, n + pad, kind), hb = random_input(b.p, n + pad, kind);
        for (const auto &o : offs) {
            poison(c.p, n + pad);
            if (!TEST_CUDA(gpuh_vector_add(a.p + o[0], b.p + o[1], c.p + o[2], n)))
                continue;
            const std::vector<T> hc = download(c.p, n + pad);
            size_t bad = 0, outside = 0, first = n;
            for (size_t i = 0; i < n; ++i) {
                const T want = ha[o[0] + i] + hb[o[1] + i];
                if (!same_bits(hc[o[2] + i], want) && bad++ == 0)
                    first = i;
            }
            T poisoned;
            memset(&poisoned, 0xFF, sizeof poisoned);
            for (size_t i = 0; i < n + pad; ++i)
                outside += (i < o[2] || i >= o[2] + n) && !same_bits(hc[i], poisoned);
            TEST_ASSERT(bad == 0 && outside == 0,
                        "vector_add<%s> n = %zu, offsets (%zu, %zu, %zu): %zu elements wrong (first %zu), %zu written "
                        "outside the output", type_name<T>(), n, o[0], o[1], o[2], bad, first, outside);
        }
    }
}

/* In place (d_c == d_a), which gpuh_vector_add documents as allowed. */
static void test_vector_add_in_place()
{
    for (size_t n : {(size_t)1025, (size_t)(1u << 20) + 3}) {
        dev_array<float> a(n + 1), b(n + 1);
        if (!a.ok() || !b.ok())
            return;
        for (size_t off : {(size_t)0, (size_t)1}) { /* aligned, and through the one-by-one head */
            std::vector<float> ha = random_input(a.p, n + 1, SYMMETRIC), hb = random_input(b.p, n + 1, SYMMETRIC);
            TEST_CUDA(gpuh_vector_add(a.p + off, b.p + off, a.p + off, n));
            std::vector<float> hc = download(a.p + off, n);
            std::vector<float> sa(ha.begin() + off, ha.begin() + off + n), sb(hb.begin() + off, hb.begin() + off + n);
            size_t first, bad = count_add_mismatches(sa, sb, hc, &first);
            TEST_ASSERT(bad == 0, "in-place vector_add n = %zu, offset %zu: %zu elements wrong, first at %zu", n, off,
                        bad, first);
        }
    }
}

/* "Integer overflow wraps as the device's adder does." */
static void test_vector_add_int_wrap()
{
    const int ha[] = {INT_MAX, INT_MIN, -1, 0x40000000, INT_MAX, 12345};
    const int hb[] = {1, -1, INT_MIN, 0x40000000, INT_MAX, -54321};
    const size_t n = sizeof ha / sizeof ha[0];
    int *a = nullptr, *b = nullptr, *c = nullptr;
    int hc[n];
    TEST_CUDA(gpuh_to_device(&a, ha, n));
    TEST_CUDA(gpuh_to_device(&b, hb, n));
    TEST_CUDA(gpuh_device_array(&c, n));
    if (a && b && c) {
        poison(c, n);
        TEST_CUDA(gpuh_vector_add(a, b, c, n));
        TEST_CUDA(cudaDeviceSynchronize());
        TEST_CUDA(gpuh_copy_to_host(hc, c, n));
        for (size_t i = 0; i < n; ++i) {
            int want = (int)((unsigned)ha[i] + (unsigned)hb[i]);
            TEST_ASSERT(hc[i] == want, "%d + %d gave %d, expected %d (wrapped)", ha[i], hb[i], hc[i], want);
        }
    }
    TEST_CUDA(gpuh_free(a));
    TEST_CUDA(gpuh_free(b));
    TEST_CUDA(gpuh_free(c));
}

/* A count past the end of the gpuh allocation an argument points into is
   refused by the launchers, the argument and both sizes named, before any
   kernel reads or writes past it. */
static void test_launch_past_allocation()
{
    dev_array<float> a(1000), b(1000), c(1000), out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES / 2);
    if (!a.ok() || !b.ok() || !c.ok() || !out.ok() || !temp.ok())
        return;
    TEST_CUDA(cudaMemset(a.p, 0, 1000 * sizeof(float))); /* the calls that pass read them */
    TEST_CUDA(cudaMemset(b.p, 0, 1000 * sizeof(float)));
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_vector_add(a.p, b.p, c.p, 2000), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_vector_add: d_a");
    TEST_CONTAINS(gpuh_error_detail(), "which leaves room for 1000 elements of 4 bytes; the count is 2000");
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_vector_add(a.p, b.p, c.p + 10, 995), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_c");
    TEST_CONTAINS(gpuh_error_detail(), "is 40 bytes into a 4000-byte device allocation");
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_dot(a.p, b.p + 1, 1000, out.p, static_cast<void *>(nullptr)), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_dot: the second input");
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_sum(a.p, 1000, out.p + 1, static_cast<void *>(nullptr)), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_sum: d_out");
    const size_t big = (size_t)GPUH_REDUCE_BLOCK * GPUH_REDUCE_UNROLL * 4 + 1; /* two blocks of float4: scratch */
    dev_array<float> x(big);
    if (x.ok()) {
        gpuh_test_clear_detail();
        TEST_ERR(gpuh_sum(x.p, big, out.p, static_cast<void *>(temp.p)), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "gpuh_sum: d_temp");
    }
    gpuh_test_clear_detail(); /* op(A) = Aᵀ stored K × M = 40 × 10 with lda 41: 39·41 + 10 = 1609 elements */
    TEST_ERR(gpuh_gemm(GPUH_OP_T, GPUH_OP_N, 10, 10, 40, 1.0f, a.p, 41, b.p, 10, 0.0f, c.p, 10), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_gemm: d_A");
    TEST_CONTAINS(gpuh_error_detail(), "room for 1000 elements of 4 bytes; the count is 1609");
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_gemm(10, 100, 10, 1.0f, a.p, 10, b.p, 100, 0.0f, c.p + 1, 100), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_gemm: d_C");
    TEST_CUDA(gpuh_gemm(10, 100, 10, 1.0f, a.p, 10, b.p, 100, 0.0f, c.p, 100)); /* exactly the arrays: fine */
    TEST_CUDA(gpuh_vector_add(a.p, b.p, c.p, 1000)); /* the whole arrays still work */
    TEST_CUDA(cudaDeviceSynchronize());
}

#ifdef GPUH_SIM
/* A launcher given a destroyed stream names the stream and the call, not the
   internal kernel whose launch met it (on the simulator, which refuses the
   handle; on a GPU a destroyed stream is undefined behaviour). */
static void test_destroyed_stream()
{
    dev_array<float> a(4096), b(4096), c(4096), out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    cudaStream_t s;
    if (!a.ok() || !b.ok() || !c.ok() || !out.ok() || !temp.ok())
        return;
    TEST_CUDA(cudaStreamCreate(&s));
    TEST_CUDA(cudaStreamDestroy(s));
    const char *why = cudaGetErrorString(cudaErrorInvalidResourceHandle);
#define STREAM_DETAIL "%s: stream %p is not a live stream of the current device (destroyed, or another device's): %s"
    TEST_DETAIL(gpuh_vector_add(a.p, b.p, c.p, 4096, s), cudaErrorInvalidResourceHandle, STREAM_DETAIL,
                "gpuh_vector_add", (void *)s, why);
    TEST_DETAIL(gpuh_sum(a.p, 4096, out.p, temp.p, s), cudaErrorInvalidResourceHandle, STREAM_DETAIL, "gpuh_sum",
                (void *)s, why);
    TEST_DETAIL(gpuh_gemm(64, 64, 64, 1.0f, a.p, 64, b.p, 64, 0.0f, c.p, 64, s), cudaErrorInvalidResourceHandle,
                STREAM_DETAIL, "gpuh_gemm", (void *)s, why);
    TEST_DETAIL(gpuh_gemm(GPUH_OP_T, GPUH_OP_N, 1, 64, 64, 1.0f, a.p, 1, b.p, 64, 0.0f, c.p, 64, s),
                cudaErrorInvalidResourceHandle, STREAM_DETAIL, "gpuh_gemm", (void *)s, why);
#undef STREAM_DETAIL
}
#endif

/* An element pointer that is not aligned to its type (a precondition of
   every kernel) is refused with the argument named, not run. */
/* Memory no kernel can reach (pageable host memory, an array already freed)
   and pointers off their element's alignment: each launcher refuses them
   before anything runs, naming the argument, where the kernel would fault
   and take the context, and every array in it, with it. */
static void test_unreachable_memory()
{
    std::vector<float> h(256, 1.0f);
    float *host = h.data(), *gone = NULL;
    dev_array<float> a(256), c(256), out(2);
    if (!a.ok() || !c.ok() || !out.ok() || !TEST_CUDA(gpuh_device_array(&gone, 256)) || !TEST_CUDA(gpuh_free(gone)))
        return;
    TEST_CUDA(cudaMemset(a.p, 0, 256 * sizeof(float)));
    float *odd = reinterpret_cast<float *>(reinterpret_cast<char *>(c.p) + 2);
    const char *unreachable = "is not memory a kernel can reach";
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_vector_add(host, a.p, c.p, 256), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_vector_add: d_a");
    TEST_CONTAINS(gpuh_error_detail(), unreachable);
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_vector_add(a.p, a.p, gone, 256), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_vector_add: d_c");
    TEST_CONTAINS(gpuh_error_detail(), unreachable);
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_sum(a.p, 256, host, static_cast<void *>(nullptr)), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_sum: d_out");
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_dot(a.p, gone, 256, out.p, static_cast<void *>(nullptr)), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_dot: the second input");
    TEST_CONTAINS(gpuh_error_detail(), unreachable);
    /* an empty sum still writes d_out: checked too */
    TEST_DETAIL(gpuh_sum(a.p, 0, odd, static_cast<void *>(nullptr)), cudaErrorInvalidValue,
                "gpuh_sum: d_out %p is not aligned to its element type (4 bytes)", static_cast<void *>(odd));
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_sum(a.p, 0, host, static_cast<void *>(nullptr)), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_sum: d_out");
    TEST_DETAIL(gpuh_gemm(8, 8, 8, 1.0f, a.p, 8, odd, 8, 0.0f, c.p, 8), cudaErrorInvalidValue,
                "gpuh_gemm: d_B %p is not aligned to its element type (4 bytes)", static_cast<void *>(odd));
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_gemm(8, 8, 8, 1.0f, a.p, 8, a.p, 8, 0.0f, host, 8), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_gemm: d_C");
    TEST_CONTAINS(gpuh_error_detail(), unreachable);
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_gemm(GPUH_OP_T, GPUH_OP_N, 8, 8, 8, 1.0f, gone, 8, a.p, 8, 0.0f, c.p, 8), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_gemm: d_A");
    /* nothing ran: the context and the arrays are as they were */
    TEST_CUDA(gpuh_sum(a.p, 256, out.p, static_cast<void *>(nullptr)));
    TEST_CUDA(gpuh_gemm(8, 8, 8, 1.0f, a.p, 8, a.p, 8, 0.0f, c.p, 8));
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(cudaGetLastError());
}

static void test_vector_add_misaligned()
{
    dev_array<float> a(65), b(65), c(65);
    if (!a.ok() || !b.ok() || !c.ok())
        return;
    float *odd = reinterpret_cast<float *>(reinterpret_cast<char *>(c.p) + 2);
    struct {
        const float *a, *b;
        float *c;
        const char *name;
    } bad[] = {{odd, b.p, c.p, "d_a"}, {a.p, odd, c.p, "d_b"}, {a.p, b.p, odd, "d_c"}};
    for (const auto &x : bad) {
        gpuh_test_clear_detail();
        TEST_ERR(gpuh_vector_add(x.a, x.b, x.c, 64), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), x.name);
        TEST_CONTAINS(gpuh_error_detail(), "not aligned to its element type (4 bytes)");
    }
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_vector_add_f64(reinterpret_cast<const double *>(a.p + 1), reinterpret_cast<const double *>(b.p),
                                 reinterpret_cast<double *>(c.p), 8, 0),
             cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_a");
    TEST_CONTAINS(gpuh_error_detail(), "not aligned to its element type (8 bytes)");
    TEST_CUDA(cudaDeviceSynchronize());
}

/* ===========================================================================
   REDUCTIONS */

/* Checks gpuh_sum / gpuh_min / gpuh_max of d_in (host copy h) with scratch
   d_temp (may be NULL), each into a poisoned d_out. */
template <typename T> static void check_reductions(const T *d_in, const std::vector<T> &h, T *d_out, void *d_temp,
                                                   const char *what)
{
    const size_t n = h.size();
    T got;

    /* sum */
    poison(d_out, 1);
    if (!TEST_CUDA(gpuh_sum(d_in, n, d_out, d_temp)))
        return;
    got = download1(d_out);
    if constexpr (std::is_same<T, int>::value) {
        unsigned want = 0; /* documented: integer sums wrap modulo 2^32 */
        for (int v : h)
            want += (unsigned)v;
        TEST_ASSERT(got == (int)want, "sum<int> %s n = %zu: %d, expected %d", what, n, got, (int)want);
    } else {
        double ref, abs_sum;
        reference_sum(h, &ref, &abs_sum);
        double u = std::is_same<T, float>::value ? u_f32 : u_f64, err = fabs((double)got - ref);
        double bound = sum_bound(n, sizeof(T), u, ref, abs_sum);
        if (n == 0)
            TEST_ASSERT(same_bits(got, T(0)), "sum<%s> of nothing: %.17g, expected +0", type_name<T>(), (double)got);
        else
            TEST_ASSERT(err <= bound, "sum<%s> %s n = %zu: %.17g, reference %.17g, error %.3g > bound %.3g",
                        type_name<T>(), what, n, (double)got, ref, err, bound);
    }

    /* min and max: exact. NaN never occurs here (see test_nan). */
    if (n == 0) {
        gpuh_test_clear_detail();
        TEST_ERR(gpuh_min(d_in, n, d_out, d_temp), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "gpuh_min");
        TEST_ERR(gpuh_max(d_in, n, d_out, d_temp), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "gpuh_max");
        return;
    }
    T lo = h[0], hi = h[0];
    for (T v : h) {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    poison(d_out, 1);
    if (TEST_CUDA(gpuh_min(d_in, n, d_out, d_temp))) {
        got = download1(d_out);
        TEST_ASSERT(same_bits(got, lo), "min<%s> %s n = %zu: %.17g, expected %.17g", type_name<T>(), what, n,
                    (double)got, (double)lo);
    }
    poison(d_out, 1);
    if (TEST_CUDA(gpuh_max(d_in, n, d_out, d_temp))) {
        got = download1(d_out);
        TEST_ASSERT(same_bits(got, hi), "max<%s> %s n = %zu: %.17g, expected %.17g", type_name<T>(), what, n,
                    (double)got, (double)hi);
    }
}

/* gpuh_dot and gpuh_norm2 (float, double) of d_a, d_b (host copies ha, hb).
   No bound is documented for them; it follows from gpuh_sum's: a dot product
   adds one rounding per product (none with FMA), so sum_terms + 1 units of
   u times Σ|a·b|, with the element-by-element depth when d_a and d_b are
   aligned differently; a norm is sqrt(Σx²), and a square root halves the
   relative error of its argument, then rounds once more: (sum_terms + 1) / 2
   + 1 units of u relative to the norm, plus 1 for second-order terms. */
template <typename T> static void check_dot_norm(const T *d_a, const T *d_b, const std::vector<T> &ha,
                                                 const std::vector<T> &hb, T *d_out, void *d_temp, const char *what)
{
    const size_t n = ha.size();
    const double u = std::is_same<T, float>::value ? u_f32 : u_f64;
    const std::vector<double> a(ha.begin(), ha.end()), b(hb.begin(), hb.end());
    double abs_dot, abs_sq;
    const double ref_dot = dot2(a.data(), 1, b.data(), 1, n, &abs_dot);
    const double ref_norm = sqrt(dot2(a.data(), 1, a.data(), 1, n, &abs_sq));
    const size_t dot_elem = (uintptr_t)d_a % 16 == (uintptr_t)d_b % 16 ? sizeof(T) : 16;

    poison(d_out, 1);
    if (TEST_CUDA(gpuh_dot(d_a, d_b, n, d_out, d_temp))) {
        const T got = download1(d_out);
        const double bound = (sum_terms(n, dot_elem) + 1.0) * u * abs_dot + 2.0 * u_f64 * fabs(ref_dot);
        if (n == 0)
            TEST_ASSERT(same_bits(got, T(0)), "dot<%s> of nothing: %.17g, expected +0", type_name<T>(), (double)got);
        else
            TEST_ASSERT(fabs((double)got - ref_dot) <= bound,
                        "dot<%s> %s n = %zu: %.17g, reference %.17g, error %.3g > bound %.3g", type_name<T>(), what, n,
                        (double)got, ref_dot, fabs((double)got - ref_dot), bound);
    }
    poison(d_out, 1);
    if (TEST_CUDA(gpuh_norm2(d_a, n, d_out, d_temp))) {
        const T got = download1(d_out);
        const double bound = ((sum_terms(n, sizeof(T)) + 1.0) / 2.0 + 2.0) * u * ref_norm + 2.0 * u_f64 * ref_norm;
        if (n == 0)
            TEST_ASSERT(same_bits(got, T(0)), "norm2<%s> of nothing: %.17g, expected +0", type_name<T>(),
                        (double)got);
        else
            TEST_ASSERT(fabs((double)got - ref_norm) <= bound,
                        "norm2<%s> %s n = %zu: %.17g, reference %.17g, error %.3g > bound %.3g", type_name<T>(), what,
                        n, (double)got, ref_norm, fabs((double)got - ref_norm), bound);
    }
}

template <typename T> static void test_reductions()
{
    /* The awkward sizes, plus both sides of: the single-block limit
       (GPUH_REDUCE_SINGLE_BLOCK_MAX, and one tile of 16-byte vectors: 2048
       doubles, 4096 floats or ints), the first pass's block cap (1024 tiles:
       2^21 doubles, 2^22 floats). */
    std::vector<size_t> ns(sizes, sizes + sizeof sizes / sizeof sizes[0]);
    ns.insert(ns.end(), {(size_t)GPUH_REDUCE_SINGLE_BLOCK_MAX - 1, (size_t)GPUH_REDUCE_SINGLE_BLOCK_MAX, (size_t)4096,
                         (size_t)4097});
    if (!quick)
        ns.insert(ns.end(), {(size_t)1 << 21, ((size_t)1 << 21) + 1, ((size_t)1 << 22) + 1});
    dev_array<T> out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    if (!out.ok() || !temp.ok())
        return;
    for (size_t n : ns) {
        dev_array<T> in(n), in2(n);
        if (!in.ok() || !in2.ok())
            return;
        std::vector<T> h = random_input(in.p, n, std::is_same<T, int>::value ? ANY_BITS : SYMMETRIC);
        poison(temp.p, GPUH_REDUCE_TEMP_BYTES);
        check_reductions(in.p, h, out.p, temp.p, "");
        if constexpr (!std::is_same<T, int>::value) {
            std::vector<T> h2 = random_input(in2.p, n, SYMMETRIC);
            check_dot_norm(in.p, in2.p, h, h2, out.p, temp.p, "");
        }
    }
    printf("sum, min, max%s<%s>: %zu sizes\n", std::is_same<T, int>::value ? "" : ", dot, norm2", type_name<T>(),
           ns.size());
}

/* Inputs that do not start on a 16-byte boundary (offsets of 1-3 elements
   into cudaMalloc'd arrays): the kernels take the first elements one by one
   until the vectors are aligned. dot with differently aligned inputs falls back
   to one element at a time. */
template <typename T> static void test_reduction_offsets()
{
    dev_array<T> out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    if (!out.ok() || !temp.ok())
        return;
    for (size_t n : {(size_t)1, (size_t)2, (size_t)3, (size_t)5, (size_t)7, (size_t)33, (size_t)1025, (size_t)4097,
                     (size_t)(1u << 20) + 3}) {
        dev_array<T> a(n + 4), b(n + 4);
        if (!a.ok() || !b.ok())
            return;
        const std::vector<T> ha = random_input(a.p, n + 4, std::is_same<T, int>::value ? ANY_BITS : SYMMETRIC);
        const std::vector<T> hb = random_input(b.p, n + 4, std::is_same<T, int>::value ? ANY_BITS : SYMMETRIC);
        for (size_t off = 1; off <= 3; ++off) {
            char what[64];
            snprintf(what, sizeof what, "at offset %zu", off);
            check_reductions(a.p + off, std::vector<T>(ha.begin() + off, ha.begin() + off + n), out.p, temp.p, what);
        }
        if constexpr (!std::is_same<T, int>::value) {
            static const size_t pairs[][2] = {{1, 1}, {2, 2}, {1, 2}, {3, 0}, {0, 1}};
            for (const auto &pr : pairs) {
                char what[64];
                snprintf(what, sizeof what, "at offsets %zu and %zu", pr[0], pr[1]);
                check_dot_norm(a.p + pr[0], b.p + pr[1], std::vector<T>(ha.begin() + pr[0], ha.begin() + pr[0] + n),
                               std::vector<T>(hb.begin() + pr[1], hb.begin() + pr[1] + n), out.p, temp.p, what);
            }
        }
    }
}

/* d_temp may be NULL up to GPUH_REDUCE_SINGLE_BLOCK_MAX elements; where two
   passes are needed it must be there, and aligned to the element size. */
template <typename T> static void test_reductions_without_temp()
{
    const size_t n_max = GPUH_REDUCE_SINGLE_BLOCK_MAX, n_big = (size_t)1 << 20;
    dev_array<T> in(n_big), out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES + 8);
    if (!in.ok() || !out.ok() || !temp.ok())
        return;
    std::vector<T> h = random_input(in.p, n_big, std::is_same<T, int>::value ? ANY_BITS : SYMMETRIC);
    for (size_t n : {(size_t)1, (size_t)33, n_max}) {
        std::vector<T> part(h.begin(), h.begin() + n);
        check_reductions(in.p, part, out.p, nullptr, "with d_temp NULL");
        if constexpr (!std::is_same<T, int>::value)
            check_dot_norm(in.p, in.p, part, part, out.p, nullptr, "with d_temp NULL");
    }
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_sum(in.p, n_big, out.p, nullptr), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_temp is NULL");
    TEST_ERR(gpuh_min(in.p, n_big, out.p, nullptr), cudaErrorInvalidValue);
    TEST_ERR(gpuh_max(in.p, n_big, out.p, nullptr), cudaErrorInvalidValue);
    /* Scratch not aligned to the element size. */
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_sum(in.p, n_big, out.p, temp.p + sizeof(T) / 2), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "not aligned");
    TEST_ERR(gpuh_max(in.p, n_big, out.p, temp.p + 1), cudaErrorInvalidValue);
    /* Aligned to the element but not to 16 bytes is fine. */
    check_reductions(in.p, h, out.p, temp.p + sizeof(T), "with d_temp at an element offset");
}

/* min and max propagate NaN (as NumPy's do), wherever it is. */
template <typename T> static void test_nan()
{
    const T nan = std::numeric_limits<T>::quiet_NaN();
    dev_array<T> out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    for (size_t n : {(size_t)1, (size_t)33, (size_t)1025, (size_t)2049, (size_t)(1u << 20) + 3}) {
        dev_array<T> in(n);
        if (!in.ok() || !out.ok() || !temp.ok())
            return;
        std::vector<T> h = random_input(in.p, n, SYMMETRIC);
        for (size_t pos : {(size_t)0, n / 2, n - 1}) {
            std::vector<T> g = h;
            g[pos] = nan;
            TEST_CUDA(gpuh_copy_to_device(in.p, g.data(), n));
            TEST_CUDA(cudaMemset(out.p, 0, sizeof(T))); /* not NaN beforehand, unlike the usual poison */
            TEST_CUDA(gpuh_min(in.p, n, out.p, temp.p));
            T lo = download1(out.p);
            TEST_CUDA(cudaMemset(out.p, 0, sizeof(T)));
            TEST_CUDA(gpuh_max(in.p, n, out.p, temp.p));
            T hi = download1(out.p);
            TEST_ASSERT(std::isnan(lo) && std::isnan(hi), "%s n = %zu, NaN at %zu: min %g, max %g (expected NaN)",
                        type_name<T>(), n, pos, (double)lo, (double)hi);
        }
    }
}

/* Inputs equal to the operators' identities (+-inf, INT_MAX, INT_MIN): the
   identity must not leak into, or be mistaken for, the result. */
template <typename T> static void test_extremes()
{
    const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                          : std::numeric_limits<T>::lowest();
    const T highest = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                           : std::numeric_limits<T>::max();
    dev_array<T> out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    for (size_t n : {(size_t)1, (size_t)33, (size_t)2049}) {
        dev_array<T> in(n);
        if (!in.ok() || !out.ok() || !temp.ok())
            return;
        for (T fill : {lowest, highest}) {
            std::vector<T> h(n, fill);
            TEST_CUDA(gpuh_copy_to_device(in.p, h.data(), n));
            poison(out.p, 1);
            TEST_CUDA(gpuh_min(in.p, n, out.p, temp.p));
            T lo = download1(out.p);
            poison(out.p, 1);
            TEST_CUDA(gpuh_max(in.p, n, out.p, temp.p));
            T hi = download1(out.p);
            TEST_ASSERT(same_bits(lo, fill) && same_bits(hi, fill), "%s n = %zu all %g: min %g, max %g",
                        type_name<T>(), n, (double)fill, (double)lo, (double)hi);
        }
        /* One extreme among random values, in the last element. */
        std::vector<T> h = random_input(in.p, n, std::is_same<T, int>::value ? ANY_BITS : SYMMETRIC);
        h[n - 1] = lowest;
        TEST_CUDA(gpuh_copy_to_device(in.p, h.data(), n));
        poison(out.p, 1);
        TEST_CUDA(gpuh_min(in.p, n, out.p, temp.p));
        T lo = download1(out.p);
        TEST_ASSERT(same_bits(lo, lowest), "%s n = %zu: min %g, expected %g", type_name<T>(), n, (double)lo,
                    (double)lowest);
    }
}

/* The sum is documented bitwise reproducible: the same bits on every run, on
   any stream. */
static void test_sum_determinism()
{
    const size_t n = quick ? ((size_t)1 << 20) + 5 : ((size_t)1 << 24) + 5;
    const int runs = quick ? 3 : 20;
    dev_array<float> in(n), out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    cudaStream_t stream = nullptr;
    if (!in.ok() || !out.ok() || !temp.ok() || !TEST_CUDA(cudaStreamCreate(&stream)))
        return;
    std::vector<float> h = random_input(in.p, n, SYMMETRIC);
    double ref, abs_sum;
    reference_sum(h, &ref, &abs_sum);
    float first = 0;
    int differing = 0;
    for (int r = 0; r < runs; ++r) {
        poison(out.p, 1);
        poison(temp.p, GPUH_REDUCE_TEMP_BYTES);
        TEST_CUDA(gpuh_sum(in.p, n, out.p, temp.p, r % 2 ? stream : 0));
        TEST_CUDA(cudaStreamSynchronize(stream));
        float got = download1(out.p);
        if (r == 0)
            first = got;
        else
            differing += !same_bits(got, first);
    }
    TEST_ASSERT(differing == 0, "sum<float> n = %zu: %d of %d runs differ from the first (%.9g)", n, differing,
                runs - 1, first);
    double bound = sum_bound(n, sizeof(float), u_f32, ref, abs_sum);
    TEST_ASSERT(fabs(first - ref) <= bound, "sum<float> n = %zu: %.9g, reference %.17g, error %.3g > bound %.3g",
                n, first, ref, fabs(first - ref), bound);
    printf("sum<float> n = %zu: %d runs, identical bits (error %.3g, documented bound %.3g)\n", n, runs,
           fabs(first - ref), bound);
    TEST_CUDA(cudaStreamDestroy(stream));
}

/* Every reduction is bitwise reproducible: sum, min, max, dot and
   norm2 of one input of 2^20 + 3 elements, 100 runs each, alternating the
   legacy default stream and a created one, the scratch poisoned before each
   run and every run writing its own poisoned output slot. Every run must give
   the bits of the first; the first is checked against the CPU (min and max
   exactly, the sum within its bound; dot and norm2 finite, their accuracy is
   test_reductions'). 100 runs of 2^20 are cheap on a GPU, so quick mode keeps
   them there; on the simulator quick mode runs 10. */
template <typename T> static void test_determinism()
{
    const size_t n = ((size_t)1 << 20) + 3;
    const int runs = quick && on_simulator ? 10 : 100, ops = 5;
    static const char *const names[] = {"sum", "min", "max", "dot", "norm2"};
    dev_array<T> a(n), b(n), out((size_t)runs * ops);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    cudaStream_t stream = nullptr;
    if (!a.ok() || !b.ok() || !out.ok() || !temp.ok() || !TEST_CUDA(cudaStreamCreate(&stream)))
        return;
    const std::vector<T> ha = random_input(a.p, n, SYMMETRIC);
    random_input(b.p, n, SYMMETRIC);
    poison(out.p, (size_t)runs * ops);
    for (int r = 0; r < runs; ++r) {
        cudaStream_t s = r % 2 ? stream : 0; /* a blocking stream: ordered with stream 0, so one scratch serves */
        T *o = out.p + (size_t)r * ops;
        TEST_CUDA(cudaMemsetAsync(temp.p, 0xFF, GPUH_REDUCE_TEMP_BYTES, s));
        TEST_CUDA(gpuh_sum(a.p, n, o + 0, temp.p, s));
        TEST_CUDA(gpuh_min(a.p, n, o + 1, temp.p, s));
        TEST_CUDA(gpuh_max(a.p, n, o + 2, temp.p, s));
        TEST_CUDA(gpuh_dot(a.p, b.p, n, o + 3, temp.p, s));
        TEST_CUDA(gpuh_norm2(a.p, n, o + 4, temp.p, s));
    }
    const std::vector<T> h = download(out.p, (size_t)runs * ops);
    for (int k = 0; k < ops; ++k) {
        int differing = 0;
        for (int r = 1; r < runs; ++r)
            differing += !same_bits(h[(size_t)r * ops + k], h[k]);
        TEST_ASSERT(differing == 0 && std::isfinite(h[k]), "%s<%s> n = %zu: %d of %d runs differ from the first (%.17g)",
                    names[k], type_name<T>(), n, differing, runs - 1, (double)h[k]);
    }
    double ref, abs_sum;
    reference_sum(ha, &ref, &abs_sum);
    const double u = std::is_same<T, float>::value ? u_f32 : u_f64;
    T lo = ha[0], hi = ha[0];
    for (T v : ha) {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    TEST_ASSERT(fabs((double)h[0] - ref) <= sum_bound(n, sizeof(T), u, ref, abs_sum),
                "sum<%s> n = %zu: %.17g, reference %.17g", type_name<T>(), n, (double)h[0], ref);
    TEST_ASSERT(same_bits(h[1], lo) && same_bits(h[2], hi), "min/max<%s> n = %zu: %.17g, %.17g; expected %.17g, %.17g",
                type_name<T>(), n, (double)h[1], (double)h[2], (double)lo, (double)hi);
    printf("sum, min, max, dot, norm2<%s> n = %zu: %d runs each, identical bits\n", type_name<T>(), n, runs);
    TEST_CUDA(cudaStreamDestroy(stream));
}

/* ===========================================================================
   ARGUMENT ERRORS */

static void test_null_pointers()
{
    dev_array<float> x(16), y(16), z(16);
    if (!x.ok() || !y.ok() || !z.ok())
        return;
    const float *cnull = nullptr;
    float *null = nullptr;

    gpuh_test_clear_detail();
    TEST_ERR(gpuh_vector_add(cnull, y.p, z.p, 16), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_a is NULL");
    TEST_ERR(gpuh_vector_add(x.p, cnull, z.p, 16), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_b is NULL");
    TEST_ERR(gpuh_vector_add(x.p, y.p, null, 16), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_c is NULL");
    TEST_CUDA(gpuh_vector_add(cnull, cnull, null, 0)); /* n = 0 launches nothing */

    TEST_ERR(gpuh_sum(x.p, 16, null, nullptr), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_out is NULL");
    TEST_ERR(gpuh_sum(cnull, 16, z.p, nullptr), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "the input is NULL");
    TEST_ERR(gpuh_min(cnull, 16, z.p, nullptr), cudaErrorInvalidValue);
    TEST_ERR(gpuh_max(x.p, 16, null, nullptr), cudaErrorInvalidValue);
    TEST_ERR(gpuh_sum(cnull, 0, null, nullptr), cudaErrorInvalidValue); /* d_out is needed even for n = 0 */
    poison(z.p, 1);
    TEST_CUDA(gpuh_sum(cnull, 0, z.p, nullptr)); /* n = 0: d_in not needed, the sum is 0 */
    TEST_ASSERT(same_bits(download1(z.p), 0.0f), "sum of nothing is not +0");

    TEST_ERR(gpuh_dot(x.p, cnull, 16, z.p, nullptr), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "the second input is NULL");
    TEST_ERR(gpuh_dot(cnull, y.p, 16, z.p, nullptr), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "the input is NULL");
    TEST_ERR(gpuh_norm2(cnull, 16, z.p, nullptr), cudaErrorInvalidValue);
    TEST_ERR(gpuh_norm2(x.p, 16, null, nullptr), cudaErrorInvalidValue);
    TEST_CUDA(gpuh_dot(cnull, cnull, 0, z.p, nullptr)); /* n = 0: 0, inputs not needed */

    TEST_ERR(gpuh_matmul(x.p, y.p, null, 4, 4, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_C is NULL");
    TEST_ERR(gpuh_matmul(cnull, y.p, z.p, 4, 4, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_A is NULL");
    TEST_ERR(gpuh_matmul(x.p, cnull, z.p, 4, 4, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "d_B is NULL");

    /* The C entry points check the same way. */
    TEST_ERR(gpuh_vector_add_f32(cnull, y.p, z.p, 16, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_sum_f64(nullptr, 16, nullptr, nullptr, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_min_i32(nullptr, 0, nullptr, nullptr, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_matmul_f64(nullptr, nullptr, nullptr, 2, 2, 2, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_dot_f32(x.p, nullptr, 16, z.p, nullptr, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_norm2_f64(nullptr, 16, nullptr, nullptr, 0), cudaErrorInvalidValue);
}

/* ===========================================================================
   C ENTRY POINTS: each must give the same bits as the template it wraps
   (which the tests above check against the CPU). */

template <typename T> static void check_entry_points(
    cudaError_t (*add)(const T *, const T *, T *, size_t, cudaStream_t),
    cudaError_t (*sum)(const T *, size_t, T *, void *, cudaStream_t),
    cudaError_t (*mn)(const T *, size_t, T *, void *, cudaStream_t),
    cudaError_t (*mx)(const T *, size_t, T *, void *, cudaStream_t))
{
    const size_t n = 100003;
    dev_array<T> a(n), b(n), c1(n), c2(n), r(6);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    if (!a.ok() || !b.ok() || !c1.ok() || !c2.ok() || !r.ok() || !temp.ok())
        return;
    input_kind kind = std::is_same<T, int>::value ? ADDABLE : SYMMETRIC;
    random_input(a.p, n, kind);
    random_input(b.p, n, kind);
    poison(c1.p, n);
    poison(c2.p, n);
    poison(r.p, 6);
    TEST_CUDA(gpuh_vector_add(a.p, b.p, c1.p, n));
    TEST_CUDA(add(a.p, b.p, c2.p, n, 0));
    TEST_CUDA(gpuh_sum(a.p, n, r.p + 0, temp.p));
    TEST_CUDA(sum(a.p, n, r.p + 1, temp.p, 0));
    TEST_CUDA(gpuh_min(a.p, n, r.p + 2, temp.p));
    TEST_CUDA(mn(a.p, n, r.p + 3, temp.p, 0));
    TEST_CUDA(gpuh_max(a.p, n, r.p + 4, temp.p));
    TEST_CUDA(mx(a.p, n, r.p + 5, temp.p, 0));
    std::vector<T> h1 = download(c1.p, n), h2 = download(c2.p, n), hr = download(r.p, 6);
    TEST_ASSERT(memcmp(h1.data(), h2.data(), n * sizeof(T)) == 0, "gpuh_vector_add_<%s> differs from the template",
                type_name<T>());
    for (int k = 0; k < 3; ++k)
        TEST_ASSERT(same_bits(hr[2 * k], hr[2 * k + 1]), "C entry point %s<%s>: %.17g, template: %.17g",
                    k == 0 ? "sum" : k == 1 ? "min" : "max", type_name<T>(), (double)hr[2 * k + 1],
                    (double)hr[2 * k]);
}

template <typename T> static void check_matmul_entry_point(cudaError_t (*mm)(const T *, const T *, T *, size_t,
                                                                             size_t, size_t, cudaStream_t))
{
    const size_t M = 17, N = 3, K = 100;
    dev_array<T> A(M * K), B(K * N), C1(M * N), C2(M * N);
    if (!A.ok() || !B.ok() || !C1.ok() || !C2.ok())
        return;
    random_input(A.p, M * K, SYMMETRIC);
    random_input(B.p, K * N, SYMMETRIC);
    poison(C1.p, M * N);
    poison(C2.p, M * N);
    TEST_CUDA(gpuh_matmul(A.p, B.p, C1.p, M, N, K));
    TEST_CUDA(mm(A.p, B.p, C2.p, M, N, K, 0));
    std::vector<T> h1 = download(C1.p, M * N), h2 = download(C2.p, M * N);
    TEST_ASSERT(memcmp(h1.data(), h2.data(), M * N * sizeof(T)) == 0, "gpuh_matmul_<%s> differs from the template",
                type_name<T>());
}

/* gpuh_gemm_f32 / _f64 and gpuh_gemm_op_f32 / _f64: the same bits as the
   templates (the op entry point with op(A) = Aᵀ, A stored K × M, and
   op(B) = Bᵀ, B stored N × K). */
template <typename T>
static void check_gemm_entry_point(cudaError_t (*gemm)(size_t, size_t, size_t, T, const T *, size_t, const T *, size_t,
                                                       T, T *, size_t, cudaStream_t),
                                   cudaError_t (*gemm_op)(gpuh_op, gpuh_op, size_t, size_t, size_t, T, const T *,
                                                          size_t, const T *, size_t, T, T *, size_t, cudaStream_t))
{
    const size_t M = 130, N = 67, K = 33, ld = 140;
    dev_array<T> A(M * ld), B(N * ld), C1(M * ld), C2(M * ld);
    if (!A.ok() || !B.ok() || !C1.ok() || !C2.ok())
        return;
    random_input(A.p, M * ld, SYMMETRIC);
    random_input(B.p, N * ld, SYMMETRIC);
    for (int op = 0; op < 2; ++op) {
        random_input(C1.p, M * ld, SYMMETRIC);
        TEST_CUDA(cudaMemcpy(C2.p, C1.p, M * ld * sizeof(T), cudaMemcpyDeviceToDevice));
        if (op == 0) {
            TEST_CUDA(gpuh_gemm(M, N, K, T(0.5), A.p, ld, B.p, ld, T(-2), C1.p, ld));
            TEST_CUDA(gemm(M, N, K, T(0.5), A.p, ld, B.p, ld, T(-2), C2.p, ld, 0));
        } else {
            TEST_CUDA(gpuh_gemm(GPUH_OP_T, GPUH_OP_T, M, N, K, T(0.5), A.p, ld, B.p, ld, T(-2), C1.p, ld));
            TEST_CUDA(gemm_op(GPUH_OP_T, GPUH_OP_T, M, N, K, T(0.5), A.p, ld, B.p, ld, T(-2), C2.p, ld, 0));
        }
        std::vector<T> h1 = download(C1.p, M * ld), h2 = download(C2.p, M * ld);
        TEST_ASSERT(memcmp(h1.data(), h2.data(), M * ld * sizeof(T)) == 0, "gpuh_gemm_%s<%s> differs from the template",
                    op ? "op" : "", type_name<T>());
    }
}

template <typename T> static void check_dot_norm_entry_points(
    cudaError_t (*dot)(const T *, const T *, size_t, T *, void *, cudaStream_t),
    cudaError_t (*norm2)(const T *, size_t, T *, void *, cudaStream_t))
{
    const size_t n = 100003;
    dev_array<T> a(n), b(n), r(4);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    if (!a.ok() || !b.ok() || !r.ok() || !temp.ok())
        return;
    random_input(a.p, n, SYMMETRIC);
    random_input(b.p, n, SYMMETRIC);
    poison(r.p, 4);
    TEST_CUDA(gpuh_dot(a.p, b.p, n, r.p + 0, temp.p));
    TEST_CUDA(dot(a.p, b.p, n, r.p + 1, temp.p, 0));
    TEST_CUDA(gpuh_norm2(a.p, n, r.p + 2, temp.p));
    TEST_CUDA(norm2(a.p, n, r.p + 3, temp.p, 0));
    std::vector<T> hr = download(r.p, 4);
    TEST_ASSERT(same_bits(hr[0], hr[1]) && same_bits(hr[2], hr[3]),
                "C entry points dot/norm2<%s>: %.17g / %.17g, templates: %.17g / %.17g", type_name<T>(), (double)hr[1],
                (double)hr[3], (double)hr[0], (double)hr[2]);
}

/* The tensor-core C entry points (gpuh_gemm_bf16 & co.) reach their launchers:
   one small product each, every element exactly 2.5 in every type. Their
   templates are tested against a reference in test_tc_gemm.cu. */
#if GPUH_IMPL_TC
static void test_tc_entry_points()
{
    const size_t M = 3, N = 4, K = 5;
    std::vector<__nv_bfloat16> hb(M * K > K * N ? M * K : K * N, __float2bfloat16(0.5f));
    std::vector<__half> hh(hb.size(), __float2half(0.5f));
    std::vector<float> hf(hb.size(), 0.5f);
    __nv_bfloat16 *b = NULL, *cb = NULL;
    __half *h = NULL, *ch = NULL;
    float *f = NULL, *c = NULL;
    TEST_CUDA(gpuh_device_array(&b, hb.size()));
    TEST_CUDA(gpuh_device_array(&h, hb.size()));
    TEST_CUDA(gpuh_device_array(&f, hb.size()));
    TEST_CUDA(gpuh_device_array(&cb, M * N));
    TEST_CUDA(gpuh_device_array(&ch, M * N));
    TEST_CUDA(gpuh_device_array(&c, M * N));
    TEST_CUDA(gpuh_copy_to_device(b, hb.data(), hb.size()));
    TEST_CUDA(gpuh_copy_to_device(h, hh.data(), hh.size()));
    TEST_CUDA(gpuh_copy_to_device(f, hf.data(), hf.size()));
    const gpuh_bf16 *gb = reinterpret_cast<const gpuh_bf16 *>(b);
    const gpuh_f16 *gh = reinterpret_cast<const gpuh_f16 *>(h);
    std::vector<float> out(M * N);
    std::vector<__nv_bfloat16> outb(M * N);
    std::vector<__half> outh(M * N);
    /* every element: 5 · 0.5 · 0.5 · 2 = 2.5, exact in every type */
    TEST_CUDA(gpuh_gemm_bf16(GPUH_OP_N, GPUH_OP_N, M, N, K, 2.0f, gb, K, gb, N, 0.0f, c, N, 0));
    TEST_CUDA(gpuh_copy_to_host(out.data(), c, M * N));
    TEST_ASSERT(out[0] == 2.5f && out[M * N - 1] == 2.5f, "gpuh_gemm_bf16: %g", out[0]);
    TEST_CUDA(gpuh_gemm_bf16_bf16(GPUH_OP_T, GPUH_OP_N, M, N, K, 2.0f, gb, M, gb, N, 0.0f,
                                  reinterpret_cast<gpuh_bf16 *>(cb), N, 0));
    TEST_CUDA(gpuh_copy_to_host(outb.data(), cb, M * N));
    TEST_ASSERT(__bfloat162float(outb[M * N - 1]) == 2.5f, "gpuh_gemm_bf16_bf16: %g", __bfloat162float(outb[0]));
    TEST_CUDA(gpuh_gemm_f16(GPUH_OP_N, GPUH_OP_T, M, N, K, 2.0f, gh, K, gh, K, 0.0f, c, N, 0));
    TEST_CUDA(gpuh_copy_to_host(out.data(), c, M * N));
    TEST_ASSERT(out[M * N - 1] == 2.5f, "gpuh_gemm_f16: %g", out[0]);
    TEST_CUDA(gpuh_gemm_f16_f16(GPUH_OP_N, GPUH_OP_N, M, N, K, 2.0f, gh, K, gh, N, 0.0f,
                                reinterpret_cast<gpuh_f16 *>(ch), N, 0));
    TEST_CUDA(gpuh_copy_to_host(outh.data(), ch, M * N));
    TEST_ASSERT(__half2float(outh[M * N - 1]) == 2.5f, "gpuh_gemm_f16_f16: %g", __half2float(outh[0]));
    TEST_CUDA(gpuh_gemm_tf32_f32(GPUH_OP_T, GPUH_OP_T, M, N, K, 2.0f, f, M, f, K, 0.0f, c, N, 0));
    TEST_CUDA(gpuh_copy_to_host(out.data(), c, M * N));
    TEST_ASSERT(out[M * N - 1] == 2.5f, "gpuh_gemm_tf32_f32: %g", out[0]);
    TEST_CUDA(gpuh_free(b));
    TEST_CUDA(gpuh_free(h));
    TEST_CUDA(gpuh_free(f));
    TEST_CUDA(gpuh_free(cb));
    TEST_CUDA(gpuh_free(ch));
    TEST_CUDA(gpuh_free(c));
}
#endif

static void test_entry_points()
{
    check_dot_norm_entry_points<float>(gpuh_dot_f32, gpuh_norm2_f32);
    check_dot_norm_entry_points<double>(gpuh_dot_f64, gpuh_norm2_f64);
    check_entry_points<float>(gpuh_vector_add_f32, gpuh_sum_f32, gpuh_min_f32, gpuh_max_f32);
    check_entry_points<double>(gpuh_vector_add_f64, gpuh_sum_f64, gpuh_min_f64, gpuh_max_f64);
    check_entry_points<int>(gpuh_vector_add_i32, gpuh_sum_i32, gpuh_min_i32, gpuh_max_i32);
    check_matmul_entry_point<float>(gpuh_matmul_f32);
    check_matmul_entry_point<double>(gpuh_matmul_f64);
    check_gemm_entry_point<float>(gpuh_gemm_f32, gpuh_gemm_op_f32);
    check_gemm_entry_point<double>(gpuh_gemm_f64, gpuh_gemm_op_f64);
#if GPUH_IMPL_TC
    test_tc_entry_points();
#endif
}

/* ===========================================================================
   THE BIG SIZE: n = 2^31 + 17 floats, past every 32-bit index.
   Vector add needs 3 x 8.6 GB. Checked without copying all of c back: a
   strided sample over the whole range (stride 4099, a prime, so the sample
   hits every position within a block and a warp) gathered by cudaMemcpy2D,
   plus the first and last 2^20 elements, where a wrapped 32-bit index would
   land. The sum's reference is computed on the CPU from the data itself,
   copied back in chunks: independent of gpuh's reduction code, which a
   gpuh_sum<double> reference would not be. */

static std::vector<float> gather(const float *d, size_t n, size_t stride)
{
    const size_t count = (n + stride - 1) / stride; /* elements 0, stride, 2·stride, ... < n */
    std::vector<float> h(count);
    TEST_CUDA(cudaMemcpy2D(h.data(), sizeof(float), d, stride * sizeof(float), sizeof(float), count,
                           cudaMemcpyDeviceToHost));
    return h;
}

static void test_big()
{
    const size_t n = ((size_t)1 << 31) + 17, stride = 4099, edge = (size_t)1 << 20, chunk = (size_t)1 << 26;
    gpuh_memory_stats st;
    if (quick) {
        printf("big size: left out (GPUH_TEST_QUICK)\n");
        return;
    }
    TEST_CUDA(gpuh_memory_info(&st));
    const size_t need = 3 * n * sizeof(float) + ((size_t)1 << 30); /* + 1 GiB for cuRAND, scratch, slack */
    if (st.free_bytes < need) {
        printf("note: big size n = %zu left out: %zu bytes free, %zu needed\n", n, st.free_bytes, need);
        return;
    }
    dev_array<float> a(n), b(n), c(n), out(1);
    dev_array<unsigned char> temp(GPUH_REDUCE_TEMP_BYTES);
    if (!a.ok() || !b.ok() || !c.ok() || !out.ok() || !temp.ok())
        return;
    /* Uniform (0, 1] inputs, one call each: gpuh_random_* must fill past 2^31. */
    poison(a.p, n);
    poison(b.p, n);
    TEST_CUDA(gpuh_random_uniform_f32(a.p, n, next_seed(), 0));
    TEST_CUDA(gpuh_random_uniform_f32(b.p, n, next_seed(), 0));
    poison(c.p, n);
    TEST_CUDA(gpuh_vector_add(a.p, b.p, c.p, n));
    TEST_CUDA(cudaDeviceSynchronize());

    /* Strided sample across the whole range. */
    std::vector<float> sa = gather(a.p, n, stride), sb = gather(b.p, n, stride), sc = gather(c.p, n, stride);
    size_t first, bad = 0;
    for (size_t i = 0; i < sa.size(); ++i) /* written by the generator: in (0, 1], never the NaN poison */
        bad += !(sa[i] > 0.0f && sa[i] <= 1.0f && sb[i] > 0.0f && sb[i] <= 1.0f);
    TEST_ASSERT(bad == 0, "gpuh_random_uniform_f32 n = %zu: %zu of %zu sampled inputs outside (0, 1]", n, bad,
                sa.size());
    bad = count_add_mismatches(sa, sb, sc, &first);
    TEST_ASSERT(bad == 0, "vector_add n = %zu: %zu of %zu sampled elements wrong, first at index %zu", n, bad,
                sc.size(), first * stride);
    /* The first and the last 2^20 elements. */
    for (size_t start : {(size_t)0, n - edge}) {
        std::vector<float> ea = download(a.p + start, edge), eb = download(b.p + start, edge),
                           ec = download(c.p + start, edge);
        bad = count_add_mismatches(ea, eb, ec, &first);
        TEST_ASSERT(bad == 0, "vector_add n = %zu: %zu of the %zu elements from %zu wrong, first at %zu", n, bad,
                    edge, start, start + first);
    }

    /* Sum of a. */
    poison(out.p, 1);
    TEST_CUDA(gpuh_sum(a.p, n, out.p, temp.p));
    const float got = download1(out.p);
    float *pinned = nullptr;
    if (!TEST_CUDA(gpuh_pinned_array(&pinned, chunk)))
        return;
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, ref = 0; /* eight partial sums: no long dependency chain */
    for (size_t off = 0; off < n; off += chunk) {
        const size_t len = n - off < chunk ? n - off : chunk;
        TEST_CUDA(gpuh_copy_to_host(pinned, a.p + off, len));
        size_t i = 0;
        for (; i + 8 <= len; i += 8)
            for (int j = 0; j < 8; ++j)
                acc[j] += pinned[i + j];
        for (; i < len; ++i)
            acc[0] += pinned[i];
    }
    TEST_CUDA(gpuh_free(pinned));
    for (double v : acc)
        ref += v;
    /* All inputs positive, so Σ|x| = Σx. The plain float64 reference is off by
       at most n·2^-53·Σx (2.4e-7 relative), far below the float bound. */
    const double bound = sum_bound(n, sizeof(float), u_f32, ref, ref) + (double)n * u_f64 * ref;
    TEST_ASSERT(fabs(got - ref) <= bound, "sum<float> n = %zu: %.9g, reference %.17g, error %.3g > bound %.3g", n,
                got, ref, fabs(got - ref), bound);
    printf("big size n = %zu: vector_add (%zu samples + 2 x %zu edge elements) and sum (relative error %.3g) "
           "checked\n", n, sc.size(), edge, fabs(got - ref) / ref);
}

/* =========================================================================== */

int main()
{
    GPUH_TEST_REQUIRE_DEVICE();
    gpuh_test_seed();
    quick = gpuh_test_quick();
    TEST_CUDA(gpuh_select_device(0));

    test_vector_add<float>(UNIT);
    test_vector_add<double>(SYMMETRIC);
    test_vector_add<int>(ADDABLE);
    test_vector_add_offsets<float>(UNIT);
    test_vector_add_offsets<double>(SYMMETRIC);
    test_vector_add_offsets<int>(ADDABLE);
    test_vector_add_in_place();
    test_vector_add_int_wrap();
    test_vector_add_misaligned();
    test_launch_past_allocation();
    test_unreachable_memory();
#ifdef GPUH_SIM
    test_destroyed_stream();
#endif

    test_reductions<float>();
    test_reductions<double>();
    test_reductions<int>();
    test_reduction_offsets<float>();
    test_reduction_offsets<double>();
    test_reduction_offsets<int>();
    test_reductions_without_temp<float>();
    test_reductions_without_temp<double>();
    test_reductions_without_temp<int>();
    test_nan<float>();
    test_nan<double>();
    test_extremes<float>();
    test_extremes<double>();
    test_extremes<int>();
    test_sum_determinism();
    test_determinism<float>();
    test_determinism<double>();

    test_null_pointers();
    test_entry_points();
    test_big();

    TEST_CUDA(cudaDeviceSynchronize());
    TEST_ASSERT(gpuh_print_allocations(NULL) == 0, "allocations left behind (listed above)");
    return gpuh_test_summary("test_kernels");
}
