/* gpuh_sim_async.h - what the simulator's stand-ins for <cuda/barrier>,
   <cuda/pipeline> and <cuda_pipeline_primitives.h> share: libcu++'s thread
   scopes, cuda::aligned_size_t, and the simulator's way for a waiting thread
   to let the others run. Semantics from the CUDA C++ Programming Guide,
   "Asynchronous Data Copies" and "Asynchronous Barrier". */
#ifndef GPUH_SIM_ASYNC_H
#define GPUH_SIM_ASYNC_H
#include "gpuh_sim.h"
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

namespace cuda {
#ifndef GPUH_IMPL_SIM_THREAD_SCOPE
#define GPUH_IMPL_SIM_THREAD_SCOPE
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };
#endif
/* A copy's size with a promise of alignment (the hardware may copy in wider units). */
template <std::size_t Align> struct aligned_size_t {
    static constexpr std::size_t align = Align;
    std::size_t value;
    explicit aligned_size_t(std::size_t v) : value(v) {}
    operator std::size_t() const { return value; }
};
enum class async_contract_fulfillment { none, async };
} /* namespace cuda */

namespace gpuh_sim_impl {
struct no_completion {
    void operator()() const {}
};
/* A waiting thread's turn given up: to the block's other simulated threads
   inside a kernel, to the OS outside one. */
inline void let_others_run()
{
    if (in_kernel())
        __nanosleep(0);
    else
        std::this_thread::yield();
}
/* A group's collective copy, each thread a share (cooperative_groups' memcpy_async does the same). */
template <class G> inline void group_copy(const G &g, void *dst, const void *src, std::size_t bytes)
{
    const std::size_t n = g.size(), r = g.thread_rank();
    for (std::size_t i = r; i < bytes; i += n)
        static_cast<char *>(dst)[i] = static_cast<const char *>(src)[i];
}
} /* namespace gpuh_sim_impl */
#endif /* GPUH_SIM_ASYNC_H */
