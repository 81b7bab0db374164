// A plain launch: two to four configuration values, a qualified kernel, a
// launch spread over lines (the line count is kept), one with no arguments.
__global__ void add(const float *a, float *b, int n) { if (threadIdx.x < n) b[threadIdx.x] += a[threadIdx.x]; }
__global__ void tick() {}
namespace ns { __global__ void k(int *p) { *p = 1; } }

void run(const float *a, float *b, int n, int *p, cudaStream_t s)
{
    add<<<1, 32>>>(a, b, n);
    add<<<dim3(1, 1), dim3(32), 0>>>(a, b, n);
    ns::k<<<1, 1, 0, s>>>(p);
    add<<<(n + 255) / 256, 256 /* threads */, 0, s>>>(a,
                                                     b,
                                                     n);
    tick<<<1, 1>>>();
    add<< <1, 32>> >(a, b, n);
}
