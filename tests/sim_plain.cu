/* sim_plain.cu - a plain CUDA program, as tutorials write it: no gpuh.h, raw
   kernel<<<grid, block, shmem, stream>>>(args) launches (one spread over
   several lines, one of a template kernel in a namespace), extern __shared__
   memory, a stream. It must run unchanged on a GPU (nvcc sim_plain.cu) and on
   the CPU simulator through the wrapper:
       tools/gpuh-simcc tests/sim_plain.cu -o sim_plain && ./sim_plain
   Prints Result = PASS when every output matches the CPU's. */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                                                     \
    do {                                                                                             \
        cudaError_t e_ = (x);                                                                        \
        if (e_ != cudaSuccess) {                                                                     \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));               \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

/* c[i] = a[i] + b[i]: one thread per element. */
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

namespace demo {
/* Each block sums BLOCK consecutive elements into sums[blockIdx.x]; BLOCK is a
   power of two; dynamic shared memory: BLOCK * sizeof(T) bytes. */
template <typename T, int BLOCK> __global__ void block_sum(const T *x, int n, T *sums)
{
    extern __shared__ unsigned char s_raw[];
    T *s = reinterpret_cast<T *>(s_raw);
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? x[i] : T(0);
    __syncthreads(); /* every element is in shared memory before anyone adds */
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads(); /* this level's sums are written before the next level reads them */
    }
    if (t == 0)
        sums[blockIdx.x] = s[0];
}
} // namespace demo

int main()
{
    const int n = 100003, threads = 256, blocks = (n + threads - 1) / threads;
    float *a, *b, *c;
    double *x, *sums;
    CHECK(cudaMallocManaged(&a, n * sizeof(float)));
    CHECK(cudaMallocManaged(&b, n * sizeof(float)));
    CHECK(cudaMallocManaged(&c, n * sizeof(float)));
    CHECK(cudaMallocManaged(&x, n * sizeof(double)));
    CHECK(cudaMallocManaged(&sums, blocks * sizeof(double)));
    srand(12345);
    for (int i = 0; i < n; ++i) {
        a[i] = static_cast<float>(rand() % 1000);
        b[i] = static_cast<float>(rand() % 1000);
        x[i] = rand() % 1000 - 500;
        c[i] = -1.0f;
    }
    vector_add<<<blocks, threads>>>(a, b, c, n);
    CHECK(cudaGetLastError());

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    demo::block_sum<double, 256><<<blocks, threads,
                                  threads * sizeof(double), stream>>>(x, n,
                                                                      sums);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaDeviceSynchronize());

    int bad = 0;
    for (int i = 0; i < n; ++i)
        bad += c[i] != a[i] + b[i];
    for (int k = 0; k < blocks; ++k) {
        double want = 0;
        for (int i = k * threads; i < n && i < (k + 1) * threads; ++i)
            want += x[i];
        bad += sums[k] != want; /* integers: every order of adding is exact */
    }
    printf("vector add of %d floats and %d block sums: %d wrong\n", n, blocks, bad);
    printf("Result = %s\n", bad == 0 ? "PASS" : "FAIL");
    CHECK(cudaStreamDestroy(stream));
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(x);
    cudaFree(sums);
    return bad == 0 ? 0 : 1;
}
