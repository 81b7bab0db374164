/* hgemm/wgmma.cuh - Hopper's warpgroup matrix multiply (wgmma), as steps 4 to 6 of the ladder use it.

   wgmma.mma_async is the sm_90a tensor-core instruction. Where mma.sync
   belongs to one warp and takes its operands from registers, wgmma belongs
   to a warpgroup (4 consecutive warps, 128 threads, the first warp's index
   a multiple of 4), reads A and B straight from shared memory, and is
   asynchronous: the warpgroup issues a batch of them, commits the batch as
   a group, and waits for it later, so the issue slots stay free while the
   tensor cores work. One m64nNk16 instruction multiplies a 64 × 16 tile of
   A by a 16 × N tile of B (N up to 256) into a 64 × N float32 accumulator
   held in registers: N / 2 floats per thread. With g = lane / 4, t = lane % 4
   and w the warp's index in the warpgroup, the thread holds, for each
   8-column slice j < N / 8 (PTX ISA, "wgmma register fragments"):
       d[4j], d[4j+1]     C[16w + g][8j + 2t, 8j + 2t + 1]
       d[4j+2], d[4j+3]   C[16w + g + 8][8j + 2t, 8j + 2t + 1]
   The operands are named by 64-bit "matrix descriptors" (hgemm_desc): the
   tile's shared-memory address and how its rows are laid out. The ladder
   keeps both tiles K-major in rows of 64 bf16 (128 bytes) with the 128-byte
   swizzle (common.cuh, hgemm_swizzle128), the layout the TMA writes.
   Everything here compiles to nothing without the sm_90a features
   (__CUDA_ARCH_FEAT_SM90_ALL); the runner skips the steps then. */
#ifndef HGEMM_WGMMA_CUH
#define HGEMM_WGMMA_CUH

#include "common.cuh"

/* hgemm_desc: the wgmma descriptor of a K-major, 128-byte-swizzled tile
   whose rows of 64 bf16 start at shared address `addr` (PTX ISA, "Matrix
   Descriptor Format"): bits 0-13 the address / 16; bits 16-29 the leading
   byte offset / 16, unused by K-major swizzled layouts (1 by convention);
   bits 32-45 the stride byte offset / 16: 1024 bytes from one group of 8
   rows to the next; bits 62-63 the swizzle, 1 = 128 bytes. The tile must
   start on a 1024-byte boundary for the swizzle pattern to line up; the
   k-th 16-wide slice of the 64 columns is then the same descriptor with the
   address moved by 32·k bytes, because the hardware applies the XOR to the
   final address bits, as hgemm_swizzle128 does. */
static __device__ __forceinline__ uint64_t hgemm_desc(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

/* Order the warpgroup's earlier register and shared-memory accesses before
   the wgmma instructions that follow (needed before the first wgmma of a
   batch whose accumulators other instructions have touched). */
static __device__ __forceinline__ void hgemm_wgmma_fence()
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/* Close the batch of wgmma instructions issued since the last commit into
   one group that hgemm_wgmma_wait can wait for. */
static __device__ __forceinline__ void hgemm_wgmma_commit()
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/* Wait until at most `pending` committed groups are still running. */
template <int pending>
static __device__ __forceinline__ void hgemm_wgmma_wait()
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
#endif
}

/* Tell the compiler that the asynchronous wgmma may have changed every
   accumulator register, so it neither reads one early nor moves an access
   across the wait (the registers are written behind its back). */
template <int n>
static __device__ __forceinline__ void hgemm_fence_accumulators(float (&d)[n])
{
#pragma unroll
    for (int i = 0; i < n; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* d (+)= A · Bᵀ for one warpgroup: A the 64 × 16 tile named by desc_a, B the
   N × 16 tile named by desc_b (both K-major); accumulate 0 overwrites d, 1
   adds to it. The operand lists are written out: inline PTX takes no arrays. */
static __device__ __forceinline__ void hgemm_wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                           int accumulate)
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(desc_a), "l"(desc_b), "r"(1));
#else
    (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
#endif
}

static __device__ __forceinline__ void hgemm_wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                                           int accumulate)
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
                 "}, %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                   "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                   "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                   "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                   "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(desc_a), "l"(desc_b), "r"(1));
#else
    (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
#endif
}

#endif /* HGEMM_WGMMA_CUH */
