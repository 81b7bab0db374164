#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// Raw strings: their text is never rewritten, and a " inside one hides no launch after it.
__global__ void k(const char *s) {}

static const char *help = R"(usage: a "quoted" k<<<1, 1>>>(x) stays
extern __shared__ float s[];
#if __CUDA_ARCH__
// not a comment, /* nor this */
)";
static const char *delim = R"end(a )" inside, and k<<<2, 2>>>(y);)end";
static const wchar_t *prefixed = LR"(")"; static const char *u8raw = u8R"x(")x";

void run(const char *p)
{
    GPUH_SIM_KERNEL_CALL(k, 1, 32, 0, 0, R"(an argument with "quotes" and a
line break)");
    GPUH_SIM_KERNEL_CALL(k, 2, 64, 0, 0, p);
}

static const int gpuh_sim_kernel_k = GPUH_SIM_REGISTER_KERNEL(k);
