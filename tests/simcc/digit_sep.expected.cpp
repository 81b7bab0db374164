#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// Digit separators are part of the number, not character literals.
__global__ void fill(int *p, int n, int v) {}

void run(int *p)
{
    const long big = 1'000'000, hex = 0xFF'FF, bin = 0b1010'1010; const double d = 1'234.5e+1'0;
    GPUH_SIM_KERNEL_CALL(fill, 1'024 / 256, 2'56, 0, 0, p, 1'024, '\'');
    GPUH_SIM_KERNEL_CALL(fill, 1, 32, 0, 0, p, int(big + hex + bin + d), 0);
}

static const int gpuh_sim_kernel_fill = GPUH_SIM_REGISTER_KERNEL(fill);
