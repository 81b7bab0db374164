/* Stand-in for CUDA's <cuda_pipeline.h> on gpuh's CPU simulator: the
   primitives (<cuda_pipeline_primitives.h>) and nvcuda::experimental's
   pipeline object with memcpy_async of one object. Copies are done at once
   (see the primitives), so commit and the waits have nothing to wait for. */
#ifndef GPUH_SIM_CUDA_PIPELINE_H
#define GPUH_SIM_CUDA_PIPELINE_H
#include "cuda_pipeline_primitives.h"

namespace nvcuda {
namespace experimental {
class pipeline {
  public:
    void commit() {}
    void commit_and_wait() {}
    void wait(std::size_t) {}
    template <unsigned N> void wait_prior() {}
};
/* dst = src, of a type of 4, 8 or 16 bytes (the hardware copy's unit). */
template <class T> inline void memcpy_async(T &dst, const T &src, pipeline &)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "memcpy_async copies 4, 8 or 16 bytes");
    memcpy(static_cast<void *>(&dst), static_cast<const void *>(&src), sizeof(T));
}
} /* namespace experimental */
} /* namespace nvcuda */
#endif
