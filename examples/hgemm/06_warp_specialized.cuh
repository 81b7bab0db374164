/* hgemm/06_warp_specialized.cuh - step 6 of the tensor-core ladder: a producer warpgroup feeds two consumers.

   This version splits the block by role ("warp specialisation"). Warpgroup
   0, the producer, only loads: one of its threads walks K issuing TMA
   copies into a ring of HGEMM6_STAGES stages, and waits only when the ring
   is full. Warpgroups 1 and 2, the consumers, only compute: each waits for
   a stage to be full, runs its wgmma batch on it, and hands the stage back.
   Two mbarriers per stage carry the hand-offs, and nobody meets at a
   __syncthreads in the main loop:
     full[s]   armed by the producer with the stage's bytes; flips when the
               TMA has delivered them (consumers wait on it);
     empty[s]  one arrival per consumer warp (8); flips when every consumer
               warp is done reading the stage (the producer waits on it).
   The tile grows to 128 × 256: each consumer owns 64 rows × 256 columns,
   one m64n256k16 instruction per 16 columns of K (the widest wgmma), so each
   byte of A loaded into shared memory now feeds twice the arithmetic of
   step 5. Its 128 accumulators per thread fit because of `setmaxnreg`: the
   producer gives its registers back (down to 40 per thread) and the
   consumers take them (up to 232), which needs the kernel's register cap
   set at launch (__launch_bounds__(384, 1)).
   What is left (in the shipped gpuh_gemm and in the worklogs): a
   persistent grid that keeps every SM busy to the end and orders tiles for
   L2 reuse, clusters of two SMs on tiles that need the same slices of B,
   each loading half of a slice for both (TMA multicast), the epilogue's
   stores overlapped with the next tile's loads, and any shape.
   Grid (N / 256, M / 128), block 384 threads, dynamic shared memory 193 KiB
   (4 stages of 16 + 32 KiB). Needs M a multiple of 128, N of 256, K of 64;
   the sm_90a features. */
#ifndef HGEMM_06_WARP_SPECIALIZED_CUH
#define HGEMM_06_WARP_SPECIALIZED_CUH

#include "05_tma_mbarrier.cuh"

#define HGEMM6_BM 128
#define HGEMM6_BN 256
#define HGEMM6_BK 64
#define HGEMM6_STAGES 4
#define HGEMM6_A_BYTES (HGEMM6_BM * HGEMM6_BK * 2) /* 16 KiB */
#define HGEMM6_B_BYTES (HGEMM6_BN * HGEMM6_BK * 2) /* 32 KiB */
#define HGEMM6_SMEM (HGEMM6_STAGES * (HGEMM6_A_BYTES + HGEMM6_B_BYTES) + 1024)

static __global__ void __launch_bounds__(384, 1) hgemm6_warp_specialized(const __grid_constant__ CUtensorMap tm_A,
                                                                         const __grid_constant__ CUtensorMap tm_B,
                                                                         float *__restrict__ g_C, size_t N, size_t K)
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ __align__(8) uint64_t s_full[HGEMM6_STAGES], s_empty[HGEMM6_STAGES];
    const uint32_t s_base = hgemm_smem_base(smem); /* stage s: A at base + s·(A+B bytes), B after it */
    const int tid = threadIdx.x, role = tid / 128;  /* 0: producer; 1, 2: consumers */
    const int m0 = (int)blockIdx.y * HGEMM6_BM, n0 = (int)blockIdx.x * HGEMM6_BN;
    const int k_tiles = (int)(K / HGEMM6_BK);

    if (tid == 0) {
        for (int s = 0; s < HGEMM6_STAGES; ++s) {
            hgemm_mbar_init(hgemm_smem_addr(&s_full[s]), 1);
            hgemm_mbar_init(hgemm_smem_addr(&s_empty[s]), 2 * 4); /* 2 consumer warpgroups × 4 warps */
        }
        hgemm_mbar_init_fence();
    }
    __syncthreads(); /* the last block-wide barrier: the barriers exist */

    if (role == 0) {
        /* The producer needs few registers; giving them back lets the
           consumers raise theirs (the register file is shared by the SM). */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0) {
            for (int kt = 0; kt < k_tiles; ++kt) {
                const int s = kt % HGEMM6_STAGES, use = kt / HGEMM6_STAGES;
                /* From the second lap on, wait until the consumers have
                   released the slice this stage held one lap ago. */
                if (use > 0)
                    hgemm_mbar_wait(hgemm_smem_addr(&s_empty[s]), (use - 1) % 2);
                const uint32_t s_A = s_base + s * (HGEMM6_A_BYTES + HGEMM6_B_BYTES), bar = hgemm_smem_addr(&s_full[s]);
                hgemm_mbar_expect_bytes(bar, HGEMM6_A_BYTES + HGEMM6_B_BYTES);
                hgemm_tma_load(s_A, &tm_A, kt * HGEMM6_BK, m0, bar);
                hgemm_tma_load(s_A + HGEMM6_A_BYTES, &tm_B, kt * HGEMM6_BK, n0, bar);
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int c = role - 1, ctid = tid % 128; /* consumer c owns rows 64c .. 64c + 63 of the tile */
        float acc[128] = {};
        for (int kt = 0; kt < k_tiles; ++kt) {
            const int s = kt % HGEMM6_STAGES;
            hgemm_mbar_wait(hgemm_smem_addr(&s_full[s]), (kt / HGEMM6_STAGES) % 2);
            const uint32_t s_A = s_base + s * (HGEMM6_A_BYTES + HGEMM6_B_BYTES) + c * 64 * 128,
                           s_B = s_base + s * (HGEMM6_A_BYTES + HGEMM6_B_BYTES) + HGEMM6_A_BYTES;
            hgemm_wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < 4; ++kk)
                hgemm_wgmma_m64n256k16(acc, hgemm_desc(s_A + 32 * kk), hgemm_desc(s_B + 32 * kk), 1);
            hgemm_wgmma_commit();
            hgemm_wgmma_wait<0>();
            hgemm_fence_accumulators(acc);
            /* This warp no longer reads stage s. */
            if (ctid % 32 == 0)
                hgemm_mbar_arrive(hgemm_smem_addr(&s_empty[s]));
        }
        hgemm_store_wgmma_tile<256>(g_C, N, (size_t)m0 + 64 * c, (size_t)n0, acc, ctid);
    }
#else
    (void)tm_A, (void)tm_B, (void)g_C, (void)N, (void)K;
#endif
}

/* hgemm_step6: C = A · Bᵀ with hgemm6_warp_specialized; errors as
   hgemm_step5 (M a multiple of 128, N of 256, K of 64). sm_90a only. From:
   the CUDA C++ Programming Guide's asynchronous barriers and producer /
   consumer pattern; CUTLASS's warp-specialised sm_90 GEMM; the PTX ISA's
   setmaxnreg. */
static inline cudaError_t hgemm_step6(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                                      cudaStream_t stream)
{
    dim3 grid;
    CUtensorMap tm_A, tm_B;
    cudaError_t err = hgemm_check_args("hgemm_step6", d_A, d_B, d_C, M, N, K, HGEMM6_BM, HGEMM6_BN, HGEMM6_BK,
                                       &grid);
    if (err != cudaSuccess || grid.x == 0)
        return err;
    if ((M | N | K) >= ((size_t)1 << 31))
        return gpuh_fail(cudaErrorInvalidValue, "hgemm_step6: M %zu, N %zu, K %zu must be below 2^31", M, N, K);
    if ((err = hgemm_tensor_map(&tm_A, d_A, M, K, HGEMM6_BM)) != cudaSuccess ||
        (err = hgemm_tensor_map(&tm_B, d_B, N, K, HGEMM6_BN)) != cudaSuccess)
        return err;
    if ((err = cudaFuncSetAttribute(hgemm6_warp_specialized, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    HGEMM6_SMEM)) != cudaSuccess)
        return err;
    return GPUH_LAUNCH(hgemm6_warp_specialized, grid, dim3(384), HGEMM6_SMEM, stream, tm_A, tm_B, d_C, N, K);
}

#endif /* HGEMM_06_WARP_SPECIALIZED_CUH */
