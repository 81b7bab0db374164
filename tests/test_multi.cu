/* test_multi.cu - tests of gpuh's several-device helpers: the device set,
   sharded arrays, the kernels on shards and the collectives.

   Runs on every visible device (1 is enough: each check is meaningful with
   one device, and covers more with several); on the CPU simulator with
   GPUH_SIM_DEVICES=<n> devices. Built with GPUH_USE_NCCL it checks the
   collectives against float64 host references; built without, it checks
   that every collective says NCCL is missing. Without a device: exit 77.
   Inputs come from the printed seed (rerun with GPUH_SEED=<seed>); outputs
   are poisoned before each run.

   nvcc -std=c++17 -arch=sm_90 -I. -DGPUH_USE_NCCL tests/test_multi.cu -lnccl
*/
#include "gpuh_test.h"
#include "gpuh_kernels.cuh"

#include <thread>
#include <vector>

static unsigned long long rng;
static gpuh_devices set;

static float rand_f32(void) { return (float)(gpuh_test_uniform(&rng) * 2.0 - 1.0); }
static double rand_f64(void) { return gpuh_test_uniform(&rng) * 2.0 - 1.0; }
static int rand_i32(void) { return (int)(gpuh_test_next(&rng) % 2001) - 1000; }
template <typename T> static T rand_val(void);
template <> float rand_val<float>(void) { return rand_f32(); }
template <> double rand_val<double>(void) { return rand_f64(); }
template <> int rand_val<int>(void) { return rand_i32(); }
template <typename T> static const char *tname(void);
template <> const char *tname<float>(void) { return "float"; }
template <> const char *tname<double>(void) { return "double"; }
template <> const char *tname<int>(void) { return "int"; }

static std::vector<size_t> sizes(void)
{
    std::vector<size_t> n = {0, 1, 3, 31, 32, 33, 1023, 1025, 65537};
    if (!gpuh_test_quick())
        n.push_back((1u << 20) + 3);
    return n;
}

/* Poisons a whole sharded array with 0xff bytes (NaN for floats, -1 for ints). */
static void poison(gpuh_shards *sh)
{
    std::vector<unsigned char> p(sh->rows * sh->row_elems * sh->elem_size, 0xff);
    int i;
    if (sh->replicated) {
        for (i = 0; i < sh->count; ++i)
            if (sh->ptr[i] != NULL)
                TEST_CUDA(cudaMemcpy(sh->ptr[i], p.data(), p.size(), cudaMemcpyHostToDevice));
        return;
    }
    TEST_CUDA(gpuh_impl_shards_copy_from("poison", sh, &set, p.data(), sh->elem_size));
}

/* ===========================================================================
   The set: open, errors, run, sync. */
struct step_log {
    int calls, index[GPUH_MAX_DEVICES], device[GPUH_MAX_DEVICES], current[GPUH_MAX_DEVICES], fail_at;
};
static cudaError_t record_step(void *ctx, int index, int device, cudaStream_t stream)
{
    step_log *log = static_cast<step_log *>(ctx);
    int cur = -1;
    (void)stream;
    cudaGetDevice(&cur);
    log->index[log->calls] = index;
    log->device[log->calls] = device;
    log->current[log->calls] = cur;
    ++log->calls;
    if (index == log->fail_at)
        return gpuh_fail(cudaErrorInvalidValue, "record_step: told to fail at %d", index);
    return cudaSuccess;
}

static void test_set(int visible)
{
    gpuh_devices bad;
    int ids[GPUH_MAX_DEVICES + 1], i, cur = -1;
    char want[128];
    TEST_ASSERT(set.count == visible, "the set has %d devices, %d visible", set.count, visible);
    for (i = 0; i < set.count; ++i)
        TEST_ASSERT(set.id[i] == i && set.stream[i] != NULL && set.scratch[i] != NULL, "device %d of the set", i);
    TEST_ASSERT(gpuh_devices_report_peers(&set, stdout) >= 0, "report_peers");

    ids[0] = visible;
    TEST_ERR(gpuh_devices_open(&bad, ids, 1), cudaErrorInvalidDevice);
    snprintf(want, sizeof want, "ids[0] = %d is out of range (%d visible)", visible, visible);
    TEST_CONTAINS(gpuh_error_detail(), want);
    TEST_ASSERT(bad.count == 0, "a failed open leaves an empty set");
    ids[0] = ids[1] = 0;
    TEST_ERR(gpuh_devices_open(&bad, ids, 2), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "device 0 is listed twice (ids[0] and ids[1])");
    TEST_ERR(gpuh_devices_open(&bad, ids, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_devices_open(&bad, NULL, visible + 1), cudaErrorInvalidDevice);
    TEST_CONTAINS(gpuh_error_detail(), "devices asked for");
    TEST_ERR(gpuh_devices_open(&bad, NULL, GPUH_MAX_DEVICES + 1), cudaErrorInvalidValue);
    TEST_ERR(gpuh_devices_open(NULL, NULL, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_devices_sync(&bad), cudaErrorInvalidValue);
    TEST_CUDA(gpuh_devices_close(&bad));

    /* The last device of a reversed list first: ids and order are the caller's. */
    for (i = 0; i < visible; ++i)
        ids[i] = visible - 1 - i;
    TEST_CUDA(cudaSetDevice(0));
    if (TEST_CUDA(gpuh_devices_open(&bad, ids, visible))) {
        step_log log;
        memset(&log, 0, sizeof log);
        log.fail_at = -1;
        TEST_CUDA(gpuh_devices_run(&bad, record_step, &log));
        TEST_ASSERT(log.calls == visible, "%d steps for %d devices", log.calls, visible);
        for (i = 0; i < log.calls; ++i)
            TEST_ASSERT(log.index[i] == i && log.device[i] == ids[i] && log.current[i] == ids[i],
                        "step %d: index %d, device %d, current %d (want %d)", i, log.index[i], log.device[i],
                        log.current[i], ids[i]);
        memset(&log, 0, sizeof log);
        log.fail_at = visible - 1;
        TEST_ERR(gpuh_devices_run(&bad, record_step, &log), cudaErrorInvalidValue);
        snprintf(want, sizeof want, "gpuh_devices_run: device %d (set index %d): record_step: told to fail at %d",
                 ids[visible - 1], visible - 1, visible - 1);
        TEST_CONTAINS(gpuh_error_detail(), want);
        TEST_ERR(gpuh_devices_run(&bad, NULL, NULL), cudaErrorInvalidValue);
        TEST_CUDA(gpuh_devices_sync(&bad));
        TEST_CUDA(gpuh_devices_close(&bad));
        TEST_ASSERT(bad.count == 0, "closed");
    }
    TEST_CUDA(cudaGetDevice(&cur));
    TEST_ASSERT(cur == 0, "the helpers leave the current device as they found it (%d)", cur);

    /* The current device belongs to the host thread that set it. */
    int in_thread = -1;
    std::thread t([&] {
        cudaSetDevice(visible - 1);
        cudaGetDevice(&in_thread);
    });
    t.join();
    TEST_CUDA(cudaGetDevice(&cur));
    TEST_ASSERT(in_thread == visible - 1 && cur == 0, "current device: %d in the thread, %d here", in_thread, cur);
    /* Peer access enabled by gpuh_devices_open: enabling it again says so. */
    if (visible >= 2 && set.peer[0][1]) {
        TEST_ERR(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
        cudaGetLastError();
    }
}

/* ===========================================================================
   Sharded arrays: split, copies both ways, gather, peer copies. */
static void test_shards(void)
{
    for (size_t n : sizes()) {
        std::vector<float> h(n), back(n, -7.0f);
        gpuh_shards sh;
        size_t total = 0, lo = n, hi = 0;
        int i;
        for (float &v : h)
            v = rand_f32();
        if (!TEST_CUDA(gpuh_shards_to_device(&sh, &set, h.data(), n, 1)))
            continue;
        for (i = 0; i < sh.count; ++i) {
            const size_t k = gpuh_shards_elems(&sh, i);
            total += k;
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
            TEST_ASSERT(sh.first_row[i] + k == sh.first_row[i + 1] && (k == 0) == (sh.ptr[i] == NULL),
                        "n = %zu: shard %d starts at %zu with %zu elements", n, i, sh.first_row[i], k);
        }
        TEST_ASSERT(total == n && hi - lo <= 1, "n = %zu: shards hold %zu in all, %zu to %zu each", n, total, lo, hi);
        TEST_CUDA(gpuh_shards_copy_to_host(back.data(), &sh, &set));
        TEST_ASSERT(n == 0 || memcmp(back.data(), h.data(), n * sizeof(float)) == 0, "n = %zu: round trip", n);

        /* gather onto each device, by peer copies */
        for (i = 0; i < set.count && n > 0; ++i) {
            float *d_all = NULL;
            std::vector<float> g(n, -7.0f);
            TEST_CUDA(cudaSetDevice(set.id[i]));
            TEST_CUDA(gpuh_device_array(&d_all, n));
            TEST_CUDA(cudaMemset(d_all, 0xff, n * sizeof(float)));
            TEST_CUDA(cudaDeviceSynchronize()); /* the set's streams do not wait for the legacy stream */
            TEST_CUDA(gpuh_shards_gather(&sh, &set, i, d_all));
            TEST_CUDA(gpuh_copy_to_host(g.data(), d_all, n));
            TEST_ASSERT(memcmp(g.data(), h.data(), n * sizeof(float)) == 0, "n = %zu: gather onto index %d", n, i);
            /* gpuh_copy_peer: the last shard straight from its device */
            const int last = set.count - 1;
            const size_t k = gpuh_shards_elems(&sh, last);
            if (k > 0) {
                const float *src = static_cast<const float *>(sh.ptr[last]);
                TEST_CUDA(cudaMemset(d_all, 0xff, n * sizeof(float)));
                TEST_CUDA(cudaDeviceSynchronize());
                TEST_CUDA(gpuh_copy_peer(d_all, src, k, set.stream[i]));
                TEST_CUDA(cudaStreamSynchronize(set.stream[i]));
                TEST_CUDA(gpuh_copy_to_host(g.data(), d_all, k));
                TEST_ASSERT(memcmp(g.data(), h.data() + sh.first_row[last], k * sizeof(float)) == 0,
                            "n = %zu: peer copy of shard %d onto index %d", n, last, i);
            }
            gpuh_free(d_all);
        }
        TEST_CUDA(cudaSetDevice(0));
        TEST_CUDA(gpuh_shards_free(&sh));
        TEST_ASSERT(sh.count == 0 && sh.ptr[0] == NULL, "freed shards are empty");
    }
    /* rows stay whole: 7 rows of 5 */
    {
        std::vector<double> h(35), back(35, -1.0);
        gpuh_shards sh;
        for (double &v : h)
            v = rand_f64();
        if (TEST_CUDA(gpuh_shards_to_device(&sh, &set, h.data(), 7, 5))) {
            for (int i = 0; i < sh.count; ++i)
                TEST_ASSERT(gpuh_shards_elems(&sh, i) == gpuh_shards_rows(&sh, i) * 5, "whole rows");
            TEST_CUDA(gpuh_shards_copy_to_host(back.data(), &sh, &set));
            TEST_ASSERT(back == h, "rows round trip");
            float wrong[35];
            TEST_ERR(gpuh_shards_copy_to_host(wrong, &sh, &set), cudaErrorInvalidValue);
            TEST_CONTAINS(gpuh_error_detail(), "host elements are 4 bytes but shard elements are 8");
            TEST_CUDA(gpuh_shards_free(&sh));
        }
        TEST_ERR(gpuh_shards_to_device(&sh, &set, h.data(), SIZE_MAX / 2, 3), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "overflow size_t");
        TEST_ERR(gpuh_shards_to_device(&sh, &set, static_cast<double *>(NULL), 4, 1), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "the host array is NULL");
        /* replicated: every device holds it all */
        if (TEST_CUDA(gpuh_replicate_to_device(&sh, &set, h.data(), 35))) {
            for (int i = 0; i < sh.count; ++i) {
                std::vector<double> one(35, 0.0);
                TEST_CUDA(cudaMemcpy(one.data(), sh.ptr[i], 35 * sizeof(double), cudaMemcpyDeviceToHost));
                TEST_ASSERT(one == h, "replica on index %d", i);
            }
            TEST_CUDA(gpuh_shards_free(&sh));
        }
    }
}

/* ===========================================================================
   The kernels on shards. */
template <typename T> static void test_vector_add(void)
{
    for (size_t n : sizes()) {
        std::vector<T> a(n), b(n), c(n);
        gpuh_shards da, db, dc;
        for (size_t i = 0; i < n; ++i) {
            a[i] = rand_val<T>();
            b[i] = rand_val<T>();
        }
        if (!TEST_CUDA(gpuh_shards_to_device(&da, &set, a.data(), n, 1)))
            continue;
        TEST_CUDA(gpuh_shards_to_device(&db, &set, b.data(), n, 1));
        TEST_CUDA(gpuh_shards_device_array(&dc, &set, n, 1, sizeof(T)));
        poison(&dc);
        TEST_CUDA(gpuh_sharded_vector_add<T>(&set, &da, &db, &dc));
        TEST_CUDA(gpuh_devices_sync(&set));
        TEST_CUDA(gpuh_shards_copy_to_host(c.data(), &dc, &set));
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i) /* one rounding of the same operation: equal bits */
            bad += !(c[i] == T(a[i] + b[i]));
        TEST_ASSERT(bad == 0, "sharded_vector_add<%s> n = %zu: %zu wrong", tname<T>(), n, bad);
        if (n > 2) { /* a split of another size is refused */
            gpuh_shards odd;
            TEST_CUDA(gpuh_shards_device_array(&odd, &set, n - 1, 1, sizeof(T)));
            TEST_ERR(gpuh_sharded_vector_add<T>(&set, &da, &odd, &dc), cudaErrorInvalidValue);
            TEST_CONTAINS(gpuh_error_detail(), "gpuh_sharded_vector_add: b has");
            gpuh_shards_free(&odd);
        }
        gpuh_shards_free(&da);
        gpuh_shards_free(&db);
        gpuh_shards_free(&dc);
    }
}

/* |got - ref| within the summation bound of the largest shard plus the
   combine (Higham's recursive-summation bound, as gpuh_sum_depth). */
template <typename T> static void test_reductions(void)
{
    const double u = sizeof(T) == 4 ? 5.96e-8 : 1.12e-16;
    for (size_t n : sizes()) {
        std::vector<T> x(n), y(n);
        /* long double: a double reference summed in order would be less accurate than gpuh's tree */
        long double sum_l = 0, dot_l = 0, sq_l = 0;
        double abs_sum = 0, abs_dot = 0, lo = 0, hi = 0;
        gpuh_shards dx, dy;
        for (size_t i = 0; i < n; ++i) {
            x[i] = rand_val<T>();
            y[i] = rand_val<T>();
            sum_l += (long double)x[i];
            abs_sum += fabs((double)x[i]);
            dot_l += (long double)x[i] * (long double)y[i];
            abs_dot += fabs((double)x[i] * (double)y[i]);
            sq_l += (long double)x[i] * (long double)x[i];
            lo = i == 0 || (double)x[i] < lo ? (double)x[i] : lo;
            hi = i == 0 || (double)x[i] > hi ? (double)x[i] : hi;
        }
        const double sum = (double)sum_l, dot = (double)dot_l, sq = (double)sq_l;
        if (!TEST_CUDA(gpuh_shards_to_device(&dx, &set, x.data(), n, 1)))
            continue;
        TEST_CUDA(gpuh_shards_to_device(&dy, &set, y.data(), n, 1));
        size_t biggest = 0;
        for (int i = 0; i < set.count; ++i)
            biggest = gpuh_shards_elems(&dx, i) > biggest ? gpuh_shards_elems(&dx, i) : biggest;
        const double depth = (double)gpuh_sum_depth(biggest, 16) + set.count + 2;
        T got = T(-12345), again = T(-54321);
        if (TEST_CUDA(gpuh_sharded_sum<T>(&set, &dx, &got)))
            TEST_ASSERT(fabs((double)got - sum) <= depth * u * abs_sum + 1e-300, "sharded_sum<%s> n = %zu: %.17g, "
                        "reference %.17g", tname<T>(), n, (double)got, sum);
        TEST_CUDA(gpuh_sharded_sum<T>(&set, &dx, &again));
        TEST_ASSERT(memcmp(&got, &again, sizeof got) == 0, "sharded_sum<%s> n = %zu: two runs differ", tname<T>(), n);
        got = T(-12345);
        if (TEST_CUDA(gpuh_sharded_dot<T>(&set, &dx, &dy, &got)))
            TEST_ASSERT(fabs((double)got - dot) <= (depth + 1) * u * abs_dot + 1e-300,
                        "sharded_dot<%s> n = %zu: %.17g, reference %.17g", tname<T>(), n, (double)got, dot);
        got = T(-12345);
        if (TEST_CUDA(gpuh_sharded_norm2<T>(&set, &dx, &got)))
            TEST_ASSERT(fabs((double)got - sqrt(sq)) <= (depth + 2) * u * sqrt(sq) + 1e-300,
                        "sharded_norm2<%s> n = %zu: %.17g, reference %.17g", tname<T>(), n, (double)got, sqrt(sq));
        if (n > 0) {
            got = T(-12345);
            TEST_CUDA(gpuh_sharded_min<T>(&set, &dx, &got));
            TEST_ASSERT((double)got == lo, "sharded_min<%s> n = %zu: %.17g, reference %.17g", tname<T>(), n,
                        (double)got, lo);
            TEST_CUDA(gpuh_sharded_max<T>(&set, &dx, &got));
            TEST_ASSERT((double)got == hi, "sharded_max<%s> n = %zu: %.17g, reference %.17g", tname<T>(), n,
                        (double)got, hi);
        } else {
            TEST_ERR(gpuh_sharded_min<T>(&set, &dx, &got), cudaErrorInvalidValue);
            TEST_CONTAINS(gpuh_error_detail(), "n = 0 has no min");
        }
        gpuh_shards_free(&dx);
        gpuh_shards_free(&dy);
    }
}

static void test_reductions_i32(void)
{
    for (size_t n : sizes()) {
        std::vector<int> x(n);
        long long sum = 0;
        gpuh_shards dx;
        for (int &v : x) {
            v = rand_i32();
            sum += v;
        }
        if (!TEST_CUDA(gpuh_shards_to_device(&dx, &set, x.data(), n, 1)))
            continue;
        int got = -12345;
        TEST_CUDA(gpuh_sharded_sum<int>(&set, &dx, &got));
        TEST_ASSERT(got == (int)sum, "sharded_sum<int> n = %zu: %d, reference %lld", n, got, sum);
        gpuh_shards_free(&dx);
    }
}

template <typename T> static void test_gemm(void)
{
    const size_t dims[] = {1, 3, 17, 100, 257};
    const double u = sizeof(T) == 4 ? 5.96e-8 : 1.12e-16;
    for (size_t M : dims)
        for (size_t N : dims)
            for (size_t K : dims) {
                if ((M * N * K > 100 * 100 * 100 && gpuh_test_quick()) || (M != N && N != K && M != K && M > 3))
                    continue;
                std::vector<T> A(M * K), B(K * N), C(M * N), C0(M * N), out(M * N);
                std::vector<double> ref(M * N);
                gpuh_shards dA, dB, dC;
                const T alpha = T(1.5), beta = (M + N + K) % 2 ? T(0) : T(-0.5);
                for (T &v : A)
                    v = rand_val<T>();
                for (T &v : B)
                    v = rand_val<T>();
                for (T &v : C0)
                    v = rand_val<T>();
                double abs_max = 0;
                for (size_t i = 0; i < M; ++i)
                    for (size_t j = 0; j < N; ++j) {
                        double s = 0, a = 0;
                        for (size_t k = 0; k < K; ++k) {
                            s += (double)A[i * K + k] * (double)B[k * N + j];
                            a += fabs((double)A[i * K + k] * (double)B[k * N + j]);
                        }
                        ref[i * N + j] = (double)alpha * s + (double)beta * (double)C0[i * N + j];
                        abs_max = a > abs_max ? a : abs_max;
                    }
                if (!TEST_CUDA(gpuh_shards_to_device(&dA, &set, A.data(), M, K)))
                    continue;
                TEST_CUDA(gpuh_replicate_to_device(&dB, &set, B.data(), K * N));
                if (beta == T(0)) { /* NaN in C must not leak when beta is 0 */
                    TEST_CUDA(gpuh_shards_device_array(&dC, &set, M, N, sizeof(T)));
                    poison(&dC);
                } else {
                    TEST_CUDA(gpuh_shards_to_device(&dC, &set, C0.data(), M, N));
                }
                TEST_CUDA(gpuh_sharded_gemm<T>(&set, M, N, K, alpha, &dA, &dB, beta, &dC));
                TEST_CUDA(gpuh_devices_sync(&set));
                TEST_CUDA(gpuh_shards_copy_to_host(out.data(), &dC, &set));
                double worst = 0;
                for (size_t i = 0; i < M * N; ++i) {
                    const double d = fabs((double)out[i] - ref[i]);
                    worst = d > worst || d != d ? d : worst;
                }
                const double tol = (2.0 * K + 4) * u * (1.5 * abs_max + 1.0);
                TEST_ASSERT(worst <= tol, "sharded_gemm<%s> M = %zu, N = %zu, K = %zu, beta %g: error %.3g > %.3g",
                            tname<T>(), M, N, K, (double)beta, worst, tol);
                if (M == 17 && N == 3 && K == 100) { /* shapes that do not match are named */
                    TEST_ERR(gpuh_sharded_gemm<T>(&set, M, N, K + 1, alpha, &dA, &dB, beta, &dC),
                             cudaErrorInvalidValue);
                    TEST_CONTAINS(gpuh_error_detail(), "gpuh_sharded_gemm: A is 17 rows × 100, not M × K = 17 × 101");
                    TEST_ERR(gpuh_sharded_gemm<T>(&set, M, N, K, alpha, &dA, &dA, beta, &dC), cudaErrorInvalidValue);
                    TEST_CONTAINS(gpuh_error_detail(), "B holds 1700 elements split");
                }
                gpuh_shards_free(&dA);
                gpuh_shards_free(&dB);
                gpuh_shards_free(&dC);
            }
}

/* ===========================================================================
   Collectives. */
#ifdef GPUH_USE_NCCL
/* Buffers of count elements per device with fresh random values (T, in
   device memory) and their host copies. */
template <typename T> struct per_device {
    std::vector<std::vector<T>> h;
    void *d[GPUH_MAX_DEVICES];
    per_device(size_t count, size_t out_count, bool fill)
    {
        memset(d, 0, sizeof d);
        h.resize(set.count);
        for (int i = 0; i < set.count; ++i) {
            T *p = NULL;
            h[i].resize(out_count);
            for (T &v : h[i])
                v = fill ? rand_val<T>() : T(0);
            cudaSetDevice(set.id[i]);
            TEST_CUDA(gpuh_device_array(&p, out_count > 0 ? out_count : 1));
            if (fill)
                TEST_CUDA(gpuh_copy_to_device(p, h[i].data(), count));
            else
                TEST_CUDA(cudaMemset(p, 0xff, out_count * sizeof(T))); /* poison */
            TEST_CUDA(cudaDeviceSynchronize()); /* before the set's (non-blocking) streams use it */
            d[i] = p;
        }
        cudaSetDevice(0);
    }
    ~per_device()
    {
        for (int i = 0; i < set.count; ++i) {
            cudaSetDevice(set.id[i]);
            gpuh_free(d[i]);
        }
        cudaSetDevice(0);
    }
    std::vector<T> read(int i, size_t count)
    {
        std::vector<T> out(count);
        cudaSetDevice(set.id[i]);
        TEST_CUDA(cudaMemcpy(out.data(), d[i], count * sizeof(T), cudaMemcpyDeviceToHost));
        cudaSetDevice(0);
        return out;
    }
};

template <typename T> static void test_all_reduce(gpuh_dtype dtype)
{
    const double u = T(0.5) == T(0) ? 0 : sizeof(T) == 4 ? 5.96e-8 : 1.12e-16; /* int: exact */
    std::vector<size_t> ns = {1, 31, 1025, 65537};
    if (!gpuh_test_quick())
        ns.push_back((1u << 20) + 3);
    for (size_t n : ns)
        for (int in_place = 0; in_place < 2; ++in_place) {
            per_device<T> send(n, n, true), recv(n, n, false);
            void *const *out = in_place ? send.d : recv.d;
            if (!TEST_CUDA(gpuh_all_reduce(&set, send.d, out, n, dtype, GPUH_SUM)))
                continue;
            TEST_CUDA(gpuh_devices_sync(&set));
            per_device<T> &res = in_place ? send : recv;
            std::vector<T> first = res.read(0, n);
            double worst = 0;
            for (size_t k = 0; k < n; ++k) {
                double s = 0, a = 0;
                for (int i = 0; i < set.count; ++i) {
                    s += (double)send.h[i][k];
                    a += fabs((double)send.h[i][k]);
                }
                const double err = fabs((double)first[k] - s) - set.count * u * a;
                worst = err > worst || err != err ? err : worst;
            }
            TEST_ASSERT(worst <= 0, "all_reduce<%s> n = %zu%s: beyond the bound by %.3g", tname<T>(), n,
                        in_place ? " in place" : "", worst);
            for (int i = 1; i < set.count; ++i)
                TEST_ASSERT(res.read(i, n) == first, "all_reduce<%s> n = %zu: device %d differs from device 0",
                            tname<T>(), n, set.id[i]);
        }
    /* max: exact */
    {
        const size_t n = 1000;
        per_device<T> send(n, n, true), recv(n, n, false);
        TEST_CUDA(gpuh_all_reduce(&set, send.d, recv.d, n, dtype, GPUH_MAX));
        TEST_CUDA(gpuh_devices_sync(&set));
        for (int i = 0; i < set.count; ++i) {
            std::vector<T> got = recv.read(i, n);
            size_t bad = 0;
            for (size_t k = 0; k < n; ++k) {
                T m = send.h[0][k];
                for (int j = 1; j < set.count; ++j)
                    m = send.h[j][k] > m ? send.h[j][k] : m;
                bad += got[k] != m;
            }
            TEST_ASSERT(bad == 0, "all_reduce<%s> max on device %d: %zu wrong", tname<T>(), set.id[i], bad);
        }
    }
}

static void test_broadcast_gather(void)
{
    const size_t n = 4099;
    for (int root = 0; root < set.count; ++root) {
        per_device<float> send(n, n, true), recv(n, n, false);
        TEST_CUDA(gpuh_broadcast(&set, send.d, recv.d, n, GPUH_FLOAT32, root));
        TEST_CUDA(gpuh_devices_sync(&set));
        for (int i = 0; i < set.count; ++i)
            TEST_ASSERT(recv.read(i, n) == std::vector<float>(send.h[root].begin(), send.h[root].begin() + n),
                        "broadcast from %d: device %d differs", root, set.id[i]);
    }
    {
        per_device<double> send(n, n, true), recv(n, n * set.count, false);
        TEST_CUDA(gpuh_all_gather(&set, send.d, recv.d, n, GPUH_FLOAT64));
        TEST_CUDA(gpuh_devices_sync(&set));
        std::vector<double> want;
        for (int i = 0; i < set.count; ++i)
            want.insert(want.end(), send.h[i].begin(), send.h[i].begin() + n);
        for (int i = 0; i < set.count; ++i)
            TEST_ASSERT(recv.read(i, n * set.count) == want, "all_gather: device %d differs", set.id[i]);
    }
    /* errors: named buffer and device, unknown type, root out of range */
    {
        per_device<float> send(8, 8, true);
        void *recv[GPUH_MAX_DEVICES];
        memcpy(recv, send.d, sizeof recv);
        recv[set.count - 1] = NULL;
        char want[96];
        TEST_ERR(gpuh_all_reduce(&set, send.d, recv, 8, GPUH_FLOAT32, GPUH_SUM), cudaErrorInvalidValue);
        snprintf(want, sizeof want, "gpuh_all_reduce: recv[%d] (device %d) is NULL", set.count - 1,
                 set.id[set.count - 1]);
        TEST_CONTAINS(gpuh_error_detail(), want);
        TEST_ERR(gpuh_all_reduce(&set, send.d, send.d, 8, (gpuh_dtype)42, GPUH_SUM), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "element type 42 is not a gpuh_dtype");
        TEST_ERR(gpuh_broadcast(&set, send.d, send.d, 8, GPUH_FLOAT32, set.count), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "is out of range");
    }
}

/* One host thread per device, each with a communicator from one id: the
   one-process-per-GPU pattern, inside one process. */
static void test_comm_threads(void)
{
    gpuh_nccl_id id, back;
    const size_t n = 3001;
    int r;
    FILE *f = tmpfile();
    if (!TEST_CUDA(gpuh_nccl_id_create(&id)))
        return;
    /* the id through a file, as another process would get it */
    TEST_CUDA(gpuh_nccl_id_write(&id, f));
    rewind(f);
    memset(&back, 0, sizeof back);
    TEST_CUDA(gpuh_nccl_id_read(&back, f));
    TEST_ASSERT(memcmp(&id, &back, sizeof id) == 0, "the id survives a file");
    rewind(f);
    fputs("12zz\n", f);
    rewind(f);
    TEST_ERR(gpuh_nccl_id_read(&back, f), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "character 2 is not a hexadecimal digit");
    fclose(f);

    std::vector<std::vector<float>> in(set.count, std::vector<float>(n));
    for (auto &v : in)
        for (float &x : v)
            x = rand_f32();
    std::vector<std::vector<float>> out(set.count, std::vector<float>(n, -7.0f));
    std::vector<int> ok(set.count, 0);
    std::vector<std::thread> threads;
    for (r = 0; r < set.count; ++r)
        threads.emplace_back([&, r] {
            gpuh_comm comm;
            float *d = NULL;
            cudaStream_t s = NULL;
            if (gpuh_comm_init(&comm, &id, set.count, r, set.id[r]) != cudaSuccess) {
                printf("rank %d: %s\n", r, gpuh_error_detail());
                return;
            }
            cudaSetDevice(set.id[r]);
            cudaStreamCreate(&s);
            cudaMalloc(&d, n * sizeof(float));
            cudaMemcpy(d, in[r].data(), n * sizeof(float), cudaMemcpyHostToDevice);
            ok[r] = gpuh_comm_all_reduce(&comm, d, d, n, GPUH_FLOAT32, GPUH_SUM, s) == cudaSuccess &&
                    cudaStreamSynchronize(s) == cudaSuccess &&
                    cudaMemcpy(out[r].data(), d, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess &&
                    gpuh_comm_destroy(&comm) == cudaSuccess;
            cudaFree(d);
            cudaStreamDestroy(s);
        });
    for (std::thread &t : threads)
        t.join();
    cudaSetDevice(0);
    double worst = 0;
    for (size_t k = 0; k < n; ++k) {
        double s = 0, a = 0;
        for (r = 0; r < set.count; ++r) {
            s += in[r][k];
            a += fabs(in[r][k]);
        }
        const double e = fabs(out[0][k] - s) - set.count * 5.96e-8 * a;
        worst = e > worst || e != e ? e : worst;
    }
    for (r = 0; r < set.count; ++r)
        TEST_ASSERT(ok[r] && out[r] == out[0], "rank %d of %d: all-reduce %s", r, set.count,
                    ok[r] ? "differs from rank 0" : "failed");
    TEST_ASSERT(worst <= 0, "comm all-reduce: beyond the bound by %.3g", worst);

    gpuh_comm none;
    memset(&none, 0, sizeof none);
    TEST_ERR(gpuh_comm_all_reduce(&none, NULL, NULL, 1, GPUH_FLOAT32, GPUH_SUM, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "not initialised");
    TEST_ERR(gpuh_comm_init(&none, &id, 2, 2, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "rank 2 of 2 ranks");
#ifdef GPUH_SIM
    { /* the simulator joins the ranks of one process only, and says so */
        gpuh_nccl_id other;
        memset(&other, 0, sizeof other);
        snprintf((char *)other.bytes, sizeof other.bytes, "gpuh-sim-nccl 1 0");
        TEST_ERR(gpuh_comm_init(&none, &other, 2, 0, 0), cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "joins the ranks of one process only");
    }
#endif
}

#ifdef GPUH_SIM
/* The simulator's NCCL finds what NCCL on a GPU would hang on. */
static void test_sim_nccl_checks(void)
{
    gpuh_devices two;
    ncclComm_t c[2];
    float *d[2] = {NULL, NULL};
    if (set.count < 2 || !TEST_CUDA(gpuh_devices_open(&two, NULL, 2)) || !TEST_CUDA(gpuh_devices_init_nccl(&two)))
        return;
    memcpy(c, two.comm, sizeof c);
    for (int i = 0; i < 2; ++i)
        TEST_CUDA(gpuh_device_array(&d[i], 8));
    ncclGroupStart();
    ncclAllReduce(d[0], d[0], 8, ncclFloat32, ncclSum, c[0], two.stream[0]);
    ncclBroadcast(d[1], d[1], 8, ncclFloat32, 0, c[1], two.stream[1]);
    TEST_ASSERT(ncclGroupEnd() == ncclInvalidUsage, "ranks that call different collectives fail");
    TEST_CONTAINS(ncclGetLastError(c[0]), "every rank must make the same calls in the same order");
    float host[8];
    TEST_ASSERT(ncclAllReduce(host, host, 8, ncclFloat32, ncclSum, c[0], two.stream[0]) == ncclInvalidArgument,
                "host memory is refused");
    TEST_CONTAINS(ncclGetLastError(c[0]), "is not device memory");
    /* one rank alone, outside a group: an error after the timeout, not a hang */
    setenv("GPUH_SIM_NCCL_TIMEOUT", "0.2", 1);
    TEST_ASSERT(ncclAllReduce(d[0], d[0], 8, ncclFloat32, ncclSum, c[0], two.stream[0]) == ncclInvalidUsage,
                "a rank left alone times out");
    TEST_CONTAINS(ncclGetLastError(c[0]), "for ranks 1 to call the collective");
    unsetenv("GPUH_SIM_NCCL_TIMEOUT");
    for (int i = 0; i < 2; ++i)
        gpuh_free(d[i]);
    TEST_CUDA(gpuh_devices_close(&two));
}
#endif

static void test_collectives(void)
{
    const char *reason = "?";
    TEST_ASSERT(gpuh_nccl_available(&reason) == 1 && reason[0] == '\0', "NCCL available");
    if (!TEST_CUDA(gpuh_devices_init_nccl(&set)))
        return;
    TEST_CUDA(gpuh_devices_init_nccl(&set)); /* again: a no-op */
    test_all_reduce<float>(GPUH_FLOAT32);
    test_all_reduce<double>(GPUH_FLOAT64);
    test_all_reduce<int>(GPUH_INT32);
    test_broadcast_gather();
    test_comm_threads();
#ifdef GPUH_SIM
    test_sim_nccl_checks();
#endif
}
#else
/* Built without NCCL on purpose: every collective says how to get it. */
static void test_collectives(void)
{
    const char *reason = "";
    void *bufs[GPUH_MAX_DEVICES] = {NULL};
    gpuh_nccl_id id;
    gpuh_comm comm;
    TEST_ASSERT(gpuh_nccl_available(&reason) == 0, "no NCCL in this build");
    TEST_CONTAINS(reason, "define GPUH_USE_NCCL and link NCCL");
    TEST_ERR(gpuh_devices_init_nccl(&set), cudaErrorNotSupported);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_devices_init_nccl: gpuh was built without NCCL: define GPUH_USE_NCCL");
    TEST_ERR(gpuh_all_reduce(&set, bufs, bufs, 4, GPUH_FLOAT32, GPUH_SUM), cudaErrorNotSupported);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_all_reduce: gpuh was built without NCCL");
    TEST_ERR(gpuh_broadcast(&set, bufs, bufs, 4, GPUH_FLOAT32, 0), cudaErrorNotSupported);
    TEST_ERR(gpuh_all_gather(&set, bufs, bufs, 4, GPUH_FLOAT32), cudaErrorNotSupported);
    TEST_ERR(gpuh_nccl_id_create(&id), cudaErrorNotSupported);
    memset(&id, 0, sizeof id);
    TEST_ERR(gpuh_comm_init(&comm, &id, 1, 0, 0), cudaErrorNotSupported);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_comm_init: gpuh was built without NCCL");
}
#endif

int main(void)
{
    int visible;
    GPUH_TEST_REQUIRE_DEVICE();
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* NVLink multicast off unless the caller says otherwise */
    rng = gpuh_test_seed();
    visible = gpuh_device_count(NULL);
    visible = visible > GPUH_MAX_DEVICES ? GPUH_MAX_DEVICES : visible;
    printf("%d device%s%s\n", visible, visible == 1 ? "" : "s",
           visible == 1 ? " (the checks run on a set of one; more devices cover more)" : "");
    if (!TEST_CUDA(gpuh_devices_open(&set, NULL, visible)))
        return gpuh_test_summary("test_multi");
    test_set(visible);
    test_shards();
    test_vector_add<float>();
    test_vector_add<double>();
    test_vector_add<int>();
    test_reductions<float>();
    test_reductions<double>();
    test_reductions_i32();
    test_gemm<float>();
    test_gemm<double>();
    test_collectives();
    TEST_CUDA(gpuh_devices_close(&set));
    return gpuh_test_summary("test_multi");
}
