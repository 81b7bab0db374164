/* hgemm/01_mma_naive.cuh - step 1 of the tensor-core ladder: one mma.sync per warp, straight from global memory.

   This version is the tensor-core counterpart of the SGEMM ladder's first
   kernel: it uses the tensor cores, and nothing else. A tensor core does a
   whole small matrix product per instruction: `mma.sync.m16n8k16` takes a
   16 × 16 tile of A and a 16 × 8 tile of B (bf16), multiplies them and adds
   the 16 × 8 product into float32 accumulators, 4096 flops in one
   instruction where an FMA does 2. The instruction belongs to the whole
   warp: each of the 32 lanes holds a fixed share of every operand in its
   registers (the "fragments" below), so the kernel's first job is to put
   the right elements into the right lanes.
   Here each warp owns one 16 × 8 tile of C and walks along K, 16 at a time,
   loading its fragments directly from global memory. Because A and B both
   run along K in memory, every fragment register is two neighbouring bf16
   values: one 32-bit load. What is left: nothing is reused. Every element
   of A is read by every warp of its row band (N / 8 of them) and each load
   waits hundreds of cycles for DRAM or L2; the tensor cores are idle most
   of the time.
   Grid (N / 16, M / 32), block 128 threads = 2 × 2 warps over a 32 × 16
   tile of C. Needs M a multiple of 32, N of 16, K of 16; sm_80 or later
   (bf16 mma.sync). */
#ifndef HGEMM_01_MMA_NAIVE_CUH
#define HGEMM_01_MMA_NAIVE_CUH

#include "common.cuh"

/* d += a · b for one warp: a is the 16 × 16 A fragment (4 registers of two
   bf16 each), b the 16 × 8 B fragment (2 registers), d the 16 × 8 float32
   accumulator fragment (4 floats). With g = lane / 4 and t = lane % 4, lane
   holds (PTX ISA, "Matrix Fragments for mma.m16n8k16"):
     a[0]: A[g][2t, 2t+1]      a[1]: A[g+8][2t, 2t+1]
     a[2]: A[g][2t+8, 2t+9]    a[3]: A[g+8][2t+8, 2t+9]
     b[0]: B[2t, 2t+1][g]      b[1]: B[2t+8, 2t+9][g]        (B as K × N)
     d[0], d[1]: C[g][2t, 2t+1]     d[2], d[3]: C[g+8][2t, 2t+1] */
static __device__ __forceinline__ void hgemm_mma16816(float d[4], const uint32_t a[4], const uint32_t b[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* Two neighbouring bf16 values (4-byte aligned) as one 32-bit register. */
static __device__ __forceinline__ uint32_t hgemm_load_pair(const bf16 *p)
{
    return *(const uint32_t *)p;
}

static __global__ void hgemm1_mma_naive(const bf16 *__restrict__ g_A, const bf16 *__restrict__ g_B,
                                        float *__restrict__ g_C, size_t M, size_t N, size_t K)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4; /* the fragment coordinates above */
    const size_t row0 = ((size_t)blockIdx.y * 2 + warp / 2) * 16; /* this warp's 16 × 8 tile of C */
    const size_t col0 = ((size_t)blockIdx.x * 2 + warp % 2) * 8;
    /* Where this lane's fragment elements start, for k0 = 0: rows g and g+8
       of the A tile, row g of B (= column g of Bᵀ), at k = 2t. */
    const bf16 *a_lo = g_A + (row0 + g) * K + 2 * t, *a_hi = a_lo + 8 * K;
    const bf16 *b_row = g_B + (col0 + g) * K + 2 * t;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    (void)M;

    for (size_t k0 = 0; k0 < K; k0 += 16) {
        const uint32_t a[4] = {hgemm_load_pair(a_lo + k0), hgemm_load_pair(a_hi + k0),
                               hgemm_load_pair(a_lo + k0 + 8), hgemm_load_pair(a_hi + k0 + 8)};
        const uint32_t b[2] = {hgemm_load_pair(b_row + k0), hgemm_load_pair(b_row + k0 + 8)};
        hgemm_mma16816(acc, a, b);
    }
    /* d[0], d[1] are neighbours in a row of C: one 8-byte store each half. */
    *(float2 *)&g_C[(row0 + g) * N + col0 + 2 * t] = make_float2(acc[0], acc[1]);
    *(float2 *)&g_C[(row0 + g + 8) * N + col0 + 2 * t] = make_float2(acc[2], acc[3]);
}

/* hgemm_step1: C = A · Bᵀ with hgemm1_mma_naive; errors as hgemm_check_args
   (M a multiple of 32, N of 16, K of 16). From: the PTX ISA's mma.sync
   fragment layouts. */
static inline cudaError_t hgemm_step1(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                                      cudaStream_t stream)
{
    dim3 grid;
    const cudaError_t err = hgemm_check_args("hgemm_step1", d_A, d_B, d_C, M, N, K, 32, 16, 16, &grid);
    if (err != cudaSuccess || grid.x == 0)
        return err;
    return GPUH_LAUNCH(hgemm1_mma_naive, grid, dim3(128), 0, stream, d_A, d_B, d_C, M, N, K);
}

#endif /* HGEMM_01_MMA_NAIVE_CUH */
