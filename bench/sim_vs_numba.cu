/* sim_vs_numba.cu - gpuh's CPU simulator's side of bench/sim_vs_numba.sh: the
   same two kernels as bench/sim_vs_numba.py (the tutorials' vector add of 2^20
   float32 in blocks of 256; a 256 x 256 float32 matmul in 16 x 16 shared-memory
   tiles with __syncthreads; a 256-bin histogram of 2^20 bytes in
   shared memory with atomics), and the vector add as a plain single-threaded C
   loop. Each is checked, then timed: median of REPS runs after a warm-up, on
   the host clock. Plain CUDA with <<< >>>, built by tools/gpuh-simcc.
   Prints one line per measurement: name milliseconds. */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define REPS 11
#define TILE 16

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

/* C = A B, m x m row-major, m a multiple of TILE; block TILE x TILE, one thread per C entry. */
__global__ void matmul_tiled(const float *A, const float *B, float *C, int m)
{
    __shared__ float s_a[TILE][TILE];
    __shared__ float s_b[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < m / TILE; ++t) {
        s_a[ty][tx] = A[row * m + t * TILE + tx];
        s_b[ty][tx] = B[(t * TILE + ty) * m + col];
        __syncthreads(); /* the tiles are loaded before anyone reads them */
        for (int k = 0; k < TILE; ++k)
            acc += s_a[ty][k] * s_b[k][tx];
        __syncthreads(); /* everyone is done with the tiles before they are overwritten */
    }
    C[row * m + col] = acc;
}

/* bins[v] += count of bytes equal to v: each block counts its grid-stride share
   in shared memory (atomicAdd there), then adds its counts to the global bins. */
__global__ void histogram_shared(const unsigned char *data, int n, unsigned *bins)
{
    __shared__ unsigned s_bins[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        s_bins[b] = 0;
    __syncthreads(); /* the bins are zero before anyone counts */
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s_bins[data[i]], 1u);
    __syncthreads(); /* every count is in before the block's bins are added up */
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        atomicAdd(&bins[b], s_bins[b]);
}

static void vector_add_c(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}

/* Median of REPS timed calls of f (after one untimed), in ms. */
template <class F> static double median_ms(F f)
{
    double t[REPS];
    f();
    for (int r = 0; r < REPS; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        t[r] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    std::sort(t, t + REPS);
    return t[REPS / 2];
}

static void check(bool ok, const char *what)
{
    if (!ok) {
        printf("FAIL: %s\n", what);
        exit(1);
    }
}

int main()
{
    const int n = 1 << 20, m = 256;
    float *a, *b, *c, *h_c, *A, *B, *C;
    check(cudaMallocManaged(&a, n * sizeof(float)) == cudaSuccess && cudaMallocManaged(&b, n * sizeof(float)) == 0 &&
              cudaMallocManaged(&c, n * sizeof(float)) == 0 && cudaMallocManaged(&A, m * m * sizeof(float)) == 0 &&
              cudaMallocManaged(&B, m * m * sizeof(float)) == 0 && cudaMallocManaged(&C, m * m * sizeof(float)) == 0,
          "allocation");
    h_c = static_cast<float *>(malloc(n * sizeof(float)));
    srand(1);
    for (int i = 0; i < n; ++i) {
        a[i] = rand() / (float)RAND_MAX;
        b[i] = rand() / (float)RAND_MAX;
        c[i] = h_c[i] = NAN;
    }
    for (int i = 0; i < m * m; ++i) {
        A[i] = rand() / (float)RAND_MAX - 0.5f;
        B[i] = rand() / (float)RAND_MAX - 0.5f;
        C[i] = NAN;
    }

    double ms = median_ms([&] {
        vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
        cudaDeviceSynchronize();
    });
    check(cudaGetLastError() == cudaSuccess, "vector_add launch");
    for (int i = 0; i < n; ++i)
        check(c[i] == a[i] + b[i], "vector_add result");
    printf("vector_add %.4f\n", ms);

    ms = median_ms([&] { vector_add_c(a, b, h_c, n); });
    for (int i = 0; i < n; ++i)
        check(h_c[i] == a[i] + b[i], "plain C result");
    printf("vector_add_plain_c %.4f\n", ms);

    ms = median_ms([&] {
        matmul_tiled<<<dim3(m / TILE, m / TILE), dim3(TILE, TILE)>>>(A, B, C, m);
        cudaDeviceSynchronize();
    });
    check(cudaGetLastError() == cudaSuccess, "matmul launch");
    double num = 0, den = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            double ref = 0;
            for (int k = 0; k < m; ++k)
                ref += (double)A[i * m + k] * B[k * m + j];
            num += (C[i * m + j] - ref) * (C[i * m + j] - ref);
            den += ref * ref;
        }
    check(std::sqrt(num / den) < 1e-5, "matmul result");
    printf("matmul_tiled %.4f\n", ms);

    unsigned char *data;
    unsigned *bins;
    check(cudaMallocManaged(&data, n) == cudaSuccess && cudaMallocManaged(&bins, 256 * sizeof(unsigned)) == 0,
          "histogram allocation");
    unsigned ref_bins[256] = {0};
    for (int i = 0; i < n; ++i) {
        data[i] = static_cast<unsigned char>(rand() % 256 * (rand() % 4 ? 1 : 0)); /* a quarter of them 0: contended */
        ++ref_bins[data[i]];
    }
    ms = median_ms([&] {
        cudaMemset(bins, 0, 256 * sizeof(unsigned));
        histogram_shared<<<256, 256>>>(data, n, bins);
        cudaDeviceSynchronize();
    });
    check(cudaGetLastError() == cudaSuccess, "histogram launch");
    for (int b = 0; b < 256; ++b)
        check(bins[b] == ref_bins[b], "histogram result");
    printf("histogram_shared %.4f\n", ms);
    return 0;
}
