/* test_gemm.cu - gpuh_gemm on the CUDA cores and the FP64 tensor cores against
   a float64 reference and cuBLAS, every path and the planner's choices.

   Inputs are fresh random numbers (gpuh_random_* from the printed seed; rerun
   with GPUH_SEED=<seed>), outputs are poisoned (all bits 1: NaN) before every
   run, so an element the kernel forgets to write is caught. Without a device:
   exit 77, "no CUDA device: <reason>". GPUH_TEST_QUICK=1 leaves out the big
   sizes (for compute-sanitizer runs); on the CPU simulator it also runs fewer
   rows (see on_simulator).

   Covered: matmul at every combination of M, N, K in {1, 3, 16, 17, 100, 257}
   plus K = 0, gemm against cuBLAS (4097³, 1000 × 3000 × 500, vectors, K = 1,
   tall and wide, padded and odd leading dimensions, offset pointers, alpha
   and beta, NaN in C with beta = 0, M = 2^20 + 1) and its argument errors;
   gemm with transposes (NN, NT, TN, TT) on every path (big, small, wide and
   tall tiles, the FP64 tensor-core and CUDA-core double kernels, the
   matrix-vector kernels, split-K with its bitwise repeats, the hybrid of
   whole tiles and split-K, aligned copies of unaligned matrices) against a
   float64 host reference, also on the simulator; the planner's plans and
   their cache. Header-only: it tests gpuh_gemm_with and the planner, which
   only the headers declare.

   nvcc -std=c++17 -arch=sm_90 -DGPUH_USE_CURAND -I. tests/test_gemm.cu -lcurand -lcublas
*/
#include "kernels_test.h"

#ifndef GPUH_SIM /* the CPU simulator has no cuBLAS: the gemm tests against it are left out there */
#include <cublas_v2.h>
#endif

#ifndef GPUH_USE_CURAND
#error "test_gemm.cu needs -DGPUH_USE_CURAND (and -lcurand) for its random inputs"
#endif

/* ===========================================================================
   MATMUL */

/* Tolerance of ||C - C_ref||_F / ||C_ref||_F for C = A·B computed in
   precision u with K-term dot products (one rounding per multiply-add with
   FMA, two without: at most 2K roundings per element).
   Worst case (Higham, ch. 3): |c - ĉ| <= γ_2K · Σ_k |a_ik||b_kj|, γ_2K ≈ 2K·u.
   Rounding errors of random data are not worst case: by Higham & Mary, "A new
   approach to probabilistic rounding error analysis" (SISC 2019), with
   probability at least 1 - 2·(2K)·exp(-λ²/2) per element the bound holds with
   λ·sqrt(2K)·u in place of 2K·u. λ = 8 makes a spurious failure less likely
   than 1e-11 per element. In norms:
       ||C - Ĉ||_F / ||C||_F <= λ·sqrt(2K)·u · || |A||B| ||_F / ||C||_F.
   The last ratio (the product's condition number) is about 0.75·sqrt(K) for
   inputs uniform in (-1, 1], so for K = 257 the float tolerance is about 1e-4
   (the rough "1e-5·sqrt(K)"), the double one about 2e-13 (< 1e-12); it grows
   only where C itself is tiny through cancellation, which a fixed tolerance
   would turn into random failures. A kernel that drops a tile, reads a wrong
   element or computes in lower precision is off by far more. */
static double matmul_tolerance(size_t K, double u, double cond)
{
    return 8.0 * sqrt(2.0 * (double)(K > 0 ? K : 1)) * u * cond;
}

/* C_ref = A·B in float64 and |A|·|B|. For double inputs each dot product is
   compensated (dot2), so the reference stays accurate to about 2^-53 relative
   where the double kernel may be off by 2K·2^-53; for float inputs plain
   float64 sums are 2^29 times more accurate than the kernel already. */
static void reference_matmul(const std::vector<double> &A, const std::vector<double> &B, size_t M, size_t N,
                             size_t K, bool compensated, std::vector<double> &C, std::vector<double> &absC)
{
    C.assign(M * N, 0.0);
    absC.assign(M * N, 0.0);
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            if (compensated) {
                C[i * N + j] = dot2(&A[i * K], 1, &B[j], N, K, &absC[i * N + j]);
                continue;
            }
            double s = 0, a = 0;
            for (size_t k = 0; k < K; ++k) {
                const double p = A[i * K + k] * B[k * N + j];
                s += p;
                a += fabs(p);
            }
            C[i * N + j] = s;
            absC[i * N + j] = a;
        }
}

static double frobenius(const std::vector<double> &x)
{
    double s = 0;
    for (double v : x)
        s += v * v;
    return sqrt(s);
}

template <typename T> static void check_matmul(size_t M, size_t N, size_t K)
{
    dev_array<T> A(M * K), B(K * N), C(M * N);
    if (!A.ok() || !B.ok() || !C.ok())
        return;
    std::vector<T> hA = random_input(A.p, M * K, SYMMETRIC), hB = random_input(B.p, K * N, SYMMETRIC);
    poison(C.p, M * N);
    if (!TEST_CUDA(gpuh_matmul(A.p, B.p, C.p, M, N, K)))
        return;
    std::vector<T> hC = download(C.p, M * N);
    std::vector<double> dA(hA.begin(), hA.end()), dB(hB.begin(), hB.end()), ref, absref;
    reference_matmul(dA, dB, M, N, K, std::is_same<T, double>::value, ref, absref);
    const double rel = rel_err(hC.data(), ref.data(), M * N);
    const double u = std::is_same<T, float>::value ? u_f32 : u_f64;
    const double cond = frobenius(absref) / frobenius(ref);
    /* + 2u: the reference's own rounding to float64 */
    const double tol = matmul_tolerance(K, u, cond) + 2.0 * u_f64;
    TEST_ASSERT(rel <= tol, "matmul<%s> M = %zu, N = %zu, K = %zu: relative error %.3g > tolerance %.3g "
                "(condition %.3g)", type_name<T>(), M, N, K, rel, tol, cond);
}

template <typename T> static void test_matmul()
{
    /* Every combination: 1 (a single row/column), 3, 16 (exactly one tile),
       17 (one past a tile), 100, 257 (several tiles plus a ragged one). */
    static const size_t full[] = {1, 3, 16, 17, 100, 257}, small[] = {1, 16, 17, 100};
    const size_t *dims = quick ? small : full;
    const size_t nd = quick ? 4 : 6;
    for (size_t i = 0; i < nd; ++i)
        for (size_t j = 0; j < nd; ++j)
            for (size_t k = 0; k < nd; ++k)
                check_matmul<T>(dims[i], dims[j], dims[k]);

    /* K = 0: C becomes zeros (an empty sum); A and B may be NULL then. */
    for (auto mn : {std::make_pair((size_t)1, (size_t)1), std::make_pair((size_t)17, (size_t)3),
                    std::make_pair((size_t)100, (size_t)257)}) {
        const size_t M = mn.first, N = mn.second;
        dev_array<T> A(M), B(N), C(M * N);
        if (!A.ok() || !B.ok() || !C.ok())
            return;
        for (int with_inputs = 0; with_inputs < 2; ++with_inputs) {
            poison(C.p, M * N);
            TEST_CUDA(gpuh_matmul<T>(with_inputs ? A.p : nullptr, with_inputs ? B.p : nullptr, C.p, M, N, 0));
            std::vector<T> hC = download(C.p, M * N);
            size_t nonzero = 0;
            for (T v : hC)
                nonzero += !same_bits(v, T(0));
            TEST_ASSERT(nonzero == 0, "matmul<%s> %zu x %zu with K = 0%s: %zu elements are not +0", type_name<T>(),
                        M, N, with_inputs ? "" : " (A, B NULL)", nonzero);
        }
    }
    /* M or N = 0: nothing to do, nothing needed. */
    TEST_CUDA(gpuh_matmul<T>(nullptr, nullptr, nullptr, 0, 5, 5));
    TEST_CUDA(gpuh_matmul<T>(nullptr, nullptr, nullptr, 5, 0, 5));
    printf("matmul<%s>: %zu shapes + K = 0\n", type_name<T>(), nd * nd * nd);
}

/* ===========================================================================
   GEMM: gpuh_gemm against cuBLAS's DGEMM on the same inputs widened to
   double (a reference about 2^29 times more accurate than a float kernel).

   Expected error of the float kernel: each element is a sum of K products
   accumulated in float with FMA; with inputs uniform in (-1, 1] the rounding
   errors behave like a random walk, and ||C - C_ref||_F / ||C_ref||_F comes
   to about 2^-24 · sqrt(K / 6) (each of K additions adds an error of RMS
   2^-24 / sqrt(3) times the partial sum, whose RMS grows like sqrt(k)/3,
   while |C| is about sqrt(K)/3): 1.6e-6 at K = 4097, 3e-7 at K = 100. The
   Frobenius norm averages millions of elements, so it sits close to that
   value; the bound 1e-5 leaves a factor 6 at the largest K here, and a
   dropped tile, a wrong element or TF32 arithmetic (2^-11) is off by far
   more. For double the same walk gives 2^-53 · sqrt(K / 6) ≈ 3e-15; the
   bound is 1e-12. The largest error seen is printed. */

#ifndef GPUH_SIM
static double worst_gemm_err[2]; /* [float, double] */

struct gemm_case {
    size_t M, N, K;
    size_t pad_a, pad_b, pad_c; /* leading dimension minus row length */
    size_t off;                 /* elements each pointer is moved from cudaMalloc's alignment */
    double alpha, beta;
};

/* C = alpha·A·B + beta·C for row-major double matrices with cuBLAS (column-
   major): the row-major C is C^T in column-major, and C^T = B^T·A^T. */
static cublasStatus_t dgemm_row_major(cublasHandle_t h, const gemm_case &c, const double *A, size_t lda,
                                      const double *B, size_t ldb, double *C, size_t ldc)
{
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)c.N, (int)c.M, (int)c.K, &c.alpha, B, (int)ldb, A, (int)lda,
                       &c.beta, C, (int)ldc);
}

/* One gpuh_gemm<T> call on fresh inputs (C poisoned with NaN when beta = 0,
   random otherwise) against the reference; also checks that nothing outside
   the M × N elements of C (the padding of each row, the offset before it)
   changed. simt: run the CUDA-core double kernel, which the default build
   uses only on GPUs without sm_90 code. */
template <typename T> static void check_gemm(cublasHandle_t h, const gemm_case &c, bool simt = false)
{
    const size_t lda = c.K + c.pad_a, ldb = c.N + c.pad_b, ldc = c.N + c.pad_c;
    const size_t na = c.off + c.M * lda, nb = c.off + c.K * ldb, nc = c.off + c.M * ldc;
    dev_array<T> A(na), B(nb), C(nc);
    dev_array<double> Ad(na), Bd(nb), Cd(nc);
    if (!A.ok() || !B.ok() || !C.ok() || !Ad.ok() || !Bd.ok() || !Cd.ok())
        return;
    std::vector<T> hA = random_input(A.p, na, SYMMETRIC), hB = random_input(B.p, nb, SYMMETRIC), hC;
    if (c.beta != 0)
        hC = random_input(C.p, nc, SYMMETRIC);
    else {
        poison(C.p, nc);
        hC = download(C.p, nc);
    }
    std::vector<double> wA(hA.begin(), hA.end()), wB(hB.begin(), hB.end()), wC(nc, 0.0);
    if (c.beta != 0)
        wC.assign(hC.begin(), hC.end());
    TEST_CUDA(gpuh_copy_to_device(Ad.p, wA.data(), na));
    TEST_CUDA(gpuh_copy_to_device(Bd.p, wB.data(), nb));
    TEST_CUDA(gpuh_copy_to_device(Cd.p, wC.data(), nc));

    const T alpha = T(c.alpha), beta = T(c.beta);
    cudaError_t err;
    if (simt)
        err = gpuh_gemm_with<gpuh_dgemm_simt, gpuh_dgemm_simt>(c.M, c.N, c.K, alpha, A.p + c.off, lda, B.p + c.off,
                                                                  ldb, beta, C.p + c.off, ldc);
    else
        err = gpuh_gemm(c.M, c.N, c.K, alpha, A.p + c.off, lda, B.p + c.off, ldb, beta, C.p + c.off, ldc);
    if (!TEST_CUDA(err))
        return;
    TEST_ASSERT(dgemm_row_major(h, c, Ad.p + c.off, lda, Bd.p + c.off, ldb, Cd.p + c.off, ldc) ==
                    CUBLAS_STATUS_SUCCESS, "cublasDgemm failed");
    std::vector<T> got = download(C.p, nc);
    std::vector<double> ref = download(Cd.p, nc);

    std::vector<T> out(c.M * c.N);
    std::vector<double> want(c.M * c.N);
    size_t changed = 0;
    for (size_t i = 0; i < nc; ++i) {
        const size_t r = (i - c.off) / ldc, j = (i - c.off) % ldc;
        if (i >= c.off && j < c.N) {
            out[r * c.N + j] = got[i];
            want[r * c.N + j] = ref[i];
        } else {
            changed += !same_bits(got[i], hC[i]);
        }
    }
    const double rel = rel_err(out.data(), want.data(), out.size());
    const bool is_f = std::is_same<T, float>::value;
    const double tol = is_f ? 1e-5 : 1e-12;
    if (rel > worst_gemm_err[is_f ? 0 : 1])
        worst_gemm_err[is_f ? 0 : 1] = rel;
    TEST_ASSERT(rel <= tol,
                "gemm<%s>%s M %zu N %zu K %zu (lda %zu ldb %zu ldc %zu, offset %zu, alpha %g, beta %g): "
                "relative error %.3g > %.0e",
                type_name<T>(), simt ? " (CUDA cores)" : "", c.M, c.N, c.K, lda, ldb, ldc, c.off, c.alpha, c.beta,
                rel, tol);
    TEST_ASSERT(changed == 0, "gemm<%s> M %zu N %zu K %zu: %zu elements outside C changed", type_name<T>(), c.M, c.N,
                c.K, changed);
}

template <typename T> static void test_gemm(cublasHandle_t h)
{
    /* The shapes of the issue (4097³ becomes 1031 × 1029 × 1027 in quick mode). */
    const size_t big = quick ? 1031 : 4097;
    const gemm_case shapes[] = {
        {big, quick ? 1029 : big, quick ? 1027 : big, 0, 0, 0, 0, 1, 0}, /* odd lds: the scalar path */
        {1024, 1024, 1024, 0, 0, 0, 0, 1, 0},                            /* aligned: the vector path */
        {1000, 3000, 500, 0, 0, 0, 0, 1, 0},                              /* big tiles plus both strips */
        {1, 4096, 4096, 0, 0, 0, 0, 1, 0},                                /* a row vector times B */
        {4096, 1, 4096, 0, 0, 0, 0, 1, 0},                                /* A times a column */
        {2000, 1500, 1, 0, 0, 0, 0, 1, 0},                                /* K = 1: one product each */
        {quick ? (size_t)4000 : 20000, 40, 300, 0, 0, 0, 0, 1, 0},        /* tall-skinny */
        {40, quick ? (size_t)4000 : 20000, 300, 0, 0, 0, 0, 1, 0},        /* short-wide */
        {300, 260, 520, 4, 8, 12, 0, 1, 0},                               /* ld > row, still 16-byte multiples */
        {300, 260, 520, 3, 5, 7, 0, 1, 0},                                /* ld > row, odd */
        {300, 260, 520, 0, 0, 0, 1, 1, 0},                                /* pointers off 16-byte alignment */
        {517, 1029, 260, 4, 4, 4, 0, 0.5, 2},                             /* alpha, beta */
        {517, 1029, 260, 1, 2, 3, 3, -1.25, -0.75},                       /* alpha, beta, odd lds, offsets */
        {640, 384, 256, 0, 0, 0, 0, 0, 1.5},                              /* alpha = 0: C = beta·C */
        /* the matrix-vector kernels: each path, ragged ends, beta */
        {1, 1000, 700, 0, 0, 0, 0, 2, 0.5},                               /* row kernel, 16-byte loads, ragged end */
        {1, 1029, 517, 1, 3, 2, 1, -1.25, 0.75},                          /* row kernel, element loads */
        {1, 1, 5000, 0, 0, 0, 0, 1, 0},                                   /* M = N = 1: a dot product */
        {1024, 1, 1000, 0, 0, 0, 0, 1, -0.5},                             /* column kernel, 16-byte loads */
        {1029, 1, 517, 0, 0, 2, 1, 0.5, 2},                               /* column kernel, odd lda: row heads */
        {1029, 1, 517, 0, 4, 0, 0, 1, 0},                                 /* column kernel, B strided (ldb 5) */
    };
    for (const gemm_case &c : shapes)
        check_gemm<T>(h, c);
    /* Awkward matrix sizes (1, 3, around 16, 100, 257), every combination, with alpha, beta and padded rows. */
    static const size_t full[] = {1, 3, 16, 17, 100, 257}, small[] = {1, 16, 17, 100};
    const size_t *dims = quick ? small : full, nd = quick ? 4 : 6;
    for (size_t i = 0; i < nd; ++i)
        for (size_t j = 0; j < nd; ++j)
            for (size_t k = 0; k < nd; ++k) {
                const size_t pad = (i + j + k) % 3 == 0 ? 0 : (i + j + k) % 3 == 1 ? 4 : 1;
                check_gemm<T>(h, {dims[i], dims[j], dims[k], pad, pad, pad, 0, 1.5, (i + k) % 2 ? 0.0 : -0.5});
            }
    /* K = 0: C = beta·C, A and B not read (NULL is fine). */
    for (double beta : {0.0, 2.0}) {
        const size_t M = 33, N = 65;
        dev_array<T> C(M * N);
        if (!C.ok())
            return;
        std::vector<T> h0;
        if (beta != 0)
            h0 = random_input(C.p, M * N, SYMMETRIC);
        else
            poison(C.p, M * N);
        TEST_CUDA(gpuh_gemm<T>(M, N, 0, T(1), nullptr, 0, nullptr, N, T(beta), C.p, N));
        std::vector<T> hC = download(C.p, M * N);
        size_t bad = 0;
        for (size_t i = 0; i < M * N; ++i)
            bad += !same_bits(hC[i], beta != 0 ? T(beta) * h0[i] : T(0));
        TEST_ASSERT(bad == 0, "gemm<%s> K = 0, beta %g: %zu elements are not beta·C", type_name<T>(), beta, bad);
    }
    /* The matrix-vector kernels sum in a fixed order: the same bits every call. */
    const gemm_case vectors[] = {{1, 4096, 4096, 0, 0, 0, 0, 1, 0}, {4096, 1, 4096, 0, 0, 0, 0, 1, 0}};
    for (const gemm_case &c : vectors) {
        dev_array<T> A(c.M * c.K), B(c.K * c.N), C(c.M * c.N);
        if (!A.ok() || !B.ok() || !C.ok())
            return;
        random_input(A.p, c.M * c.K, SYMMETRIC);
        random_input(B.p, c.K * c.N, SYMMETRIC);
        std::vector<T> first;
        size_t differ = 0;
        for (int run = 0; run < 20; ++run) {
            TEST_CUDA(gpuh_matmul<T>(A.p, B.p, C.p, c.M, c.N, c.K));
            std::vector<T> got = download(C.p, c.M * c.N);
            if (run == 0)
                first = got;
            else
                differ += memcmp(got.data(), first.data(), got.size() * sizeof(T)) != 0;
        }
        TEST_ASSERT(differ == 0, "gemm<%s> M %zu N %zu K %zu: %zu of 19 repeats differ from the first", type_name<T>(),
                    c.M, c.N, c.K, differ);
    }
    if (std::is_same<T, double>::value) { /* the CUDA-core double kernel of GPUs without FP64 tensor cores */
        check_gemm<T>(h, {1000, 700, 300, 0, 0, 0, 0, 1, 0}, true);
        check_gemm<T>(h, {257, 100, 17, 3, 5, 1, 1, -1.5, 0.5}, true);
    }
    printf("gemm<%s>: %zu shapes + %zu small ones + K = 0; largest relative error %.3g\n", type_name<T>(),
           sizeof shapes / sizeof shapes[0], nd * nd * nd, worst_gemm_err[std::is_same<T, float>::value ? 0 : 1]);
}

#endif /* GPUH_SIM */

/* M = 2^20 + 1 rows of one column: 2^20 + 1 tiles, beyond the 65535 a grid's
   y dimension allows. C[i] = +0 + A[i]·B[0]: one rounding, exact on the host
   too. The +0 is the kernel's: its accumulator starts at +0, so where the
   product is -0 (an input that is exactly 0, times a negative) C holds +0
   (IEEE 754: -0 + +0 = +0). Compared with the bare product, the test failed
   now and then on the H200 on that sign alone. Quick mode on the simulator:
   M = 2^17 + 1, still past 65535. */
static void test_gemm_tall()
{
    const size_t M = ((size_t)1 << (quick && on_simulator ? 17 : 20)) + 1;
    dev_array<float> A(M), B(1), C(M);
    if (!A.ok() || !B.ok() || !C.ok())
        return;
    std::vector<float> hA = random_input(A.p, M, SYMMETRIC), hB = random_input(B.p, 1, SYMMETRIC);
    poison(C.p, M);
    TEST_CUDA(gpuh_matmul(A.p, B.p, C.p, M, 1, 1));
    std::vector<float> hC = download(C.p, M);
    size_t bad = 0;
    for (size_t i = 0; i < M; ++i)
        bad += !same_bits(hC[i], 0.0f + hA[i] * hB[0]);
    TEST_ASSERT(bad == 0, "matmul with M = %zu, N = K = 1: %zu elements wrong", M, bad);
}

/* A leading dimension the shape never uses may be as large as size_t allows
   (the argument check lets it through: no element lies past the first row):
   a C of one row with K = 0 (the tiled kernels, C = beta·C), K = 1 with B's
   one row (tiled kernels, and the column kernel for N = 1), and a C of one
   row with K > 0 (the row kernel). The kernels must not form a pointer to a
   row that does not exist: on the simulator under UBSan's pointer-overflow
   check (-fsanitize=pointer-overflow) such a pointer is an error even when
   nothing reads it. */
template <typename T> static void test_gemm_unused_ld()
{
    /* Two thirds of the largest element count: row 1 of such a matrix would be
       2^64·2/3 bytes on, past the end of the address space from any pointer. */
    const size_t huge = SIZE_MAX / sizeof(T) / 3 * 2, M = 37, N = 41;
    dev_array<T> A(M * 2), B(N), C(M * N);
    if (!A.ok() || !B.ok() || !C.ok())
        return;
    std::vector<T> hA = random_input(A.p, M * 2, SYMMETRIC), hB = random_input(B.p, N, SYMMETRIC);
    std::vector<T> hC = random_input(C.p, N, SYMMETRIC);
    /* C of one row, K = 0: C = 2·C. */
    TEST_CUDA(gpuh_gemm<T>(1, N, 0, T(1), A.p, 0, B.p, huge, T(2), C.p, huge));
    std::vector<T> got = download(C.p, N);
    size_t bad = 0;
    for (size_t j = 0; j < N; ++j)
        bad += !same_bits(got[j], T(2) * hC[j]);
    TEST_ASSERT(bad == 0, "%s gemm 1 x %zu x 0, ldb = ldc = %zu: %zu elements wrong", type_name<T>(), N, huge, bad);
    /* K = 1, B of one row: C[i][j] = A[i]·B[j] (lda 2: rows of A at every other element). */
    for (size_t n : {N, (size_t)1}) {
        poison(C.p, M * N);
        TEST_CUDA(gpuh_gemm<T>(M, n, 1, T(1), A.p, 2, B.p, huge, T(0), C.p, n));
        got = download(C.p, M * n);
        bad = 0;
        for (size_t i = 0; i < M; ++i)
            for (size_t j = 0; j < n; ++j)
                bad += !same_bits(got[i * n + j], T(0) + hA[2 * i] * hB[j]);
        TEST_ASSERT(bad == 0, "%s gemm %zu x %zu x 1, ldb = %zu: %zu elements wrong", type_name<T>(), M, n, huge, bad);
    }
    /* C of one row, K = 2 (the row kernel): A's row and B's two rows, C with a huge ldc. */
    poison(C.p, N);
    TEST_CUDA(gpuh_gemm<T>(1, N / 2, 2, T(1), A.p, 2, B.p, N / 2, T(0), C.p, huge));
    got = download(C.p, N / 2);
    bad = 0;
    for (size_t j = 0; j < N / 2; ++j)
        bad += !same_bits(got[j], (T(0) + hA[0] * hB[j]) + hA[1] * hB[N / 2 + j]);
    TEST_ASSERT(bad == 0, "%s gemm 1 x %zu x 2, ldc = %zu: %zu elements wrong", type_name<T>(), N / 2, huge, bad);
}

/* Transposes: C = alpha·op(A)·op(B) + beta·C on every path (each tile
   family forced through gpuh_gemm_with, the default cover, the FP64 tensor-
   core and CUDA-core double kernels, the matrix-vector kernels, K = 1) for
   each of NN, NT, TN, TT, at random shapes, against a float64 reference on
   the host (so it runs on the simulator too). Leading dimensions are padded
   (some by a multiple of 16 bytes, some odd: the 16-byte and the scalar
   loads), pointers sometimes moved off alignment; C's padding and the
   elements before it are poisoned or random and must not change. */
enum gemm_path {
    PATH_DEFAULT, PATH_BIG, PATH_SMALL, PATH_SIMT_DOUBLE, PATH_WIDE, PATH_TALL, PATH_WIDE32, PATH_TALL32, PATH_WIDE64,
    PATH_TALL64, PATH_DMMA_K16, PATH_DMMA_FRAGS2, PATH_DMMA_WIDE, PATH_DMMA_WIDE32, PATH_DMMA_TALL
};
static const char *const gemm_path_name[] = {"default",          "big tiles",          "small tiles",
                                             "CUDA-core double", "wide tiles",         "tall tiles",
                                             "wide32 tiles",     "tall32 tiles",       "wide64 tiles",
                                             "tall64 tiles",     "FP64 m16n8k16",      "FP64 fragments x2",
                                             "FP64 wide tiles",  "FP64 wide32 tiles",  "FP64 tall tiles"};
/* The FP64 tensor-core kernel's other options (gpuh_gemm_dmma_config's MMA_K
   and FRAGS), which the shipped tiles do not use: two slices of 32 in flight. */
typedef gpuh_gemm_dmma_config<64, 128, 32, 2, 2, 2, 2, 16, 1> dmma_k16;
typedef gpuh_gemm_dmma_config<64, 128, 32, 2, 2, 2, 2, 8, 2> dmma_frags2;

/* One configuration pair, for every path: gpuh_gemm_with<Cfg, Cfg>. */
template <typename Cfg, typename T>
static cudaError_t gemm_with_one(gpuh_op oa, gpuh_op ob, size_t M, size_t N, size_t K, T alpha, const T *A,
                                 size_t lda, const T *B, size_t ldb, T beta, T *C, size_t ldc)
{
    return gpuh_gemm_with<Cfg, Cfg>(oa, ob, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <typename T>
static cudaError_t gemm_on_path(gemm_path path, gpuh_op oa, gpuh_op ob, size_t M, size_t N, size_t K, T alpha,
                                const T *A, size_t lda, const T *B, size_t ldb, T beta, T *C, size_t ldc)
{
    typedef cudaError_t (*fn)(gpuh_op, gpuh_op, size_t, size_t, size_t, T, const T *, size_t, const T *, size_t, T,
                              T *, size_t);
    fn f = nullptr;
    if constexpr (std::is_same<T, float>::value)
        f = path == PATH_BIG     ? gemm_with_one<gpuh_sgemm_big, T>
            : path == PATH_SMALL ? gemm_with_one<gpuh_sgemm_small, T>
            : path == PATH_WIDE  ? gemm_with_one<gpuh_sgemm_wide, T>
            : path == PATH_TALL  ? gemm_with_one<gpuh_sgemm_tall, T>
            : path == PATH_WIDE32 ? gemm_with_one<gpuh_sgemm_wide32, T>
            : path == PATH_TALL32 ? gemm_with_one<gpuh_sgemm_tall32, T>
            : path == PATH_WIDE64 ? gemm_with_one<gpuh_sgemm_wide64, T>
            : path == PATH_TALL64 ? gemm_with_one<gpuh_sgemm_tall64, T>
                                 : nullptr;
    else
        f = path == PATH_BIG           ? gemm_with_one<gpuh_dgemm_big, T>
            : path == PATH_SMALL       ? gemm_with_one<gpuh_dgemm_small, T>
            : path == PATH_SIMT_DOUBLE ? gemm_with_one<gpuh_dgemm_simt, T>
            : path == PATH_DMMA_K16    ? gemm_with_one<dmma_k16, T>
            : path == PATH_DMMA_FRAGS2 ? gemm_with_one<dmma_frags2, T>
            : path == PATH_DMMA_WIDE   ? gemm_with_one<gpuh_dgemm_wide, T>
            : path == PATH_DMMA_WIDE32 ? gemm_with_one<gpuh_dgemm_wide32, T>
            : path == PATH_DMMA_TALL   ? gemm_with_one<gpuh_dgemm_tall, T>
                                       : nullptr;
    if (f != nullptr)
        return f(oa, ob, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return gpuh_gemm(oa, ob, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <typename T>
static void check_gemm_op(gemm_path path, gpuh_op oa, gpuh_op ob, size_t M, size_t N, size_t K, size_t pad,
                          size_t off, double alpha, double beta, bool want_split = false)
{
    const bool ta = oa == GPUH_OP_T, tb = ob == GPUH_OP_T;
    const size_t ra = ta ? K : M, ca = ta ? M : K, rb = tb ? N : K, cb = tb ? K : N; /* as stored */
    const size_t lda = ca + pad, ldb = cb + (pad + 1) % 5, ldc = N + pad;
    const size_t na = off + ra * lda, nb = off + rb * ldb, nc = off + M * ldc;
    dev_array<T> A(na), B(nb), C(nc);
    if (!A.ok() || !B.ok() || !C.ok())
        return;
    std::vector<T> hA = random_input(A.p, na, SYMMETRIC), hB = random_input(B.p, nb, SYMMETRIC), hC;
    if (beta != 0)
        hC = random_input(C.p, nc, SYMMETRIC);
    else {
        poison(C.p, nc);
        hC = download(C.p, nc);
    }
    if (!TEST_CUDA(gemm_on_path<T>(path, oa, ob, M, N, K, T(alpha), A.p + off, lda, B.p + off, ldb, T(beta),
                                   C.p + off, ldc)))
        return;
    const char *last = gpuh_last_launch().kernel;
    const bool split = last != nullptr && strstr(last, "split_reduce") != nullptr; /* split-K's second pass */
    if (want_split)
        TEST_ASSERT(split, "gemm<%s> M %zu N %zu K %zu: not split-K (last launch %s)", type_name<T>(), M, N, K, last);
    std::vector<T> got = download(C.p, nc);
    if (split) { /* the slices are added in a fixed order: the same bits on every call */
        size_t differ = 0;
        for (int run = 0; run < 3; ++run) {
            TEST_CUDA(cudaMemcpy(C.p, hC.data(), nc * sizeof(T), cudaMemcpyHostToDevice));
            TEST_CUDA(gemm_on_path<T>(path, oa, ob, M, N, K, T(alpha), A.p + off, lda, B.p + off, ldb, T(beta),
                                      C.p + off, ldc));
            differ += memcmp(download(C.p, nc).data(), got.data(), nc * sizeof(T)) != 0;
        }
        TEST_ASSERT(differ == 0, "gemm<%s> split-K M %zu N %zu K %zu: %zu of 3 repeats differ", type_name<T>(), M, N,
                    K, differ);
    }
    /* The reference on every row up to 2^29 multiply-adds; past that on 61
       rows spread over C (and its last), to keep the host's share short. */
    const size_t stride = M * N * K > (1u << 29) ? M / 61 + 1 : 1;
    std::vector<double> want;
    std::vector<T> out;
    std::vector<double> a_row(K), sums(N), mags(N);
    double mag2 = 0; /* Σ over C of (|alpha|·Σ_k |a·b| + |beta·c|)²: the size the rounding errors scale with */
    for (size_t i = 0; i < M; i = (i + stride < M || i == M - 1) ? i + stride : M - 1) {
        /* op(A)'s row i, then its products with op(B), reading B along its stored rows (the host's caches) */
        for (size_t k = 0; k < K; ++k)
            a_row[k] = (double)hA[off + (ta ? k * lda + i : i * lda + k)];
        std::fill(sums.begin(), sums.end(), 0.0);
        std::fill(mags.begin(), mags.end(), 0.0);
        for (size_t j = 0; tb && j < N; ++j)
            for (size_t k = 0; k < K; ++k) {
                const double p = a_row[k] * (double)hB[off + j * ldb + k];
                sums[j] += p;
                mags[j] += std::fabs(p);
            }
        for (size_t k = 0; !tb && k < K; ++k)
            for (size_t j = 0; j < N; ++j) {
                const double p = a_row[k] * (double)hB[off + k * ldb + j];
                sums[j] += p;
                mags[j] += std::fabs(p);
            }
        for (size_t j = 0; j < N; ++j) {
            const size_t at = off + i * ldc + j;
            const double cterm = beta != 0 ? beta * (double)hC[at] : 0.0;
            want.push_back(alpha * sums[j] + cterm);
            out.push_back(got[at]);
            const double m = std::fabs(alpha) * mags[j] + std::fabs(cterm);
            mag2 += m * m;
        }
    }
    /* The error relative to C, but never to less than C's size without
       cancellation: K products of random signs add to about their
       magnitudes' sum over √K, and a smaller C (a 1 × 1 × K product that
       happens to cancel) would blame the kernel for the data's cancellation.
       Where C is not cancelled this is the plain relative error. */
    double err2 = 0, want2 = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        err2 += ((double)out[i] - want[i]) * ((double)out[i] - want[i]);
        want2 += want[i] * want[i];
    }
    const double floor2 = K > 0 ? mag2 / (double)K : mag2;
    size_t changed = 0;
    for (size_t i = 0; i < nc; ++i)
        if (i < off || (i - off) % ldc >= N)
            changed += !same_bits(got[i], hC[i]);
    const double rel = std::sqrt(err2 / std::max(want2 > floor2 ? want2 : floor2, 1e-300));
    const double tol = std::is_same<T, float>::value ? 1e-5 : 1e-12;
    TEST_ASSERT(rel <= tol,
                "gemm<%s> %s op %c%c M %zu N %zu K %zu (lda %zu ldb %zu ldc %zu, offset %zu, alpha %g, beta %g): "
                "relative error %.3g > %.0e",
                type_name<T>(), gemm_path_name[path], ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, lda, ldb, ldc, off,
                alpha, beta, rel, tol);
    TEST_ASSERT(changed == 0, "gemm<%s> %s op %c%c M %zu N %zu K %zu: %zu elements outside C changed", type_name<T>(),
                gemm_path_name[path], ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, changed);
}

/* gpuh_gemm<float>'s plan for M × N × K on `sms` SMs: from the table of
   plans made (as gpuh_gemm takes it), and made afresh. */
static gpuh_impl_gemm_plan float_plan_table(size_t M, size_t N, size_t K, size_t sms)
{
    return gpuh_impl_gemm_plan_for<gpuh_impl_sgemm_covers, float>(M, N, K, sms);
}
static gpuh_impl_gemm_plan float_plan_made(size_t M, size_t N, size_t K, size_t sms)
{
    return gpuh_impl_gemm_choose<gpuh_impl_sgemm_covers>(M, N, K, sizeof(float), sms);
}

/* A random shape whose plan on `sms` SMs with configurations Set (a
   gpuh_impl_gemm_covers) is the hybrid (a band of whole tile rows or
   columns, the rest in a plan of its own): C of a third of a wave to three
   waves of Big's tiles, K 300 to 1200; false when 2000 draws find none.
   The band depends on the SM count, so the shape is asked of the planner,
   not fixed. split: whether the rest is split along K (it may instead run
   whole, on other tiles). */
template <typename Set, typename Draw>
static bool find_band(Draw &draw, size_t elem, size_t sms, size_t (&s)[3], bool &split)
{
    typedef typename Set::Big Big;
    const size_t slots = sms * Big::MIN_BLOCKS;
    for (int tries = 0; tries < 2000; ++tries) {
        const size_t tiles = draw(slots / 3 + 1, 3 * slots), tm = draw(1, 2 * (size_t)std::sqrt((double)tiles) + 1);
        const size_t tn = (tiles + tm - 1) / tm;
        s[0] = (tm - 1) * Big::BM + draw(1, Big::BM), s[1] = (tn - 1) * Big::BN + draw(1, Big::BN);
        s[2] = draw(300, 1200);
        const gpuh_impl_gemm_plan plan = gpuh_impl_gemm_choose<Set>(s[0], s[1], s[2], elem, sms);
        split = plan.splits > 1;
        if (plan.band != 0)
            return true;
    }
    return false;
}
/* The same with the configurations gpuh_gemm<T> takes on this device
   (gpuh_impl_gemm_default's choice). */
template <typename T, typename Draw>
static bool find_band_shape(Draw &draw, size_t sms, size_t (&s)[3], bool &split)
{
    if (std::is_same<T, float>::value)
        return find_band<gpuh_impl_sgemm_covers>(draw, sizeof(T), sms, s, split);
    if (gpuh_impl_dmma_ready<gpuh_dgemm_big>())
        return find_band<gpuh_impl_dgemm_covers>(draw, sizeof(T), sms, s, split);
    return find_band<gpuh_impl_gemm_covers<gpuh_dgemm_simt, gpuh_dgemm_simt> >(draw, sizeof(T), sms, s, split);
}

template <typename T> static void test_gemm_ops()
{
    unsigned long long rng = next_seed();
    const auto draw = [&rng](size_t lo, size_t hi) { return lo + (size_t)(gpuh_test_uniform(&rng) * (hi - lo + 1)); };
    const size_t most = quick ? 150 : 600, most_k = quick ? 90 : 700;
    const bool is_f = std::is_same<T, float>::value;
    std::vector<gemm_path> paths = {PATH_DEFAULT};
#ifdef GPUH_SIM /* the simulator has no FP64 tensor cores: their configurations would compute nothing there */
    if (is_f)
#endif
        paths.insert(paths.end(), {PATH_BIG, PATH_SMALL});
    if (!is_f) {
        paths.push_back(PATH_SIMT_DOUBLE);
#ifndef GPUH_SIM
        paths.insert(paths.end(), {PATH_DMMA_K16, PATH_DMMA_FRAGS2, PATH_DMMA_WIDE, PATH_DMMA_WIDE32, PATH_DMMA_TALL});
#endif
    } else
        paths.insert(paths.end(), {PATH_WIDE, PATH_TALL, PATH_WIDE32, PATH_TALL32, PATH_WIDE64, PATH_TALL64});
    int dev = 0, sms = 0; /* gpuh_gemm plans for the current device */
    TEST_CUDA(cudaGetDevice(&dev));
    TEST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t n = 0;
    for (int op = 0; op < 4; ++op) {
        const gpuh_op oa = op & 2 ? GPUH_OP_T : GPUH_OP_N, ob = op & 1 ? GPUH_OP_T : GPUH_OP_N;
        for (gemm_path path : paths)
            for (int rep = 0; rep < 3; ++rep, ++n) {
                /* rep 0: aligned rows (pad a multiple of 16 bytes), beta = 0 (C poisoned) for every other path
                   and op, else beta != 0 (an edge tile moved inside C updates only the rows it owns);
                   1: odd pads; 2: odd pads and offset pointers */
                const size_t pad = rep == 0 ? 16 / sizeof(T) * draw(0, 2) : draw(1, 7), off = rep == 2 ? draw(1, 3) : 0;
                check_gemm_op<T>(path, oa, ob, draw(2, most), draw(2, most), draw(1, most_k), pad, off,
                                 rep == 1 ? -1.5 : 1.0, rep == 0 && n % 2 == 0 ? 0.0 : 0.75);
            }
        /* a tall C and a wide one of 49 to 64 columns (rows) whose plans on 132 SMs take the 64-column
           (64-row) tiles, and of 17 to 32 on the 32-column (32-row) ones, split along K, on the GPU only */
        for (int w = 0; w < 4 && is_f && !quick; ++w) {
            const bool wide = w % 2, w64 = w < 2;
            const size_t lo = w64 ? 49 : 17, hi = w64 ? 64 : 32;
            const int cover = w64 ? (wide ? 'W' : 'T') : (wide ? 'u' : 'v');
            size_t m = 0, c = 0, k = 0;
            for (int tries = 0; tries < 100 && m == 0; ++tries) {
                const size_t tm = draw(w64 ? 4096 : 1024, 6000), tc = draw(lo, hi), tk = draw(2048, 4096);
                if (float_plan_made(wide ? tc : tm, wide ? tm : tc, tk, 132).cover == cover)
                    m = tm, c = tc, k = tk;
            }
            if (TEST_ASSERT(m > 0, "no %s C of %zu to %zu %s planned on cover %c", wide ? "wide" : "tall", lo, hi,
                            wide ? "rows" : "columns", cover))
                check_gemm_op<T>(PATH_DEFAULT, oa, ob, wide ? c : m, wide ? m : c, k, draw(0, 3), 0, 1, 0.25);
        }
        /* a C of 2 to 16 rows, 17 to 32 rows and 2 to 16 columns that gpuh_gemm<double> plans on this device on
           the FP64 narrow tiles (w, u, t), on the GPU only */
        for (int w = 0; w < 3 && !is_f && !quick && gpuh_impl_dmma_ready<gpuh_dgemm_big>(); ++w) {
            const bool tall = w == 2;
            const size_t lo = w == 1 ? 17 : 2, hi = w == 1 ? 32 : 16;
            size_t m = 0, c = 0, k = 0;
            for (int tries = 0; tries < 200 && m == 0; ++tries) {
                const size_t tm = draw(256, 12000), tc = draw(lo, hi), tk = draw(64, 2048);
                if (gpuh_impl_gemm_choose<gpuh_impl_dgemm_covers>(tall ? tm : tc, tall ? tc : tm, tk, sizeof(T),
                                                                  (size_t)sms)
                        .cover == "wut"[w])
                    m = tm, c = tc, k = tk;
            }
            if (TEST_ASSERT(m > 0, "no double C of %zu to %zu %s planned on cover %c", lo, hi,
                            tall ? "columns" : "rows", "wut"[w]))
                check_gemm_op<T>(PATH_DEFAULT, oa, ob, tall ? m : c, tall ? c : m, k, draw(0, 3), 0, 1, 0.25);
        }
        /* a big-tile interior with ragged strips (the default's cover b), and a C this device plans as the
           hybrid (whole tile rows or columns, then the rest in a plan of its own), on the GPU only: large for the
           simulator */
        if (!quick) {
            check_gemm_op<T>(PATH_DEFAULT, oa, ob, 1000 + draw(1, 255), 600 + draw(1, 127), draw(200, 700), 0, 0, 1, 0);
            size_t s[3];
            bool split = false;
            if (TEST_ASSERT(find_band_shape<T>(draw, (size_t)sms, s, split), "no shape planned as the hybrid on %d SMs",
                            sms))
                check_gemm_op<T>(PATH_DEFAULT, oa, ob, s[0], s[1], s[2], draw(0, 2), 0, 1, 0.5, split);
            /* odd leading dimensions and a product large enough for an aligned copy of A and B */
            check_gemm_op<T>(PATH_DEFAULT, oa, ob, 2000 + draw(0, 99), 2000 + draw(0, 99), 1000, draw(1, 3), 1, 1, 0);
        }
        /* the matrix-vector kernels (C of one row, one column, both: a dot product), K = 1 */
        const size_t L = draw(100, quick ? 300 : 3000), K = draw(1, quick ? 200 : 2000);
        check_gemm_op<T>(PATH_DEFAULT, oa, ob, 1, L, K, 0, 0, 1, 0);
        check_gemm_op<T>(PATH_DEFAULT, oa, ob, L, 1, K, 0, 0, 1, 0);
        check_gemm_op<T>(PATH_DEFAULT, oa, ob, 1, L, K, draw(1, 3), 1, 2, -0.5);
        check_gemm_op<T>(PATH_DEFAULT, oa, ob, L, 1, K, draw(1, 3), 1, 2, -0.5);
        check_gemm_op<T>(PATH_DEFAULT, oa, ob, 1, 1, K, 0, 0, 1, 0.5);
        check_gemm_op<T>(PATH_DEFAULT, oa, ob, draw(2, most), draw(2, most), 1, draw(0, 3), 0, 1, 0);
        /* split-K: a C of a few tiles and a long K (each tile family, beta, odd leading dimensions); on a
           device of one SM (the simulator with one thread) the slices would share its few slots
           (MIN_BLOCKS), and the planner may rightly keep K whole */
        for (gemm_path path : paths) {
            const size_t kk = quick ? draw(1200, 2000) : draw(3000, 9000);
            check_gemm_op<T>(path, oa, ob, draw(2, 64), draw(2, 64), kk, draw(0, 3), 0, 1, 0, sms > 1);
            check_gemm_op<T>(path, oa, ob, draw(2, 60), draw(2, 60), kk, draw(1, 5), 1, -0.5, 1.5, sms > 1);
            n += 2;
        }
        n += 6 + (3 + 4 * is_f + 3 * (!is_f && gpuh_impl_dmma_ready<gpuh_dgemm_big>())) * !quick;
    }
    printf("gemm<%s> with transposes: %zu shapes (NN, NT, TN, TT; each path)\n", type_name<T>(), n);
}

/* gpuh_gemm's plans (host only): the table of plans made gives the plan
   gpuh_impl_gemm_choose makes, field for field, over random shapes and SM
   counts, a third of them asked for again (hits), the others filling and
   overwriting the table's slots; and every plan is whole (a band only on
   the covers that have one). */
static void test_gemm_plans()
{
    unsigned long long rng = next_seed();
    const auto draw = [&rng](size_t lo, size_t hi) { return lo + (size_t)(gpuh_test_uniform(&rng) * (hi - lo + 1)); };
    const size_t sms_v[] = {1, 16, 78, 108, 132, 144};
    std::vector<size_t> seen;
    size_t differ = 0, mixed = 0, n = quick ? 1500 : 6000;
    for (size_t i = 0; i < n; ++i) {
        size_t key[4];
        if (i % 3 == 2 && !seen.empty()) { /* a shape asked for before */
            const size_t j = draw(0, seen.size() / 4 - 1) * 4;
            for (int q = 0; q < 4; ++q)
                key[q] = seen[j + q];
        } else {
            for (int q = 0; q < 3; ++q) /* log-uniform in [1, 2^15] */
                key[q] = (size_t)std::exp2(gpuh_test_uniform(&rng) * 15.0);
            key[3] = sms_v[draw(0, 5)];
            seen.insert(seen.end(), key, key + 4);
        }
        const gpuh_impl_gemm_plan got = float_plan_table(key[0], key[1], key[2], key[3]);
        const gpuh_impl_gemm_plan want = float_plan_made(key[0], key[1], key[2], key[3]);
        /* a band (whole tile rows or columns on cover a or c) lies inside C, and the rest runs in one
           launch of a cover of its own (not b, not the 16- or 32-wide tiles), other than the band's whole; any
           other plan covers all of C */
        const size_t side = want.band == 'r' ? key[0] : key[1];
        const bool rest_ok = want.cover == 'a' || want.cover == 'c' || want.cover == 'W' || want.cover == 'T';
        if (want.band != 0 ? (want.first != 'a' && want.first != 'c') || !rest_ok ||
                                 (want.cover == want.first && want.splits < 2) || want.dp == 0 || want.dp >= side
                           : want.dp != 0 || want.first != 0)
            if (mixed++ < 5)
                TEST_ASSERT(false, "plan of %zu x %zu x %zu on %zu SMs: cover %c/%zu with band %c on %c, dp %zu",
                            key[0], key[1], key[2], key[3], want.cover, want.splits, want.band ? want.band : '-',
                            want.first ? want.first : '-', want.dp);
        if (got.cover != want.cover || got.splits != want.splits || got.k_chunk != want.k_chunk ||
            got.band != want.band || got.first != want.first || got.dp != want.dp || !same_bits(got.cost, want.cost)) {
            if (differ++ < 5)
                TEST_ASSERT(false, "plan of %zu x %zu x %zu on %zu SMs: table %c/%zu/%zu, made %c/%zu/%zu", key[0],
                            key[1], key[2], key[3], got.cover, got.splits, got.k_chunk, want.cover, want.splits,
                            want.k_chunk);
        }
    }
    TEST_ASSERT(differ == 0, "%zu of %zu plans from the table differ from the plans made", differ, n);
    TEST_ASSERT(mixed == 0, "%zu of %zu plans mix a band with another cover", mixed, n);
}

/* The aligning copy of an operand (gpuh_impl_pack_rows) for elements of 2, 4
   and 8 bytes: random rows and columns (a last word part full or whole),
   source rows of any stride from a pointer off by any number of elements
   (and aligned, where it loads whole words), into a poisoned workspace of
   16-byte rows: every element copied bit for bit, the rest of each row's
   last word zero; more rows than a grid's y dimension holds; and no rows or
   no columns. */
template <typename U> static void check_pack_rows(size_t rows, size_t cols, size_t ld_in, size_t off)
{
    const size_t w = 16 / sizeof(U), ld_out = (cols + w - 1) / w * w, n_in = off + (rows - 1) * ld_in + cols;
    std::vector<U> h(n_in);
    unsigned long long rng = next_seed();
    for (U &x : h)
        x = (U)(gpuh_test_uniform(&rng) * 65535.0) * (U)0x9e37 + (U)1;
    dev_array<U> in(n_in), out(rows * ld_out);
    if (!in.ok() || !out.ok())
        return;
    TEST_CUDA(gpuh_copy_to_device(in.p, h.data(), n_in));
    poison(out.p, rows * ld_out);
    TEST_CUDA(gpuh_impl_pack_rows(in.p + off, ld_in, rows, cols, out.p, ld_out, 0));
    const std::vector<U> o = download(out.p, rows * ld_out);
    size_t wrong = 0;
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < ld_out; ++c)
            wrong += o[r * ld_out + c] != (c < cols ? h[off + r * ld_in + c] : (U)0);
    TEST_ASSERT(wrong == 0, "pack_rows of %zu-byte elements, %zu x %zu, ld_in %zu, %zu off: %zu elements wrong",
                sizeof(U), rows, cols, ld_in, off, wrong);
}
static void test_pack_rows()
{
    unsigned long long rng = next_seed();
    const auto draw = [&rng](size_t lo, size_t hi) { return lo + (size_t)(gpuh_test_uniform(&rng) * (hi - lo + 1)); };
    for (int i = 0; i < 12; ++i) {
        const size_t rows = draw(1, 40), cols = draw(1, i < 6 ? 40 : 700), pad = draw(0, 9), off = draw(0, 7);
        check_pack_rows<unsigned short>(rows, cols, cols + pad, off);
        check_pack_rows<unsigned>(rows, cols, cols + pad, off);
        check_pack_rows<unsigned long long>(rows, cols, cols + pad, off);
        /* aligned source rows: whole words loaded as words */
        check_pack_rows<unsigned>(rows, cols, (cols + 3) / 4 * 4 + 4 * draw(0, 2), 0);
    }
    check_pack_rows<unsigned>(65535 + draw(1, 3000), draw(1, 9), draw(9, 12), draw(0, 3));
    /* nothing to copy: no launch, no error */
    TEST_CUDA(gpuh_impl_pack_rows(static_cast<const float *>(nullptr), 7, 0, 5, nullptr, 8, 0));
    TEST_CUDA(gpuh_impl_pack_rows(static_cast<const float *>(nullptr), 7, 5, 0, nullptr, 8, 0));
}

/* Bad arguments: each is cudaErrorInvalidValue and the detail names it. */
static void test_gemm_arguments()
{
    dev_array<float> x(64);
    if (!x.ok())
        return;
    const float *cnull = nullptr;
    struct {
        size_t M, N, K, lda, ldb, ldc;
        const float *A, *B;
        float *C;
        const char *detail;
    } bad[] = {
        {4, 4, 4, 3, 4, 4, x.p, x.p, x.p, "lda = 3 is less than op(A)'s stored row length 4 (op_a = N)"},
        {4, 4, 4, 4, 3, 4, x.p, x.p, x.p, "ldb = 3 is less than op(B)'s stored row length 4 (op_b = N)"},
        {4, 4, 4, 4, 4, 2, x.p, x.p, x.p, "ldc = 2 is less than C's row length 4"},
        {4, 4, 4, 4, 4, 4, cnull, x.p, x.p, "d_A is NULL"},
        {4, 4, 4, 4, 4, 4, x.p, cnull, x.p, "d_B is NULL"},
        {4, 4, 4, 4, 4, 4, x.p, x.p, nullptr, "d_C is NULL"},
        {SIZE_MAX / 8, 4, 4, 4, 4, 4, x.p, x.p, x.p, "A of"},  /* (M - 1)·lda·4 bytes overflow */
        {1, 4, SIZE_MAX / 8, SIZE_MAX / 8, 4, 4, x.p, x.p, x.p, "B of"}, /* A's one row fits, B's K rows don't */
        {4, SIZE_MAX / 2, 4, 4, SIZE_MAX / 2, SIZE_MAX / 2, x.p, x.p, x.p, "B of"}, /* one row's bytes overflow */
    };
    for (const auto &b : bad) {
        gpuh_test_clear_detail();
        TEST_ERR(gpuh_gemm(b.M, b.N, b.K, 1.0f, b.A, b.lda, b.B, b.ldb, 0.0f, b.C, b.ldc), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), b.detail);
    }
    TEST_ERR(gpuh_gemm<double>(2, 2, 2, 1.0, nullptr, 2, nullptr, 2, 0.0, nullptr, 2), cudaErrorInvalidValue);
    /* With transposes the stored shapes change: Aᵀ is stored K × M, Bᵀ N × K. */
    struct {
        gpuh_op op_a, op_b;
        size_t M, N, K, lda, ldb, ldc;
        const char *detail;
    } bad_op[] = {
        {GPUH_OP_T, GPUH_OP_N, 7, 4, 5, 5, 4, 4, "lda = 5 is less than op(A)'s stored row length 7 (op_a = T)"},
        {GPUH_OP_N, GPUH_OP_T, 3, 6, 5, 5, 4, 6, "ldb = 4 is less than op(B)'s stored row length 5 (op_b = T)"},
        {GPUH_OP_T, GPUH_OP_T, 3, 6, 5, 3, 5, 5, "ldc = 5 is less than C's row length 6"},
        {(gpuh_op)2, GPUH_OP_N, 4, 4, 4, 4, 4, 4, "op_a = 2 is neither GPUH_OP_N nor GPUH_OP_T"},
        {GPUH_OP_N, (gpuh_op)-1, 4, 4, 4, 4, 4, 4, "op_b = -1 is neither GPUH_OP_N nor GPUH_OP_T"},
    };
    for (const auto &b : bad_op) {
        gpuh_test_clear_detail();
        TEST_ERR(gpuh_gemm(b.op_a, b.op_b, b.M, b.N, b.K, 1.0f, x.p, b.lda, x.p, b.ldb, 0.0f, x.p, b.ldc),
                 cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), b.detail);
    }
    /* Aᵀ of K = 2 rows with lda = M = 3 is fine where lda = 3 < K would not be with op_a = N... */
    TEST_CUDA(cudaMemset(x.p, 0, 40 * sizeof(float))); /* the inputs it reads */
    TEST_CUDA(gpuh_gemm(GPUH_OP_T, GPUH_OP_N, 3, 4, 5, 1.0f, x.p, 3, x.p, 4, 0.0f, x.p + 40, 4));
    /* ...and the checked overflow is of the stored matrix: Aᵀ's K rows. */
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_gemm(GPUH_OP_T, GPUH_OP_N, 4, 4, SIZE_MAX / 8, 1.0f, x.p, 4, x.p, 4, 0.0f, x.p, 4),
             cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "A of");
    /* M or N = 0: nothing to compute, nothing needed. */
    TEST_CUDA(gpuh_gemm(0, 5, 5, 1.0f, cnull, 5, cnull, 5, 0.0f, (float *)nullptr, 5));
    TEST_CUDA(gpuh_gemm(5, 0, 5, 1.0f, cnull, 5, cnull, 0, 0.0f, (float *)nullptr, 0));
    TEST_CUDA(cudaDeviceSynchronize());
}

/* =========================================================================== */

int main()
{
    GPUH_TEST_REQUIRE_DEVICE();
    gpuh_test_seed();
    quick = gpuh_test_quick();
    TEST_CUDA(gpuh_select_device(0));

    test_matmul<float>();
    test_matmul<double>();
#ifndef GPUH_SIM
    cublasHandle_t handle;
    if (TEST_ASSERT(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate failed")) {
        TEST_ASSERT(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH) == CUBLAS_STATUS_SUCCESS, "no default math");
        test_gemm<float>(handle);
        test_gemm<double>(handle);
        cublasDestroy(handle);
    }
#else
    printf("gemm against cuBLAS: left out (the simulator has no cuBLAS)\n");
#endif
    test_gemm_tall();
    test_gemm_plans();
    test_pack_rows();
    test_gemm_arguments();
    test_gemm_unused_ld<float>();
    test_gemm_unused_ld<double>();
    test_gemm_ops<float>();
    test_gemm_ops<double>();

    TEST_CUDA(cudaDeviceSynchronize());
    TEST_ASSERT(gpuh_print_allocations(NULL) == 0, "allocations left behind (listed above)");
    return gpuh_test_summary("test_gemm");
}
