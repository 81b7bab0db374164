#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// Launches in #defines with a line splice right before <<< and right before the argument list's
// closing parenthesis: the kernel and the arguments end at their last token, so the call that
// replaces the launch has no backslash inside a macro argument.
template <typename T, int N> __global__ void scale(T *p, T s) {}

#define SCALE(T, N, p, s)             \
    GPUH_SIM_KERNEL_CALL_EXPR((scale<T,                          \
          N>), 1, N, 0, 0, \
            p, s) \
 \


#define SCALE_ON(p, st)               \
    do {                              \
        GPUH_SIM_KERNEL_CALL_EXPR((scale<float, 32>), 1, 32, 0, st, \
                p, 2.0f) \
 \
;                        \
    } while (0)

void run(float *p, cudaStream_t st)
{
    SCALE(float, 64, p, 1.0f);
    SCALE_ON(p, st);
}

