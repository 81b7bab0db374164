/* The shared memory budgets of the shipped GEMM configurations, checked at
   compile time, for the budget check (tools/check_budget.py, CTest
   compile.budget), which compiles this file for sm_90a and then reads the
   registers, static shared memory and spills of every kernel gpuh::kernels
   ships from ptxas's reports of the library's own build. It instantiates
   no kernel: the dynamic shared memory of a configuration is a constant of
   its type. */
#include "gpuh_kernels.cuh"

/* Dynamic shared memory per block of a configuration, in bytes. */
template <typename T, typename Cfg> constexpr int simt_smem() { return (int)(Cfg::SMEM_ELEMS * sizeof(T)); }

/* An H100 or H200 SM gives at most 227 KiB of shared memory to its blocks: the
   MIN_BLOCKS blocks per SM each configuration promises must fit together. */
constexpr int sm90_smem_per_sm = 227 * 1024;
static_assert(simt_smem<float, gpuh_sgemm_big>() <= 50176, "gpuh_sgemm_big: shared memory budget");
static_assert(simt_smem<float, gpuh_sgemm_small>() <= 17408, "gpuh_sgemm_small: shared memory budget");
static_assert(simt_smem<double, gpuh_dgemm_simt>() <= 34816, "gpuh_dgemm_simt: shared memory budget");
static_assert(simt_smem<float, gpuh_sgemm_wide>() <= 19456 && simt_smem<float, gpuh_sgemm_tall>() <= 19456 &&
                  simt_smem<float, gpuh_sgemm_wide>() * gpuh_sgemm_wide::MIN_BLOCKS <= sm90_smem_per_sm &&
                  simt_smem<float, gpuh_sgemm_tall>() * gpuh_sgemm_tall::MIN_BLOCKS <= sm90_smem_per_sm,
              "gpuh_sgemm_wide, gpuh_sgemm_tall: shared memory budget");
static_assert(simt_smem<float, gpuh_sgemm_wide32>() <= 21504 && simt_smem<float, gpuh_sgemm_tall32>() <= 21504 &&
                  simt_smem<float, gpuh_sgemm_wide32>() * gpuh_sgemm_wide32::MIN_BLOCKS <= sm90_smem_per_sm &&
                  simt_smem<float, gpuh_sgemm_tall32>() * gpuh_sgemm_tall32::MIN_BLOCKS <= sm90_smem_per_sm,
              "gpuh_sgemm_wide32, gpuh_sgemm_tall32: shared memory budget");
static_assert(simt_smem<float, gpuh_sgemm_wide64>() <= 21504 && simt_smem<float, gpuh_sgemm_tall64>() <= 21504 &&
                  simt_smem<float, gpuh_sgemm_wide64>() * gpuh_sgemm_wide64::MIN_BLOCKS <= sm90_smem_per_sm &&
                  simt_smem<float, gpuh_sgemm_tall64>() * gpuh_sgemm_tall64::MIN_BLOCKS <= sm90_smem_per_sm,
              "gpuh_sgemm_wide64, gpuh_sgemm_tall64: shared memory budget");
static_assert(gpuh_dgemm_big::SMEM <= 92160, "gpuh_dgemm_big: shared memory budget");
static_assert(gpuh_dgemm_small::SMEM <= 61440, "gpuh_dgemm_small: shared memory budget");
static_assert(gpuh_dgemm_wide::SMEM <= 69120 && gpuh_dgemm_tall::SMEM <= 69120 && gpuh_dgemm_wide32::SMEM <= 76800 &&
                  gpuh_dgemm_wide::SMEM * gpuh_dgemm_wide::MIN_BLOCKS <= sm90_smem_per_sm &&
                  gpuh_dgemm_tall::SMEM * gpuh_dgemm_tall::MIN_BLOCKS <= sm90_smem_per_sm &&
                  gpuh_dgemm_wide32::SMEM * gpuh_dgemm_wide32::MIN_BLOCKS <= sm90_smem_per_sm,
              "gpuh_dgemm_wide, gpuh_dgemm_wide32, gpuh_dgemm_tall: shared memory budget");
static_assert(simt_smem<float, gpuh_sgemm_big>() * gpuh_sgemm_big::MIN_BLOCKS <= sm90_smem_per_sm &&
                  simt_smem<float, gpuh_sgemm_small>() * gpuh_sgemm_small::MIN_BLOCKS <= sm90_smem_per_sm &&
                  simt_smem<double, gpuh_dgemm_simt>() * gpuh_dgemm_simt::MIN_BLOCKS <= sm90_smem_per_sm &&
                  gpuh_dgemm_big::SMEM * gpuh_dgemm_big::MIN_BLOCKS <= sm90_smem_per_sm &&
                  gpuh_dgemm_small::SMEM * gpuh_dgemm_small::MIN_BLOCKS <= sm90_smem_per_sm,
              "a configuration's MIN_BLOCKS blocks per SM do not fit in an SM's shared memory");
