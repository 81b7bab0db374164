/* fuzz_sim_runtime.cc - libFuzzer target for the CPU simulator's runtime and
   the gpuh checks that sit on it. The first byte picks one of

       copy      cudaMemcpy of any kind between a device allocation, a second
                 one and a host buffer, at any offset, of any size
       memset    cudaMemset at any offset, of any size
       copy2d    cudaMemcpy2D host-to-device, any pitches, width and height
       prefetch  cudaMemPrefetchAsync and gpuh_prefetch_async on managed memory
       pipeline  a gpuh_pipeline_desc (sizes, pointers, streams, chunks)
       gemm      gpuh_gemm's argument checks; small valid shapes are run on
                 exact-size arrays and checked against a float64 product,
                 through gpuh_gemm_with on the small tiles (the same checks,
                 plans and launches as gpuh_gemm<float>, with one tile
                 configuration's kernels for clang's sanitizers to compile
                 instead of eight)
       symbol    cudaMemcpy{To,From}Symbol[Async] of any kind, offset and size,
                 between a 256-byte global and a device allocation or host buffer
       nccl      ncclAllReduce / ncclBroadcast / ncclAllGather on one rank, any
                 type, operator, root and count (counts whose bytes wrap
                 size_t included) on device allocations of any size

   and the rest of the input gives its arguments (a size is either small,
   near an allocation's size, or any 64-bit value, so that both the edges
   and the wrap-around cases are reached). Each call's verdict (success or
   refusal) is computed here independently, with 128-bit arithmetic and the
   fuzzer's own list of allocations, and a disagreement aborts. A call judged
   valid really runs, so ASan sees any access the simulator lets through.

       clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -DGPUH_SIM \
               -DGPUH_USE_CURAND -fno-strict-aliasing -I. tests/fuzz_sim_runtime.cc -pthread
       ./a.out -max_total_time=60 corpus/ tests/fuzz_seeds_sim/     (CTest: fuzz.sim_runtime)

   Seeds: tests/fuzz_seeds_sim/ (one per target, written by hand). */
#include "gpuh.h"
#include "gpuh_kernels.cuh"
#include "sim/include/gpuh_sim_runtime.h" /* the stand-in <cuda_runtime.h>'s C++ forms: the Async symbol copies */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

namespace {

/* Reads the input front to back; past its end, zeros. */
struct reader {
    const uint8_t *p;
    size_t n;
    uint64_t bytes(int k)
    {
        uint64_t v = 0;
        for (int i = 0; i < k; ++i) {
            v = v << 8 | (n > 0 ? *p : 0);
            if (n > 0)
                ++p, --n;
        }
        return v;
    }
    uint64_t u8() { return bytes(1); }
    uint64_t u64() { return bytes(8); }
    /* A size near `scale`: small, just around scale, near SIZE_MAX, or anything. */
    size_t size(size_t scale)
    {
        switch (u8() % 4) {
        case 0: return static_cast<size_t>(bytes(2) % (scale + 65));
        case 1: return scale + static_cast<size_t>(bytes(1)) - 128;
        case 2: return SIZE_MAX - static_cast<size_t>(bytes(2));
        default: return static_cast<size_t>(u64());
        }
    }
};

void verdict_failed(const char *what, cudaError_t got, bool want_ok)
{
    fprintf(stderr, "fuzz_sim_runtime: %s returned %s, but the reference says it %s\n", what, cudaGetErrorName(got),
            want_ok ? "is valid" : "must be refused");
    abort();
}
void expect(const char *what, cudaError_t got, bool want_ok)
{
    if ((got == cudaSuccess) != want_ok)
        verdict_failed(what, got, want_ok);
    (void)cudaGetLastError(); /* a refusal is not sticky */
}

/* The fuzzer's own record of what it allocated. */
struct region {
    uintptr_t base;
    size_t bytes;
    bool device; /* device or managed: what a device side of a copy may be */
};
enum { HOST_BYTES = 16384, HOST_SLACK = 8192 };
unsigned char host_buf[HOST_BYTES];

/* The region holding address a, or NULL. */
const region *holder(const region *r, int count, uintptr_t a)
{
    for (int i = 0; i < count; ++i)
        if (a >= r[i].base && a - r[i].base < (r[i].bytes > 0 ? r[i].bytes : 1))
            return &r[i];
    return NULL;
}
/* [a, a + bytes) inside region g, in 128 bits. */
bool fits(const region *g, uintptr_t a, size_t bytes)
{
    return g != NULL && static_cast<u128>(a - g->base) + bytes <= g->bytes;
}

void *at(uintptr_t a) { return reinterpret_cast<void *>(a); }

/* ---- copies and sets between two device allocations and a host buffer */
void fuzz_copy(reader &in, int what)
{
    region r[2];
    void *d[2] = {NULL, NULL};
    for (int i = 0; i < 2; ++i) {
        const size_t bytes = 1 + static_cast<size_t>(in.bytes(2) % 4096);
        if (cudaMalloc(&d[i], bytes) != cudaSuccess)
            abort();
        r[i].base = reinterpret_cast<uintptr_t>(d[i]);
        r[i].bytes = bytes;
        r[i].device = true;
    }
    const size_t off_d = in.size(r[0].bytes), off_s = in.size(r[1].bytes), host_off = in.bytes(2) % HOST_SLACK;
    const uintptr_t host = reinterpret_cast<uintptr_t>(host_buf) + host_off;
    if (what == 0) { /* cudaMemcpy */
        const int kind = static_cast<int>(in.u8() % 6);
        const size_t bytes = in.size(r[0].bytes);
        /* destination and source by kind: device sides from the allocations, host sides from host_buf */
        const uintptr_t dst = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost ? host : r[0].base + off_d;
        const uintptr_t src = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost ? host : r[1].base + off_s;
        const region *gd = holder(r, 2, dst), *gs = holder(r, 2, src);
        bool ok;
        if (bytes == 0)
            ok = true; /* nothing to copy: nothing checked */
        else if (kind > 4)
            ok = false;
        else {
            const bool dst_dev_needed = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
            const bool src_dev_needed = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
            ok = (!dst_dev_needed || fits(gd, dst, bytes)) && (!src_dev_needed || fits(gs, src, bytes)) &&
                 (gd == NULL || fits(gd, dst, bytes)) && (gs == NULL || fits(gs, src, bytes));
        }
        /* a side the simulator does not know is taken as host memory: a copy
           judged valid runs only when such a side is host_buf and stays in it */
        const bool host_safe = static_cast<u128>(host_off) + bytes <= HOST_BYTES;
        const bool dst_safe = gd != NULL || (dst == host && host_safe), src_safe = gs != NULL || (src == host && host_safe);
        if (!ok || (dst_safe && src_safe)) {
            const cudaError_t err = cudaMemcpy(at(dst), at(src), bytes, static_cast<cudaMemcpyKind>(kind));
            if (kind > 4 && bytes > 0 && err != cudaErrorInvalidMemcpyDirection)
                verdict_failed("cudaMemcpy (kind > 4)", err, false);
            expect("cudaMemcpy", err, ok);
        }
    } else if (what == 1) { /* cudaMemset */
        const size_t bytes = in.size(r[0].bytes);
        const uintptr_t p = r[0].base + off_d;
        const bool ok = bytes == 0 || fits(holder(r, 2, p), p, bytes);
        expect("cudaMemset", cudaMemset(at(p), static_cast<int>(in.u8()), bytes), ok);
    } else { /* cudaMemcpy2D, host to device */
        const size_t dpitch = in.size(64), spitch = in.size(64), width = in.size(64), height = in.size(64);
        const uintptr_t dst = r[0].base + off_d;
        const region *gd = holder(r, 2, dst);
        bool ok = width <= dpitch && width <= spitch;
        const bool empty = width == 0 || height == 0;
        u128 dspan = 0, sspan = 0;
        if (!empty) {
            dspan = static_cast<u128>(height - 1) * dpitch + width;
            sspan = static_cast<u128>(height - 1) * spitch + width;
        }
        if (ok && !empty)
            ok = gd != NULL && static_cast<u128>(dst - gd->base) + dspan <= gd->bytes;
        if (!(ok && !empty && host_off + sspan > HOST_BYTES)) /* else it would overrun host_buf: not run */
            expect("cudaMemcpy2D", cudaMemcpy2D(at(dst), dpitch, at(host), spitch, width, height, cudaMemcpyHostToDevice),
                   ok);
    }
    cudaFree(d[0]);
    cudaFree(d[1]);
}

/* ---- prefetch of managed memory */
void fuzz_prefetch(reader &in)
{
    const size_t bytes_alloc = 1 + static_cast<size_t>(in.bytes(2) % 4096);
    float *m = NULL;
    if (cudaMallocManaged(&m, bytes_alloc, cudaMemAttachGlobal) != cudaSuccess)
        abort();
    region r = {reinterpret_cast<uintptr_t>(m), bytes_alloc, true};
    const size_t off = in.size(bytes_alloc), bytes = in.size(bytes_alloc);
    const unsigned flags = in.u8() % 8 == 0 ? 1u : 0u;
    struct cudaMemLocation loc;
    loc.type = in.u8() % 2 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    loc.id = in.u8() % 8 == 0 ? 1 : 0;
    const uintptr_t p = r.base + off;
    const bool ok = flags == 0 && !(loc.type == cudaMemLocationTypeDevice && loc.id != 0) && holder(&r, 1, p) &&
                    fits(&r, p, bytes);
    expect("cudaMemPrefetchAsync", cudaMemPrefetchAsync(at(p), bytes, loc, flags, 0), ok);
    /* gpuh_prefetch_async counts floats from the start of the array */
    const size_t count = in.size(bytes_alloc / 4);
    const bool ok_count = static_cast<u128>(count) * sizeof(float) <= bytes_alloc;
    expect("gpuh_prefetch_async", gpuh_prefetch_async(m, count, 0, 0), ok_count);
    cudaFree(m);
}

/* ---- gpuh_pipeline's descriptor */
cudaError_t pipeline_nothing(const void *const *d_in, void *const *d_out, size_t count, size_t first, cudaStream_t s,
                             void *user)
{
    (void)d_in, (void)d_out, (void)count, (void)first, (void)s;
    ++*static_cast<int *>(user);
    return cudaSuccess;
}

/* The reference verdict for one list of arrays (inputs or outputs). */
bool pipeline_list_ok(const void *const *ptr, const size_t *elem, size_t n, size_t *used)
{
    *used = 0;
    while (*used < GPUH_PIPELINE_MAX_ARRAYS && elem[*used] > 0)
        ++*used;
    for (size_t j = 0; j < GPUH_PIPELINE_MAX_ARRAYS; ++j) {
        if (j >= *used && (elem[j] > 0 || ptr[j] != NULL))
            return false;
        if (j < *used && ((ptr[j] == NULL && n > 0) || static_cast<u128>(n) * elem[j] > SIZE_MAX))
            return false;
    }
    return true;
}

void fuzz_pipeline(reader &in)
{
    gpuh_pipeline_desc d;
    memset(&d, 0, sizeof d);
    d.n = in.size(64);
    size_t biggest = 0;
    for (int io = 0; io < 2; ++io)
        for (int j = 0; j < GPUH_PIPELINE_MAX_ARRAYS; ++j) {
            const uint64_t c = in.u8();
            const size_t elem = c % 4 == 0 ? 0 : c % 4 == 1 ? static_cast<size_t>(in.u64()) : 1 + c % 16;
            void *ptr = c & 0x80 ? NULL : host_buf + (io * 4 + j) * (HOST_BYTES / 8);
            if (io == 0)
                d.in_elem_bytes[j] = elem, d.in[j] = ptr;
            else
                d.out_elem_bytes[j] = elem, d.out[j] = ptr;
            biggest = elem > biggest ? elem : biggest;
        }
    d.chunk = in.u8() % 4 == 0 ? static_cast<size_t>(in.u64()) : static_cast<size_t>(in.u8());
    d.streams = static_cast<int>(static_cast<int8_t>(in.u8()));
    int calls = 0;
    d.launch = in.u8() % 16 == 0 ? NULL : pipeline_nothing;
    d.user = &calls;
    gpuh_pipeline_chunk records[70];
    if (in.u8() % 2) {
        d.chunks = records;
        d.chunks_capacity = in.u8() % 71;
    }
    /* the reference */
    size_t n_in = 0, n_out = 0;
    bool ok = d.launch != NULL && pipeline_list_ok(d.in, d.in_elem_bytes, d.n, &n_in);
    ok = ok && pipeline_list_ok(const_cast<const void *const *>(d.out), d.out_elem_bytes, d.n, &n_out);
    ok = ok && n_in + n_out > 0 && d.streams >= 0 && d.streams <= GPUH_PIPELINE_MAX_STREAMS;
    size_t chunk = d.chunk > 0 ? d.chunk : GPUH_PIPELINE_DEFAULT_CHUNK, chunks = 0;
    if (chunk > d.n)
        chunk = d.n;
    if (chunk > 0)
        chunks = d.n / chunk + (d.n % chunk != 0);
    ok = ok && !(d.chunks != NULL && d.chunks_capacity < chunks);
    /* a valid pipeline runs when its arrays fit in their slices of host_buf */
    const bool small = static_cast<u128>(d.n) * biggest <= HOST_BYTES / 8 && chunks <= 4096;
    if (ok && !small)
        return;
    const cudaError_t err = gpuh_pipeline(&d);
    expect("gpuh_pipeline", err, ok);
    if (!ok && strstr(gpuh_error_detail(), "gpuh_pipeline") == NULL)
        verdict_failed("gpuh_pipeline's detail", err, ok);
    if (ok && static_cast<size_t>(calls) != chunks)
        verdict_failed("gpuh_pipeline's launch count", err, ok);
}

/* ---- gpuh_gemm's argument checks */
void fuzz_gemm(reader &in)
{
    const size_t M = in.size(8), N = in.size(8), K = in.size(8);
    size_t ld[3];
    for (int i = 0; i < 3; ++i)
        ld[i] = in.size(16);
    const uint64_t nulls = in.u8();
    const size_t rows[3] = {M, K, M}, cols[3] = {K, N, N};
    const size_t most = SIZE_MAX / sizeof(float);
    bool ok = true;
    u128 span[3];
    for (int i = 0; i < 3; ++i) {
        span[i] = rows[i] == 0 || cols[i] == 0 ? 0 : static_cast<u128>(rows[i] - 1) * ld[i] + cols[i];
        if (ld[i] < cols[i] || span[i] > most)
            ok = false;
        if ((nulls >> i & 1) && rows[i] > 0 && cols[i] > 0 && M > 0 && N > 0)
            ok = false; /* a NULL matrix that is used */
    }
    const bool runs = ok && M > 0 && N > 0 && span[0] <= 512 && span[1] <= 512 && span[2] <= 512 &&
                      ld[0] <= (1u << 20) && ld[1] <= (1u << 20) && ld[2] <= (1u << 20);
    float *m[3] = {NULL, NULL, NULL};
    float h[3][512];
    for (int i = 0; i < 3; ++i) {
        if (nulls >> i & 1)
            continue;
        /* exact-size device arrays, so that ASan sees any read or write past them */
        const size_t elems = runs ? static_cast<size_t>(span[i]) : 1;
        if (elems > 0 && cudaMalloc(&m[i], elems * sizeof(float)) != cudaSuccess)
            abort();
        for (size_t e = 0; runs && e < elems; ++e)
            h[i][e] = static_cast<float>(static_cast<int>(in.u8() % 17) - 8);
        if (runs && elems > 0 && cudaMemcpy(m[i], h[i], elems * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
            abort();
    }
    const cudaError_t check = gpuh_impl_gemm_check("gpuh_gemm", GPUH_OP_N, GPUH_OP_N, M, N, K, m[0], ld[0], m[1],
                                                   ld[1], m[2], ld[2], sizeof(float));
    expect("gpuh_impl_gemm_check", check, ok);
    if (!ok || M == 0 || N == 0 || runs) {
        const float alpha = 1.5f, beta = runs ? -0.5f : 0.0f;
        const cudaError_t err = gpuh_gemm_with<gpuh_sgemm_small, gpuh_sgemm_small>(M, N, K, alpha, m[0], ld[0], m[1],
                                                                                  ld[1], beta, m[2], ld[2]);
        expect("gpuh_gemm", err, ok);
        if (!ok && strstr(gpuh_error_detail(), "gpuh_gemm") == NULL)
            verdict_failed("gpuh_gemm's detail", err, ok);
        if (runs) {
            float out[512];
            if (cudaMemcpy(out, m[2], static_cast<size_t>(span[2]) * sizeof(float), cudaMemcpyDeviceToHost) !=
                cudaSuccess)
                abort();
            /* small integers: every product and sum is exact in float */
            for (size_t i = 0; i < M; ++i)
                for (size_t j = 0; j < N; ++j) {
                    double acc = 0.0;
                    for (size_t k = 0; k < K; ++k)
                        acc += static_cast<double>(h[0][i * ld[0] + k]) * h[1][k * ld[1] + j];
                    const double want = 1.5 * acc - 0.5 * h[2][i * ld[2] + j];
                    if (static_cast<double>(out[i * ld[2] + j]) != want) {
                        fprintf(stderr, "fuzz_sim_runtime: gpuh_gemm %zu x %zu x %zu: C[%zu][%zu] = %g, want %g\n",
                                M, N, K, i, j, static_cast<double>(out[i * ld[2] + j]), want);
                        abort();
                    }
                }
        }
    }
    for (int i = 0; i < 3; ++i)
        cudaFree(m[i]);
}

/* ---- symbol copies */
unsigned char fuzz_symbol[256];

void fuzz_symbol_copy(reader &in)
{
    const size_t alloc = 1 + static_cast<size_t>(in.bytes(2) % 1024);
    void *d = NULL;
    if (cudaMalloc(&d, alloc) != cudaSuccess)
        abort();
    region r = {reinterpret_cast<uintptr_t>(d), alloc, true};
    const bool to = in.u8() % 2, async = in.u8() % 2, other_dev = in.u8() % 2;
    const int kind = static_cast<int>(in.u8() % 6);
    const size_t offset = in.size(sizeof fuzz_symbol), bytes = in.size(sizeof fuzz_symbol);
    const size_t other_off = other_dev ? in.size(alloc) : static_cast<size_t>(in.bytes(2) % HOST_SLACK);
    const uintptr_t other = (other_dev ? r.base : reinterpret_cast<uintptr_t>(host_buf)) + other_off;
    const region *g = holder(&r, 1, other);
    const bool sym_ok = offset <= sizeof fuzz_symbol && bytes <= sizeof fuzz_symbol - offset;
    const bool kind_ok = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault ||
                         kind == (to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    /* the other side: device memory where the kind says so; memory the sim knows must hold the bytes */
    const bool other_ok = bytes == 0 || ((kind != cudaMemcpyDeviceToDevice || g != NULL) && (g == NULL || fits(g, other, bytes)));
    const bool ok = sym_ok && kind_ok && other_ok;
    /* a side the sim does not know is host memory to it: a copy judged valid runs only where that is host_buf */
    const bool safe = g != NULL || (!other_dev && static_cast<u128>(other_off) + bytes <= HOST_BYTES);
    if (!ok || safe) {
        void *o = at(other);
        const cudaMemcpyKind k = static_cast<cudaMemcpyKind>(kind);
        const cudaError_t err = to ? (async ? cudaMemcpyToSymbolAsync(fuzz_symbol, o, bytes, offset, k, 0)
                                            : cudaMemcpyToSymbol(fuzz_symbol, o, bytes, offset, k))
                                   : (async ? cudaMemcpyFromSymbolAsync(o, fuzz_symbol, bytes, offset, k, 0)
                                            : cudaMemcpyFromSymbol(o, fuzz_symbol, bytes, offset, k));
        expect(to ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol", err, ok);
    }
    cudaFree(d);
}

/* ---- the NCCL stand-in's counts, on one rank */
void fuzz_nccl(reader &in)
{
    static ncclComm_t comm = NULL;
    if (comm == NULL && ncclCommInitAll(&comm, 1, NULL) != ncclSuccess)
        abort();
    void *d[2] = {NULL, NULL};
    region r[2];
    for (int i = 0; i < 2; ++i) {
        const size_t bytes = 1 + static_cast<size_t>(in.bytes(2) % 4096);
        if (cudaMalloc(&d[i], bytes) != cudaSuccess)
            abort();
        r[i].base = reinterpret_cast<uintptr_t>(d[i]);
        r[i].bytes = bytes;
        r[i].device = true;
    }
    const int call = static_cast<int>(in.u8() % 3), type = static_cast<int>(in.u8() % 10), op = static_cast<int>(in.u8() % 6);
    const int root = static_cast<int>(in.u8() % 4) - 1;
    const size_t count = in.size(r[0].bytes / 4);
    static const size_t sizes[] = {1, 1, 4, 4, 8, 8, 0, 4, 8, 0}; /* ncclInt8 .. ncclFloat64; 6: half, not simulated */
    const size_t size = sizes[type];
    bool ok = size != 0 && (call != 0 || op <= ncclAvg) && (call != 1 || root == 0);
    if (ok && count > 0)
        ok = static_cast<u128>(count) * size <= SIZE_MAX && fits(&r[1], r[1].base, count * size) &&
             fits(&r[0], r[0].base, count * size);
    ncclResult_t got;
    const ncclDataType_t t = static_cast<ncclDataType_t>(type);
    if (call == 0)
        got = ncclAllReduce(d[0], d[1], count, t, static_cast<ncclRedOp_t>(op), comm, 0);
    else if (call == 1)
        got = ncclBroadcast(d[0], d[1], count, t, root, comm, 0);
    else
        got = ncclAllGather(d[0], d[1], count, t, comm, 0);
    if ((got == ncclSuccess) != ok) {
        fprintf(stderr, "fuzz_sim_runtime: nccl call %d of %zu elements (type %d, op %d, root %d) returned %d (%s), "
                        "but the reference says it %s\n",
                call, count, type, op, root, static_cast<int>(got), ncclGetLastError(comm), ok ? "is valid" : "must be refused");
        abort();
    }
    cudaFree(d[0]);
    cudaFree(d[1]);
}

} /* namespace */

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader in = {data, size};
    const int what = static_cast<int>(in.u8() % 8);
    if (what <= 2)
        fuzz_copy(in, what);
    else if (what == 3)
        fuzz_prefetch(in);
    else if (what == 4)
        fuzz_pipeline(in);
    else if (what == 5)
        fuzz_gemm(in);
    else if (what == 6)
        fuzz_symbol_copy(in);
    else
        fuzz_nccl(in);
    if (cudaPeekAtLastError() != cudaSuccess || gpuh_print_allocations(NULL) != 0)
        abort(); /* nothing sticky, nothing left allocated by gpuh */
    return 0;
}
