/* 15_source_module.cu - kernels compiled from a source string while the program runs.

   Teaches: PyCUDA's SourceModule in C. A tutorial's Python program writes
       mod = SourceModule("""__global__ void add(...) {...}""")
       add = mod.get_function("add")
       add(a_gpu, b_gpu, c_gpu, np.int32(N), block=(256, 1, 1), grid=(4, 1))
   and gpuh writes the same three steps:
       gpuh_source_module(&mod, source, options, num_options);
       gpuh_module_function(mod, "add", &add);
       gpuh_module_launch(&add, grid, block, 0, stream, args, 4);
   where args is {GPUH_ARG(d_a), GPUH_ARG(d_b), GPUH_ARG(d_c), GPUH_ARG(n)}: the
   address and size of each argument. NVRTC compiles the string for this
   device (-arch of the current device unless an option gives one), the
   driver loads it, and gpuh checks each argument's size against the
   kernel's parameter: where Python needs np.int32(N) so that the kernel
   reads 4 bytes, gpuh refuses an argument of the wrong size. A kernel that
   the source generates from sizes or formulas is where this pays: here
   the block size of the matrix product is a -D option.
   The three programs are PyCUDA's: the 5-element add, the guarded add of
   N = 1024 random ints in 256-thread blocks, the naive 1024 x 1024 product.
   Checks: each result against the host (the ints exactly, the product
   within float's rounding of a float64 reference); a second compile of the
   same source comes from gpuh's cache (no NVRTC log).
   Quick mode (GPUH_TEST_QUICK=1, as every example): a 128 x 128 product.
   On the simulator the same calls compile the source on the CPU. */
#ifndef GPUH_USE_NVRTC
#define GPUH_USE_NVRTC /* gpuh_module_*: this example is about them (CMake: gpuh::nvrtc) */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "quick_mode.h"

/* PyCUDA's first program: one block of 5 threads, thread i adds element i. */
static const char *add5_source = "__global__ void add(int *a, int *b, int *c)\n"
                                 "{\n"
                                 "    int i = threadIdx.x;\n"
                                 "    c[i] = a[i] + b[i];\n"
                                 "}\n";

/* The guarded add: enough 256-thread blocks to cover n, and the `if (i < n)`
   for the threads of the last block past the end. */
static const char *add_source = "__global__ void add(const int *a, const int *b, int *c, int n)\n"
                                "{\n"
                                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                "    if (i < n)\n"
                                "        c[i] = a[i] + b[i];\n"
                                "}\n";

/* The naive product: thread (col, row) of a TILE x TILE block computes
   C[row][col] from row `row` of A and column `col` of B (n x n, row-major). */
static const char *matmul_source = "__global__ void matmul(const float *A, const float *B, float *C, int n)\n"
                                   "{\n"
                                   "    int row = blockIdx.y * TILE + threadIdx.y;\n"
                                   "    int col = blockIdx.x * TILE + threadIdx.x;\n"
                                   "    if (row < n && col < n) {\n"
                                   "        float sum = 0.0f;\n"
                                   "        for (int k = 0; k < n; ++k)\n"
                                   "            sum += A[row * n + k] * B[k * n + col];\n"
                                   "        C[row * n + col] = sum;\n"
                                   "    }\n"
                                   "}\n";

static unsigned long long next_random(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Compiles `source`, finds "add" or "matmul", and reports; 0 on failure. */
static int compile(gpuh_module **mod, gpuh_kernel *k, const char *source, const char *name, const char *const *opts,
                   int num_opts)
{
    cudaError_t err = gpuh_source_module(mod, source, opts, num_opts);
    if (err == cudaSuccess)
        err = gpuh_module_function(*mod, name, k);
    if (err != cudaSuccess) {
        printf("%s: %s: %s\n", name, cudaGetErrorName(err), gpuh_error_detail());
        return 0;
    }
    return 1;
}

static int run_add5(void)
{
    int a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50}, c[5] = {0}, *d_a, *d_b, *d_c, i, ok = 1;
    gpuh_module *mod = NULL;
    gpuh_kernel add;
    if (!compile(&mod, &add, add5_source, "add", NULL, 0))
        return 0;
    GPUH_CHECK(gpuh_to_device(&d_a, a, 5));
    GPUH_CHECK(gpuh_to_device(&d_b, b, 5));
    GPUH_CHECK(gpuh_device_array(&d_c, 5));
    {
        gpuh_arg args[] = {GPUH_ARG(d_a), GPUH_ARG(d_b), GPUH_ARG(d_c)};
        GPUH_CHECK(gpuh_module_launch(&add, dim3(1), dim3(5), 0, 0, args, 3));
    }
    GPUH_CHECK(gpuh_copy_to_host(c, d_c, 5));
    printf("1. add of 5:       c =");
    for (i = 0; i < 5; ++i) {
        printf(" %d", c[i]);
        ok = ok && c[i] == a[i] + b[i];
    }
    printf("  (%s)\n", ok ? "equal to the host's" : "WRONG");
    gpuh_free(d_a);
    gpuh_free(d_b);
    gpuh_free(d_c);
    GPUH_CHECK(gpuh_module_destroy(&mod));
    return ok;
}

static int run_add(unsigned long long *state)
{
    enum { N = 1024, BLOCK = 256 };
    static int a[N], b[N], c[N];
    int *d_a, *d_b, *d_c, n = N, i, wrong = 0;
    gpuh_module *mod = NULL, *again = NULL;
    gpuh_kernel add;
    dim3 grid;
    for (i = 0; i < N; ++i) {
        a[i] = (int)(next_random(state) % 2000001) - 1000000;
        b[i] = (int)(next_random(state) % 2000001) - 1000000;
        c[i] = 0x7fffffff; /* poisoned: a thread that writes nothing shows */
    }
    if (!compile(&mod, &add, add_source, "add", NULL, 0))
        return 0;
    GPUH_CHECK(gpuh_grid_1d(&grid, N, BLOCK)); /* ceil(1024 / 256) = 4 blocks */
    GPUH_CHECK(gpuh_to_device(&d_a, a, N));
    GPUH_CHECK(gpuh_to_device(&d_b, b, N));
    GPUH_CHECK(gpuh_to_device(&d_c, c, N));
    {
        gpuh_arg args[] = {GPUH_ARG(d_a), GPUH_ARG(d_b), GPUH_ARG(d_c), GPUH_ARG(n)};
        GPUH_CHECK(gpuh_module_launch(&add, grid, dim3(BLOCK), 0, 0, args, 4));
    }
    GPUH_CHECK(gpuh_copy_to_host(c, d_c, N));
    for (i = 0; i < N; ++i)
        wrong += c[i] != a[i] + b[i];
    printf("2. guarded add:    %d random ints in %u blocks of %d threads, %d wrong\n", N, grid.x, BLOCK, wrong);
    /* the same source again: from gpuh's cache, so NVRTC does not run (no log) */
    GPUH_CHECK(gpuh_source_module(&again, add_source, NULL, 0));
    printf("   second compile of the same source: %s\n",
           gpuh_module_log(again)[0] == '\0' ? "from the cache" : "compiled again");
    gpuh_free(d_a);
    gpuh_free(d_b);
    gpuh_free(d_c);
    GPUH_CHECK(gpuh_module_destroy(&again));
    GPUH_CHECK(gpuh_module_destroy(&mod));
    return wrong == 0;
}

static int run_matmul(unsigned long long *state, int n)
{
    enum { TILE = 16 };
    const char *opts[] = {"-DTILE=16"}; /* the block's side, given to the source as a macro */
    const size_t nn = (size_t)n * n;
    float *A = (float *)malloc(nn * sizeof(float)), *B = (float *)malloc(nn * sizeof(float));
    float *C = (float *)malloc(nn * sizeof(float)), *Bt = (float *)malloc(nn * sizeof(float)), *d_A, *d_B, *d_C;
    double worst = 0.0;
    gpuh_module *mod = NULL;
    gpuh_kernel matmul;
    dim3 grid;
    size_t i;
    int row, col, k;
    if (A == NULL || B == NULL || C == NULL || Bt == NULL) {
        printf("out of host memory\n");
        free(A), free(B), free(C), free(Bt);
        return 0;
    }
    for (i = 0; i < nn; ++i) {
        A[i] = (float)((double)(next_random(state) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        B[i] = (float)((double)(next_random(state) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
    if (!compile(&mod, &matmul, matmul_source, "matmul", opts, 1)) {
        free(A), free(B), free(C), free(Bt);
        return 0;
    }
    GPUH_CHECK(gpuh_grid_2d(&grid, n, n, dim3(TILE, TILE)));
    GPUH_CHECK(gpuh_to_device(&d_A, A, nn));
    GPUH_CHECK(gpuh_to_device(&d_B, B, nn));
    GPUH_CHECK(gpuh_device_array(&d_C, nn));
    {
        gpuh_arg args[] = {GPUH_ARG(d_A), GPUH_ARG(d_B), GPUH_ARG(d_C), GPUH_ARG(n)};
        GPUH_CHECK(gpuh_module_launch(&matmul, grid, dim3(TILE, TILE), 0, 0, args, 4));
    }
    GPUH_CHECK(gpuh_copy_to_host(C, d_C, nn));
    /* each element against a float64 sum (B transposed first, so that both
       walk memory in order): float's rounding over n terms of magnitude
       <= 1 stays well under n * 2^-24 * sqrt(n) */
    for (row = 0; row < n; ++row)
        for (col = 0; col < n; ++col)
            Bt[(size_t)col * n + row] = B[(size_t)row * n + col];
    for (row = 0; row < n; ++row)
        for (col = 0; col < n; ++col) {
            const float *a = A + (size_t)row * n, *b = Bt + (size_t)col * n;
            double ref = 0.0, err;
            for (k = 0; k < n; ++k)
                ref += (double)a[k] * b[k];
            err = fabs(C[(size_t)row * n + col] - ref);
            worst = err > worst ? err : worst;
        }
    printf("3. naive matmul:   %d x %d in %u x %u blocks of %d x %d, largest error %.3g (bound %.3g)\n", n, n,
           grid.x, grid.y, TILE, TILE, worst, n * sqrt((double)n) * 5.96e-8);
    gpuh_free(d_A);
    gpuh_free(d_B);
    gpuh_free(d_C);
    GPUH_CHECK(gpuh_module_destroy(&mod));
    free(A), free(B), free(C), free(Bt);
    return worst <= n * sqrt((double)n) * 5.96e-8;
}

int main(void)
{
    const char *why;
    const int quick = quick_mode();
    unsigned long long seed = gpuh_random_seed(), state = seed;
    int ok;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("15_source_module"));
        return 77;
    }
    printf("kernels compiled from source at run time (seed %llu)\n", seed);
    ok = run_add5();
    ok = run_add(&state) && ok;
    ok = run_matmul(&state, quick ? 128 : 1024) && ok;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
