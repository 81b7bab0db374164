/* gpuh/gemm_tuning.cuh - part of gpuh_kernels.cuh: the shipped GEMM tile
   configurations and the launcher's tuned constants. Included by
   gpuh_kernels.cuh, never on its own: the public names it defines are declared
   and documented there. */
#ifndef GPUH_IMPL_GEMM_TUNING_CUH
#define GPUH_IMPL_GEMM_TUNING_CUH

/* ===========================================================================
   [SECTION: GEMM TUNING]
   The shipped tile sizes and the launcher's one tuned constant. To retune:
   bench/gemm_tune.cu times candidate configurations through gpuh_gemm_with
   against cuBLAS in one table; its figures and those behind these choices
   are in bench/results/NOTES.md. The budgets of the shipped kernels
   (registers, shared memory, no spills) are in tools/check_budget.py.
   =========================================================================== */

/* The shipped tile sizes: the fastest rows of bench/gemm_tune.cu on an H200
   without spills (its table and the ratios to cuBLAS: bench/results/NOTES.md).
   The big tiles are ALIGNED: an unaligned A or B is copied aligned for them,
   or runs on the other tiles, whose rate element loads cost less of. */
typedef gpuh_gemm_simt_config<256, 128, 16, 4, 2, 8, 1, 1> gpuh_sgemm_big;  /* 8 × 16 per thread */
typedef gpuh_gemm_simt_config<64, 64, 16, 2, 4, 8, 2> gpuh_sgemm_small;   /* 4 × 4 per thread */
typedef gpuh_gemm_dmma_config<64, 128, 16, 2, 2, 3, 2> gpuh_dgemm_big;
typedef gpuh_gemm_dmma_config<64, 64, 16, 2, 2, 3, 3> gpuh_dgemm_small;
typedef gpuh_gemm_simt_config<64, 64, 16, 2, 4, 8, 2> gpuh_dgemm_simt;    /* double without FP64 tensor cores */
/* Narrow tiles for a C of at most 16 rows (wide) or 16 columns (tall):
   64 threads, 8 × 4 (4 × 8) per thread; Small's 64-row (column) tile would
   compute mostly rows (columns) that do not exist. */
typedef gpuh_gemm_simt_config<16, 128, 16, 1, 2, 2, 4> gpuh_sgemm_wide;
typedef gpuh_gemm_simt_config<128, 16, 16, 2, 1, 16, 4> gpuh_sgemm_tall;
/* Narrow tiles for a C of 17 to 32 rows (wide32) or columns (tall32): 128
   threads of 8 × 4 (4 × 8) per thread, 3 blocks per SM (at 4, a thread's
   128 registers made ptxas spill the element-load path:
   bench/results/NOTES.md). Two 16-wide tiles would cover
   such a C with each reading all of A (B); cuBLAS runs 32 × 128 × 8 tiles
   at a C of 20 rows (20 × 5530 × 7006, ncu:
   bench/results/gemm_ncu_cublas.txt). */
typedef gpuh_gemm_simt_config<32, 128, 16, 1, 4, 4, 3> gpuh_sgemm_wide32;
typedef gpuh_gemm_simt_config<128, 32, 16, 4, 1, 8, 3> gpuh_sgemm_tall32;
/* Narrow tiles for a C of up to 64 rows (wide64) or 64 columns (tall64),
   128 threads and slices of 8 of K (with 16 ptxas spills). wide64: 64 ×
   256, 16 × 8 per thread, 128 accumulators as in the big tiles, so the
   same work per shared load, 2 blocks per SM. tall64: 128 × 64, 8 × 8 per
   thread, 3 blocks per SM, which beat 256 × 64 tiles of 16 × 8 at such
   shapes (as wide64 beat its 64 × 128 twin: bench/results/NOTES.md). cuBLAS runs tiles of these proportions there
   (256 × 64 × 8, 64 × 128 × 8 and 64 × 64 × 8, 4 warps, ncu: NOTES.md). */
typedef gpuh_gemm_simt_config<64, 256, 8, 2, 2, 2, 2> gpuh_sgemm_wide64;
typedef gpuh_gemm_simt_config<128, 64, 8, 2, 2, 8, 3> gpuh_sgemm_tall64;
/* Narrow tiles of the FP64 tensor-core kernel for a C of at most 16 rows
   (wide), 17 to 32 rows (wide32) or at most 16 columns (tall): 128 threads,
   3 stages, 3 blocks per SM. gpuh_dgemm_small's 64-row (column) tile would
   compute mostly rows (columns) that do not exist; on the CUDA cores the
   float narrow tiles lost to those 64 × 64 tiles in double
   (bench/results/NOTES.md). No 32-column tile: the 64 × 64 tiles beat it
   at every such C measured. */
typedef gpuh_gemm_dmma_config<16, 128, 16, 1, 4, 3, 3> gpuh_dgemm_wide;
typedef gpuh_gemm_dmma_config<32, 128, 16, 2, 2, 3, 3> gpuh_dgemm_wide32;
typedef gpuh_gemm_dmma_config<128, 16, 16, 4, 1, 3, 3> gpuh_dgemm_tall;

/* Small tiles do less work per SM and per cycle than big ones: their
   blocks reread more of A and B per multiply-add. The launcher weighs their
   waves by this factor, the rate of the float small tiles relative to the
   big ones as bench/gemm_tune.cu measures it, for double too (where small
   tiles lose less); the figures: bench/results/NOTES.md. */
#define GPUH_GEMM_SMALL_RATE 0.7
/* The same for the narrow tiles (gpuh_sgemm_wide 0.60, gpuh_sgemm_tall 0.65
   of the big tiles' rate at 4096 × 4096 × 1024 on an H200). */
#define GPUH_GEMM_NARROW_RATE 0.6
/* gpuh_sgemm_tall's own: at the shapes that choose it (a C of few columns,
   medium or skinny), each cover forced in turn on an H200 ran it 1.22 times
   longer per unit of the model's cost than the big, small and 64-column
   tiles (40 shapes drawn as the bench's medium and skinny families, two
   seeds; 1.26 on a third seed's 24): GPUH_GEMM_NARROW_RATE's 0.6 divided
   by 1.2. */
#define GPUH_GEMM_TALL_RATE 0.5
/* The same for the 32-row and 32-column tiles: the small tiles' rate (128
   threads a block against their 256, 3 blocks per SM against 2), not tuned
   apart; the plans it gives were measured against cuBLAS at the bench's
   skinny shapes (bench/results/NOTES.md). */
#define GPUH_GEMM_NARROW32_RATE 0.7
/* The same for the 64-row and 64-column tiles: gpuh_sgemm_wide64 0.89 to
   0.94, gpuh_sgemm_tall64 0.85 to 0.97 over the four op pairs at
   4096 × 4096 × 1024 and × 2048 on an H200; the least of them. */
#define GPUH_GEMM_NARROW64_RATE 0.85
/* The FP64 narrow tiles' rates, relative to gpuh_dgemm_big's: the model's
   cost per µs of each tile forced, against that of the plan without them,
   at C of 2 to 32 rows or columns (24 shapes, two seeds; H200,
   bench/results/NOTES.md): gpuh_dgemm_wide 0.45 to 0.6, gpuh_dgemm_wide32
   0.6 to 0.68, gpuh_dgemm_tall 0.16 to 0.35 (its blocks each read 128 rows
   of A for 16 columns of C). */
#define GPUH_GEMM_FP64_WIDE_RATE 0.5
#define GPUH_GEMM_FP64_WIDE32_RATE 0.6
#define GPUH_GEMM_FP64_TALL_RATE 0.25

/* Split-K's costs, in the launcher's unit (multiply-adds per SM at the big
   tiles' rate): a block's fixed cost beside its share of K (its prologue,
   the pipeline's fill and drain, the epilogue), as elements of K, for a
   block alone on its SM (less where blocks share one:
   gpuh_impl_gemm_overhead); the
   multiply-adds an SM does in the time the memory system moves one byte (an
   H200 streams about 4 TB/s and does about 20·10^12 float or double
   multiply-adds per second on the tiled kernels: 5); and the fixed cost of
   the second launch with the workspace's allocation and free (about 5 µs),
   in multiply-adds per SM. */
#define GPUH_GEMM_K_OVERHEAD 48
#define GPUH_GEMM_MACS_PER_BYTE 5.0
#define GPUH_GEMM_SPLIT_FIXED 8e5
/* The second pass's wait for one batch of slices (a thread of the reduce
   kernel adds its slices in batches, waiting on memory once per batch),
   in the same unit: about 1.2 µs on an H200, from the time per added slice
   at a C of one or two tiles and 60000 elements of K, 125 to 469 slices
   (bench/results/NOTES.md). */
#define GPUH_GEMM_REDUCE_WAIT 2e5
/* Most slices of K a split-K launch cuts (more where the tiles are too few
   to fill the GPU with them: gpuh_impl_gemm_splits), and the reduce
   kernel's largest block, in threads (a C of fewer groups of 4 per SM takes
   fewer). */
#define GPUH_GEMM_MAX_SPLITS 64
#define GPUH_GEMM_REDUCE_BLOCK 256
/* The fraction of the tiled kernels' rate that element loads of A and B
   (unaligned matrices) cost, against 16-byte loads: 4097³ against 4096³ on
   an H200. Above it gpuh_gemm copies A or B to aligned memory first. */
#define GPUH_GEMM_SCALAR_LOSS 0.1


#endif /* GPUH_IMPL_GEMM_TUNING_CUH */
