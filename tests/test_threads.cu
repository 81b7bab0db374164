/* test_threads.cu - gpuh from several host threads at once, as the CUDA
   runtime allows: THREADS host threads each run ROUNDS rounds of
       allocate (device, pinned) -> copy in on their own stream ->
       gpuh_vector_add, gpuh_sum, gpuh_gemm and a kernel of this file
       (GPUH_LAUNCH) -> gpuh_gemm's table of plans, which every thread
       reads and writes, against plans made afresh ->
       time one of them (gpuh_timer) -> fail on purpose (gpuh_vector_add with
       a NULL input, a launch of 2048 threads per block) and check that the
       error and its detail are the thread's own -> copy out -> free,
   with fresh random inputs of a size that differs per thread and round,
   outputs poisoned before each run, every result checked (vector add
   exactly, the sum against a float64 reference within gpuh_sum_depth's
   bound, the product and the kernel exactly), and at the end no gpuh
   allocation live.

   Built twice: for the CPU simulator under ThreadSanitizer (CTest
   tsan.threads: data races in gpuh or the simulator fail it), and for a GPU
   (gpu.threads; exit 77 without one). The checks here are atomic counters,
   not gpuh_test.h's TEST_ASSERT, whose counters belong to one thread.
   GPUH_TEST_QUICK=1 runs fewer rounds. */
#include "gpuh_test.h"
#include "gpuh_kernels.cuh"
/* gpuh_gemm's planner, which this test calls itself: its headers, in either
   mode (with GPUH_KERNELS_LIBRARY they add the planner and compile no kernel:
   gpuh_gemm's instances come from the library, by their extern templates). */
#include "gpuh/gemm_kernels.cuh"
#include "gpuh/gemm_tuning.cuh"
#include "gpuh/gemm_dispatch.cuh"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

enum { THREADS = 4 };

static std::atomic<int> thread_checks(0), thread_failures(0);
static std::mutex print_lock;

/* Counts a check made on any host thread; prints the failure with the thread's number. */
static bool thread_check(bool ok, int who, const char *cond, int line, const std::string &what)
{
    ++thread_checks;
    if (!ok) {
        ++thread_failures;
        std::lock_guard<std::mutex> g(print_lock);
        printf("FAIL %s:%d (host thread %d): %s\n     %s\n", __FILE__, line, who, cond, what.c_str());
        fflush(stdout);
    }
    return ok;
}
#define CHECK_T(cond, what) thread_check((cond) ? true : false, who, #cond, __LINE__, (what))
#define CHECK_CUDA_T(expr)                                                                                   \
    do {                                                                                                     \
        const cudaError_t e_ = (expr);                                                                       \
        CHECK_T(e_ == cudaSuccess, std::string(cudaGetErrorName(e_)) + ": " + gpuh_error_detail());          \
    } while (0)

/* g_y[i] = g_x[i] * k + tag, one element per thread. */
__global__ void scale_tag_kernel(const int *g_x, int *g_y, size_t n, int k, int tag)
{
    const size_t i = gpuh_global_index();
    if (i < n)
        g_y[i] = g_x[i] * k + tag;
}

/* One host thread's work; `who` numbers it, `seed` makes its inputs. */
static void host_thread(int who, unsigned long long seed, int rounds)
{
    cudaStream_t s = NULL;
    CHECK_CUDA_T(gpuh_stream_create(&s, cudaStreamNonBlocking, 0));
    unsigned long long rng = seed * 0x9E3779B97F4A7C15ull + static_cast<unsigned long long>(who) + 1;
    for (int r = 0; r < rounds; ++r) {
        const size_t n = 1000 + static_cast<size_t>(who) * 257 + static_cast<size_t>(r) * 31 +
                         static_cast<size_t>(gpuh_test_next(&rng) % 4099);
        const int tag = 100000 * who + r;
        /* host arrays pinned, so that the copies on the thread's stream are asynchronous */
        float *a = NULL, *b = NULL, *h_c = NULL; /* h_c[n]: the sum */
        int *x = NULL, *y = NULL;
        CHECK_CUDA_T(gpuh_pinned_array(&a, n));
        CHECK_CUDA_T(gpuh_pinned_array(&b, n));
        CHECK_CUDA_T(gpuh_pinned_array(&h_c, n + 1));
        CHECK_CUDA_T(gpuh_pinned_array(&x, n));
        CHECK_CUDA_T(gpuh_pinned_array(&y, n));
        if (a == NULL || b == NULL || h_c == NULL || x == NULL || y == NULL)
            break;
        for (size_t i = 0; i < n; ++i) {
            a[i] = static_cast<float>(gpuh_test_next(&rng) % 20001) / 1000.0f - 10.0f;
            b[i] = static_cast<float>(gpuh_test_next(&rng) % 20001) / 1000.0f - 10.0f;
            x[i] = static_cast<int>(gpuh_test_next(&rng) % 2001) - 1000;
        }
        float *d_a = NULL, *d_b = NULL, *d_c = NULL, *d_sum = NULL;
        int *d_x = NULL, *d_y = NULL;
        void *d_temp = NULL;
        CHECK_CUDA_T(gpuh_device_array(&d_a, n));
        CHECK_CUDA_T(gpuh_device_array(&d_b, n));
        CHECK_CUDA_T(gpuh_device_array(&d_c, n));
        CHECK_CUDA_T(gpuh_device_array(&d_sum, 1));
        CHECK_CUDA_T(gpuh_device_array(&d_x, n));
        CHECK_CUDA_T(gpuh_device_array(&d_y, n));
        CHECK_CUDA_T(gpuh_device_array(reinterpret_cast<double **>(&d_temp), GPUH_REDUCE_TEMP_BYTES / 8));
        if (d_a == NULL || d_b == NULL || d_c == NULL || d_sum == NULL || d_x == NULL || d_y == NULL || d_temp == NULL)
            break;
        CHECK_CUDA_T(gpuh_copy_to_device_async(d_a, a, n, s));
        CHECK_CUDA_T(gpuh_copy_to_device_async(d_b, b, n, s));
        CHECK_CUDA_T(gpuh_copy_to_device_async(d_x, x, n, s));
        CHECK_CUDA_T(cudaMemsetAsync(d_c, 0xFF, n * sizeof(float), s)); /* poison: NaN */
        CHECK_CUDA_T(cudaMemsetAsync(d_y, 0xFF, n * sizeof(int), s));

        gpuh_timer t;
        float ms = -1.0f;
        CHECK_CUDA_T(gpuh_timer_create(&t));
        CHECK_CUDA_T(gpuh_timer_start(&t, s));
        CHECK_CUDA_T(gpuh_vector_add(d_a, d_b, d_c, n, s));
        CHECK_CUDA_T(gpuh_timer_stop(&t));
        CHECK_CUDA_T(gpuh_sum(d_a, n, d_sum, d_temp, s));
        CHECK_CUDA_T(GPUH_LAUNCH(scale_tag_kernel, dim3(static_cast<unsigned>((n + 127) / 128)), 128, 0, s, d_x, d_y, n, 3, tag));
        /* C = A·B of a shape of this thread and round, from small integers
           (every sum exact in float), and the table of plans: its plan
           against a plan made afresh, for shapes the threads share */
        const size_t gm = 1 + gpuh_test_next(&rng) % 40, gn = 1 + gpuh_test_next(&rng) % 40,
                     gk = 1 + gpuh_test_next(&rng) % 40;
        float *ga = NULL, *gb = NULL, *gc = NULL, *d_ga = NULL, *d_gb = NULL, *d_gc = NULL;
        CHECK_CUDA_T(gpuh_pinned_array(&ga, gm * gk));
        CHECK_CUDA_T(gpuh_pinned_array(&gb, gk * gn));
        CHECK_CUDA_T(gpuh_pinned_array(&gc, gm * gn));
        CHECK_CUDA_T(gpuh_device_array(&d_ga, gm * gk));
        CHECK_CUDA_T(gpuh_device_array(&d_gb, gk * gn));
        CHECK_CUDA_T(gpuh_device_array(&d_gc, gm * gn));
        if (ga == NULL || gb == NULL || gc == NULL || d_ga == NULL || d_gb == NULL || d_gc == NULL)
            break;
        for (size_t i = 0; i < gm * gk; ++i)
            ga[i] = static_cast<float>(static_cast<int>(gpuh_test_next(&rng) % 9) - 4);
        for (size_t i = 0; i < gk * gn; ++i)
            gb[i] = static_cast<float>(static_cast<int>(gpuh_test_next(&rng) % 9) - 4);
        CHECK_CUDA_T(gpuh_copy_to_device_async(d_ga, ga, gm * gk, s));
        CHECK_CUDA_T(gpuh_copy_to_device_async(d_gb, gb, gk * gn, s));
        CHECK_CUDA_T(cudaMemsetAsync(d_gc, 0xFF, gm * gn * sizeof(float), s)); /* poison: NaN */
        CHECK_CUDA_T(gpuh_gemm(GPUH_OP_N, GPUH_OP_N, gm, gn, gk, 1.0f, d_ga, gk, d_gb, gn, 0.0f, d_gc, gn, s));
        for (int q = 0; q < 32; ++q) {
            const size_t pm = 1 + gpuh_test_next(&rng) % 3000, pn = 1 + gpuh_test_next(&rng) % 3000,
                         pk = 1 + gpuh_test_next(&rng) % 3000, psms = 1 + gpuh_test_next(&rng) % 3 * 66;
            const gpuh_impl_gemm_plan got = gpuh_impl_gemm_plan_for<gpuh_impl_sgemm_covers, float>(pm, pn, pk, psms);
            const gpuh_impl_gemm_plan want =
                gpuh_impl_gemm_choose<gpuh_impl_sgemm_covers>(pm, pn, pk, sizeof(float), psms);
            CHECK_T(got.cover == want.cover && got.splits == want.splits && got.k_chunk == want.k_chunk &&
                        got.band == want.band && got.dp == want.dp && got.cost == want.cost,
                    "plan of " + std::to_string(pm) + " x " + std::to_string(pn) + " x " + std::to_string(pk) +
                        " on " + std::to_string(psms) + " SMs: the table's differs from a plan made afresh");
        }

        /* Failures on purpose: the error and its detail must be this thread's. */
        const cudaError_t bad = gpuh_vector_add(d_a, static_cast<const float *>(NULL), d_c, n + 1, s);
        const std::string detail = gpuh_error_detail();
        char want[64];
        snprintf(want, sizeof want, "(n %zu)", n + 1);
        CHECK_T(bad == cudaErrorInvalidValue, cudaGetErrorName(bad));
        CHECK_T(detail.find("gpuh_vector_add") != std::string::npos && detail.find(want) != std::string::npos,
                "detail \"" + detail + "\" is not this thread's (wanted gpuh_vector_add and " + want + ")");
        const cudaError_t bad_launch = GPUH_LAUNCH(scale_tag_kernel, 1, 2048, 0, s, d_x, d_y, n, 3, tag);
        CHECK_T(bad_launch != cudaSuccess, "a block of 2048 threads launched");
        CHECK_T(std::string(gpuh_error_detail()).find("scale_tag_kernel") != std::string::npos,
                std::string("launch detail \"") + gpuh_error_detail() + "\" does not name scale_tag_kernel");

        CHECK_CUDA_T(gpuh_copy_to_host_async(h_c, d_c, n, s));
        CHECK_CUDA_T(gpuh_copy_to_host_async(h_c + n, d_sum, 1, s));
        CHECK_CUDA_T(gpuh_copy_to_host_async(y, d_y, n, s));
        CHECK_CUDA_T(gpuh_copy_to_host_async(gc, d_gc, gm * gn, s));
        CHECK_CUDA_T(cudaStreamSynchronize(s));
        size_t wrong_g = 0;
        for (size_t i = 0; i < gm; ++i)
            for (size_t j = 0; j < gn; ++j) {
                float want = 0.0f;
                for (size_t k = 0; k < gk; ++k)
                    want += ga[i * gk + k] * gb[k * gn + j];
                wrong_g += gc[i * gn + j] != want;
            }
        CHECK_T(wrong_g == 0, std::to_string(wrong_g) + " of " + std::to_string(gm * gn) + " products wrong (" +
                                  std::to_string(gm) + " x " + std::to_string(gn) + " x " + std::to_string(gk) + ")");
        CHECK_CUDA_T(gpuh_free(ga));
        CHECK_CUDA_T(gpuh_free(gb));
        CHECK_CUDA_T(gpuh_free(gc));
        CHECK_CUDA_T(gpuh_free(d_ga));
        CHECK_CUDA_T(gpuh_free(d_gb));
        CHECK_CUDA_T(gpuh_free(d_gc));
        CHECK_CUDA_T(gpuh_timer_elapsed_ms(&t, &ms));
        CHECK_T(ms >= 0.0f && ms < 60000.0f, "elapsed " + std::to_string(ms) + " ms");
        CHECK_CUDA_T(gpuh_timer_destroy(&t));

        size_t wrong_c = 0, wrong_y = 0;
        double ref = 0.0, abs_sum = 0.0;
        for (size_t i = 0; i < n; ++i) {
            wrong_c += h_c[i] != a[i] + b[i];
            wrong_y += y[i] != x[i] * 3 + tag;
            ref += a[i];
            abs_sum += fabs(static_cast<double>(a[i]));
        }
        const float sum = h_c[n];
        const double bound = static_cast<double>(gpuh_sum_depth(n, sizeof(float))) * ldexp(1.0, -24) * abs_sum;
        CHECK_T(wrong_c == 0, std::to_string(wrong_c) + " of " + std::to_string(n) + " sums wrong");
        CHECK_T(wrong_y == 0, std::to_string(wrong_y) + " of " + std::to_string(n) + " kernel outputs wrong");
        CHECK_T(fabs(sum - ref) <= bound, "gpuh_sum " + std::to_string(sum) + ", float64 " + std::to_string(ref) +
                                               ", bound " + std::to_string(bound));
        CHECK_CUDA_T(gpuh_free(d_a));
        CHECK_CUDA_T(gpuh_free(d_b));
        CHECK_CUDA_T(gpuh_free(d_c));
        CHECK_CUDA_T(gpuh_free(d_sum));
        CHECK_CUDA_T(gpuh_free(d_x));
        CHECK_CUDA_T(gpuh_free(d_y));
        CHECK_CUDA_T(gpuh_free(d_temp));
        CHECK_CUDA_T(gpuh_free(a));
        CHECK_CUDA_T(gpuh_free(b));
        CHECK_CUDA_T(gpuh_free(h_c));
        CHECK_CUDA_T(gpuh_free(x));
        CHECK_CUDA_T(gpuh_free(y));
    }
    CHECK_CUDA_T(gpuh_stream_destroy(&s));
    /* cudaGetLastError is per host thread: the failures above were read by
       gpuh; what is left is this thread's own, and none. */
    CHECK_CUDA_T(cudaGetLastError());
}

int main(void)
{
    GPUH_TEST_REQUIRE_DEVICE();
    const unsigned long long seed = gpuh_test_seed();
    const int rounds = gpuh_test_quick() ? 12 : 60;
    std::vector<std::thread> t;
    for (int k = 0; k < THREADS; ++k)
        t.push_back(std::thread(host_thread, k, seed, rounds));
    for (size_t k = 0; k < t.size(); ++k)
        t[k].join();
    TEST_ASSERT(thread_failures.load() == 0, "%d of %d checks on the host threads failed", thread_failures.load(),
                thread_checks.load());
    TEST_ASSERT(thread_checks.load() > THREADS * rounds * 30, "only %d checks ran", thread_checks.load());
    TEST_ASSERT(gpuh_print_allocations(stdout) == 0, "gpuh allocations left live (listed above)");
    printf("%d host threads x %d rounds: %d checks\n", THREADS, rounds, thread_checks.load());
    return gpuh_test_summary("test_threads");
}
