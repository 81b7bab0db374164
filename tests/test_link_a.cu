/* test_link_a.cu - both headers included in two .cu files linked into one
   program (this file and test_link_b.cu).

   What could go wrong, and how it would show:
   - a function or kernel defined non-inline in a header: a duplicate symbol
     at link time (both files instantiate gpuh_vector_add<float>, gpuh_sum<float>,
     gpuh_max<int> and gpuh_matmul<double>);
   - gpuh's process-wide state (ledger, counters, detail, last launch) copied
     per file, since every function is static inline: checked below by
     address, which is what the weak definition in gpuh.h is for.
   Runs without a GPU (exit 0); with one it also checks that an allocation and
   a launch made in test_link_b.cu show in this file's counters and records.

   nvcc -arch=sm_90 -I. tests/test_link_a.cu tests/test_link_b.cu
*/
#include "gpuh_test.h"
#include "gpuh_kernels.cuh"

#include <vector>

/* Defined in test_link_b.cu. */
gpuh_impl_state *link_b_state(void);
cudaError_t link_b_alloc(float **d, size_t n);
cudaError_t link_b_fail(void);
const char *link_b_detail(void);
cudaError_t link_b_launch(int *d_x);
cudaError_t link_b_add(const float *d_a, const float *d_b, float *d_c, size_t n);
cudaError_t link_b_sum(const float *d_in, size_t n, float *d_out, void *d_temp);
cudaError_t link_b_max(const int *d_in, size_t n, int *d_out, void *d_temp);
cudaError_t link_b_matmul(const double *d_A, const double *d_B, double *d_C, size_t M, size_t N, size_t K);

__global__ void link_a_kernel(int *g_x)
{
    if (g_x != NULL && threadIdx.x == 0)
        *g_x = 5;
}

static void host_checks(int have_device)
{
    /* One state for the whole process. */
    TEST_ASSERT(link_b_state() == &gpuh_impl_state_v,
                "two copies of gpuh's process-wide state: %p in test_link_a.cu, %p in test_link_b.cu",
                (void *)&gpuh_impl_state_v, (void *)link_b_state());

    /* A detail written by a gpuh call in b is the one a reads. */
    gpuh_test_clear_detail();
    TEST_ERR(link_b_fail(), cudaErrorInvalidConfiguration);
    TEST_CONTAINS(gpuh_error_detail(), "(0, 1, 1)");
    TEST_ASSERT(gpuh_error_detail() == link_b_detail(), "the detail lives at %p here and %p in b",
                (const void *)gpuh_error_detail(), (const void *)link_b_detail());

    /* A launch through GPUH_LAUNCH in b is the last launch seen here. The
       record is written before the launch, so this holds without a device
       too (the launch itself then fails). */
    cudaError_t err = link_b_launch(NULL);
    TEST_ASSERT(err == cudaSuccess || !have_device, "link_b_launch: %s", cudaGetErrorName(err));
    gpuh_launch_record r = gpuh_last_launch();
    TEST_ASSERT(r.kernel != NULL && strcmp(r.kernel, "link_b_kernel") == 0 && r.file != NULL &&
                    strstr(r.file, "test_link_b.cu") != NULL,
                "last launch seen here: %s at %s:%d, expected link_b_kernel in test_link_b.cu",
                r.kernel ? r.kernel : "(none)", r.file ? r.file : "", r.line);
    cudaGetLastError();

    /* The shared templates, from both files. */
    TEST_ERR(gpuh_sum<float>(NULL, 0, NULL, NULL), cudaErrorInvalidValue);
    TEST_ERR(link_b_sum(NULL, 0, NULL, NULL), cudaErrorInvalidValue);
    TEST_ERR(gpuh_vector_add<float>(NULL, NULL, NULL, 1), cudaErrorInvalidValue);
    TEST_ERR(link_b_add(NULL, NULL, NULL, 1), cudaErrorInvalidValue);
}

static void device_checks(void)
{
    const size_t n = 100003; /* > GPUH_REDUCE_SINGLE_BLOCK_MAX: two-pass reductions */
    unsigned long long rng = gpuh_test_seed();
    gpuh_memory_stats s0, s1, s2;
    std::vector<float> h_x(n), h_y(n), h_c(n);
    std::vector<int> h_i(n);
    float *d_x = NULL, *d_y = NULL, *d_c = NULL, *d_sums = NULL;
    int *d_i = NULL, *d_max = NULL;
    unsigned char *d_temp = NULL;
    FILE *f = tmpfile();
    char text[8192];

    TEST_CUDA(gpuh_select_device(0));
    TEST_CUDA(gpuh_memory_info(&s0));

    /* Allocated in b, seen in a's counters and ledger. */
    if (!TEST_CUDA(link_b_alloc(&d_x, n)))
        return;
    TEST_CUDA(gpuh_memory_info(&s1));
    TEST_ASSERT(s1.allocated_bytes == s0.allocated_bytes + n * sizeof(float), "allocated %zu, expected %zu",
                s1.allocated_bytes, s0.allocated_bytes + n * sizeof(float));
    TEST_ASSERT(s1.live_allocations == s0.live_allocations + 1, "live %zu, expected %zu", s1.live_allocations,
                s0.live_allocations + 1);
    TEST_ASSERT(f != NULL, "tmpfile() failed");
    gpuh_print_allocations(f);
    gpuh_test_read_back(f, text, sizeof text);
    TEST_CONTAINS(text, "test_link_b.cu:");

    /* Random inputs in [-1, 1) and random ints, from the printed seed. */
    for (size_t i = 0; i < n; ++i) {
        h_x[i] = (float)(2.0 * gpuh_test_uniform(&rng) - 1.0);
        h_y[i] = (float)(2.0 * gpuh_test_uniform(&rng) - 1.0);
        h_i[i] = (int)(unsigned)gpuh_test_next(&rng);
    }
    TEST_CUDA(gpuh_copy_to_device(d_x, h_x.data(), n));
    TEST_CUDA(gpuh_to_device(&d_y, h_y.data(), n));
    TEST_CUDA(gpuh_to_device(&d_i, h_i.data(), n));
    TEST_CUDA(gpuh_device_array(&d_c, n));
    TEST_CUDA(gpuh_device_array(&d_sums, 2));
    TEST_CUDA(gpuh_device_array(&d_max, 2));
    TEST_CUDA(gpuh_device_array(&d_temp, GPUH_REDUCE_TEMP_BYTES));
    if (!d_y || !d_i || !d_c || !d_sums || !d_max || !d_temp)
        goto done;

    /* The same sum two ways: a's template and b's.
       One kernel, a fixed order: the results must agree bit for bit. */
    TEST_CUDA(cudaMemset(d_sums, 0xFF, 2 * sizeof(float)));
    TEST_CUDA(gpuh_sum<float>(d_x, n, d_sums + 0, d_temp));
    TEST_CUDA(link_b_sum(d_x, n, d_sums + 1, d_temp));
    {
        float sums[2];
        double ref = 0, abs_sum = 0;
        TEST_CUDA(gpuh_copy_to_host(sums, d_sums, 2));
        for (size_t i = 0; i < n; ++i) {
            ref += h_x[i];
            abs_sum += fabs((double)h_x[i]);
        }
        TEST_ASSERT(memcmp(&sums[0], &sums[1], sizeof(float)) == 0, "sums differ: %.9g (a), %.9g (b)", sums[0],
                    sums[1]);
        /* The bound documented at gpuh_sum, (16·⌈n / 2^22⌉ + 21)·2^-24·Σ|x|, plus
           the plain double reference's own n·2^-53·Σ|x|. */
        double bound = (16.0 * (double)gpuh_ceil_div(n, (size_t)1 << 22) + 21.0) * (1.0 / 16777216.0) * abs_sum +
                       (double)n * (1.0 / 9007199254740992.0) * abs_sum;
        TEST_ASSERT(fabs((double)sums[0] - ref) <= bound, "sum %.9g, reference %.17g, error %.3g > bound %.3g",
                    sums[0], ref, fabs((double)sums[0] - ref), bound);
    }

    /* Vector add from a and from b: exactly the host's float sums. */
    TEST_CUDA(cudaMemset(d_c, 0xFF, n * sizeof(float)));
    TEST_CUDA(link_b_add(d_x, d_y, d_c, n));
    TEST_CUDA(gpuh_copy_to_host(h_c.data(), d_c, n));
    {
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i)
            bad += h_c[i] != h_x[i] + h_y[i];
        TEST_ASSERT(bad == 0, "%zu of %zu sums wrong after b's gpuh_vector_add", bad, n);
        TEST_CUDA(cudaMemset(d_c, 0xFF, n * sizeof(float)));
        TEST_CUDA(gpuh_vector_add<float>(d_x, d_y, d_c, n));
        TEST_CUDA(gpuh_copy_to_host(h_c.data(), d_c, n));
        bad = 0;
        for (size_t i = 0; i < n; ++i)
            bad += h_c[i] != h_x[i] + h_y[i];
        TEST_ASSERT(bad == 0, "%zu of %zu sums wrong after a's gpuh_vector_add", bad, n);
    }

    /* Launches from both files, one after the other, into the same flag. */
    TEST_CUDA(cudaMemset(d_max, 0, sizeof(int)));
    TEST_CUDA(GPUH_LAUNCH(link_a_kernel, 1, 32, 0, 0, d_max));
    TEST_CONTAINS(gpuh_last_launch().file, "test_link_a.cu");
    TEST_CUDA(link_b_launch(d_max));
    TEST_CONTAINS(gpuh_last_launch().file, "test_link_b.cu");
    {
        int flag = 0;
        TEST_CUDA(cudaDeviceSynchronize());
        TEST_CUDA(gpuh_copy_to_host(&flag, d_max, 1));
        TEST_ASSERT(flag == 7, "flag %d after a's and b's kernels, expected 7 (b's, launched last)", flag);
    }

    /* Max of ints from both files. */
    TEST_CUDA(cudaMemset(d_max, 0xFF, 2 * sizeof(int)));
    TEST_CUDA(gpuh_max<int>(d_i, n, d_max, d_temp));
    TEST_CUDA(link_b_max(d_i, n, d_max + 1, d_temp));
    {
        int got[2], want = h_i[0];
        for (size_t i = 1; i < n; ++i)
            want = h_i[i] > want ? h_i[i] : want;
        TEST_CUDA(gpuh_copy_to_host(got, d_max, 2));
        TEST_ASSERT(got[0] == want && got[1] == want, "max %d (a), %d (b), expected %d", got[0], got[1], want);
    }

    /* A small double matmul from both files, against a double reference. */
    {
        const size_t M = 3, N = 5, K = 7;
        double hA[M * K], hB[K * N], hC[2][M * N], ref[M * N];
        double *dA = NULL, *dB = NULL, *dC = NULL;
        for (size_t i = 0; i < M * K; ++i)
            hA[i] = 2.0 * gpuh_test_uniform(&rng) - 1.0;
        for (size_t i = 0; i < K * N; ++i)
            hB[i] = 2.0 * gpuh_test_uniform(&rng) - 1.0;
        for (size_t i = 0; i < M; ++i)
            for (size_t j = 0; j < N; ++j) {
                double s = 0;
                for (size_t k = 0; k < K; ++k)
                    s += hA[i * K + k] * hB[k * N + j];
                ref[i * N + j] = s;
            }
        TEST_CUDA(gpuh_to_device(&dA, hA, M * K));
        TEST_CUDA(gpuh_to_device(&dB, hB, K * N));
        TEST_CUDA(gpuh_device_array(&dC, M * N));
        TEST_CUDA(cudaMemset(dC, 0xFF, M * N * sizeof(double)));
        TEST_CUDA(gpuh_matmul<double>(dA, dB, dC, M, N, K));
        TEST_CUDA(gpuh_copy_to_host(hC[0], dC, M * N));
        TEST_CUDA(cudaMemset(dC, 0xFF, M * N * sizeof(double)));
        TEST_CUDA(link_b_matmul(dA, dB, dC, M, N, K));
        TEST_CUDA(gpuh_copy_to_host(hC[1], dC, M * N));
        double e0 = gpuh_test_rel_err_f64(hC[0], ref, M * N), e1 = gpuh_test_rel_err_f64(hC[1], ref, M * N);
        /* K = 7 terms of magnitude < 1: a few units of 2^-53 each; 1e-13 leaves room for cancellation. */
        TEST_ASSERT(e0 <= 1e-13 && e1 <= 1e-13, "matmul relative error %.3g (a), %.3g (b)", e0, e1);
        TEST_ASSERT(memcmp(hC[0], hC[1], sizeof hC[0]) == 0, "a's and b's matmul differ");
        TEST_CUDA(gpuh_free(dA));
        TEST_CUDA(gpuh_free(dB));
        TEST_CUDA(gpuh_free(dC));
    }

done:
    /* Freed here, allocated there (d_x): the counters come back. */
    TEST_CUDA(gpuh_free(d_x));
    TEST_CUDA(gpuh_free(d_y));
    TEST_CUDA(gpuh_free(d_i));
    TEST_CUDA(gpuh_free(d_c));
    TEST_CUDA(gpuh_free(d_sums));
    TEST_CUDA(gpuh_free(d_max));
    TEST_CUDA(gpuh_free(d_temp));
    TEST_CUDA(gpuh_memory_info(&s2));
    TEST_ASSERT(s2.allocated_bytes == s0.allocated_bytes && s2.live_allocations == s0.live_allocations,
                "after freeing: allocated %zu (expected %zu), live %zu (expected %zu)", s2.allocated_bytes,
                s0.allocated_bytes, s2.live_allocations, s0.live_allocations);
    if (f)
        fclose(f);
}

int main(void)
{
    const char *why = "";
    int count = gpuh_device_count(&why);
    host_checks(count > 0);
    if (count > 0)
        device_checks();
    else
        printf("no CUDA device (%s): link and host checks only\n", why);
    return gpuh_test_summary("test_link");
}
