/* Stand-in for CUDA's <cuda_pipeline_primitives.h> on gpuh's CPU simulator:
   __pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior. The copy
   is done at once (its first size - zfill bytes from src, the rest zeros),
   so every batch is complete when committed and waiting has nothing to wait
   for. Semantics from the CUDA C++ Programming Guide, "Pipeline Primitives
   Interface". (__pipeline_arrive_on needs the arrive/wait barrier of
   <cuda_awbarrier.h>, which is not simulated.) */
#ifndef GPUH_SIM_CUDA_PIPELINE_PRIMITIVES_H
#define GPUH_SIM_CUDA_PIPELINE_PRIMITIVES_H
#include "gpuh_sim_async.h"

/* size_and_align is 4, 8 or 16 bytes, dst and src aligned to it; zfill <= size_and_align. */
inline void __pipeline_memcpy_async(void *dst, const void *src, std::size_t size_and_align, std::size_t zfill = 0)
{
    const std::size_t copied = zfill < size_and_align ? size_and_align - zfill : 0;
    memcpy(dst, src, copied);
    memset(static_cast<char *>(dst) + copied, 0, size_and_align - copied);
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(std::size_t) {}
#endif
