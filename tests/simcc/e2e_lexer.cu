/* e2e_lexer.cu - what gpuh-simcc's lexer must read as nvcc does, in one program
   that runs on a GPU (nvcc e2e_lexer.cu) and on the simulator
   (tools/gpuh-simcc tests/simcc/e2e_lexer.cu -o e2e && ./e2e): raw strings
   holding quotes and launch-like text, launches in multi-line #defines (splices
   before <<< and before the closing parenthesis among them), digit
   separators, <, > and >> in a kernel's template arguments and in a launch's
   configuration, operator templates. Checks its own results; prints PASS. */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x)                                                                    \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) {                                                    \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            return 1;                                                               \
        }                                                                           \
    } while (0)

// text that looks like code: the rewrite must leave it as written
static const char *k_usage = R"(usage: "fill" <<<grid, block>>>(out, n, v)
  extern __shared__ int s[];  a backslash \ and a 'quote' stay)";
static const char *k_delim = R"end(a )" inside; fill<3, true><<<1, 1>>>(0, 0, 0);)end";

template <typename T> struct box { T v; };
template <typename T> struct is_small { static const bool value = sizeof(T) < 8; };
template <typename T> bool operator<(const box<T> &a, const box<T> &b) { return a.v < b.v; }
template <typename T> box<T> operator<<(box<T> a, int s) { a.v <<= s; return a; }
template <> bool operator< <int>(const box<int> &a, const box<int> &b) { return a.v < b.v; }
template <> box<int> operator<< <int>(box<int> a, int s) { a.v = a.v << s; return a; }

template <typename T> __host__ __device__ T blocks_for(T n) { return (n + 255) / 256; }
template <int A, int B> int pick(int n) { return (n + B - 1) / B * A; }

/* out[i] = v + A + (B ? 1'000 : 0), one thread per element. */
template <int A, bool B> __global__ void fill(int *out, int n, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = v + A + (B ? 1'000 : 0);
}

// a launch in a macro spread over lines
#define LAUNCH_FILL(ptr, n, v)                                  \
    fill<is_small<int>::value ? 2 : 9, (3 > 2)><<<blocks_for<int>(n), \
                                                  256>>>(       \
        ptr, n, v)

// a launch in a macro with a splice right before <<< and right before the closing parenthesis
#define LAUNCH_FILL_SPLICED(ptr, n, v)                          \
    fill<3,                                                     \
         false>                                                 \
        <<<blocks_for<int>(n), 256>>>(                          \
            ptr, n, v                                           \
        )

int main()
{
    const int n = 10'007; // odd, so the last block is partial
    int *d = nullptr;
    static int h[10'007];
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    int bad = 0;

    LAUNCH_FILL(d, n, 5);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        bad += h[i] != 5 + 2 + 1'000;

    LAUNCH_FILL_SPLICED(d, n, 40);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        bad += h[i] != 40 + 3;

    fill<(1 < 2) ? 4 : 0, false><<<dim3(blocks_for<int>(n)), 256>>>(d, n, 0x1'0);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        bad += h[i] != 16 + 4;

    fill<7, (5 >> 1) == 2><<<pick<1, 128>(n), 128>>>(d, n, '\'');
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        bad += h[i] != '\'' + 7 + 1'000;

    box<int> a{1}, b{2};
    bad += !(operator< <int>(a, b)) + ((a << 3).v != 8);
    bad += strstr(k_usage, "<<<grid, block>>>(out, n, v)\n  extern __shared__ int s[];") == nullptr;
    bad += strcmp(k_delim, "a )\" inside; fill<3, true><<<1, 1>>>(0, 0, 0);") != 0;
    CHECK(cudaFree(d));
    printf("e2e_lexer: %d wrong values: %s\n", bad, bad ? "FAIL" : "PASS");
    return bad != 0;
}
