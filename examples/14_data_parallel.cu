/* 14_data_parallel.cu - data-parallel training on every visible GPU, with an
   all-reduce of the gradients through NCCL.

   Teaches: data parallelism, the way PyTorch's DistributedDataParallel and
   Horovod train a model on several GPUs. Every device holds a whole copy of
   the model and its own slice of the data; each step, every device computes
   the gradient of the loss on its slice, one all-reduce adds the gradients of
   all devices (so each device now has the gradient of the whole data set),
   and every device applies the same update to its copy. The copies never
   drift apart, and no device ever sees another's data.

   The model is a linear regression: n samples of d features in X (n × d,
   row-major), targets y = X·w_true + noise, loss L(w) = (1/n)·|X·w - y|².
   Its gradient is (2/n)·Xᵀ(X·w - y), a sum over samples: split the rows of
   X and y over the devices, and the sum of the per-device gradients
   (2/n)·X_iᵀ(X_i·w - y_i) is the whole gradient. One step on device i:
       r_i := X_i·w - y_i                     gpuh_gemm, N = 1 (beta = -1 on a copy of y_i)
       g_i := (2/n)·r_iᵀ·X_i                  gpuh_gemm, M = 1 (rᵀ is r's memory read as a row)
       g   := g_0 + g_1 + ...                 gpuh_all_reduce (NCCL), on every device
       w   := w - lr·g                        sgd_step_kernel
   Full-batch gradient descent; with X uniform in (-1, 1) the loss's Hessian
   is about (2/3)·I, so lr = 1 converges by a factor of about 3 per step.

   Check: the same training on one device (a set of one; its all-reduce is a
   copy) and on all of them must give the same weights up to float rounding:
   the per-device gradients add up in another order than the one-device sum
   (and NCCL's ring adds in an order of its own), so the bits differ, by a
   few units in the last place of the gradient per step; the test allows
   |w_all - w_one| ≤ 1e-5·|w_one| and also checks that both found w_true
   (relative error below 1e-2, the noise's share). Timed: the seconds per
   step of each run (host wall clock after synchronising every device).
   Quick mode (GPUH_TEST_QUICK=1): n = 2^14 samples, 12 steps.

   Run on the simulator with several devices:
     GPUH_SIM_DEVICES=4 ./build/sim_14_data_parallel */
#ifndef GPUH_USE_NCCL
#error "14_data_parallel needs the collectives: build with GPUH_USE_NCCL (CMake: link gpuh::nccl)"
#endif
#include <chrono>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"

static size_t n = (size_t)1 << 22; /* samples: 1 GiB of X in float */
static const size_t d = 64;        /* features */
static int steps = 50;
static const float lr = 1.0f;

/* w[j] -= lr·g[j]: one thread per weight; any 1-D grid covering d. */
__global__ void sgd_step_kernel(float *g_w, const float *g_grad, float lr, size_t d)
{
    const size_t j = gpuh_global_index();
    if (j < d)
        g_w[j] -= lr * g_grad[j];
}

/* One device's view of the training state: its rows of X and y, and its
   copies of w, the residual r and the gradient g. */
struct training {
    gpuh_shards X, y, r, w, g;
    float scale; /* 2/n */
};

/* r_i := X_i·w - y_i, then g_i := (2/n)·r_iᵀ·X_i, on device `index`'s stream.
   A device with no rows gets g_i = 0 (K = 0 leaves C = beta·C = 0). */
static cudaError_t gradient_step(void *ctx, int i, int device, cudaStream_t s)
{
    training *t = static_cast<training *>(ctx);
    const size_t rows = gpuh_shards_rows(&t->X, i);
    const float *X = static_cast<const float *>(t->X.ptr[i]), *w = static_cast<const float *>(t->w.ptr[i]);
    float *r = static_cast<float *>(t->r.ptr[i]), *g = static_cast<float *>(t->g.ptr[i]);
    cudaError_t err = cudaSuccess;
    (void)device;
    if (rows > 0 &&
        (err = cudaMemcpyAsync(r, t->y.ptr[i], rows * sizeof(float), cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
        return err;
    if ((err = gpuh_gemm<float>(rows, 1, d, 1.0f, X, d, w, 1, -1.0f, r, 1, s)) != cudaSuccess)
        return err;
    return gpuh_gemm<float>(1, d, rows, t->scale, r, rows > 0 ? rows : 1, X, d, 0.0f, g, d, s);
}

static cudaError_t update_step(void *ctx, int i, int device, cudaStream_t s)
{
    training *t = static_cast<training *>(ctx);
    (void)device;
    return GPUH_LAUNCH(sgd_step_kernel, 1, 64, 0, s, static_cast<float *>(t->w.ptr[i]),
                       static_cast<const float *>(t->g.ptr[i]), lr, d);
}

/* Trains from w = 0 on the devices of `set`; returns the weights and the
   seconds per step. */
static std::vector<float> train(gpuh_devices *set, const std::vector<float> &X, const std::vector<float> &y,
                                double *seconds_per_step)
{
    training t;
    std::vector<float> w(d, 0.0f);
    t.scale = 2.0f / (float)n;
    GPUH_CHECK(gpuh_devices_init_nccl(set));
    GPUH_CHECK(gpuh_shards_to_device(&t.X, set, X.data(), n, d));
    GPUH_CHECK(gpuh_shards_to_device(&t.y, set, y.data(), n, 1));
    GPUH_CHECK(gpuh_shards_device_array(&t.r, set, n, 1, sizeof(float)));
    GPUH_CHECK(gpuh_replicate_to_device(&t.w, set, w.data(), d));
    GPUH_CHECK(gpuh_replicate_to_device(&t.g, set, w.data(), d));
    auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) {
        GPUH_CHECK(gpuh_devices_run(set, gradient_step, &t));
        GPUH_CHECK(gpuh_all_reduce(set, t.g.ptr, t.g.ptr, d, GPUH_FLOAT32, GPUH_SUM)); /* in place */
        GPUH_CHECK(gpuh_devices_run(set, update_step, &t));
    }
    GPUH_CHECK(gpuh_devices_sync(set));
    *seconds_per_step = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / steps;
    GPUH_CHECK(gpuh_shards_copy_to_host(w.data(), &t.w, set)); /* every copy is the same; shard 0 */
    /* the copies never drift apart: compare the last device's copy bit for bit */
    std::vector<float> last(d);
    GPUH_CHECK(cudaMemcpy(last.data(), t.w.ptr[set->count - 1], d * sizeof(float), cudaMemcpyDeviceToHost));
    if (last != w) {
        printf("  the copies of w on devices %d and %d differ\n", set->id[0], set->id[set->count - 1]);
        w.assign(d, NAN);
    }
    gpuh_shards *all[] = {&t.X, &t.y, &t.r, &t.w, &t.g};
    for (gpuh_shards *s : all)
        GPUH_CHECK(gpuh_shards_free(s));
    return w;
}

static double rel_diff(const std::vector<float> &a, const std::vector<float> &b)
{
    double num = 0, den = 0;
    for (size_t j = 0; j < a.size(); ++j) {
        num += ((double)a[j] - b[j]) * ((double)a[j] - b[j]);
        den += (double)b[j] * b[j];
    }
    return sqrt(num / den);
}

int main(void)
{
    const char *reason = "";
    gpuh_devices all, one;
    double t_all = 0, t_one = 0;
    if (gpuh_device_count(&reason) == 0) {
        printf("no CUDA device: %s\n%s\n", reason, GPUH_SIM_TWIN_HINT("14_data_parallel"));
        return 77;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* NVLink multicast off unless the caller says otherwise */
    if (quick_mode()) {
        n = (size_t)1 << 14;
        steps = 12;
    }
    GPUH_CHECK(gpuh_devices_open(&all, NULL, 0));
    GPUH_CHECK(gpuh_devices_open(&one, NULL, 1));
    printf("Data-parallel linear regression: %zu samples × %zu features, %d steps of full-batch gradient "
           "descent\n", n, d, steps);
    printf("on %d device%s (the data split by rows; gradients all-reduced through NCCL)\n", all.count,
           all.count == 1 ? "" : "s");
    gpuh_devices_report_peers(&all, stdout);

    /* the data: X uniform in (-1, 1), w_true uniform in (-1, 1), noise 0.01 */
    unsigned long long s = gpuh_random_seed();
    printf("seed %llu (rerun with GPUH_SEED=%llu)\n", s, s);
    auto uniform = [&s]() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (float)((double)(s >> 11) * (2.0 / 9007199254740992.0) - 1.0);
    };
    std::vector<float> X(n * d), y(n), w_true(d);
    for (float &v : w_true)
        v = uniform();
    for (size_t i = 0; i < n; ++i) {
        double dot = 0;
        for (size_t j = 0; j < d; ++j) {
            X[i * d + j] = uniform();
            dot += (double)X[i * d + j] * w_true[j];
        }
        y[i] = (float)(dot + 0.01 * uniform());
    }

    std::vector<float> w_all = train(&all, X, y, &t_all);
    std::vector<float> w_one = train(&one, X, y, &t_one);
    const double diff = rel_diff(w_all, w_one), err_all = rel_diff(w_all, w_true), err_one = rel_diff(w_one, w_true);
    printf("  %-22s %12s %14s\n", "run", "ms per step", "|w - w_true|/|w_true|");
    printf("  %-22s %12.3f %14.3g\n", "one device", 1e3 * t_one, err_one);
    printf("  all %2d devices         %12.3f %14.3g   (%.2fx)\n", all.count, 1e3 * t_all, err_all, t_one / t_all);
    printf("  |w_all - w_one| / |w_one| = %.3g (tolerance 1e-5: the sums add in another order)\n", diff);
    GPUH_CHECK(gpuh_devices_close(&all));
    GPUH_CHECK(gpuh_devices_close(&one));
    const bool ok = diff <= 1e-5 && err_all < 1e-2 && err_one < 1e-2;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
