/* 13_dense_network.cu - the tutorials' neural network, in C on gpuh: a dense
   network trained with Adam, its memory taken per step from a caching pool.

   Teaches: what PyTorch does for
       model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
       loss = nn.CrossEntropyLoss()(model(x), y); loss.backward(); opt.step()
   written out as GEMMs and a few fused kernels, and how its caching
   allocator keeps per-step allocations cheap.

   Shapes (row-major; B rows of data, I inputs, H hidden units, C classes;
   weights stored as nn.Linear stores them, out × in):
       X  B × I   inputs             W1 H × I, b1 H     W2 C × H, b2 C
     forward
       A  = X·W1ᵀ                    gpuh_gemm(N, T)         B × H
       Hd = max(A + b1, 0)           bias_relu_kernel        in place: one pass
       Z  = Hd·W2ᵀ                   gpuh_gemm(N, T)         B × C
       loss, dZ = (softmax(Z + b2) - onehot(y)) / B          softmax_xent_kernel,
                                     one warp per row: max, exp, sum, log in registers
     backward
       dW2 = dZᵀ·Hd                  gpuh_gemm(T, N)
       db2 = Σ_rows dZ               partial sums from softmax_xent_kernel
       dHd = dZ·W2                   gpuh_gemm(N, N)
       dA  = dHd ⊙ [Hd > 0], db1 = Σ_rows dA      relu_backward_kernel, one pass
       dW1 = dAᵀ·X                   gpuh_gemm(T, N)
     update
       db1, db2 from their partial sums                bias_grad_kernel, one launch
       Adam with PyTorch's defaults (lr 1e-3, betas 0.9 / 0.999, eps 1e-8),
       one kernel for all four tensors (PyTorch's foreach / fused Adam).
   The weight gradients are long-K products (K = the 60000 rows) with a small
   C (128 × 784, 10 × 128): too few tiles of C to fill the GPU, so gpuh_gemm
   splits K itself (split-K, summed in a fixed order) when that pays.
   Memory: the activations, gradients and partials of a step come from a
   gpuh_pool (cudaMallocFromPoolAsync) and go back at the end of the step;
   from the second step on the pool hands back the same memory without a
   driver call; the table shows allocated / reserved (PyTorch's
   memory_allocated / memory_reserved) after each step and after
   gpuh_empty_cache.
   Initialisation as nn.Linear: weights and biases uniform in ±1/√fan_in,
   from cuRAND (gpuh_random_uniform_f32).

   Modes (argument 1):
     check      one step on 257 rows against a float64 CPU reference: the
                loss and every gradient element (relative error ≤ 1e-4)
     tutorial   the tutorials' run: 60000 × 784 inputs N(0, 1), random
                labels, 5 full-batch steps, the loss per step; then the time
                per step (median of 20 more) and where it goes
     digits     scikit-learn's 8 × 8 digits (examples/data/digits.bin,
                argument 2 or found from the working directory): 64-128-10,
                mini-batches of 32, 80 % train / 20 % held-out test; the test
                accuracy must reach 95 %
     export F   the tutorial run, writing to F the initial weights, inputs,
                labels, then the losses and the time per step, for
                bench/nn_torch.py (PyTorch from the same start)
     all        (default) check, tutorial, digits
   Quick mode (GPUH_TEST_QUICK=1; the simulator's tests): 1024 rows in the
   tutorial run, 12 epochs of digits (accuracy ≥ 90 %).
   Result = PASS when every check holds.
   Build: nvcc -arch=native -DGPUH_USE_CURAND -I path/to/gpuh 13_dense_network.cu -lcurand
   (CMake: link gpuh::random). */
#ifndef GPUH_USE_CURAND
#error "13_dense_network needs gpuh's cuRAND helpers: build with GPUH_USE_CURAND and link cuRAND (CMake: gpuh::random)"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <chrono>
#include <vector>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"

#define MAX_CLASSES 32 /* softmax_xent_kernel: one lane per class */

/* ---------------------------------------------------------------------------
   Kernels */

/* x[i] := (2·x[i] - 1)·bound: cuRAND's uniform (0, 1] into (-bound, bound],
   as nn.Linear's initialisation wants. Any 1-D grid (grid-stride loop). */
__global__ void to_range_kernel(float *g_x, size_t n, float bound)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride())
        g_x[i] = (2.0f * g_x[i] - 1.0f) * bound;
}

/* labels[i] := bits[i] mod classes (random labels from 32 random bits). */
__global__ void labels_kernel(int *g_labels, const unsigned int *g_bits, size_t n, unsigned int classes)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride())
        g_labels[i] = (int)(g_bits[i] % classes);
}

/* Bias and ReLU in one pass: a[r, c] := max(a[r, c] + b[c], 0) for a of
   rows × cols, read and written once (PyTorch's addmm folds the bias into
   cuBLAS's epilogue, then reads the whole matrix again for the ReLU). Each
   thread handles 4 consecutive elements as one float4 (cols % 4 == 0 and a
   16-byte aligned: the caller checks). Any 1-D grid. */
__global__ void bias_relu_kernel(float *g_a, const float *g_b, size_t rows, size_t cols)
{
    float4 *a4 = reinterpret_cast<float4 *>(g_a);
    const size_t n4 = rows * cols / 4;
    for (size_t i = gpuh_global_index(); i < n4; i += gpuh_grid_stride()) {
        const size_t c = i * 4 % cols;
        float4 v = a4[i];
        v.x = fmaxf(v.x + g_b[c], 0.0f);
        v.y = fmaxf(v.y + g_b[c + 1], 0.0f);
        v.z = fmaxf(v.z + g_b[c + 2], 0.0f);
        v.w = fmaxf(v.w + g_b[c + 3], 0.0f);
        a4[i] = v;
    }
}

/* Softmax cross-entropy, its gradient and the partial sums of db2, in one
   pass. One warp per row (grid-stride over rows), one lane per class
   (classes ≤ 32): lane c holds the logit z = Z[r, c] + b2[c]; the warp finds
   the row's max m (shuffles), s = Σ exp(z - m), and the row's loss
   log(s) + m - z[label] (= -log softmax[label], computed without ever
   exponentiating a large number: numerically stable). The gradient of the
   mean loss, (softmax - onehot) / B, overwrites Z. Each lane keeps its
   class's running sum of the gradient (for db2) and the warp the sum of its
   rows' losses / B; at the end the block adds its warps' sums in warp order
   and writes one partial per block: g_loss_part[block], g_db_part[block·C + c].
   Block: 32·WARPS threads (WARPS = blockDim.x / 32 ≤ 32); grid: any. */
__global__ void softmax_xent_kernel(float *g_z, const float *g_b, const int *g_labels, size_t rows, int classes,
                                    float inv_rows, float *g_loss_part, float *g_db_part)
{
    __shared__ float s_db[32][MAX_CLASSES];
    __shared__ float s_loss[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    const bool active = lane < classes;
    float db = 0.0f, loss = 0.0f;
    for (size_t r = (size_t)blockIdx.x * warps + warp; r < rows; r += (size_t)gridDim.x * warps) {
        const int label = g_labels[r];
        const float z = active ? g_z[r * classes + lane] + g_b[lane] : -INFINITY;
        float m = z;
        for (int o = 16; o > 0; o /= 2)
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        const float e = active ? expf(z - m) : 0.0f;
        float s = e;
        for (int o = 16; o > 0; o /= 2)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        const float z_label = __shfl_sync(0xffffffffu, z, label);
        loss += (logf(s) + m - z_label) * inv_rows; /* the same in every lane */
        if (active) {
            const float grad = (e / s - (lane == label ? 1.0f : 0.0f)) * inv_rows;
            g_z[r * classes + lane] = grad;
            db += grad;
        }
    }
    if (active)
        s_db[warp][lane] = db;
    if (lane == 0)
        s_loss[warp] = loss;
    __syncthreads(); /* every warp's sums are in shared memory before they are added */
    if (threadIdx.x < (unsigned)classes) {
        float t = 0.0f;
        for (int w = 0; w < warps; ++w)
            t += s_db[w][threadIdx.x];
        g_db_part[(size_t)blockIdx.x * classes + threadIdx.x] = t;
    }
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < warps; ++w)
            t += s_loss[w];
        g_loss_part[blockIdx.x] = t;
    }
}

/* ReLU's backward and db1 in one pass: d[r, c] := h[r, c] > 0 ? d[r, c] : 0
   (h is ReLU's output, so h > 0 exactly where its input was), and the
   column sums of the result. Each thread owns 4 consecutive columns (one
   float4: cols % 4 == 0, 16-byte aligned rows; the caller checks). Block:
   32 × 8 threads; threadIdx.x picks the 4 columns within the block's 128
   (a warp reads 512 consecutive bytes of a row), threadIdx.y and
   blockIdx.y the rows (grid-stride over rows in steps of 8·gridDim.y).
   Grid: (⌈cols / 128⌉, parts). Block (x, y) writes the sums of its rows
   for its columns to g_part[y·cols + c]: bias_grad_kernel adds the `parts`
   partials. */
__global__ void relu_backward_kernel(float *g_d, const float *g_h, size_t rows, size_t cols, float *g_part)
{
    __shared__ float4 s_sum[8][32];
    const size_t c = ((size_t)blockIdx.x * 32 + threadIdx.x) * 4;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (c < cols)
        for (size_t r = (size_t)blockIdx.y * 8 + threadIdx.y; r < rows; r += (size_t)gridDim.y * 8) {
            float4 d = *reinterpret_cast<const float4 *>(g_d + r * cols + c);
            const float4 h = *reinterpret_cast<const float4 *>(g_h + r * cols + c);
            d.x = h.x > 0.0f ? d.x : 0.0f;
            d.y = h.y > 0.0f ? d.y : 0.0f;
            d.z = h.z > 0.0f ? d.z : 0.0f;
            d.w = h.w > 0.0f ? d.w : 0.0f;
            *reinterpret_cast<float4 *>(g_d + r * cols + c) = d;
            sum.x += d.x;
            sum.y += d.y;
            sum.z += d.z;
            sum.w += d.w;
        }
    s_sum[threadIdx.y][threadIdx.x] = sum;
    __syncthreads(); /* all 8 rows of partial sums written before row 0 adds them */
    if (threadIdx.y == 0 && c < cols) {
        for (int y = 1; y < 8; ++y) {
            sum.x += s_sum[y][threadIdx.x].x;
            sum.y += s_sum[y][threadIdx.x].y;
            sum.z += s_sum[y][threadIdx.x].z;
            sum.w += s_sum[y][threadIdx.x].w;
        }
        *reinterpret_cast<float4 *>(g_part + (size_t)blockIdx.y * cols + c) = sum;
    }
}

/* The bias gradients from their partial sums, all columns of both in one
   launch: block b < cols1 adds the `parts1` partials of column b of
   g_part1 (db1), block cols1 + c the `parts2` of column c of g_part2 (db2);
   the result goes to g_out[b] (db1, then db2). Each thread adds every
   blockDim.x-th partial, then gpuh_block_reduce adds the threads' sums (a
   fixed order: the same bits every run). Summing hundreds of partials in
   one thread would chain as many dependent loads; here they are spread
   over the block. Block: 1-D, a multiple of 32 threads; grid: cols1 + cols2. */
__global__ void bias_grad_kernel(const float *g_part1, size_t parts1, size_t cols1, const float *g_part2,
                                 size_t parts2, size_t cols2, float *g_out)
{
    const bool first = blockIdx.x < cols1;
    const size_t col = first ? blockIdx.x : blockIdx.x - cols1, cols = first ? cols1 : cols2;
    const size_t parts = first ? parts1 : parts2;
    const float *part = first ? g_part1 : g_part2;
    float sum = 0.0f;
    for (size_t p = threadIdx.x; p < parts; p += blockDim.x)
        sum += part[p * cols + col];
    sum = gpuh_block_reduce<gpuh_plus<float>, float>(sum);
    if (threadIdx.x == 0)
        g_out[blockIdx.x] = sum;
}

/* One parameter tensor as the Adam kernel sees it: its place in the flat
   parameter array, its size, and its gradient (`size` elements). */
struct adam_tensor {
    const float *g_grad;
    size_t offset, size;
};
struct adam_args {
    adam_tensor t[4];
    float lr_over_bc1, bc2_sqrt, beta1, beta2, eps;
    float *g_grad_out; /* if not NULL, the gradient is stored here too (the check mode) */
};

/* Adam, PyTorch's form (torch.optim.Adam, foreach, no weight decay, no
   amsgrad), for every element of every tensor in one launch:
       g = the gradient
       m = m + (1 - β1)·(g - m)    (lerp, as PyTorch)
       v = β2·v + (1 - β2)·g²
       p = p - (lr / (1 - β1^t)) · m / (√v / √(1 - β2^t) + eps)
   Elements of the flat arrays outside the tensors (alignment padding) are
   left alone. Any 1-D grid; one thread per element. */
__global__ void adam_kernel(float *g_p, float *g_m, float *g_v, size_t total, adam_args a)
{
    for (size_t i = gpuh_global_index(); i < total; i += gpuh_grid_stride()) {
        int k = 3;
        while (k > 0 && i < a.t[k].offset)
            --k;
        const adam_tensor t = a.t[k];
        const size_t j = i - t.offset;
        if (j >= t.size)
            continue;
        const float g = t.g_grad[j];
        if (a.g_grad_out != NULL)
            a.g_grad_out[i] = g;
        const float m = g_m[i] + (1.0f - a.beta1) * (g - g_m[i]);
        const float v = a.beta2 * g_v[i] + (1.0f - a.beta2) * g * g;
        g_m[i] = m;
        g_v[i] = v;
        g_p[i] -= a.lr_over_bc1 * m / (sqrtf(v) / a.bc2_sqrt + a.eps);
    }
}

/* ---------------------------------------------------------------------------
   The network on the host side */

struct net {
    size_t in, hidden, classes;
    size_t off[5]; /* W1, b1, W2, b2 in the flat arrays, then the total (each start a multiple of 4) */
    float *p, *m, *v; /* parameters, Adam's first and second moments (gpuh_device_array) */
    int t;            /* Adam's step count */
    cudaStream_t s0;
    gpuh_pool pool;
    int sms;
};

/* Stage boundaries of one step, as CUDA events on the main stream. */
enum { T_START, T_FC1, T_RELU, T_FC2, T_SOFTMAX, T_DHIDDEN, T_RELU_BWD, T_WGRAD, T_ADAM, T_STAGES };
static const char *stage_names[T_STAGES] = {"",
                                            "X.W1^T   (gpuh_gemm N,T)",
                                            "bias + ReLU",
                                            "H.W2^T   (gpuh_gemm N,T)",
                                            "softmax + loss + dZ + db2",
                                            "dZ.W2    (gpuh_gemm N,N)",
                                            "ReLU backward + db1",
                                            "dW1, dW2 (gpuh_gemm T,N, split-K)",
                                            "loss, bias sums, Adam, frees"};

static size_t round4(size_t n) { return (n + 3) / 4 * 4; }

static cudaError_t launch_1d(size_t n, dim3 *grid)
{
    return gpuh_grid_1d(grid, std::min(n, (size_t)1 << 20), 256);
}

static void net_create(net *nt, size_t in, size_t hidden, size_t classes, unsigned long long seed)
{
    memset(nt, 0, sizeof *nt);
    if (hidden % 4 != 0 || classes > MAX_CLASSES) { /* float4 rows in the ReLU kernels; one lane per class */
        printf("net_create: hidden %zu must be a multiple of 4 and classes %zu at most %d\n", hidden, classes,
               MAX_CLASSES);
        exit(1);
    }
    nt->in = in;
    nt->hidden = hidden;
    nt->classes = classes;
    nt->off[0] = 0;
    nt->off[1] = round4(hidden * in);
    nt->off[2] = nt->off[1] + round4(hidden);
    nt->off[3] = nt->off[2] + round4(classes * hidden);
    nt->off[4] = nt->off[3] + round4(classes);
    GPUH_CHECK(gpuh_device_array(&nt->p, nt->off[4]));
    GPUH_CHECK(gpuh_device_array(&nt->m, nt->off[4]));
    GPUH_CHECK(gpuh_device_array(&nt->v, nt->off[4]));
    GPUH_CHECK(cudaMemset(nt->p, 0, nt->off[4] * sizeof(float)));
    GPUH_CHECK(cudaMemset(nt->m, 0, nt->off[4] * sizeof(float)));
    GPUH_CHECK(cudaMemset(nt->v, 0, nt->off[4] * sizeof(float)));
    GPUH_CHECK(gpuh_stream_create(&nt->s0, cudaStreamNonBlocking, 0));
    GPUH_CHECK(gpuh_pool_create(&nt->pool, 0, GPUH_POOL_KEEP_ALL));
    GPUH_CHECK(cudaDeviceGetAttribute(&nt->sms, cudaDevAttrMultiProcessorCount, 0));
    /* nn.Linear: weight and bias uniform in ±1/√fan_in (fan_in = in, then hidden). */
    const size_t sizes[4] = {hidden * in, hidden, classes * hidden, classes};
    const float bounds[4] = {1.0f / sqrtf((float)in), 1.0f / sqrtf((float)in), 1.0f / sqrtf((float)hidden),
                             1.0f / sqrtf((float)hidden)};
    for (int k = 0; k < 4; ++k) {
        dim3 grid;
        GPUH_CHECK(gpuh_random_uniform_f32(nt->p + nt->off[k], sizes[k], seed + (unsigned long long)k, nt->s0));
        GPUH_CHECK(launch_1d(sizes[k], &grid));
        GPUH_LAUNCH(to_range_kernel, grid, 256, 0, nt->s0, nt->p + nt->off[k], sizes[k], bounds[k]);
    }
    GPUH_CHECK(gpuh_stream_sync(nt->s0));
}

static void net_destroy(net *nt)
{
    GPUH_CHECK(gpuh_stream_sync(nt->s0));
    gpuh_free(nt->p);
    gpuh_free(nt->m);
    gpuh_free(nt->v);
    GPUH_CHECK(gpuh_pool_destroy(&nt->pool));
    gpuh_stream_destroy(&nt->s0);
}

/* Options of one step: events for the stage times, a place for the
   gradient (both may be left NULL). */
struct step_options {
    cudaEvent_t *ev; /* T_STAGES events, or NULL */
    float *grad_out; /* device, off[4] floats, or NULL */
};

/* One training step on rows × in inputs X and their labels (device arrays):
   forward, loss, backward, Adam. The step's mean loss goes to *d_loss
   (device). Everything else it needs comes from the pool and goes back
   to it on the main stream; returns without waiting for the device. */
static void train_step(net *nt, const float *X, const int *labels, size_t rows, float *d_loss,
                       const step_options *opt)
{
    const size_t I = nt->in, H = nt->hidden, C = nt->classes;
    const size_t sm_blocks = std::min(gpuh_ceil_div(rows, 32), (size_t)nt->sms);
    const size_t relu_parts = std::min(gpuh_ceil_div(rows, 64), (size_t)nt->sms * 4 / gpuh_ceil_div(H, 128) + 1);
    const float *W1 = nt->p + nt->off[0], *b1 = nt->p + nt->off[1], *W2 = nt->p + nt->off[2], *b2 = nt->p + nt->off[3];
    cudaStream_t s = nt->s0;
    cudaEvent_t *ev = opt ? opt->ev : NULL;
    float *hid, *z, *dhid, *loss_part, *db2_part, *db1_part, *dw1, *dw2, *db;
    dim3 grid;

    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_START], s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &hid, rows * H, s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &z, rows * C, s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &dhid, rows * H, s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &loss_part, sm_blocks, s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &db2_part, sm_blocks * C, s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &db1_part, relu_parts * H, s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &dw1, H * I, s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &dw2, C * H, s));
    GPUH_CHECK(gpuh_pool_alloc(&nt->pool, &db, H + C, s));

    /* forward */
    GPUH_CHECK(gpuh_gemm<float>(GPUH_OP_N, GPUH_OP_T, rows, H, I, 1.0f, X, I, W1, I, 0.0f, hid, H, s));
    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_FC1], s));
    GPUH_CHECK(launch_1d(rows * H / 4, &grid));
    GPUH_LAUNCH(bias_relu_kernel, grid, 256, 0, s, hid, b1, rows, H);
    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_RELU], s));
    GPUH_CHECK(gpuh_gemm<float>(GPUH_OP_N, GPUH_OP_T, rows, C, H, 1.0f, hid, H, W2, H, 0.0f, z, C, s));
    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_FC2], s));
    GPUH_LAUNCH(softmax_xent_kernel, dim3((unsigned)sm_blocks), 1024, 0, s, z, b2, labels, rows, (int)C,
                1.0f / (float)rows, loss_part, db2_part);
    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_SOFTMAX], s));

    /* backward (z holds dZ now) */
    GPUH_CHECK(gpuh_gemm<float>(GPUH_OP_T, GPUH_OP_N, C, H, rows, 1.0f, z, C, hid, H, 0.0f, dw2, H, s));
    GPUH_CHECK(gpuh_gemm<float>(GPUH_OP_N, GPUH_OP_N, rows, H, C, 1.0f, z, C, W2, H, 0.0f, dhid, H, s));
    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_DHIDDEN], s));
    GPUH_LAUNCH(relu_backward_kernel, dim3((unsigned)gpuh_ceil_div(H, 128), (unsigned)relu_parts), dim3(32, 8), 0, s,
                dhid, hid, rows, H, db1_part);
    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_RELU_BWD], s));
    GPUH_CHECK(gpuh_gemm<float>(GPUH_OP_T, GPUH_OP_N, H, I, rows, 1.0f, dhid, H, X, I, 0.0f, dw1, I, s));
    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_WGRAD], s));

    /* the loss, the bias gradients, and Adam */
    GPUH_CHECK(gpuh_sum<float>(loss_part, sm_blocks, d_loss, NULL, s));
    GPUH_LAUNCH(bias_grad_kernel, dim3((unsigned)(H + C)), 128, 0, s, db1_part, relu_parts, H, db2_part, sm_blocks, C,
                db);
    nt->t += 1;
    adam_args a;
    const adam_tensor tensors[4] = {
        {dw1, nt->off[0], H * I}, {db, nt->off[1], H}, {dw2, nt->off[2], C * H}, {db + H, nt->off[3], C}};
    for (int k = 0; k < 4; ++k)
        a.t[k] = tensors[k];
    a.beta1 = 0.9f;
    a.beta2 = 0.999f;
    a.eps = 1e-8f;
    a.lr_over_bc1 = (float)(1e-3 / (1.0 - pow(0.9, nt->t)));
    a.bc2_sqrt = (float)sqrt(1.0 - pow(0.999, nt->t));
    a.g_grad_out = opt ? opt->grad_out : NULL;
    GPUH_CHECK(launch_1d(nt->off[4], &grid));
    GPUH_LAUNCH(adam_kernel, grid, 256, 0, s, nt->p, nt->m, nt->v, nt->off[4], a);

    float *held[9] = {hid, z, dhid, loss_part, db2_part, db1_part, dw1, dw2, db};
    for (int i = 0; i < 9; ++i)
        GPUH_CHECK(gpuh_pool_free(&nt->pool, held[i], s));
    if (ev)
        GPUH_CHECK(gpuh_event_record(ev[T_ADAM], s));
}

/* ---------------------------------------------------------------------------
   Modes */

static int quick;
static int failures;

static void expect(bool ok, const char *what)
{
    printf("  %-62s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok)
        ++failures;
}

static double mib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

static void print_pool(const net *nt, const char *when)
{
    gpuh_pool_stats st;
    GPUH_CHECK(gpuh_pool_memory_stats(&nt->pool, &st));
    printf("  %-16s allocated %8.2f MiB  reserved %8.2f MiB  (peak allocated %.2f, peak reserved %.2f)\n", when,
           mib(st.allocated_bytes), mib(st.reserved_bytes), mib(st.peak_allocated_bytes), mib(st.peak_reserved_bytes));
}

/* One step of a small network (257 rows) against a
   float64 CPU reference: the loss, and every element of the gradient. */
static void mode_check(unsigned long long seed)
{
    const size_t R = 257, I = 784, H = 128, C = 10;
    net nt;
    float *X, *d_loss, *d_grad, loss = 0;
    int *labels;
    unsigned int *bits;
    dim3 grid;
    printf("check: one step of %zu-%zu-%zu on %zu rows against a float64 CPU reference\n", I, H, C, R);
    net_create(&nt, I, H, C, seed);
    GPUH_CHECK(gpuh_device_array(&X, R * I));
    GPUH_CHECK(gpuh_device_array(&labels, R));
    GPUH_CHECK(gpuh_device_array(&bits, R));
    GPUH_CHECK(gpuh_device_array(&d_loss, 1));
    GPUH_CHECK(gpuh_device_array(&d_grad, nt.off[4]));
    GPUH_CHECK(gpuh_random_normal_f32(X, R * I, 0.0f, 1.0f, seed + 10, nt.s0));
    GPUH_CHECK(gpuh_random_u32(bits, R, seed + 11, nt.s0));
    GPUH_CHECK(launch_1d(R, &grid));
    GPUH_LAUNCH(labels_kernel, grid, 256, 0, nt.s0, labels, bits, R, (unsigned)C);
    std::vector<float> p(nt.off[4]), x(R * I), g(nt.off[4]);
    std::vector<int> y(R);
    GPUH_CHECK(gpuh_stream_sync(nt.s0));
    GPUH_CHECK(gpuh_copy_to_host(p.data(), nt.p, nt.off[4]));
    GPUH_CHECK(gpuh_copy_to_host(x.data(), X, R * I));
    GPUH_CHECK(gpuh_copy_to_host(y.data(), labels, R));
    GPUH_CHECK(cudaMemset(d_grad, 0, nt.off[4] * sizeof(float)));

    step_options opt = {NULL, d_grad};
    train_step(&nt, X, labels, R, d_loss, &opt);
    GPUH_CHECK(gpuh_stream_sync(nt.s0));
    GPUH_CHECK(gpuh_copy_to_host(&loss, d_loss, 1));
    GPUH_CHECK(gpuh_copy_to_host(g.data(), d_grad, nt.off[4]));

    /* The reference, in double. */
    const float *W1 = &p[nt.off[0]], *b1 = &p[nt.off[1]], *W2 = &p[nt.off[2]], *b2 = &p[nt.off[3]];
    std::vector<double> hid(R * H), dz(R * C), dh(R * H), ref(nt.off[4], 0.0);
    double ref_loss = 0;
    for (size_t r = 0; r < R; ++r) {
        for (size_t j = 0; j < H; ++j) {
            double a = b1[j];
            for (size_t k = 0; k < I; ++k)
                a += (double)x[r * I + k] * W1[j * I + k];
            hid[r * H + j] = a > 0 ? a : 0;
        }
        double z[MAX_CLASSES], m = -INFINITY, s = 0;
        for (size_t c = 0; c < C; ++c) {
            z[c] = b2[c];
            for (size_t j = 0; j < H; ++j)
                z[c] += hid[r * H + j] * W2[c * H + j];
            m = std::max(m, z[c]);
        }
        for (size_t c = 0; c < C; ++c)
            s += exp(z[c] - m);
        ref_loss += (log(s) + m - z[y[r]]) / R;
        for (size_t c = 0; c < C; ++c)
            dz[r * C + c] = (exp(z[c] - m) / s - (c == (size_t)y[r] ? 1.0 : 0.0)) / R;
        for (size_t j = 0; j < H; ++j) {
            double d = 0;
            for (size_t c = 0; c < C; ++c)
                d += dz[r * C + c] * W2[c * H + j];
            dh[r * H + j] = hid[r * H + j] > 0 ? d : 0;
        }
    }
    for (size_t r = 0; r < R; ++r) {
        for (size_t j = 0; j < H; ++j) {
            const double d = dh[r * H + j];
            ref[nt.off[1] + j] += d;
            if (d != 0)
                for (size_t k = 0; k < I; ++k)
                    ref[nt.off[0] + j * I + k] += d * x[r * I + k];
        }
        for (size_t c = 0; c < C; ++c) {
            ref[nt.off[3] + c] += dz[r * C + c];
            for (size_t j = 0; j < H; ++j)
                ref[nt.off[2] + c * H + j] += dz[r * C + c] * hid[r * H + j];
        }
    }
    const char *names[4] = {"dW1", "db1", "dW2", "db2"};
    const size_t sizes[4] = {H * I, H, C * H, C};
    char what[128];
    snprintf(what, sizeof what, "loss %.7f, reference %.7f (rel. error %.1e)", loss, ref_loss,
             fabs(loss - ref_loss) / ref_loss);
    expect(fabs(loss - ref_loss) <= 1e-5 * ref_loss, what);
    for (int k = 0; k < 4; ++k) {
        double num = 0, den = 0;
        for (size_t i = 0; i < sizes[k]; ++i) {
            const double d = g[nt.off[k] + i] - ref[nt.off[k] + i];
            num += d * d;
            den += ref[nt.off[k] + i] * ref[nt.off[k] + i];
        }
        const double rel = sqrt(num / den);
        snprintf(what, sizeof what, "%s: |g - ref| / |ref| = %.1e", names[k], rel);
        expect(rel <= 1e-4, what);
    }
    gpuh_free(X);
    gpuh_free(labels);
    gpuh_free(bits);
    gpuh_free(d_loss);
    gpuh_free(d_grad);
    net_destroy(&nt);
}

/* The tutorials' run; with `out`, writes the start and the results for
   bench/nn_torch.py (layout in write_export). */
static void mode_tutorial(unsigned long long seed, const char *out)
{
    const size_t R = quick ? 1024 : 60000, I = 784, H = 128, C = 10;
    const int steps = 5, timed = quick ? 3 : 20;
    net nt;
    float *X, *d_loss;
    int *labels;
    unsigned int *bits;
    dim3 grid;
    printf("tutorial: %zu-%zu-%zu, %zu random inputs N(0, 1), random labels, %d full-batch steps, Adam\n", I, H, C,
           R, steps);
    net_create(&nt, I, H, C, seed);
    GPUH_CHECK(gpuh_device_array(&X, R * I));
    GPUH_CHECK(gpuh_device_array(&labels, R));
    GPUH_CHECK(gpuh_device_array(&bits, R));
    GPUH_CHECK(gpuh_device_array(&d_loss, (size_t)(steps + timed)));
    GPUH_CHECK(gpuh_random_normal_f32(X, R * I, 0.0f, 1.0f, seed + 10, nt.s0));
    GPUH_CHECK(gpuh_random_u32(bits, R, seed + 11, nt.s0));
    GPUH_CHECK(launch_1d(R, &grid));
    GPUH_LAUNCH(labels_kernel, grid, 256, 0, nt.s0, labels, bits, R, (unsigned)C);
    GPUH_CHECK(gpuh_stream_sync(nt.s0));

    FILE *f = NULL;
    if (out != NULL) {
        /* "GPUHNN13", uint32 rows, in, hidden, classes, steps; float32 W1, b1, W2, b2
           (PyTorch's shapes); float32 X; int32 labels; then float32 losses[steps],
           float32 ms per step (median), uint32 timed steps. */
        const unsigned int head[5] = {(unsigned)R, (unsigned)I, (unsigned)H, (unsigned)C, (unsigned)steps};
        const size_t sizes[4] = {H * I, H, C * H, C};
        std::vector<float> h(R * I);
        std::vector<int> y(R);
        f = fopen(out, "wb");
        if (f == NULL) {
            printf("cannot write %s\n", out);
            exit(1);
        }
        fwrite("GPUHNN13", 1, 8, f);
        fwrite(head, sizeof head[0], 5, f);
        for (int k = 0; k < 4; ++k) {
            GPUH_CHECK(gpuh_copy_to_host(h.data(), nt.p + nt.off[k], sizes[k]));
            fwrite(h.data(), sizeof(float), sizes[k], f);
        }
        GPUH_CHECK(gpuh_copy_to_host(h.data(), X, R * I));
        fwrite(h.data(), sizeof(float), R * I, f);
        GPUH_CHECK(gpuh_copy_to_host(y.data(), labels, R));
        fwrite(y.data(), sizeof(int), R, f);
    }

    float loss[64];
    printf("  step  loss        pool after the step\n");
    for (int st = 0; st < steps; ++st) {
        char when[32];
        train_step(&nt, X, labels, R, d_loss + st, NULL);
        GPUH_CHECK(gpuh_stream_sync(nt.s0));
        GPUH_CHECK(gpuh_copy_to_host(&loss[st], d_loss + st, 1));
        snprintf(when, sizeof when, "%4d  %.6f", st + 1, loss[st]);
        print_pool(&nt, when);
    }
    GPUH_CHECK(gpuh_empty_cache(&nt.pool));
    print_pool(&nt, "empty_cache");

    /* Time: `timed` more steps, each between two events, and its stages. */
    std::vector<cudaEvent_t> ev((size_t)timed * T_STAGES);
    for (size_t i = 0; i < ev.size(); ++i)
        GPUH_CHECK(gpuh_event_create(&ev[i], cudaEventDefault));
    const std::chrono::steady_clock::time_point host0 = std::chrono::steady_clock::now();
    for (int st = 0; st < timed; ++st) {
        step_options opt = {&ev[(size_t)st * T_STAGES], NULL};
        train_step(&nt, X, labels, R, d_loss + steps + st, &opt);
    }
    const double host_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host0).count() / timed;
    GPUH_CHECK(gpuh_stream_sync(nt.s0));
    std::vector<float> total(timed), stage((size_t)timed);
    for (int st = 0; st < timed; ++st)
        GPUH_CHECK(gpuh_event_elapsed_ms(ev[(size_t)st * T_STAGES + T_START], ev[(size_t)st * T_STAGES + T_ADAM],
                                         &total[st]));
    std::sort(total.begin(), total.end());
    const float ms = total[timed / 2];
    printf("  time per training step: %.3f ms (median of %d; %zu rows)\n", ms, timed, R);
    for (int k = 1; k < T_STAGES; ++k) {
        for (int st = 0; st < timed; ++st)
            GPUH_CHECK(gpuh_event_elapsed_ms(ev[(size_t)st * T_STAGES + k - 1], ev[(size_t)st * T_STAGES + k],
                                             &stage[st]));
        std::sort(stage.begin(), stage.end());
        printf("    %-34s %8.3f ms\n", stage_names[k], stage[timed / 2]);
    }
    printf("    (the host took %.3f ms to enqueue a step: where it is above the GPU's time, the GPU waits)\n", host_ms);
    for (size_t i = 0; i < ev.size(); ++i)
        gpuh_event_destroy(&ev[i]);

    if (f != NULL) {
        const unsigned int n_timed = (unsigned)timed;
        fwrite(loss, sizeof(float), (size_t)steps, f);
        fwrite(&ms, sizeof ms, 1, f);
        fwrite(&n_timed, sizeof n_timed, 1, f);
        fclose(f);
        printf("  wrote the start and the results to %s\n", out);
    }
    bool finite = true;
    for (int st = 0; st < steps; ++st)
        finite = finite && std::isfinite(loss[st]);
    char what[128];
    snprintf(what, sizeof what, "losses finite, first %.4f near ln 10 = 2.3026", loss[0]);
    expect(finite && fabs(loss[0] - 2.302585) < 0.3, what);
    snprintf(what, sizeof what, "the loss falls: %.6f after %d steps", loss[steps - 1], steps);
    expect(loss[steps - 1] < loss[0], what);
    gpuh_free(X);
    gpuh_free(labels);
    gpuh_free(bits);
    gpuh_free(d_loss);
    net_destroy(&nt);
}

/* Finds examples/data/digits.bin from the working directory (the source
   tree, or a build folder inside it). */
static FILE *open_digits(const char *path)
{
    const char *tries[4] = {path, "examples/data/digits.bin", "../examples/data/digits.bin",
                            "../../examples/data/digits.bin"};
    for (int i = 0; i < 4; ++i)
        if (tries[i] != NULL) {
            FILE *f = fopen(tries[i], "rb");
            if (f != NULL) {
                printf("  data: %s\n", tries[i]);
                return f;
            }
        }
    return NULL;
}

/* scikit-learn's digits: 64-128-10, mini-batches, accuracy on a held-out 20 %. */
static void mode_digits(const char *path, unsigned long long seed)
{
    const size_t H = 128, C = 10, batch = 32;
    const int epochs = quick ? 12 : 60;
    char magic[8];
    unsigned int head[2];
    printf("digits: scikit-learn's 8 x 8 handwritten digits (UCI, CC BY 4.0), %d epochs, batches of %zu\n", epochs,
           batch);
    FILE *f = open_digits(path);
    if (f == NULL || fread(magic, 1, 8, f) != 8 || memcmp(magic, "GPUHDIG1", 8) != 0 || fread(head, 4, 2, f) != 2) {
        printf("  cannot read examples/data/digits.bin (give its path as the second argument)\n");
        ++failures;
        if (f)
            fclose(f);
        return;
    }
    const size_t n = head[0], I = head[1];
    std::vector<unsigned char> pix(n * I), lab(n);
    const bool read_ok = fread(pix.data(), 1, n * I, f) == n * I && fread(lab.data(), 1, n, f) == n;
    fclose(f);
    if (!read_ok) {
        printf("  digits.bin is cut short\n");
        ++failures;
        return;
    }
    /* A fixed shuffle (so the split is the same every run), then 80 % / 20 %. */
    std::vector<size_t> order(n);
    unsigned long long state = 0x13579bdfull;
    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    for (size_t i = n - 1; i > 0; --i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        std::swap(order[i], order[(state >> 33) % (i + 1)]);
    }
    const size_t n_test = n / 5, n_train = n - n_test;
    std::vector<float> x_all(n * I);
    for (size_t i = 0; i < n; ++i)
        for (size_t k = 0; k < I; ++k)
            x_all[i * I + k] = pix[order[i] * I + k] / 16.0f;

    net nt;
    net_create(&nt, I, H, C, seed);
    float *X, *d_loss, *Z;
    int *labels;
    float *h_x;
    int *h_y;
    GPUH_CHECK(gpuh_device_array(&X, n_train * I));
    GPUH_CHECK(gpuh_device_array(&labels, n_train));
    GPUH_CHECK(gpuh_device_array(&d_loss, gpuh_ceil_div(n_train, batch)));
    GPUH_CHECK(gpuh_pinned_array(&h_x, n_train * I));
    GPUH_CHECK(gpuh_pinned_array(&h_y, n_train));
    std::vector<size_t> perm(n_train);
    for (size_t i = 0; i < n_train; ++i)
        perm[i] = i;
    std::vector<float> losses(gpuh_ceil_div(n_train, batch));
    for (int e = 0; e < epochs; ++e) {
        /* A new order each epoch, then the batches are consecutive rows. */
        for (size_t i = n_train - 1; i > 0; --i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            std::swap(perm[i], perm[(state >> 33) % (i + 1)]);
        }
        for (size_t i = 0; i < n_train; ++i) {
            memcpy(h_x + i * I, &x_all[perm[i] * I], I * sizeof(float));
            h_y[i] = lab[order[perm[i]]];
        }
        GPUH_CHECK(gpuh_copy_to_device_async(X, h_x, n_train * I, nt.s0));
        GPUH_CHECK(gpuh_copy_to_device_async(labels, h_y, n_train, nt.s0));
        size_t b = 0;
        for (size_t r0 = 0; r0 < n_train; r0 += batch, ++b)
            train_step(&nt, X + r0 * I, labels + r0, std::min(batch, n_train - r0), d_loss + b, NULL);
        if (e == 0 || e == epochs - 1 || (e + 1) % 10 == 0) {
            double mean = 0;
            GPUH_CHECK(gpuh_stream_sync(nt.s0));
            GPUH_CHECK(gpuh_copy_to_host(losses.data(), d_loss, losses.size()));
            for (size_t i = 0; i < losses.size(); ++i)
                mean += losses[i] / losses.size();
            printf("  epoch %3d  mean training loss %.4f\n", e + 1, mean);
        }
    }
    /* Test: the forward pass on the held-out rows, argmax on the host. */
    GPUH_CHECK(gpuh_stream_sync(nt.s0));
    const float *W1 = nt.p + nt.off[0], *b1 = nt.p + nt.off[1], *W2 = nt.p + nt.off[2];
    float *hid;
    std::vector<float> z(n_test * C), b2(C);
    dim3 grid;
    GPUH_CHECK(gpuh_copy_to_device(X, &x_all[n_train * I], n_test * I));
    GPUH_CHECK(gpuh_pool_alloc(&nt.pool, &hid, n_test * H, nt.s0));
    GPUH_CHECK(gpuh_pool_alloc(&nt.pool, &Z, n_test * C, nt.s0));
    GPUH_CHECK(gpuh_gemm<float>(GPUH_OP_N, GPUH_OP_T, n_test, H, I, 1.0f, X, I, W1, I, 0.0f, hid, H, nt.s0));
    GPUH_CHECK(launch_1d(n_test * H / 4, &grid));
    GPUH_LAUNCH(bias_relu_kernel, grid, 256, 0, nt.s0, hid, b1, n_test, H);
    GPUH_CHECK(gpuh_gemm<float>(GPUH_OP_N, GPUH_OP_T, n_test, C, H, 1.0f, hid, H, W2, H, 0.0f, Z, C, nt.s0));
    GPUH_CHECK(gpuh_stream_sync(nt.s0));
    GPUH_CHECK(gpuh_copy_to_host(z.data(), Z, n_test * C));
    GPUH_CHECK(gpuh_copy_to_host(b2.data(), nt.p + nt.off[3], C));
    GPUH_CHECK(gpuh_pool_free(&nt.pool, hid, nt.s0));
    GPUH_CHECK(gpuh_pool_free(&nt.pool, Z, nt.s0));
    size_t right = 0;
    for (size_t i = 0; i < n_test; ++i) {
        size_t best = 0;
        for (size_t c = 1; c < C; ++c)
            if (z[i * C + c] + b2[c] > z[i * C + best] + b2[best])
                best = c;
        right += best == lab[order[n_train + i]];
    }
    print_pool(&nt, "after training");
    GPUH_CHECK(gpuh_empty_cache(&nt.pool));
    print_pool(&nt, "empty_cache");
    const double acc = (double)right / n_test, target = quick ? 0.90 : 0.95;
    char what[128];
    snprintf(what, sizeof what, "test accuracy %.2f %% (%zu of %zu held-out images), target %.0f %%", 100 * acc,
             right, n_test, 100 * target);
    expect(acc >= target, what);
    gpuh_free(X);
    gpuh_free(labels);
    gpuh_free(d_loss);
    gpuh_free(h_x);
    gpuh_free(h_y);
    net_destroy(&nt);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    const char *why = "";
    quick = quick_mode();
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n" GPUH_SIM_TWIN_HINT("13_dense_network") "\n", why);
        return 77;
    }
    const unsigned long long seed = gpuh_random_seed();
    printf("seed %llu (GPUH_SEED=%llu repeats the run)%s\n", seed, seed, quick ? ", quick mode" : "");
    const bool all = strcmp(mode, "all") == 0;
    if (all || strcmp(mode, "check") == 0)
        mode_check(seed);
    if (all || strcmp(mode, "tutorial") == 0)
        mode_tutorial(seed, NULL);
    if (strcmp(mode, "export") == 0) {
        if (argc < 3) {
            printf("usage: %s export FILE\n", argv[0]);
            return 2;
        }
        mode_tutorial(seed, argv[2]);
    }
    if (all || strcmp(mode, "digits") == 0)
        mode_digits(argc > 2 ? argv[2] : NULL, seed);
    printf("Result = %s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
