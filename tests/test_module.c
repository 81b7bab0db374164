/* test_module.c - gpuh_module: kernels compiled from source at run time
   (label host: the compile and its errors need no device; where there is
   one, the launches too). C99, linked to NVRTC and cudart only; on the
   simulator (sim.module) the same checks, launches included, with
   gpuh-simcc and the host compiler in NVRTC's place.

   Without a device: argument errors; a syntax error's detail (NVRTC's log,
   file and line); an option NVRTC refuses; a name expression that names
   nothing; a valid source compiles (with its own -arch) and is cached on
   disk (GPUH_MODULE_CACHE_DIR, set by CTest), then stops at the missing
   driver with a detail saying so. With a device: PyCUDA's add by name; a
   template kernel through name expressions; dynamic shared memory on a
   stream; an unknown kernel name; a wrong argument count and size; the
   in-memory cache (a second compile has no log). */
#include <cuda_runtime.h>
#include "gpuh_test.h"

static const char *bad_source = "__global__ void add(int *a)\n{ a[0] = undefined_thing; }\n";
static const char *add_source = "__global__ void add(float *c, const float *a, const float *b, int n)\n"
                                "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n";

static void test_arguments(void)
{
    gpuh_module_desc desc;
    gpuh_module *m = NULL;
    const char *opts[1] = {NULL};
    memset(&desc, 0, sizeof desc);
    TEST_DETAIL(gpuh_module_compile(NULL, &desc), cudaErrorInvalidValue, "gpuh_module_compile: module (the output) is NULL");
    TEST_DETAIL(gpuh_module_compile(&m, NULL), cudaErrorInvalidValue, "gpuh_module_compile: desc is NULL");
    TEST_DETAIL(gpuh_module_compile(&m, &desc), cudaErrorInvalidValue, "gpuh_module_compile: desc->source is NULL");
    desc.source = add_source;
    desc.num_options = 1;
    TEST_DETAIL(gpuh_module_compile(&m, &desc), cudaErrorInvalidValue,
                "gpuh_module_compile: desc->num_options is 1 and options is NULL");
    desc.options = opts;
    TEST_DETAIL(gpuh_module_compile(&m, &desc), cudaErrorInvalidValue, "gpuh_module_compile: desc->options[0] is NULL");
    TEST_ASSERT(m == NULL, "module %p after an error", (void *)m);
    TEST_ERR(gpuh_module_destroy(&m), cudaSuccess);
    TEST_ERR(gpuh_module_destroy(NULL), cudaSuccess);
}

/* Errors of the compile itself, before any device is needed (-arch given). */
static void test_compile_errors(void)
{
    const char *arch[] = {"-arch=compute_80"};
    const char *bad_option[] = {"-arch=compute_80", "--no-such-option"};
    const char *nothing[] = {"no_such_kernel<int>"};
    gpuh_module_desc desc;
    gpuh_module *m = NULL;
    memset(&desc, 0, sizeof desc);
    desc.source = bad_source;
    desc.name = "bad.cu";
    desc.options = arch;
    desc.num_options = 1;
    TEST_ERR(gpuh_module_compile(&m, &desc), cudaErrorInvalidSource);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_module_compile: bad.cu did not compile: bad.cu(2): error");
    TEST_CONTAINS(gpuh_error_detail(), "undefined_thing");

    desc.source = add_source;
    desc.options = bad_option;
    desc.num_options = 2;
    TEST_ERR(gpuh_module_compile(&m, &desc), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "NVRTC_ERROR_INVALID_OPTION");

    desc.options = arch;
    desc.num_options = 1;
    desc.name_expressions = nothing;
    desc.num_name_expressions = 1;
    TEST_ASSERT(gpuh_module_compile(&m, &desc) != cudaSuccess, "a name expression naming nothing compiled");
    TEST_CONTAINS(gpuh_error_detail(), "no_such_kernel<int>");
    TEST_ASSERT(m == NULL, "module %p after an error", (void *)m);
}

/* A valid source with its own -arch: compiled and written to the disk cache
   whether or not there is a device. */
static void test_disk_cache(void)
{
    const char *arch[] = {"-arch=compute_80", "-DDISK_CACHE_TEST=1"};
    const char *dir = getenv("GPUH_MODULE_CACHE_DIR");
    char path[4096];
    gpuh_module_desc desc;
    gpuh_module *m = NULL;
    cudaError_t err;
    FILE *f;
    memset(&desc, 0, sizeof desc);
    desc.source = add_source;
    desc.options = arch;
    desc.num_options = 2;
    desc.extern_c = 1;
    err = gpuh_module_compile(&m, &desc);
    if (gpuh_device_count(NULL) == 0) {
        TEST_ASSERT(err != cudaSuccess && m == NULL, "a module loaded without a device");
        TEST_CONTAINS(gpuh_error_detail(), "the source compiled, but");
    } else {
        TEST_CUDA(err);
    }
    gpuh_module_destroy(&m);
    if (dir == NULL || dir[0] == '\0') {
        printf("test_module: GPUH_MODULE_CACHE_DIR is not set: the disk cache is not checked\n");
        return;
    }
#ifdef GPUH_SIM
    { /* the simulator's "device" in the key: the compiler and its own headers */
        char arch[80];
        TEST_CUDA(gpuh_impl_sim_identity(arch, sizeof arch));
        snprintf(path, sizeof path, "%s/gpuh-module-%016llx.bin", dir, gpuh_impl_module_key(&desc, arch));
    }
#else
    snprintf(path, sizeof path, "%s/gpuh-module-%016llx.bin", dir, gpuh_impl_module_key(&desc, ""));
#endif
    f = fopen(path, "rb");
    TEST_ASSERT(f != NULL, "no disk cache file %s", path);
    if (f != NULL) {
        char head[16] = {0};
        TEST_ASSERT(fread(head, 1, 14, f) == 14 && strcmp(head, "gpuh-module 1\n") == 0, "cache file head '%s'", head);
        fclose(f);
    }
}

/* PyCUDA's first program: 5 floats added by name. */
static void test_add(void)
{
    float a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50}, c[5] = {0}, *d_a, *d_b, *d_c;
    int n = 5, i;
    long long wrong = 5;
    gpuh_module *m = NULL;
    gpuh_kernel k, none;
    TEST_CUDA(gpuh_source_module(&m, add_source, NULL, 0));
    if (m == NULL)
        return;
    TEST_CUDA(gpuh_module_function(m, "add", &k));
    TEST_ASSERT(k.num_params == 4 || k.num_params == -1, "add has %d parameters", k.num_params);
    TEST_CUDA(gpuh_to_device(&d_a, a, 5));
    TEST_CUDA(gpuh_to_device(&d_b, b, 5));
    TEST_CUDA(gpuh_device_array(&d_c, 5));
    {
        gpuh_arg args[] = {GPUH_ARG(d_c), GPUH_ARG(d_a), GPUH_ARG(d_b), GPUH_ARG(n)};
        gpuh_arg bad_size[] = {GPUH_ARG(d_c), GPUH_ARG(d_a), GPUH_ARG(d_b), GPUH_ARG(wrong)};
        dim3 grid = {1, 1, 1}, block = {5, 1, 1};
        TEST_CUDA(gpuh_module_launch(&k, grid, block, 0, 0, args, 4));
        TEST_CUDA(gpuh_copy_to_host(c, d_c, 5));
        for (i = 0; i < 5; ++i)
            TEST_ASSERT(c[i] == a[i] + b[i], "c[%d] = %g, want %g", i, c[i], a[i] + b[i]);
        if (k.num_params == 4) {
            TEST_ERR(gpuh_module_launch(&k, grid, block, 0, 0, args, 3), cudaErrorInvalidValue);
            TEST_CONTAINS(gpuh_error_detail(), "3 arguments given, the kernel takes 4");
            TEST_ERR(gpuh_module_launch(&k, grid, block, 0, 0, bad_size, 4), cudaErrorInvalidValue);
            TEST_CONTAINS(gpuh_error_detail(), "argument 3 is 8 bytes but the kernel's parameter 3 is 4 bytes");
        }
        block.x = 2000;
        TEST_ERR(gpuh_module_launch(&k, grid, block, 0, 0, args, 4), cudaErrorInvalidConfiguration);
    }
    TEST_ERR(gpuh_module_function(m, "sub", &none), cudaErrorSymbolNotFound);
    TEST_CONTAINS(gpuh_error_detail(), "no kernel \"sub\" in the module");
    gpuh_free(d_a);
    gpuh_free(d_b);
    gpuh_free(d_c);
    TEST_CUDA(gpuh_module_destroy(&m));
    TEST_ASSERT(m == NULL, "destroy left %p", (void *)m);
}

/* A template through name expressions, shared memory and a stream; the
   unused variable gives NVRTC a warning for the log. */
static const char *scale_source =
    "template <typename T> __global__ void reverse_scale(T *x, T s, int n)\n"
    "{\n"
    "    extern __shared__ unsigned char raw[];\n"
    "    T *tile = reinterpret_cast<T *>(raw);\n"
    "    int unused_here;\n"
    "    int i = threadIdx.x;\n"
    "    if (i < n) tile[i] = x[i];\n"
    "    __syncthreads();\n"
    "    if (i < n) x[i] = s * tile[n - 1 - i];\n"
    "}\n";

static void test_templates(void)
{
    const char *names[] = {"reverse_scale<float>", "reverse_scale<double>"};
    double h[64], out[64];
    float hf[64], outf[64];
    double *d = NULL, s = 2.0;
    float *df = NULL, sf = 3.0f;
    int n = 64, i;
    gpuh_module_desc desc;
    gpuh_module *m = NULL, *again = NULL;
    gpuh_kernel kd, kf;
    cudaStream_t stream = NULL;
    char run[64];
    const char *opts[1];
    /* a macro of this run's own, so that the first compile is not found in
       the disk cache an earlier run left (its log, checked below, would be "") */
    snprintf(run, sizeof run, "-DTEST_RUN=%llu", gpuh_random_seed());
    opts[0] = run;
    memset(&desc, 0, sizeof desc);
    desc.source = scale_source;
    desc.name = "scale.cu";
    desc.options = opts;
    desc.num_options = 1;
    desc.name_expressions = names;
    desc.num_name_expressions = 2;
    TEST_CUDA(gpuh_module_compile(&m, &desc));
    if (m == NULL)
        return;
    TEST_CONTAINS(gpuh_module_log(m), "unused_here");
    TEST_CUDA(gpuh_module_compile(&again, &desc));
    TEST_ASSERT(again != NULL && gpuh_module_log(again)[0] == '\0', "a second compile ran NVRTC again: '%s'",
                gpuh_module_log(again));
    gpuh_module_destroy(&again);
    TEST_CUDA(gpuh_module_function(m, "reverse_scale<double>", &kd));
    TEST_CUDA(gpuh_module_function(m, "reverse_scale<float>", &kf));
    for (i = 0; i < n; ++i) {
        h[i] = i + 0.25;
        hf[i] = (float)i - 0.5f;
    }
    TEST_CUDA(gpuh_stream_create(&stream, cudaStreamNonBlocking, 0));
    TEST_CUDA(gpuh_to_device(&d, h, 64));
    TEST_CUDA(gpuh_to_device(&df, hf, 64));
    {
        gpuh_arg args[] = {GPUH_ARG(d), GPUH_ARG(s), GPUH_ARG(n)};
        gpuh_arg argsf[] = {GPUH_ARG(df), GPUH_ARG(sf), GPUH_ARG(n)};
        dim3 grid = {1, 1, 1}, block = {64, 1, 1};
        TEST_CUDA(gpuh_module_launch(&kd, grid, block, 64 * sizeof(double), stream, args, 3));
        TEST_CUDA(gpuh_module_launch(&kf, grid, block, 64 * sizeof(float), stream, argsf, 3));
        TEST_CUDA(gpuh_stream_sync(stream));
    }
    TEST_CUDA(gpuh_copy_to_host(out, d, 64));
    TEST_CUDA(gpuh_copy_to_host(outf, df, 64));
    for (i = 0; i < n; ++i) {
        TEST_ASSERT(out[i] == 2.0 * h[n - 1 - i], "double out[%d] = %g", i, out[i]);
        TEST_ASSERT(outf[i] == 3.0f * hf[n - 1 - i], "float out[%d] = %g", i, outf[i]);
    }
    gpuh_free(d);
    gpuh_free(df);
    gpuh_stream_destroy(&stream);
    TEST_CUDA(gpuh_module_destroy(&m));
}

int main(void)
{
    test_arguments();
    test_compile_errors();
    test_disk_cache();
    if (gpuh_device_count(NULL) > 0) {
        test_add();
        test_templates();
    } else {
        printf("test_module: no device: the launches are checked where there is one\n");
    }
    return gpuh_test_summary("test_module");
}
