#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// Launches in multi-line #defines: the macro stays one logical line.
__global__ void fill(int *p, int n, int v) {}

#define FILL(p, n, v) \
    GPUH_SIM_KERNEL_CALL(fill, (n + 255) / 256, 256, 0, 0, \
        p, n, v)

#define FILL_ON(p, n, s)                  \
    do {                                  \
        GPUH_SIM_KERNEL_CALL(fill, (n + 255) / 256, 256, 0, s, p, n, 7) \
;             \
    } while (0)

void run(int *p, int n, cudaStream_t s)
{
    FILL(p, n, 1);
    FILL_ON(p, n, s);
}

static const int gpuh_sim_kernel_fill = GPUH_SIM_REGISTER_KERNEL(fill);
