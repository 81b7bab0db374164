#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// <, > and >> in the kernel's template arguments and in the configuration.
template <typename T> struct is_small { static const bool value = sizeof(T) < 8; };
template <bool A, bool B> __global__ void kern(int *p) {}
template <typename T, int N> __global__ void tk(T *p) {}
template <typename T> T blocks_for(T n) { return (n + 255) / 256; }
template <int A, int B> int pick(int n) { return n * A / B; }
template <typename T> struct vec {};

void run(int *p, int n, int c, int d)
{
    const bool c2 = true, d2 = false;
    GPUH_SIM_KERNEL_CALL_EXPR((kern<is_small<int>::value, (c2 > d2)>), 1, 32, 0, 0, p);
    GPUH_SIM_KERNEL_CALL_EXPR((tk<vec<vec<int>>, (3 >> 1)>), n, 32, 0, 0, (vec<vec<int>> *)0);
    GPUH_SIM_KERNEL_CALL_EXPR((kern<true, false>), dim3(blocks_for<int>(n)), 256, 0, 0, p);
    GPUH_SIM_KERNEL_CALL_EXPR((kern<true, false>), (pick<1, 2>(n)), c > d ? 64 : 32, 0, 0, p);
    GPUH_SIM_KERNEL_CALL_EXPR((kern<false, true>), (dim3{1, 2}), 32, 0, 0, p);
    GPUH_SIM_KERNEL_CALL_EXPR((kern<(1 < 2), true>), n >> 1, n<<1, 0, 0, p);
}

