/* fuzz_geometry.c - a libFuzzer target for gpuh.h's host-side geometry and
   size helpers, against exact 128-bit arithmetic.

   Each input is read as eight 64-bit little-endian words (missing bytes are
   0) that become the arguments of gpuh_ceil_div, gpuh_check_block,
   gpuh_grid_1d, gpuh_grid_2d, gpuh_grid_3d, the byte-size check every
   memory helper uses (count × element size must fit size_t) and GPUH_LAUNCH's
   shape check on 64-bit grid and block components (nothing narrowed to
   dim3's 32 bits before it is checked). The reference
   computes the same answers in unsigned __int128, where nothing can
   overflow: ceil(n / d) = (n + d - 1) / d, the block rules, the grid each
   dimension needs and whether it is within CUDA's limits, count × size. Any
   difference (a wrapped product, a grid that does not cover the elements, a
   grid written on error, a missing detail) aborts, and libFuzzer saves the
   input. No CUDA call is made: it runs without a GPU.

   Built by CMake when clang can link -fsanitize=fuzzer (clang 14 +
   libclang-rt-14-dev); CTest runs it for 20 s (label fuzz):
       clang -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
             -isystem <cuda>/include tests/fuzz_geometry.c -o fuzz_geometry
       ./fuzz_geometry -max_total_time=20 corpus/
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"

__extension__ typedef unsigned __int128 u128;

/* The input that failed, for the report. */
static unsigned long long w[8];

static void fail(const char *what, u128 want, u128 got)
{
    int i;
    fprintf(stderr, "fuzz_geometry: %s: expected %llu:%llu (high:low 64 bits), got %llu:%llu\ninput words:", what,
            (unsigned long long)(want >> 64), (unsigned long long)want, (unsigned long long)(got >> 64),
            (unsigned long long)got);
    for (i = 0; i < 8; ++i)
        fprintf(stderr, " %llu", w[i]);
    fprintf(stderr, "\ndetail: \"%s\"\n", gpuh_error_detail());
    abort();
}
#define EXPECT(what, want, got)                                                                            \
    do {                                                                                                   \
        if ((u128)(want) != (u128)(got))                                                                   \
            fail(what, (want), (got));                                                                     \
    } while (0)

static u128 ref_ceil_div(u128 n, u128 d) { return d == 0 ? 0 : (n + d - 1) / d; }

static int ref_block_ok(dim3 b)
{
    return b.x >= 1 && b.y >= 1 && b.z >= 1 && b.x <= 1024 && b.y <= 1024 && b.z <= 64 &&
           (u128)b.x * b.y * b.z <= 1024;
}

/* gpuh_grid_3d(nx, ny, nz, b) against the reference; grid_fn selects the
   1-D, 2-D or 3-D entry point (the others fix ny, nz or b.y, b.z). */
static void check_grid(int dims, u128 nx, u128 ny, u128 nz, dim3 b)
{
    const u128 gx = ref_ceil_div(nx, b.x), gy = ref_ceil_div(ny, b.y), gz = ref_ceil_div(nz, b.z);
    const int ok = ref_block_ok(b) && gx <= 2147483647u && gy <= 65535u && gz <= 65535u;
    dim3 g;
    cudaError_t err;
    g.x = 7;
    g.y = 8;
    g.z = 9;
    gpuh_clear_error_detail();
    if (dims == 1)
        err = gpuh_grid_1d(&g, (size_t)nx, b.x);
    else if (dims == 2)
        err = gpuh_grid_2d(&g, (size_t)nx, (size_t)ny, b);
    else
        err = gpuh_grid_3d(&g, (size_t)nx, (size_t)ny, (size_t)nz, b);
    EXPECT("grid: error code", ok ? cudaSuccess : cudaErrorInvalidConfiguration, err);
    if (!ok) {
        EXPECT("grid: untouched on error", 7 * 10000 + 8 * 100 + 9, g.x * 10000u + g.y * 100u + g.z);
        if (strncmp(gpuh_error_detail(), "gpuh_grid: ", 11) != 0)
            fail("grid: detail names gpuh_grid", 1, 0);
        return;
    }
    EXPECT("grid.x", gx > 0 ? gx : 1, g.x);
    EXPECT("grid.y", gy > 0 ? gy : 1, g.y);
    EXPECT("grid.z", gz > 0 ? gz : 1, g.z);
    /* It covers every element, and no block lies wholly past the end. */
    EXPECT("grid covers x", 1, (u128)g.x * b.x >= nx && (nx == 0 || (u128)(g.x - 1) * b.x < nx));
    EXPECT("grid covers y", 1, (u128)g.y * b.y >= ny && (ny == 0 || (u128)(g.y - 1) * b.y < ny));
    EXPECT("grid covers z", 1, (u128)g.z * b.z >= nz && (nz == 0 || (u128)(g.z - 1) * b.z < nz));
}

/* GPUH_LAUNCH's check of a grid and block given as 64-bit integers: refused
   exactly when CUDA's limits refuse them, with every value in the detail as given. */
static void check_launch(unsigned long long gx, unsigned long long gy, unsigned long long gz, unsigned long long bx,
                         unsigned long long by, unsigned long long bz)
{
    const int ok = bx >= 1 && by >= 1 && bz >= 1 && bx <= 1024 && by <= 1024 && bz <= 64 && bx * by * bz <= 1024 &&
                   gx >= 1 && gy >= 1 && gz >= 1 && gx <= 2147483647u && gy <= 65535u && gz <= 65535u;
    gpuh_impl_dims grid, block;
    char want[256];
    cudaError_t err;
    grid.x = gx, grid.y = gy, grid.z = gz;
    block.x = bx, block.y = by, block.z = bz;
    gpuh_clear_error_detail();
    err = gpuh_impl_launch_check("k", grid, block, "f.cu", 1);
    EXPECT("launch check: error code", ok ? cudaSuccess : cudaErrorInvalidConfiguration, err);
    snprintf(want, sizeof want, "GPUH_LAUNCH of k at f.cu:1: grid (%llu, %llu, %llu), block (%llu, %llu, %llu) is ", gx,
             gy, gz, bx, by, bz);
    if (!ok && strncmp(gpuh_error_detail(), want, strlen(want)) != 0)
        fail("launch check: detail names the values as given", 1, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t i, bytes = 12345;
    dim3 b, b1;
    cudaError_t err;
    u128 product;
    memset(w, 0, sizeof w);
    for (i = 0; i < size && i < 64; ++i)
        w[i / 8] |= (unsigned long long)data[i] << (8 * (i % 8));
    /* Words 0-4: sizes. Words 5-6: the block, 32 bits a dimension. Word 7: an element size. */
    b.x = (unsigned)w[5];
    b.y = (unsigned)(w[5] >> 32);
    b.z = (unsigned)w[6];
    b1.x = b.x;
    b1.y = b1.z = 1;

    EXPECT("gpuh_ceil_div", ref_ceil_div(w[0], w[1]), gpuh_ceil_div((size_t)w[0], (size_t)w[1]));

    gpuh_clear_error_detail();
    err = gpuh_check_block(b);
    EXPECT("gpuh_check_block", ref_block_ok(b) ? cudaSuccess : cudaErrorInvalidConfiguration, err);
    if (err != cudaSuccess && strncmp(gpuh_error_detail(), "gpuh_check_block: block (", 25) != 0)
        fail("gpuh_check_block: detail names the function and the block", 1, 0);

    check_grid(1, w[0], 1, 1, b1);
    check_grid(2, w[2], w[3], 1, b);
    check_grid(3, w[2], w[3], w[4], b);
    check_launch(w[2], w[3], w[4], w[1], w[5], w[6]);
    check_launch(w[0] % 4294967296u + (w[7] & 1 ? 4294967296u : 0), 1, 1, w[1] % 2048, 1, 1); /* near 2^32 */

    /* count × element size: refused exactly when it exceeds SIZE_MAX. */
    product = (u128)w[0] * w[7];
    err = gpuh_impl_bytes("fuzz", (size_t)w[0], (size_t)w[7], &bytes);
    EXPECT("byte-size overflow check", product > SIZE_MAX ? cudaErrorInvalidValue : cudaSuccess, err);
    EXPECT("bytes", product > SIZE_MAX ? 12345 : product, bytes);
    return 0;
}
