/* hgemm/02_smem_ldmatrix.cuh - step 2 of the tensor-core ladder: shared-memory tiles, fragments by ldmatrix.

   This version gives each block a 128 × 128 tile of C and walks K in
   32-wide slices: the block's 256 threads copy a 128 × 32 slice of A and
   one of B into shared memory (16 bytes per load, coalesced), and each of
   its 8 warps computes a 64 × 32 piece of the tile from there: 4 × 4
   mma.sync per 16 columns of K, 64 float32 accumulators per thread. Each
   element brought from global memory now feeds 32 (A) or 64 (B) tensor-core
   instructions instead of one, and the warp's 16 independent mma.sync keep
   the tensor cores busy while the next fragments load.
   The fragments come out of shared memory through `ldmatrix.x4`: each lane
   names the address of one 16-byte row, and the instruction hands every
   lane exactly the elements the mma.sync fragment layout wants it to hold
   (step 1), four 8 × 8 matrices at once. The 8 rows one matrix reads must
   sit in 8 different groups of 4 banks: a row of 32 bf16 is 64 bytes, so
   rows 2 apart would collide; padding each row to 40 bf16 (80 bytes) spreads
   any 8 consecutive rows over all 32 banks.
   What is left: loading waits. Every thread loads its share, waits at the
   barrier, computes, waits again: the global-memory latency is exposed once
   per slice, and the loads pass through registers on their way to shared
   memory.
   Grid (N / 128, M / 128), block 256 threads (2 × 4 warps of 64 × 32),
   static shared memory 20 KiB. Needs M and N multiples of 128, K of 32;
   sm_80 or later. */
#ifndef HGEMM_02_SMEM_LDMATRIX_CUH
#define HGEMM_02_SMEM_LDMATRIX_CUH

#include "01_mma_naive.cuh"

#define HGEMM2_BM 128
#define HGEMM2_BN 128
#define HGEMM2_BK 32
#define HGEMM2_PITCH 40 /* bf16 per shared row: 32 + 8 of padding (see above) */

/* Four 8 × 8 bf16 matrices from shared memory into r[0..3]: lanes 8i to
   8i + 7 give the row addresses of matrix i; lane l receives, of each
   matrix, row l / 4, elements 2(l % 4) and 2(l % 4) + 1. */
static __device__ __forceinline__ void hgemm_ldmatrix_x4(uint32_t r[4], uint32_t addr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
#else
    r[0] = r[1] = r[2] = r[3] = 0u * addr;
#endif
}

/* The ldmatrix lane addresses, for a tile whose rows run along K. For the A
   fragment (16 rows × 16 k): lanes 0-15 give rows 0-15 at k 0, lanes 16-31
   the same rows at k 8, so the 4 matrices come out in the order a[0..3] of
   step 1. For two B fragments (16 n × 16 k): lane l gives n = 8(l / 16) +
   l % 8 at k = 8((l / 8) % 2), so r[0], r[1] are the fragment of n 0-7 and
   r[2], r[3] that of n 8-15. */
static __device__ __forceinline__ int hgemm_a_row(int lane) { return lane % 16; }
static __device__ __forceinline__ int hgemm_a_col(int lane) { return (lane / 16) * 8; }
static __device__ __forceinline__ int hgemm_b_row(int lane) { return (lane / 16) * 8 + lane % 8; }
static __device__ __forceinline__ int hgemm_b_col(int lane) { return ((lane / 8) % 2) * 8; }

/* Stores a warp's 64 × 32 block of accumulators (4 × 4 fragments of 16 × 8,
   acc[i][j] for rows 16i and columns 8j) into C at (row0, col0). */
static __device__ __forceinline__ void hgemm_store_warp_tile(float *g_C, size_t N, size_t row0, size_t col0,
                                                             const float (&acc)[4][4][4], int lane)
{
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            float *c = g_C + (row0 + 16 * i + g) * N + col0 + 8 * j + 2 * t;
            *(float2 *)c = make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2 *)(c + 8 * N) = make_float2(acc[i][j][2], acc[i][j][3]);
        }
}

/* One warp's 16 columns of K: 4 A fragments, 4 B fragments (two ldmatrix.x4),
   16 mma.sync. a_addr / b_addr: shared addresses of this lane's ldmatrix row
   in the warp's first A fragment and first pair of B fragments;
   a_step / b_step: bytes from one fragment (pair) to the next. */
static __device__ __forceinline__ void hgemm_warp_k16(float (&acc)[4][4][4], uint32_t a_addr, uint32_t a_step,
                                                      uint32_t b_addr, uint32_t b_step)
{
    uint32_t a[4][4], b[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
        hgemm_ldmatrix_x4(a[i], a_addr + i * a_step);
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        uint32_t r[4];
        hgemm_ldmatrix_x4(r, b_addr + p * b_step);
        b[2 * p][0] = r[0], b[2 * p][1] = r[1], b[2 * p + 1][0] = r[2], b[2 * p + 1][1] = r[3];
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            hgemm_mma16816(acc[i][j], a[i], b[j]);
}

static __global__ void __launch_bounds__(256) hgemm2_smem_ldmatrix(const bf16 *__restrict__ g_A,
                                                                   const bf16 *__restrict__ g_B,
                                                                   float *__restrict__ g_C, size_t M, size_t N,
                                                                   size_t K)
{
    __shared__ __align__(16) bf16 s_A[HGEMM2_BM][HGEMM2_PITCH];
    __shared__ __align__(16) bf16 s_B[HGEMM2_BN][HGEMM2_PITCH];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4, wn = warp % 4; /* this warp's 64 × 32 piece: rows 64wm, columns 32wn */
    const size_t m0 = (size_t)blockIdx.y * HGEMM2_BM, n0 = (size_t)blockIdx.x * HGEMM2_BN;
    float acc[4][4][4] = {};
    (void)M;

    for (size_t k0 = 0; k0 < K; k0 += HGEMM2_BK) {
        /* 128 rows × 4 chunks of 8 bf16 per operand: two chunks per thread,
           four threads per row, so a warp reads 8 rows × 64 contiguous bytes. */
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int c = tid + i * 256, row = c / 4, col = (c % 4) * 8;
            *(uint4 *)&s_A[row][col] = *(const uint4 *)&g_A[(m0 + row) * K + k0 + col];
            *(uint4 *)&s_B[row][col] = *(const uint4 *)&g_B[(n0 + row) * K + k0 + col];
        }
        /* Every chunk must be stored before any warp reads its fragments. */
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < HGEMM2_BK; kk += 16)
            hgemm_warp_k16(acc, hgemm_smem_addr(&s_A[64 * wm + hgemm_a_row(lane)][kk + hgemm_a_col(lane)]),
                           16 * HGEMM2_PITCH * sizeof(bf16),
                           hgemm_smem_addr(&s_B[32 * wn + hgemm_b_row(lane)][kk + hgemm_b_col(lane)]),
                           16 * HGEMM2_PITCH * sizeof(bf16));
        /* Every warp must be done reading before the next slice overwrites it. */
        __syncthreads();
    }
    hgemm_store_warp_tile(g_C, N, m0 + 64 * wm, n0 + 32 * wn, acc, lane);
}

/* hgemm_step2: C = A · Bᵀ with hgemm2_smem_ldmatrix; errors as
   hgemm_check_args (M, N multiples of 128, K of 32). From: the CUDA C++
   Programming Guide's shared-memory tiling; the PTX ISA's ldmatrix. */
static inline cudaError_t hgemm_step2(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                                      cudaStream_t stream)
{
    dim3 grid;
    const cudaError_t err = hgemm_check_args("hgemm_step2", d_A, d_B, d_C, M, N, K, HGEMM2_BM, HGEMM2_BN,
                                             HGEMM2_BK, &grid);
    if (err != cudaSuccess || grid.x == 0)
        return err;
    return GPUH_LAUNCH(hgemm2_smem_ldmatrix, grid, dim3(256), 0, stream, d_A, d_B, d_C, M, N, K);
}

#endif /* HGEMM_02_SMEM_LDMATRIX_CUH */
