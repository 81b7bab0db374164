/* nvtx_ranges.c - gpuh's NVTX ranges, seen through NVTX's own injection
   mechanism (label host: no device needed; more runs where there is one).

   CTest sets NVTX_INJECTION64_PATH to tests/nvtx_inject.c's library, which
   records every push and pop with its domain, name and depth; this program
   reads the record (dlopen of the same library, already loaded by NVTX) and
   checks, for calls that run without a GPU (they fail there, but their
   ranges open and close all the same):
   - each call that does GPU work or waits opens one range in the "gpuh"
     domain, named by the call, nested in the caller's own gpuh_nvtx_push;
   - every range is closed on the error paths too (the depth returns to 0);
   - calls too short for a range (geometry, a 0-element allocation) open none;
   - the C++ GPUH_NVTX_RANGEF scope closes on an early return (nvtx_scope.cpp);
   - with a device: gpuh_pipeline's chunks, each in its own range inside
     gpuh_pipeline's.
   Built a second time with -DGPUH_NVTX=0 (host.nvtx.off): no range at all. */
#include <dlfcn.h>

#include "gpuh_test.h"

int nvtx_scope_case(int early); /* nvtx_scope.cpp */

static const char *(*read_log)(void);
static void (*clear_log)(void);

static const char *take(void)
{
    static char copy[1 << 16];
    snprintf(copy, sizeof copy, "%s", read_log());
    clear_log();
    return copy;
}

#if GPUH_NVTX
#define EXPECT_LOG(want)                                                                        \
    do {                                                                                        \
        const char *got = take();                                                               \
        TEST_ASSERT(strcmp(got, (want)) == 0, "ranges:\n%s\nwant:\n%s", got, (want));           \
    } while (0)
#else
#define EXPECT_LOG(want) EXPECT_LOG_EMPTY()
#endif
#define EXPECT_LOG_EMPTY()                                                                      \
    do {                                                                                        \
        const char *got = take();                                                               \
        TEST_ASSERT(got[0] == '\0', "ranges where none belong:\n%s", got);                     \
    } while (0)

static cudaError_t copy_launcher(const void *const *d_in, void *const *d_out, size_t count, size_t first,
                                 cudaStream_t stream, void *user)
{
    (void)first;
    (void)user;
    return cudaMemcpyAsync(d_out[0], d_in[0], count * sizeof(float), cudaMemcpyDeviceToDevice, stream);
}

static void test_without_device(void)
{
    float h[4] = {1, 2, 3, 4}, *d = NULL, ms = 0.0f;
    dim3 grid;

    /* A wait, inside the caller's own range. */
    gpuh_nvtx_push("caller");
    (void)gpuh_stream_sync(0);
    gpuh_nvtx_pop();
    EXPECT_LOG("push gpuh caller 1\npush gpuh gpuh_stream_sync 2\npop gpuh 1\npop gpuh 0\n");

    /* Copies: a host pointer where device memory belongs is refused, inside the range. */
    (void)gpuh_copy_to_host(h, h, 4);
    EXPECT_LOG("push gpuh gpuh_copy_to_host 1\npop gpuh 0\n");
    (void)gpuh_copy_to_device_async(h, h, 4, 0);
    EXPECT_LOG("push gpuh gpuh_copy_to_device_async 1\npop gpuh 0\n");

    /* An argument refused before any CUDA call still closes its range. */
    TEST_ERR(gpuh_event_elapsed_ms(NULL, NULL, &ms), cudaErrorInvalidValue);
    EXPECT_LOG("push gpuh gpuh_event_elapsed_ms 1\npop gpuh 0\n");
    TEST_ERR(gpuh_pipeline(NULL), cudaErrorInvalidValue);
    EXPECT_LOG("push gpuh gpuh_pipeline 1\npop gpuh 0\n");

    /* Formatted names. */
    gpuh_nvtx_pushf("step %d of %s", 3, "train");
    gpuh_nvtx_pop();
    EXPECT_LOG("push gpuh step 3 of train 1\npop gpuh 0\n");

    /* Too short for a range. */
    (void)gpuh_grid_1d(&grid, 1000, 256);
    (void)gpuh_device_array(&d, 0);
    gpuh_free(d);
    EXPECT_LOG_EMPTY();

    /* C++ scopes: closed on the early return and on the normal one. */
    TEST_ASSERT(nvtx_scope_case(1) == 1, "nvtx_scope_case(1)");
    EXPECT_LOG("push gpuh scope 1 1\npop gpuh 0\n");
    TEST_ASSERT(nvtx_scope_case(0) == 0, "nvtx_scope_case(0)");
    EXPECT_LOG("push gpuh scope 0 1\npush gpuh inner 2\npop gpuh 1\npop gpuh 0\n");
}

/* With a device: 10 elements in chunks of 4 on 2 streams, so 3 chunk ranges
   inside the pipeline's, and the output equal to the input. */
static void test_pipeline(void)
{
    float in[10], out[10];
    gpuh_pipeline_desc desc;
    size_t i;
    for (i = 0; i < 10; ++i) {
        in[i] = (float)i + 0.5f;
        out[i] = -1.0f;
    }
    memset(&desc, 0, sizeof desc);
    desc.n = 10;
    desc.in[0] = in;
    desc.in_elem_bytes[0] = sizeof(float);
    desc.out[0] = out;
    desc.out_elem_bytes[0] = sizeof(float);
    desc.chunk = 4;
    desc.streams = 2;
    desc.launch = copy_launcher;
    take();
    TEST_CUDA(gpuh_pipeline(&desc));
    for (i = 0; i < 10; ++i)
        TEST_ASSERT(out[i] == in[i], "out[%zu] = %g, want %g", i, out[i], in[i]);
    {
        const char *got = take();
#if GPUH_NVTX
        const char *c0 = strstr(got, "push gpuh gpuh_pipeline chunk 0 2\n");
        const char *c1 = strstr(got, "push gpuh gpuh_pipeline chunk 1 2\n");
        const char *c2 = strstr(got, "push gpuh gpuh_pipeline chunk 2 2\n");
        TEST_ASSERT(strncmp(got, "push gpuh gpuh_pipeline 1\n", 26) == 0, "the pipeline's range first:\n%s", got);
        TEST_ASSERT(c0 != NULL && c1 != NULL && c2 != NULL && c0 < c1 && c1 < c2,
                    "three chunk ranges in order at depth 2:\n%s", got);
        TEST_ASSERT(strstr(got, "chunk 3") == NULL, "a fourth chunk:\n%s", got);
        TEST_ASSERT(strlen(got) >= 11 && strstr(got, "pop gpuh 0\n") == got + strlen(got) - 11,
                    "the pipeline's range closes last:\n%s", got);
#else
        TEST_ASSERT(got[0] == '\0', "ranges where none belong:\n%s", got);
#endif
    }
}

int main(void)
{
    const char *path = getenv("NVTX_INJECTION64_PATH");
    void *lib;
    if (path == NULL || path[0] == '\0') {
        printf("nvtx_ranges: NVTX_INJECTION64_PATH is not set (CTest sets it to nvtx_inject's library)\n");
        return 1;
    }
    lib = dlopen(path, RTLD_NOW);
    if (lib == NULL) {
        printf("nvtx_ranges: cannot load %s: %s\n", path, dlerror());
        return 1;
    }
    *(void **)&read_log = dlsym(lib, "nvtx_inject_log");
    *(void **)&clear_log = dlsym(lib, "nvtx_inject_clear");
    if (read_log == NULL || clear_log == NULL) {
        printf("nvtx_ranges: %s has no nvtx_inject_log / nvtx_inject_clear\n", path);
        return 1;
    }
    printf("nvtx_ranges: GPUH_NVTX is %d\n", GPUH_NVTX);
    take();
    test_without_device();
    if (gpuh_device_count(NULL) > 0)
        test_pipeline();
    else
        printf("nvtx_ranges: no device: the pipeline's chunk ranges are checked where there is one\n");
    return gpuh_test_summary(GPUH_NVTX ? "nvtx_ranges" : "nvtx_ranges (GPUH_NVTX=0)");
}
