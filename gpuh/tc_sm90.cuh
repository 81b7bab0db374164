/* gpuh/tc_sm90.cuh - part of gpuh_kernels.cuh: the tensor-core GEMM's sm_90a
   kernel (wgmma, TMA, mbarriers). Included by gpuh_kernels.cuh, never on its
   own: the public names it defines are declared and documented there. */
#ifndef GPUH_IMPL_TC_SM90_CUH
#define GPUH_IMPL_TC_SM90_CUH

#ifndef GPUH_SIM
#include <cuda.h> /* CUtensorMap and the driver API's types: the header only, nothing is linked */
#endif

/* ---------------------------------------------------------------------------
   The sm_90a kernel (H100, H200). This version, the one gpuh ships, is the
   Hopper recipe of the public worklogs, written for gpuh:
   - TMA (cp.async.bulk.tensor) copies each slice of op(A) and op(B) from
     global to shared memory, in the 128-byte swizzled layout wgmma reads
     without bank conflicts, and zero-fills past the matrix edges: no edge
     code on the loads, any M, N, K;
   - wgmma.mma_async multiplies from shared memory, asynchronously, a
     64 × BN × 16 (TF32: × 8) product per instruction per warp group;
   - warp specialisation: warp group 0 only issues the copies (one thread,
     with few registers: setmaxnreg.dec), warp groups 1 and 2 only multiply
     (64 rows of the 128 × BN tile each, BN / 2 fp32 accumulators per
     thread: setmaxnreg.inc);
   - a ring of GPUH_IMPL_TC_STAGES(BN) stages: the copier waits on a stage's
     "empty" mbarrier, then starts its copies, which complete on the
     stage's "full" mbarrier (arrive.expect_tx with the stage's bytes); the
     multipliers wait on "full", issue their wgmmas and, once they are done
     with the stage, arrive on "empty". Copies of later slices thus overlap
     the products of earlier ones.
   - persistent blocks: one per SM, each over tiles b, b + gridDim.x, ...,
     so that the copier fills the ring with the next tile's slices while
     the multipliers store this one's C; the tiles of a last wave or two
     that would leave SMs idle are shared out by K slice instead
     (gpuh_impl_tc_work), their partial sums added by each tile's owner
     in a fixed order;
   - where the launcher chooses, clusters of 2 blocks on vertically
     adjacent tiles (rows m0 and m0 + 128, the same columns), which need
     the same slices of op(B): each block's copier loads half of a slice
     of op(B) and multicasts it into both blocks' stages, so each block
     reads half as many bytes of B from L2; a stage is "empty" once both
     blocks' multipliers are done with it (each arrives on its own and on
     its partner's mbarrier). The work is planned in units of a cluster's
     tiles (128 or 256 rows): a unit below is a cluster of 1 or 2 blocks.
   Block: 384 threads, tiles of 128 × BN of C (in the grouped order of
   gpuh_impl_gemm_tile), dynamic shared memory GPUH_IMPL_TC_SMEM(BN). BN is
   256 (the wide tile: the fewest bytes loaded per product) or 128 (the
   narrow tile, more stages in the same shared memory: twice the tiles, for
   a C whose wide tiles would leave SMs idle; the launcher prices both,
   gpuh_impl_tc_choose). The
   operands: op(A)'s slice is K-major (A as stored, rows of K) or, for
   op_a = T on 16-bit inputs, M-major (wgmma's transpose-A); op(B)'s is
   K-major for op_b = T and N-major for op_b = N (transpose-B). TF32 wgmma
   has no transposes, but takes op(A) from registers as well (the RS form):
   for TF32 with op_a = T, the multipliers load op(A)'s fragments from its
   M-major slice with ld.shared (gpuh_impl_tc_rs_slice) and wgmma reads
   only op(B) from shared memory, K-major (op_b = T). The launcher brings
   every product to op_b = T: op_a = N, op_b = N by swapping the roles
   (Cᵀ = Bᵀ·Aᵀ, stored transposed: gpuh_impl_tc_args's ct), op_a = T,
   op_b = N by a transposing copy of the smaller operand first
   (gpuh_impl_tc_tf32_form).
   Built only with sm_90a's features (__CUDA_ARCH_FEAT_SM90_ALL); other
   builds hold an empty body and the launcher does not use them.
   Idea: the PTX ISA (wgmma, TMA, mbarrier, setmaxnreg); P. Shankhdhar,
   "Outperforming cuBLAS on H100"; CUTLASS's sm90 warp-specialised GEMM. */
#define GPUH_IMPL_TC_BM 128
#define GPUH_IMPL_TC_BN 256        /* the wide tile's columns */
#define GPUH_IMPL_TC_BN_NARROW 128 /* the narrow tile's */
#define GPUH_IMPL_TC_STAGES(bn) ((bn) == GPUH_IMPL_TC_BN ? 4 : 6)
/* Bytes of one row of a slice in shared memory: the width of the 128-byte
   swizzle that TMA writes and wgmma reads (its widest, the one without bank
   conflicts), so a slice is 128 bytes of K: 64 halves or 32 floats. */
#define GPUH_IMPL_TC_ROW_BYTES 128
/* The swizzle's period, in bytes: 8 rows of 128; a stage starts on a
   multiple of it, and the next 8 rows of a K-major operand are this far on
   (a descriptor's stride offset). */
#define GPUH_IMPL_TC_SWIZZLE_BYTES 1024
#define GPUH_IMPL_TC_A_BYTES (GPUH_IMPL_TC_BM * GPUH_IMPL_TC_ROW_BYTES) /* op(A)'s slice: 128 rows (M) of 128 bytes */
#define GPUH_IMPL_TC_STAGE_BYTES(bn) (GPUH_IMPL_TC_A_BYTES + (bn) * GPUH_IMPL_TC_ROW_BYTES)
/* Bytes of an mbarrier (a 64-bit word in shared memory); each stage has two. */
#define GPUH_IMPL_TC_MBAR_BYTES 8
/* the stages, their 2 mbarriers each, and room to align the stages to the swizzle's period */
#define GPUH_IMPL_TC_SMEM(bn)                                                                   \
    (GPUH_IMPL_TC_STAGES(bn) * (GPUH_IMPL_TC_STAGE_BYTES(bn) + 2 * GPUH_IMPL_TC_MBAR_BYTES) + \
     GPUH_IMPL_TC_SWIZZLE_BYTES)
/* The block, in warp groups of 128 threads (4 warps: wgmma's unit, the
   threads that issue one product together, 64 rows of it): warp group 0
   the copier, 1 and 2 the multipliers, each on 64 of the tile's 128 rows.
   The launcher's blockDim and the kernel's __launch_bounds__. */
#define GPUH_IMPL_TC_WARPGROUP 128
#define GPUH_IMPL_TC_WG_ROWS 64 /* a multiplier warp group's rows of the tile: wgmma's M */
#define GPUH_IMPL_TC_MULTIPLIERS (GPUH_IMPL_TC_BM / GPUH_IMPL_TC_WG_ROWS) /* 2 warp groups */
#define GPUH_IMPL_TC_MULT_THREADS (GPUH_IMPL_TC_MULTIPLIERS * GPUH_IMPL_TC_WARPGROUP) /* 256 */
#define GPUH_IMPL_TC_WGMMA_THREADS (GPUH_IMPL_TC_WARPGROUP + GPUH_IMPL_TC_MULT_THREADS)     /* 384 */
/* setmaxnreg's registers per thread (multiples of 8, 24 to 256). The block
   starts with 168 each (__launch_bounds__(384, 1): 65536 / 384 rounded down
   to 8) and moves them between its roles: the copier's warp group, whose
   one working thread keeps only its walk, addresses and counters, drops
   to 40; the multipliers then take the most that the 65536 registers of
   the SM leave them, (65536 - 128 · 40) / 256 = 236 rounded down to 8, for
   a wide tile's 128 accumulators and the RS form's 32 fragment registers
   beside the addresses and the epilogue's. */
#define GPUH_IMPL_TC_COPIER_REGS 40
#define GPUH_IMPL_TC_MULT_REGS 232
/* The multipliers' named barrier (bar.sync id): their 256 threads meet on
   it without the copier, which may be waiting on a stage (barrier 0 is
   __syncthreads', the whole block's). */
#define GPUH_IMPL_TC_MULT_BARRIER 1

#ifndef GPUH_SIM
/* wgmma's accumulator operands: the first 64 (the narrow tile's thread
   holds these) and all 128 (the wide tile's). */
#define GPUH_IMPL_WGMMA_D_LO \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GPUH_IMPL_WGMMA_D64 "{" GPUH_IMPL_WGMMA_D_LO "}"
#define GPUH_IMPL_WGMMA_D \
    "{" GPUH_IMPL_WGMMA_D_LO ", " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
#define GPUH_IMPL_WGMMA_D64_OPS(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define GPUH_IMPL_WGMMA_D_OPS(d) \
    GPUH_IMPL_WGMMA_D64_OPS(d), \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* A shared-memory matrix descriptor of wgmma: start address, leading and
   stride byte offsets (each >> 4), 128-byte swizzle (mode 1 in bits 62-63).
   K-major: rows of 128 bytes of K, groups of 8 rows 1024 bytes apart (the
   stride offset); the leading offset is unused. MN-major: rows of 128 bytes
   (64 elements) of M or N, 8 rows of K 1024 bytes apart (stride offset),
   the next 64 of M or N `lead` bytes on (leading offset). */
static __device__ __forceinline__ unsigned long long gpuh_impl_tc_desc(unsigned addr, unsigned lead)
{
    return (unsigned long long)((addr & 0x3ffff) >> 4) | (unsigned long long)(lead >> 4) << 16 |
           (unsigned long long)(GPUH_IMPL_TC_SWIZZLE_BYTES >> 4) << 32 | 1ull << 62;
}

/* d += A·B, one instruction: m64nBNk16 for bfloat16 / fp16, m64nBNk8 for
   TF32, BN = 256 or 128 as d holds 128 or 64 accumulators. TA: op(A) = Aᵀ,
   read M-major (wgmma's transpose-A); TB: op(B) = Bᵀ, which is K-major, so
   B is read N-major (transpose-B) when TB is false. */
#define GPUH_IMPL_WGMMA_16BIT(acc, shape, type, ptx_type, d_list, d_ops, rest)                                       \
    template <bool TA, bool TB>                                                                                    \
    static __device__ __forceinline__ void gpuh_impl_wgmma(float(&d)[acc], unsigned long long da,                  \
                                                           unsigned long long db, type)                            \
    {                                                                                                              \
        asm volatile("wgmma.mma_async.sync.aligned." shape ".f32." ptx_type "." ptx_type " " d_list rest          \
                     : d_ops(d)                                                                                    \
                     : "l"(da), "l"(db), "n"(TA ? 1 : 0), "n"(TB ? 0 : 1));                                        \
    }
GPUH_IMPL_WGMMA_16BIT(64, "m64n128k16", __nv_bfloat16, "bf16", GPUH_IMPL_WGMMA_D64, GPUH_IMPL_WGMMA_D64_OPS,
                      ", %64, %65, 1, 1, 1, %66, %67;\n")
GPUH_IMPL_WGMMA_16BIT(64, "m64n128k16", __half, "f16", GPUH_IMPL_WGMMA_D64, GPUH_IMPL_WGMMA_D64_OPS,
                      ", %64, %65, 1, 1, 1, %66, %67;\n")
GPUH_IMPL_WGMMA_16BIT(128, "m64n256k16", __nv_bfloat16, "bf16", GPUH_IMPL_WGMMA_D, GPUH_IMPL_WGMMA_D_OPS,
                      ", %128, %129, 1, 1, 1, %130, %131;\n")
GPUH_IMPL_WGMMA_16BIT(128, "m64n256k16", __half, "f16", GPUH_IMPL_WGMMA_D, GPUH_IMPL_WGMMA_D_OPS,
                      ", %128, %129, 1, 1, 1, %130, %131;\n")
/* GPUH_IMPL_WGMMA_16BIT stays defined: the decode kernel's sm_90a form
   (gpuh/tc_decode_sm90.cuh) makes its narrow shapes with it. */
template <bool TA, bool TB>
static __device__ __forceinline__ void gpuh_impl_wgmma(float (&d)[64], unsigned long long da, unsigned long long db,
                                                       float)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " GPUH_IMPL_WGMMA_D64 ", %64, %65, 1, 1, 1;\n"
                 : GPUH_IMPL_WGMMA_D64_OPS(d)
                 : "l"(da), "l"(db));
}
template <bool TA, bool TB>
static __device__ __forceinline__ void gpuh_impl_wgmma(float (&d)[128], unsigned long long da, unsigned long long db,
                                                       float)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GPUH_IMPL_WGMMA_D
                 ", %128, %129, 1, 1, 1;\n"
                 : GPUH_IMPL_WGMMA_D_OPS(d)
                 : "l"(da), "l"(db));
}

/* d += A·B in the RS form: m64nBNk8 TF32, A's 64 × 8 from registers (a:
   this thread's four elements, wgmma's fragment layout: rows g and g + 8,
   columns t and t + 4 of the warp's 16 rows, g = lane / 4, t = lane % 4),
   B from shared memory (K-major). a is marked as written ("+r") so that
   its registers hold it until gpuh_impl_tc_keep after the wgmma.wait_group
   that retires this instruction: wgmma reads them asynchronously. */
static __device__ __forceinline__ void gpuh_impl_wgmma_rs(float (&d)[64], unsigned (&a)[4], unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " GPUH_IMPL_WGMMA_D64
                 ", {%64, %65, %66, %67}, %68, 1, 1, 1;\n"
                 : GPUH_IMPL_WGMMA_D64_OPS(d), "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3])
                 : "l"(db));
}
static __device__ __forceinline__ void gpuh_impl_wgmma_rs(float (&d)[128], unsigned (&a)[4], unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GPUH_IMPL_WGMMA_D
                 ", {%128, %129, %130, %131}, %132, 1, 1, 1;\n"
                 : GPUH_IMPL_WGMMA_D_OPS(d), "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3])
                 : "l"(db));
}
/* The registers of an RS wgmma's A fragments stay theirs up to here (a use
   the compiler cannot see through or move across the wait before it). */
static __device__ __forceinline__ void gpuh_impl_tc_keep(unsigned (&f)[4][4])
{
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            asm volatile("" : "+r"(f[i][j])::"memory");
}
/* One slice (32 of K) of the RS form for a multiplier warp group: the A
   fragments of its four k8 steps loaded into `cur` from op(A)'s M-major
   slice, the four wgmmas (B's K-major slice at sb) committed as one group,
   the group before retired (wgmma.wait_group 1), and with it the registers
   of `old`, the fragments that group read. a_lo / a_hi: this thread's
   shared address of its row pair at k = t and k = t + 4 of the slice's
   first k8 step (the next step is 8 rows of 128 bytes on).
   The fragments go to the tensor cores as loaded: a TF32 wgmma reads only
   the TF32 bits of each float in its registers, as it does for B in shared
   memory (the products were bit for bit those of fragments cut to TF32
   first, a cut that put 48 more instructions per slice on the
   multipliers' critical path: bench/results/NOTES.md). */
template <int ACC>
static __device__ __forceinline__ void gpuh_impl_tc_rs_slice(float (&d)[ACC], unsigned (&cur)[4][4],
                                                             unsigned (&old)[4][4], unsigned a_lo, unsigned a_hi,
                                                             unsigned sb)
{
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n"
                     : "=r"(cur[kk][0]), "=r"(cur[kk][1])
                     : "r"(a_lo + kk * 1024));
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n"
                     : "=r"(cur[kk][2]), "=r"(cur[kk][3])
                     : "r"(a_hi + kk * 1024));
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
        gpuh_impl_wgmma_rs(d, cur[kk], gpuh_impl_tc_desc(sb + kk * 32, 16));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    gpuh_impl_tc_keep(old);
}

static __device__ __forceinline__ void gpuh_impl_mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "wait:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait;\n"
                 "}\n" ::"r"(bar), "r"(parity)
                 : "memory");
}
/* A 2-D TMA copy of the box at (c0, c1) of `map` to shared memory at dst,
   completing on the mbarrier bar. */
static __device__ __forceinline__ void gpuh_impl_tma_load(unsigned dst, const CUtensorMap *map, int c0, int c1,
                                                          unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];\n" ::"r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}
/* The same copy into both blocks of a cluster of 2 (multicast, mask 0b11):
   to the same offset dst of each one's shared memory, completing on each
   one's mbarrier at bar. */
static __device__ __forceinline__ void gpuh_impl_tma_load_pair(unsigned dst, const CUtensorMap *map, int c0, int c1,
                                                               unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                 "l"(map), "r"(c0), "r"(c1), "r"(bar), "h"((unsigned short)3)
                 : "memory");
}
/* One arrival on the mbarrier at bar in this block and, in a cluster of 2,
   one on its twin (same offset) in the other block: a stage the
   multipliers are done with goes back to every copier that writes into
   it. */
static __device__ __forceinline__ void gpuh_impl_tc_release(unsigned bar)
{
    asm volatile("{\n"
                 ".reg .pred two;\n"
                 ".reg .b32 n, peer, far;\n"
                 "mbarrier.arrive.shared::cta.b64 _, [%0];\n"
                 "mov.u32 n, %%cluster_nctarank;\n"
                 "setp.eq.u32 two, n, 2;\n"
                 "@two mov.u32 peer, %%cluster_ctarank;\n"
                 "@two xor.b32 peer, peer, 1;\n"
                 "@two mapa.shared::cluster.u32 far, %0, peer;\n"
                 "@two mbarrier.arrive.shared::cluster.b64 _, [far];\n"
                 "}\n" ::"r"(bar)
                 : "memory");
}

/* Four adjacent elements of C as one load: 16 bytes of fp32, 8 of a 16-bit
   type. */
template <typename T> struct gpuh_impl_tc_quad {
    typedef uint2 type;
};
template <> struct gpuh_impl_tc_quad<float> {
    typedef float4 type;
};
/* alpha·v + beta·c stored at dst[0 .. 3] in one store (rounded as
   gpuh_impl_tc_out), dst aligned to it; c: the four elements of C there,
   loaded before (not read when beta == 0). */
static __device__ __forceinline__ void gpuh_impl_tc_store4(float *dst, float4 v, float alpha, float beta, float4 c)
{
    v.x *= alpha, v.y *= alpha, v.z *= alpha, v.w *= alpha;
    if (beta != 0.0f)
        v.x = fmaf(beta, c.x, v.x), v.y = fmaf(beta, c.y, v.y), v.z = fmaf(beta, c.z, v.z), v.w = fmaf(beta, c.w, v.w);
    *reinterpret_cast<float4 *>(dst) = v;
}
template <typename T>
static __device__ __forceinline__ void gpuh_impl_tc_store4(T *dst, float4 v, float alpha, float beta, uint2 c4)
{
    alignas(8) T c[4];
    const float f[4] = {alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w};
    *reinterpret_cast<uint2 *>(c) = c4;
#pragma unroll
    for (int e = 0; e < 4; ++e)
        gpuh_impl_tc_out(c + e, beta == 0.0f ? f[e] : fmaf(beta, gpuh_impl_tc_c(c + e), f[e]));
    *reinterpret_cast<uint2 *>(dst) = *reinterpret_cast<const uint2 *>(c);
}
/* How many slices before a tile's end the multipliers ask the L2 for the C
   they will read (beta != 0): every SM asks at about the same time, so the
   lead must cover the whole burst (132 tiles' C, 17 MB of fp32 for
   128 × 256 tiles: 5 µs at the H200's bandwidth), and a slice takes about
   half a microsecond; what the machine streams into the L2 meanwhile
   (under 30 MB) leaves the lines asked for in its 50 MB. */
#define GPUH_IMPL_TC_PREFETCH_SLICES 16
/* Asks the L2 for a warp's 16 rows × BN columns of C from (row, col), the
   part of C within M × N, a 128-byte line per request: issued some slices
   before the tile's end where beta != 0, so that the epilogue's reads of C
   find it there instead of waiting on device memory. */
template <int BN, typename T>
static __device__ __forceinline__ void gpuh_impl_tc_prefetch_c(const T *C, size_t ldc, size_t M, size_t N,
                                                               size_t row, size_t col, int lane)
{
    const int per_line = 128 / (int)sizeof(T), lines = (BN + per_line - 1) / per_line;
    for (int i = lane; i < 16 * lines; i += 32) {
        const size_t r = row + i / lines, c = col + (size_t)(i % lines) * per_line;
        if (r < M && c < N)
            asm volatile("prefetch.global.L2 [%0];\n" ::"l"(C + r * ldc + c));
    }
}
/* v exchanged with lane ^ lanes of the warp (all 32 lanes take part). */
static __device__ __forceinline__ float4 gpuh_impl_tc_swap4(float4 v, int lanes)
{
    v.x = __shfl_xor_sync(0xffffffffu, v.x, lanes), v.y = __shfl_xor_sync(0xffffffffu, v.y, lanes);
    v.z = __shfl_xor_sync(0xffffffffu, v.z, lanes), v.w = __shfl_xor_sync(0xffffffffu, v.w, lanes);
    return v;
}
/* A warp's 16 × BN of C that lies wholly inside C (rows row .. row + 15,
   columns col .. col + BN - 1; C aligned to 4 elements, ldc a multiple of
   4), stored in whole lines (128 bytes of fp32, 64 of a 16-bit type).
   wgmma leaves lane (g, q) (g = lane / 4, q = lane % 4) two adjacent
   elements per 8 columns of rows g and g + 8 (d[4j + 2h + e]: row g + 8h,
   column 8j + 2q + e), so a store straight from d writes 8 columns in
   each of 8 rows. Two exchanges make lines of them: lanes q and q ^ 1
   swap pairs, so each holds 4 adjacent columns (a quad, 16 of a row);
   lanes g and g ^ 1 swap such quads, so a warp's store writes 32 adjacent
   columns in each of 4 rows: half the stores, each touching half the
   lines. */
template <int BN, typename T>
static __device__ __forceinline__ void gpuh_impl_tc_store_lines(T *C, size_t ldc, size_t row, size_t col,
                                                                const float (&d)[BN / 2], int lane, float alpha,
                                                                float beta)
{
    const int g = lane / 4, q = lane % 4, odd = q & 1, gd = g & 1;
    /* the quad's first column in each 32: q = 0, 1, 2, 3 hold 0, 8, 4, 12 (+ 16 once g swaps) */
    T *line = C + (row + (g & ~1)) * ldc + col + 4 * (q >> 1) + 8 * odd + 16 * gd;
    /* A read C (beta != 0) is loaded a batch of stores at a time, every load
       of the batch before its first store: a load after a store to C must
       wait for it (they may alias), so one load per store would wait on the
       memory once per store. A batch's C takes 32 registers. */
    typedef typename gpuh_impl_tc_quad<T>::type quad;
    enum { QUAD_REGS = sizeof(quad) / 4, BATCH = 16 / QUAD_REGS < BN / 32 ? 16 / QUAD_REGS : BN / 32 };
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int p0 = 0; p0 < BN / 32; p0 += BATCH) {
            quad c[BATCH][2] = {};
            if (beta != 0.0f)
#pragma unroll
                for (int b = 0; b < BATCH; ++b)
#pragma unroll
                    for (int e = 0; e < 2; ++e)
                        c[b][e] = *reinterpret_cast<const quad *>(line + (8 * h + e) * ldc + 32 * (p0 + b));
#pragma unroll
            for (int b = 0; b < BATCH; ++b) {
                const int p = p0 + b;
                float4 f[2]; /* columns 32p + 16e + (the quad's): rows g + 8h */
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int a = 4 * (4 * p + 2 * e) + 2 * h, b2 = a + 4; /* columns 8j0 + 2q, 8j0 + 8 + 2q */
                    const float sx = __shfl_xor_sync(0xffffffffu, odd ? d[a] : d[b2], 1);
                    const float sy = __shfl_xor_sync(0xffffffffu, odd ? d[a + 1] : d[b2 + 1], 1);
                    f[e] = odd ? make_float4(sx, sy, d[b2], d[b2 + 1]) : make_float4(d[a], d[a + 1], sx, sy);
                }
                const float4 r = gpuh_impl_tc_swap4(gd ? f[0] : f[1], 4);
                T *dst = line + 8 * h * ldc + 32 * p;
                gpuh_impl_tc_store4(dst, gd ? r : f[0], alpha, beta, c[b][0]);      /* row g & ~1 */
                gpuh_impl_tc_store4(dst + ldc, gd ? f[1] : r, alpha, beta, c[b][1]); /* row g | 1 */
            }
        }
}
#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

/* The sm_90a kernel's share of work per block: whole tiles first (the
   data-parallel part: tiles [0, dp), block b taking b, b + gridDim.x, ...),
   then, where whole tiles would leave SMs idle at the end, the tiles
   [dp, tiles) as one run of their k-slices (tile after tile, L slices in
   all) shared out evenly: block u < units takes slices [u·L / units,
   (u + 1)·L / units) (Stream-K over the last wave or two; dp is a
   multiple of the grid, so every block comes to it at once). A block's
   share cuts at most two tiles short: the last tile it reaches it leaves
   before its end, as a partial (partial: per block, the 256 multiplying
   threads' accumulators; flags: per block, 1 once its partial is
   written, 0 again once the tile's owner has seen it), and the first it
   reaches it takes from the middle to the end: it owns that tile and adds
   the partials of the blocks before it, in their order, so C is bitwise
   the same on every call. A block works its
   share from the last tile to the first, so it writes its partial before
   it waits on anyone's, and it waits only on blocks below it: no block
   waits on a block that waits, and none on a block that may still be
   waiting to start. units = 0: no shared part (dp = tiles). The sm_90a kernel
   walks this in clusters of 1 or 2 blocks: a "block" here is a cluster, a
   tile its tiles, and each block of the cluster keeps its own partial.
   Idea: M. Osama et al., "Stream-K: Work-centric Parallel Decomposition
   for Dense Matrix-Matrix Multiplication on the GPU" (PPoPP 2023). */
struct gpuh_impl_tc_work {
    unsigned long long dp, tiles;
    unsigned units;
    float *partial;
    unsigned *flags;
};

/* Where block u's share of the shared part begins, of its
   (tiles - dp)·ktiles slices, floor(u·slices / units), and the block whose
   share holds slice s: the last u whose share begins at or before s,
   floor(((s + 1)·units - 1) / slices). In 32 bits: the plan keeps
   slices·units below 2^32 (a 64-bit division in the multipliers' code
   costs them a register spill). */
static __host__ __device__ __forceinline__ unsigned gpuh_impl_tc_share(const gpuh_impl_tc_work &w, int ktiles,
                                                                       unsigned u)
{
    return u * ((unsigned)(w.tiles - w.dp) * (unsigned)ktiles) / w.units;
}
static __host__ __device__ __forceinline__ unsigned gpuh_impl_tc_holder(const gpuh_impl_tc_work &w, int ktiles,
                                                                        unsigned s)
{
    return ((s + 1) * w.units - 1) / ((unsigned)(w.tiles - w.dp) * (unsigned)ktiles);
}

/* What a segment of a block's walk is to its tile (gpuh_impl_tc_walk::role),
   which decides the segment's epilogue: a whole tile (all of K) stores its
   C; a partial (it stops short of K) leaves its sums for the tile's owner;
   an owned tile (from the middle of K to its end) adds the partials of the
   blocks before it, then stores C. */
enum gpuh_impl_tc_role { GPUH_IMPL_TC_WHOLE = 0, GPUH_IMPL_TC_PARTIAL = 1, GPUH_IMPL_TC_OWNED = 2 };

/* The walk of block `block` (of `grid`) over its share, one segment (a tile
   and its k-slices [k0, k1) of ktiles) per next(): its whole tiles, then
   its segments of the shared part, last tile first. One 64-bit counter,
   so that the multipliers keep their registers for accumulators: the next
   whole tile, below dp; then bit 63, the block (bits 32-62) and 1 + the
   next tile of the shared part, counted from dp (bits 0-31; 0: no more).
   Host and device: the tests walk it on the host. */
struct gpuh_impl_tc_walk {
    unsigned long long state;
    __host__ __device__ explicit gpuh_impl_tc_walk(unsigned block) : state(block) {}
    __host__ __device__ bool next(const gpuh_impl_tc_work &w, unsigned grid, int ktiles, unsigned long long &t,
                                  int &k0, int &k1)
    {
        const unsigned kt = (unsigned)ktiles;
        if (state < w.dp) {
            t = state, k0 = 0, k1 = ktiles;
            state += grid;
            return true;
        }
        if (!(state >> 63)) { /* past the whole tiles: dp is a multiple of grid, so the block is state - dp */
            const unsigned long long u = state - w.dp;
            if (w.units == 0 || u >= w.units ||
                gpuh_impl_tc_share(w, ktiles, (unsigned)u) == gpuh_impl_tc_share(w, ktiles, (unsigned)u + 1)) {
                state = 1ull << 63;
                return false;
            }
            state = 1ull << 63 | u << 32 | ((gpuh_impl_tc_share(w, ktiles, (unsigned)u + 1) - 1) / kt + 1);
        }
        const unsigned u = (unsigned)(state >> 32 & 0x7fffffffull), next = (unsigned)state;
        if (next == 0)
            return false;
        const unsigned s0 = gpuh_impl_tc_share(w, ktiles, u), s1 = gpuh_impl_tc_share(w, ktiles, u + 1);
        const unsigned tile = next - 1, first = tile * kt;
        t = w.dp + tile;
        k0 = s0 > first ? (int)(s0 - first) : 0;
        k1 = s1 < first + kt ? (int)(s1 - first) : ktiles;
        state = tile > s0 / kt ? state - 1 : state & ~0xffffffffull;
        return true;
    }
    /* What the segment next() returned last is (gpuh_impl_tc_role), worked
       out again from the counter, so that nothing of the segment stays in
       registers meanwhile. */
    __host__ __device__ gpuh_impl_tc_role role(const gpuh_impl_tc_work &w, int ktiles) const
    {
        if (!(state >> 63))
            return GPUH_IMPL_TC_WHOLE;
        const unsigned kt = (unsigned)ktiles, u = (unsigned)(state >> 32 & 0x7fffffffull), next = (unsigned)state;
        const unsigned s0 = gpuh_impl_tc_share(w, ktiles, u), s1 = gpuh_impl_tc_share(w, ktiles, u + 1);
        const unsigned first = (next > 0 ? next : s0 / kt) * kt;
        return s1 < first + kt ? GPUH_IMPL_TC_PARTIAL : s0 > first ? GPUH_IMPL_TC_OWNED : GPUH_IMPL_TC_WHOLE;
    }
};

/* Tile `tile` of a tiles_m × tiles_n cover of C by tiles of bm × bn in the
   grouped order (gpuh_impl_gemm_tile's): its first row m0 and column n0. */
static __device__ __forceinline__ void gpuh_impl_tc_tile(unsigned long long tile, unsigned tiles_m, unsigned tiles_n,
                                                         int bm, int bn, int &m0, int &n0)
{
    const unsigned long long width = (unsigned long long)GPUH_GEMM_GROUP_M * tiles_n;
    const unsigned long long first = tile / width * GPUH_GEMM_GROUP_M;
    const unsigned long long rows = tiles_m - first < GPUH_GEMM_GROUP_M ? tiles_m - first : GPUH_GEMM_GROUP_M;
    m0 = (int)((first + tile % width % rows) * bm);
    n0 = (int)(tile % width / rows * bn);
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* The shared part's partials (gpuh_impl_tc_work): multiplying thread i (0-255) of
   block r of cluster c (of n blocks) keeps its BN / 2 accumulators at
   w.partial[n·c + r][j][i] in float4s
   (j = 0 .. BN / 8 - 1: each warp's stores and loads are 512 contiguous
   bytes), at L2 (.cg). The 256 threads meet at their named barrier
   (gpuh_impl_tc_mult_sync: the copier warp group is not in it); thread
   0 then publishes the partial with a release at GPU scope (its fence
   orders the others' stores, seen through the barrier, before the flag)
   or, on the other side, acquires each flag before the barrier lets the
   others read. The cluster's index and the block's place in it are read
   where they are used (an asm volatile, which the compiler cannot hoist):
   addresses computed from them ahead of the main loop would hold
   registers the accumulators need. */
static __device__ __forceinline__ unsigned gpuh_impl_tc_cluster(void)
{
    unsigned c;
    asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(c));
    return c;
}
static __device__ __forceinline__ unsigned gpuh_impl_tc_rank(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
static __device__ __forceinline__ unsigned gpuh_impl_tc_ranks(void)
{
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
    return n;
}
/* This block's tile of unit `tile` (a cluster's n tiles of 128 × bn, one
   above the other, in the grouped order of an M-row C): m0, n0. */
static __device__ __forceinline__ void gpuh_impl_tc_block_tile(unsigned long long tile, size_t M, unsigned tiles_n,
                                                               int bn, int &m0, int &n0)
{
    const int unit = GPUH_IMPL_TC_BM * (int)gpuh_impl_tc_ranks();
    gpuh_impl_tc_tile(tile, (unsigned)((M + unit - 1) / unit), tiles_n, unit, bn, m0, n0);
    m0 += GPUH_IMPL_TC_BM * (int)gpuh_impl_tc_rank();
}
/* The multipliers' barrier: their 256 threads wait for each other on
   GPUH_IMPL_TC_MULT_BARRIER (the copier's warp group takes no part), and
   their memory operations before it are seen by each other after. */
static __device__ __forceinline__ void gpuh_impl_tc_mult_sync(void)
{
    asm volatile("bar.sync %0, %1;\n" ::"n"(GPUH_IMPL_TC_MULT_BARRIER), "n"(GPUH_IMPL_TC_MULT_THREADS) : "memory");
}
/* Leaves this block's partial (thread i's d, i = 0 .. 255 of the
   multipliers) in w.partial and flags it as written. */
template <int BN>
static __device__ __forceinline__ void gpuh_impl_tc_partial_put(const gpuh_impl_tc_work &w, const float (&d)[BN / 2],
                                                                int i)
{
    const unsigned block = gpuh_impl_tc_ranks() * gpuh_impl_tc_cluster() + gpuh_impl_tc_rank();
    float4 *slot = reinterpret_cast<float4 *>(w.partial) + (size_t)block * (BN / 8) * GPUH_IMPL_TC_MULT_THREADS + i;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
        __stcg(slot + GPUH_IMPL_TC_MULT_THREADS * j, make_float4(d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]));
    gpuh_impl_tc_mult_sync();
    if (i == 0)
        asm volatile("fence.acq_rel.gpu;\n"
                     "st.relaxed.gpu.global.u32 [%0], 1;\n" ::"l"(w.flags + block)
                     : "memory");
}

/* The float4s of a partial that each multiplying thread loads at once when
   it adds partials (gpuh_impl_tc_partial_add): 64 registers, free while d
   waits in the stash; the 256 threads' batches keep 64 KB of the L2's
   reads in flight on the SM. */
#define GPUH_IMPL_TC_ADD_BATCH 16
/* d += the partials of the other blocks (clusters) on the tile this one
   owns, the first of its share (gpuh_impl_tc_work), in their order: those
   from the holder of the tile's first slice to the one below this one,
   each at this block's place in its cluster. The sums are made in shared
   memory (stash: the stages, idle once both multiplying warp groups are
   done with the block's last segment, this one, which the first barrier
   waits for; thread i's float4s at stash[256·j + i]), so that the
   accumulators' registers are free meanwhile. */
template <int BN>
static __device__ __forceinline__ void gpuh_impl_tc_partial_add(const gpuh_impl_tc_work &w, int ktiles,
                                                                float (&d)[BN / 2], int i, float4 *stash)
{
    static_assert(GPUH_IMPL_TC_STAGES(BN) * GPUH_IMPL_TC_STAGE_BYTES(BN) >= GPUH_IMPL_TC_MULT_THREADS * (BN / 8) * 16,
                  "the stash fits");
    static_assert(BN / 8 % GPUH_IMPL_TC_ADD_BATCH == 0, "a partial is whole batches");
    gpuh_impl_tc_mult_sync(); /* the other warp group's wgmmas have read the stages */
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
        stash[GPUH_IMPL_TC_MULT_THREADS * j + i] = make_float4(d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]);
    /* (with d in the stash, its registers are free for these divisions) */
    const unsigned cluster = gpuh_impl_tc_cluster(), ranks = gpuh_impl_tc_ranks(), rank = gpuh_impl_tc_rank();
    const unsigned first =
        gpuh_impl_tc_holder(w, ktiles, gpuh_impl_tc_share(w, ktiles, cluster) / (unsigned)ktiles * (unsigned)ktiles);
    if (i == 0)
        for (unsigned b = first; b < cluster; ++b) {
            unsigned ready = 0;
            while (ready == 0)
                asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                             : "=r"(ready)
                             : "l"(w.flags + ranks * b + rank)
                             : "memory");
            w.flags[ranks * b + rank] = 0; /* read by this block alone: zero again for the next launch */
        }
    gpuh_impl_tc_mult_sync(); /* thread 0 has seen every flag: the partials are there */
    for (unsigned b = first; b < cluster; ++b) {
        const float4 *slot = reinterpret_cast<const float4 *>(w.partial) +
                             (size_t)(ranks * b + rank) * (BN / 8) * GPUH_IMPL_TC_MULT_THREADS + i;
        /* a batch's loads all issued before its first add: the adds' stores
           to the stash could alias the partials for all the compiler knows,
           so a load after one would wait for it, one trip to the L2 per
           float4 */
#pragma unroll
        for (int j0 = 0; j0 < BN / 8; j0 += GPUH_IMPL_TC_ADD_BATCH) {
            float4 v[GPUH_IMPL_TC_ADD_BATCH];
#pragma unroll
            for (int j = 0; j < GPUH_IMPL_TC_ADD_BATCH; ++j)
                v[j] = __ldcg(slot + GPUH_IMPL_TC_MULT_THREADS * (j0 + j));
#pragma unroll
            for (int j = 0; j < GPUH_IMPL_TC_ADD_BATCH; ++j) {
                float4 &t = stash[GPUH_IMPL_TC_MULT_THREADS * (j0 + j) + i];
                t.x += v[j].x, t.y += v[j].y, t.z += v[j].z, t.w += v[j].w;
            }
        }
    }
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const float4 v = stash[GPUH_IMPL_TC_MULT_THREADS * j + i];
        d[4 * j] = v.x, d[4 * j + 1] = v.y, d[4 * j + 2] = v.z, d[4 * j + 3] = v.w;
    }
}

/* ---- The kernel's parts, in the order a block runs them: the ring of
   stages set up, the copier's loads, the multipliers' products slice by
   slice, the split-K roles, the epilogue (CUTLASS's sm90 collectives split
   a warp-specialised kernel the same way). Each is inlined into the one
   kernel body: the parts share its registers, not a call's. */

/* setmaxnreg's counts: what the roles hold together fits in the SM's 65536 registers */
static_assert(GPUH_IMPL_TC_WARPGROUP * GPUH_IMPL_TC_COPIER_REGS +
                  GPUH_IMPL_TC_MULT_THREADS * GPUH_IMPL_TC_MULT_REGS <= 65536,
              "the roles' registers fit in the SM's register file");
/* wgmma instructions per slice: the slice's 128 bytes of K are 4 of
   wgmma's K (k16 of a 16-bit type, k8 of TF32: 32 bytes each). */
#define GPUH_IMPL_TC_SLICE_STEPS 4
/* How far one of those steps moves in shared memory, in bytes: 32 along
   the 128-byte rows of a K-major operand; 16 rows of K (a 16-bit type's
   k16) of an MN-major one. */
#define GPUH_IMPL_TC_STEP_K_MAJOR 32
#define GPUH_IMPL_TC_STEP_MN_MAJOR (16 * GPUH_IMPL_TC_ROW_BYTES)
/* A K-major descriptor's leading byte offset: unused by the 128-byte
   swizzle (its rows are whole), given as 16 (encoded 1). */
#define GPUH_IMPL_TC_LEAD_UNUSED 16

/* The RS form is TF32 with op_a = T (op(A)'s fragments from registers,
   gpuh_impl_tc_rs_slice); every other instance takes both operands from
   shared memory. */
template <typename TIn, bool TA> static __device__ __forceinline__ constexpr bool gpuh_impl_tc_rs_form(void)
{
    return sizeof(TIn) == 4 && TA;
}

/* The ring of GPUH_IMPL_TC_STAGES(BN) stages in the block's shared memory
   (shared-space addresses): stage s's op(A) slice at stage(s), its op(B)
   slice GPUH_IMPL_TC_A_BYTES on, and its mbarriers full(s) (the stage's
   copies have landed: one arrival, the copier's, and the bytes) and
   empty(s) (the multipliers of every block that copies into it are done
   with it). The stages start on the swizzle's period (the dynamic shared
   memory has GPUH_IMPL_TC_SWIZZLE_BYTES to spare for it); the mbarriers
   follow the last stage. */
template <int BN> struct gpuh_impl_tc_ring {
    unsigned base, full0, empty0;
    __device__ __forceinline__ explicit gpuh_impl_tc_ring(const unsigned char *s_raw)
        : base(((unsigned)__cvta_generic_to_shared(s_raw) + (GPUH_IMPL_TC_SWIZZLE_BYTES - 1u)) &
               ~(GPUH_IMPL_TC_SWIZZLE_BYTES - 1u)),
          full0(base + GPUH_IMPL_TC_STAGES(BN) * GPUH_IMPL_TC_STAGE_BYTES(BN)),
          empty0(full0 + GPUH_IMPL_TC_STAGES(BN) * GPUH_IMPL_TC_MBAR_BYTES)
    {
    }
    __device__ __forceinline__ unsigned stage(unsigned s) const { return base + s * GPUH_IMPL_TC_STAGE_BYTES(BN); }
    __device__ __forceinline__ unsigned full(unsigned s) const { return full0 + GPUH_IMPL_TC_MBAR_BYTES * s; }
    __device__ __forceinline__ unsigned empty(unsigned s) const { return empty0 + GPUH_IMPL_TC_MBAR_BYTES * s; }
};

/* Both blocks of a cluster meet here, every thread of each (whole warps:
   the cluster barrier is .aligned); release and acquire, so what either
   did to its shared memory before is seen by the other after. */
static __device__ __forceinline__ void gpuh_impl_tc_cluster_sync(void)
{
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

/* The ring's mbarriers initialised by thread 0, then the cluster's meeting:
   both blocks' barriers are ready before either block's copier or
   multipliers use them (a copier multicasts into, and a multiplier
   arrives on, the other block's too). "empty" counts one arrival per
   multiplying warp of each block of the cluster. */
template <int BN> static __device__ __forceinline__ void gpuh_impl_tc_ring_start(const gpuh_impl_tc_ring<BN> &ring)
{
    if (threadIdx.x == 0) {
        for (int s = 0; s < GPUH_IMPL_TC_STAGES(BN); ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(ring.full(s)));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(ring.empty(s)),
                         "r"(GPUH_IMPL_TC_MULT_THREADS / 32 * gpuh_impl_tc_ranks()));
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    gpuh_impl_tc_cluster_sync();
}

/* The load of one slice (k0 .. k0 + bk - 1 of K) of tile (m0, n0) into the
   stage at sa, completing on its "full" mbarrier: the arrival that expects
   the stage's bytes, op(A)'s 128 rows (M) and this block's share of op(B)'s
   BN rows (N), multicast into both blocks of a cluster of 2 (block `rank`
   of `ranks` copies boxes [rank·boxes / ranks, (rank + 1)·boxes / ranks)).
   Box shapes, in elements: op(A) K-major, one box of bk (K) × 128 (M);
   M-major (TA), 128 / bk boxes of bk (M: 128 bytes) × bk (K); op(B)
   K-major (TB), 2 boxes of bk (K) × BN / 2 (N); N-major, BN / 64 boxes of
   64 (N) × bk (K). */
template <typename TIn, bool TA, bool TB, int BN>
static __device__ __forceinline__ void gpuh_impl_tc_load_slice(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                               unsigned sa, unsigned full, int m0, int n0, int k0,
                                                               int rank, int ranks)
{
    const int bk = GPUH_IMPL_TC_ROW_BYTES / (int)sizeof(TIn); /* elements of K per slice */
    const int boxes = TB ? 2 : BN / 64;
    const unsigned sb = sa + GPUH_IMPL_TC_A_BYTES;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(full),
                 "r"(GPUH_IMPL_TC_STAGE_BYTES(BN))
                 : "memory");
    if (TA)
        for (int i = 0; i < GPUH_IMPL_TC_BM / bk; ++i)
            gpuh_impl_tma_load(sa + i * bk * GPUH_IMPL_TC_ROW_BYTES, map_a, m0 + bk * i, k0, full);
    else
        gpuh_impl_tma_load(sa, map_a, k0, m0, full);
    for (int j = rank * boxes / ranks; j < (rank + 1) * boxes / ranks; ++j) {
        const unsigned dst = sb + j * (TB ? BN / 2 : bk) * GPUH_IMPL_TC_ROW_BYTES;
        const int c0 = TB ? k0 : n0 + 64 * j, c1 = TB ? n0 + BN / 2 * j : k0;
        if (ranks == 2)
            gpuh_impl_tma_load_pair(dst, map_b, c0, c1, full);
        else
            gpuh_impl_tma_load(dst, map_b, c0, c1, full);
    }
}

/* The copier (one thread of warp group 0): walks the cluster's share of
   the work as the multipliers do, and for each slice of each segment waits
   until the multipliers are done with the stage's last use, then loads the
   slice into it. `it` counts slices across segments: slice it uses stage
   it % STAGES in that stage's (it / STAGES)-th round, whose parity is the
   mbarriers' phase. */
template <typename TIn, typename TOut, bool TA, bool TB, int BN>
static __device__ __forceinline__ void gpuh_impl_tc_copier(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                           const gpuh_impl_tc_args<TIn, TOut> &p,
                                                           const gpuh_impl_tc_work &sk, gpuh_impl_tc_walk &walk,
                                                           unsigned long long &tile, int &kb, int &ke,
                                                           const gpuh_impl_tc_ring<BN> &ring, int ktiles,
                                                           unsigned tiles_n)
{
    const int ranks = (int)gpuh_impl_tc_ranks(), rank = (int)gpuh_impl_tc_rank();
    const int bk = GPUH_IMPL_TC_ROW_BYTES / (int)sizeof(TIn);
    unsigned it = 0;
    while (walk.next(sk, gridDim.x / ranks, ktiles, tile, kb, ke)) {
        int m0, n0;
        gpuh_impl_tc_block_tile(tile, p.M, tiles_n, BN, m0, n0);
        for (int kt = kb; kt < ke; ++kt, ++it) {
            const unsigned s = it % GPUH_IMPL_TC_STAGES(BN);
            const int k0 = kt * bk;
            if (it >= GPUH_IMPL_TC_STAGES(BN)) /* the stage's last round is done with */
                gpuh_impl_mbar_wait(ring.empty(s), (it / GPUH_IMPL_TC_STAGES(BN) - 1) & 1);
            gpuh_impl_tc_load_slice<TIn, TA, TB, BN>(map_a, map_b, ring.stage(s), ring.full(s), m0, n0, k0, rank,
                                                     ranks);
        }
    }
}

/* One slice of the product in the SS form for multiplier warp group c: d
   (its 64 × BN) += op(A)'s rows [64·c, 64·c + 64) of the stage at sa times
   op(B)'s slice at sb, GPUH_IMPL_TC_SLICE_STEPS wgmmas committed as one
   group; then the group before is retired (wgmma.wait_group 1): one group
   stays in flight, this slice's, while the previous slice's has finished
   and its stage may go back to the copiers. op(A) M-major (TA): warp group
   c's 64 rows are its box of bk (M) × bk (K), the next 64 of M a box on
   (the leading offset); K-major: 64 rows of 128 bytes on. */
template <typename TIn, bool TA, bool TB, int BN>
static __device__ __forceinline__ void gpuh_impl_tc_ss_slice(float (&d)[BN / 2], unsigned sa, unsigned sb, int c)
{
    const int bk = GPUH_IMPL_TC_ROW_BYTES / (int)sizeof(TIn);
    const unsigned box = bk * GPUH_IMPL_TC_ROW_BYTES; /* an MN-major box: bk rows of K */
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < GPUH_IMPL_TC_SLICE_STEPS; ++kk) {
        const unsigned long long da =
            TA ? gpuh_impl_tc_desc(sa + c * box + kk * GPUH_IMPL_TC_STEP_MN_MAJOR, box)
               : gpuh_impl_tc_desc(sa + c * GPUH_IMPL_TC_WG_ROWS * GPUH_IMPL_TC_ROW_BYTES +
                                       kk * GPUH_IMPL_TC_STEP_K_MAJOR,
                                   GPUH_IMPL_TC_LEAD_UNUSED);
        const unsigned long long db =
            TB ? gpuh_impl_tc_desc(sb + kk * GPUH_IMPL_TC_STEP_K_MAJOR, GPUH_IMPL_TC_LEAD_UNUSED)
               : gpuh_impl_tc_desc(sb + kk * GPUH_IMPL_TC_STEP_MN_MAJOR, box);
        gpuh_impl_wgmma<TA, TB>(d, da, db, TIn());
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
}

/* Where a thread of a multiplier warp group reads its RS fragments
   (gpuh_impl_tc_rs_slice), as offsets into a stage: lo and hi, its row
   pair at k = q and k = q + 4 of the slice's first k8 step; row, the
   first of the pair, of the warp group's 64 (the kernel works them out,
   where the multiplier's lane and warp are). */
struct gpuh_impl_tc_rs_place {
    unsigned lo, hi;
    int row;
};

/* The product of one segment (`slices` slices of one tile, from stage
   it % STAGES on) for multiplier warp group c: d, zeroed first, holds its
   64 × BN when this returns, every wgmma retired; it counts the slices on.
   Each slice waits on its stage's "full", multiplies (SS form, or the RS
   form's fragments alternating between fa and fb slice by slice), and
   gives the stage before back (lane 0 of each warp arrives on "empty"),
   the last stage once the last group is retired. Where C is read (beta
   != 0, C as stored, SS form), the warp asks the L2 for its rows of C
   GPUH_IMPL_TC_PREFETCH_SLICES slices before the end. */
template <typename TIn, typename TOut, bool TA, bool TB, int BN>
static __device__ __forceinline__ void gpuh_impl_tc_mult_segment(float (&d)[BN / 2], unsigned (&fa)[4][4],
                                                                unsigned (&fb)[4][4], unsigned &it, int slices,
                                                                const gpuh_impl_tc_args<TIn, TOut> &p,
                                                                const gpuh_impl_tc_ring<BN> &ring,
                                                                const gpuh_impl_tc_rs_place &at, int m0, int n0,
                                                                int c, int w, int lane)
{
    const bool rs = gpuh_impl_tc_rs_form<TIn, TA>();
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
        d[i] = 0.0f;
    /* where C is read, the slice at which its lines are asked of the L2 */
    const int ask_c = p.beta == 0.0f || p.ct || rs           ? -1
                      : slices > GPUH_IMPL_TC_PREFETCH_SLICES ? slices - GPUH_IMPL_TC_PREFETCH_SLICES
                                                              : 0;
    /* j counts from 0 (not the segment's first slice of K), which keeps
       ptxas's proof that no other instruction writes d while wgmmas are in
       flight (else it serialises them), and the segment's bounds out of the
       registers */
    for (int j = 0; j < slices; ++j, ++it) {
        const unsigned s = it % GPUH_IMPL_TC_STAGES(BN);
        if (j == ask_c)
            gpuh_impl_tc_prefetch_c<BN>(p.C, p.ldc, p.M, p.N,
                                        (size_t)m0 + GPUH_IMPL_TC_WG_ROWS * c + 16 * w, (size_t)n0, lane);
        gpuh_impl_mbar_wait(ring.full(s), (it / GPUH_IMPL_TC_STAGES(BN)) & 1);
        const unsigned sa = ring.stage(s), sb = sa + GPUH_IMPL_TC_A_BYTES;
        if (rs) {
            if (j & 1)
                gpuh_impl_tc_rs_slice(d, fb, fa, sa + at.lo, sa + at.hi, sb);
            else
                gpuh_impl_tc_rs_slice(d, fa, fb, sa + at.lo, sa + at.hi, sb);
        } else
            gpuh_impl_tc_ss_slice<TIn, TA, TB, BN>(d, sa, sb, c);
        if (j > 0 && lane == 0) /* the previous slice's group is retired */
            gpuh_impl_tc_release(ring.empty((it + GPUH_IMPL_TC_STAGES(BN) - 1) % GPUH_IMPL_TC_STAGES(BN)));
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    if (rs) {
        gpuh_impl_tc_keep(fa);
        gpuh_impl_tc_keep(fb);
    }
    if (lane == 0) /* the segment's last stage */
        gpuh_impl_tc_release(ring.empty((it + GPUH_IMPL_TC_STAGES(BN) - 1) % GPUH_IMPL_TC_STAGES(BN)));
}


/* A warp group's 64 × BN of C stored as wgmma leaves it, edges checked
   (any M, N, alignment): thread (g, q) holds, for j = 0 .. BN / 8 - 1, the
   elements (r, 8j + 2q) and (r, 8j + 2q + 1) of rows r = r0 and r0 + r8
   (d[4j + 2h], d[4j + 2h + 1]: h = 0, 1), a pair per store. pairs: C's
   rows keep pairs aligned. */
template <int BN, typename TOut>
static __device__ __forceinline__ void gpuh_impl_tc_store_pairs(TOut *C, size_t ldc, size_t M, size_t N,
                                                                const float (&d)[BN / 2], size_t r0, size_t r8,
                                                                int n0, int q, float alpha, float beta, bool pairs)
{
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const size_t i = r0 + r8 * h, jj = (size_t)n0 + 8 * j + 2 * q;
            if (i < M && jj < N)
                gpuh_impl_tc_store2(C + i * ldc + jj, d[4 * j + 2 * h], d[4 * j + 2 * h + 1], alpha, beta,
                                    pairs && jj + 1 < N ? GPUH_IMPL_TC_COVER_PAIR
                                    : jj + 1 < N        ? GPUH_IMPL_TC_COVER_TWO
                                                        : GPUH_IMPL_TC_COVER_ONE);
        }
}
/* The same 64 × BN stored transposed (C = the product's transpose, ldc
   along the product's columns), for the RS form, whose thread holds rows
   r0 and r0 + 1 (d[4j + v] and d[4j + 2 + v] at column 8j + 2q + v): a
   pair of adjacent elements of C's row jj; a warp's store covers 8 such
   pairs (two 32-byte sectors) in each of 4 rows. */
template <int BN, typename TOut>
static __device__ __forceinline__ void gpuh_impl_tc_store_pairs_t(TOut *C, size_t ldc, size_t M, size_t N,
                                                                  const float (&d)[BN / 2], size_t r0, int n0, int q,
                                                                  float alpha, float beta, bool pairs)
{
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int v = 0; v < 2; ++v) {
            const size_t jj = (size_t)n0 + 8 * j + 2 * q + v;
            if (r0 < M && jj < N)
                gpuh_impl_tc_store2(C + jj * ldc + r0, d[4 * j + v], d[4 * j + 2 + v], alpha, beta,
                                    pairs && r0 + 1 < M ? GPUH_IMPL_TC_COVER_PAIR
                                    : r0 + 1 < M        ? GPUH_IMPL_TC_COVER_TWO
                                                        : GPUH_IMPL_TC_COVER_ONE);
        }
}

/* The epilogue of multiplier warp group c on tile (m0, n0): C = alpha·d +
   beta·C for its 64 rows, in whole lines where the tile lies inside C and
   C's rows keep groups of 4 aligned (gpuh_impl_tc_store_lines), else pair
   by pair; C stored transposed (ct) in the RS form. The rows thread (g, q)
   holds are 16·w + g and + 8 of the warp group's 64, in the RS form
   at.row and + 1. */
template <typename TIn, typename TOut, bool TA, int BN>
static __device__ __forceinline__ void gpuh_impl_tc_epilogue(const gpuh_impl_tc_args<TIn, TOut> &p,
                                                             float (&d)[BN / 2], const gpuh_impl_tc_rs_place &at,
                                                             int m0, int n0, int c, int w, int lane, int g, int q,
                                                             bool pairs, bool lines)
{
    const bool rs = gpuh_impl_tc_rs_form<TIn, TA>();
    const size_t r0 = (size_t)m0 + GPUH_IMPL_TC_WG_ROWS * c + (rs ? at.row : 16 * w + g), r8 = rs ? 1 : 8;
    /* d as values of its own from here (each a use the compiler cannot see
       through): without this, ptxas takes the exchanges of
       gpuh_impl_tc_store_lines for reads of wgmma results in flight and
       serialises every wgmma of the kernel (its warnings C7514, C7520) */
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
    if (!p.ct && !rs && lines && (size_t)m0 + GPUH_IMPL_TC_BM <= p.M && (size_t)n0 + BN <= p.N)
        gpuh_impl_tc_store_lines<BN>(p.C, p.ldc, r0 - g, n0, d, lane, p.alpha, p.beta);
    else if (!p.ct)
        gpuh_impl_tc_store_pairs<BN>(p.C, p.ldc, p.M, p.N, d, r0, r8, n0, q, p.alpha, p.beta, pairs);
    else if (rs)
        gpuh_impl_tc_store_pairs_t<BN>(p.C, p.ldc, p.M, p.N, d, r0, n0, q, p.alpha, p.beta, pairs);
}

#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

/* The sm_90a kernel (the manual at the top of this section): blocks of
   GPUH_IMPL_TC_WGMMA_THREADS, one per SM, in clusters of 1 or 2, dynamic
   shared memory GPUH_IMPL_TC_SMEM(BN). Warp group 0 gives registers up
   and copies (gpuh_impl_tc_copier); the multipliers take them and, a
   segment at a time, multiply (gpuh_impl_tc_mult_segment), then by the
   segment's role leave a partial, or add the partials and store C, or
   store C (gpuh_impl_tc_epilogue). At the end every thread of both blocks
   of a cluster meets, so that neither block leaves while the other may
   still copy into its stages or arrive on its mbarriers. */
template <typename TIn, typename TOut, bool TA, bool TB, int BN>
__global__ void __launch_bounds__(GPUH_IMPL_TC_WGMMA_THREADS, 1)
    gpuh_tc_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                         const gpuh_impl_tc_args<TIn, TOut> p, const gpuh_impl_tc_work sk)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char s_raw[];
    const gpuh_impl_tc_ring<BN> ring(s_raw);
    const int bk = GPUH_IMPL_TC_ROW_BYTES / (int)sizeof(TIn); /* elements of K per slice */
    const int ktiles = (int)((p.K + bk - 1) / bk);
    const unsigned tiles_n = (unsigned)((p.N + BN - 1) / BN);
    const int wg = threadIdx.x / GPUH_IMPL_TC_WARPGROUP;
    gpuh_impl_tc_ring_start(ring);
    /* Persistent: cluster c (of n blocks) walks its share of the units of
       n tiles (gpuh_impl_tc_work, each unit in the grouped order), block r
       of it the rows m0 + 128·r of each unit, so the copier starts on the
       next segment's slices while the multipliers still write this one's
       C. Both roles walk the same walk, a segment (tile, slices [kb, ke)
       of K) at a time. */
    unsigned long long tile;
    int kb, ke;
    gpuh_impl_tc_walk walk(gpuh_impl_tc_cluster());
    if (wg == 0) { /* the copier */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(GPUH_IMPL_TC_COPIER_REGS));
        if (threadIdx.x == 0)
            gpuh_impl_tc_copier<TIn, TOut, TA, TB, BN>(&map_a, &map_b, p, sk, walk, tile, kb, ke, ring, ktiles,
                                                       tiles_n);
    } else { /* a multiplier: rows [64·c, 64·c + 64) of each tile */
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(GPUH_IMPL_TC_MULT_REGS));
        const int c = wg - 1, t = threadIdx.x % GPUH_IMPL_TC_WARPGROUP, w = t / 32, lane = t % 32;
        /* pairs of columns in one store where C's rows keep them aligned */
        const bool pairs = (uintptr_t)p.C % (2 * sizeof(TOut)) == 0 && p.ldc % 2 == 0;
        /* whole lines (gpuh_impl_tc_store_lines) where C's rows keep groups of 4 elements aligned */
        const bool lines = (uintptr_t)p.C % (4 * sizeof(TOut)) == 0 && p.ldc % 4 == 0;
        /* The RS form's place (gpuh_impl_tc_rs_place). The rows of a warp's
           fragments may be any 16 of the warp group's 64 as long as the
           accumulators' rows are read the same way: thread (g, q) takes
           rows 4·chunk + 2·half and the next of its 32-row box (8 bytes:
           one load for fragment rows g and g + 8), chunk (of the row's
           eight 16-byte chunks, swizzled by k % 8 = q or q + 4) and half
           chosen so that a half warp's 16 loads fall on 32 distinct banks.
           A box is op(A)'s 32 of M (128 bytes of floats) × 32 rows of K. */
        const bool rs = gpuh_impl_tc_rs_form<TIn, TA>();
        const int g = lane / 4, q = lane % 4;
        const int chunk = (g >> 1 & 1) * 4 + (g >> 2) + 2 * (w & 1), half = g & 1;
        const unsigned box_bytes = 32 * GPUH_IMPL_TC_ROW_BYTES, chunk_shift = 4; /* chunks of 16 bytes */
        const int rs_row = 32 * (w / 2) + 4 * chunk + 2 * half; /* of the warp group's 64 */
        const unsigned a_box = (unsigned)(c * 2 + w / 2) * box_bytes + half * 8;
        const unsigned a_lo = a_box + q * GPUH_IMPL_TC_ROW_BYTES + ((chunk ^ q) << chunk_shift);
        const unsigned a_hi = a_box + (q + 4) * GPUH_IMPL_TC_ROW_BYTES + ((chunk ^ (q + 4)) << chunk_shift);
        gpuh_impl_tc_rs_place at;
        at.lo = a_lo, at.hi = a_hi, at.row = rs_row;
        unsigned fa[4][4], fb[4][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                fa[i][j] = fb[i][j] = 0u;
        unsigned it = 0; /* slices multiplied, across segments (the copier's count) */
        float d[BN / 2];
        while (walk.next(sk, gridDim.x / gpuh_impl_tc_ranks(), ktiles, tile, kb, ke)) {
            int m0, n0;
            gpuh_impl_tc_block_tile(tile, p.M, tiles_n, BN, m0, n0);
            gpuh_impl_tc_mult_segment<TIn, TOut, TA, TB, BN>(d, fa, fb, it, ke - kb, p, ring, at, m0, n0, c, w, lane);
            /* there is no shared part in the RS form */
            const gpuh_impl_tc_role role = rs ? GPUH_IMPL_TC_WHOLE : walk.role(sk, ktiles);
            if (role == GPUH_IMPL_TC_PARTIAL) {
                gpuh_impl_tc_partial_put<BN>(sk, d, threadIdx.x - GPUH_IMPL_TC_WARPGROUP);
                continue;
            }
            if (role == GPUH_IMPL_TC_OWNED) /* the other blocks' partials, summed in the stages */
                gpuh_impl_tc_partial_add<BN>(sk, ktiles, d, threadIdx.x - GPUH_IMPL_TC_WARPGROUP,
                                             static_cast<float4 *>(__cvta_shared_to_generic(ring.base)));
            gpuh_impl_tc_epilogue<TIn, TOut, TA, BN>(p, d, at, m0, n0, c, w, lane, g, q, pairs, lines);
        }
    }
    gpuh_impl_tc_cluster_sync();
#else
    (void)map_a, (void)map_b, (void)p, (void)sk;
#endif
}
#endif /* GPUH_SIM */

/* The transposing copy of gpuh_gemm_tf32's sm_90a path: out (cols × rows,
   row stride ld_out) = inᵀ of in (rows × cols, ld_in), T = float. Block 32 × 8
   threads, one 32 × 32 tile (x: tile column, y: tile row): read along in's
   rows, written along out's rows through a padded shared tile (no bank
   conflicts). */
template <typename T>
__global__ void __launch_bounds__(256) gpuh_tc_transpose_kernel(const T *in, size_t ld_in, size_t rows, size_t cols,
                                                                T *out, size_t ld_out)
{
    __shared__ T s_t[32][33];
    const size_t r0 = (size_t)blockIdx.y * 32, c0 = (size_t)blockIdx.x * 32;
    for (int i = threadIdx.y; i < 32; i += 8)
        if (r0 + i < rows && c0 + threadIdx.x < cols)
            s_t[i][threadIdx.x] = in[(r0 + i) * ld_in + c0 + threadIdx.x];
    __syncthreads(); /* the tile is in shared memory before it is read across */
    for (int i = threadIdx.y; i < 32; i += 8)
        if (c0 + i < cols && r0 + threadIdx.x < rows)
            out[(c0 + i) * ld_out + r0 + threadIdx.x] = s_t[threadIdx.x][i];
}

#endif /* GPUH_IMPL_TC_SM90_CUH */
