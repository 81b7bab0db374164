#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
/* Copyright “gpuh” authors, café licence © - not UTF-8 */
// and a stray byte in a line comment: ÿ
__global__ void k(int *p) {}
void run(int *p)
{
    GPUH_SIM_KERNEL_CALL(k, 1, 32, 0, 0, p); /* – */
}

static const int gpuh_sim_kernel_k = GPUH_SIM_REGISTER_KERNEL(k);
