/* Stand-in for CUDA's <cuda_bf16.h> on gpuh's CPU simulator: __nv_bfloat16
   (bfloat16: float's sign and exponent, 7 stored mantissa bits), conversions
   with round-to-nearest-even and the bit casts. Arithmetic on bfloat16 is not
   simulated: convert to float (__bfloat162float), as gpuh's kernels do.
   Semantics from the CUDA Math API's "Bfloat16 Precision Intrinsics". */
#ifndef GPUH_SIM_CUDA_BF16_H
#define GPUH_SIM_CUDA_BF16_H
#include "gpuh_sim.h"
#include <math.h>
#include <string.h>

namespace gpuh_sim_impl {
/* The bfloat16 nearest to f (ties to even); a NaN stays a (quiet) NaN. */
inline unsigned short bf16_bits(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    if (isnan(f))
        return static_cast<unsigned short>((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return static_cast<unsigned short>(u >> 16);
}
inline float bf16_value(unsigned short b)
{
    const unsigned u = static_cast<unsigned>(b) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
} /* namespace gpuh_sim_impl */

struct __nv_bfloat16_raw {
    unsigned short x;
};
struct __nv_bfloat16 {
    unsigned short x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f) : x(gpuh_sim_impl::bf16_bits(f)) {}
    __nv_bfloat16(const __nv_bfloat16_raw &r) : x(r.x) {}
    operator float() const { return gpuh_sim_impl::bf16_value(x); }
    operator __nv_bfloat16_raw() const
    {
        __nv_bfloat16_raw r = {x};
        return r;
    }
};
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 h) { return static_cast<float>(h); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.x; }
inline short __bfloat16_as_short(__nv_bfloat16 h) { return static_cast<short>(h.x); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u)
{
    __nv_bfloat16_raw r = {u};
    return __nv_bfloat16(r);
}

#endif /* GPUH_SIM_CUDA_BF16_H */
