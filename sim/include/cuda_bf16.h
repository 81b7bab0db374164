/* Stand-in for CUDA's <cuda_bf16.h> on gpuh's CPU simulator: __nv_bfloat16
   and __nv_bfloat162 (bfloat16: float's sign and 8 exponent bits, 7 fraction
   bits), conversions in CUDA's rounding modes (__float2bfloat16 rounds to
   nearest even; _rz, _rd, _ru; NaN becomes the canonical 0x7fff),
   arithmetic and comparisons rounded once from the exact result, the __h*
   intrinsics and operators, atomicAdd, and the warp shuffles (any 2- or
   4-byte type moves through __shfl_*_sync). What it shares with
   <cuda_fp16.h> is in gpuh_sim_lowp.h. It compiles in host code too. Semantics from the CUDA Math API's
   "Bfloat16 Precision Intrinsics". */
#ifndef GPUH_SIM_CUDA_BF16_H
#define GPUH_SIM_CUDA_BF16_H
/* CUDA's own guard and feature macro, which code tests to see bfloat16 */
#define __CUDA_BF16_H__
#define __CUDA_BF16_TYPES_EXIST__
#include "gpuh_sim_lowp.h"

struct __nv_bfloat16_raw {
    unsigned short x;
};
struct alignas(2) __nv_bfloat16 {
    unsigned short x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f) : x(gpuh_sim_impl::lowp_of<__nv_bfloat16>(f).x) {}
    __nv_bfloat16(double d) : x(gpuh_sim_impl::lowp_of<__nv_bfloat16>(d).x) {}
    __nv_bfloat16(int i) : x(gpuh_sim_impl::lowp_of<__nv_bfloat16>(gpuh_sim_impl::odd_int(i)).x) {}
    __nv_bfloat16(unsigned u) : x(gpuh_sim_impl::lowp_of<__nv_bfloat16>(gpuh_sim_impl::odd_int(u)).x) {}
    __nv_bfloat16(long long i) : x(gpuh_sim_impl::lowp_of<__nv_bfloat16>(gpuh_sim_impl::odd_int(i)).x) {}
    __nv_bfloat16(unsigned long long u) : x(gpuh_sim_impl::lowp_of<__nv_bfloat16>(gpuh_sim_impl::odd_int(u)).x) {}
    __nv_bfloat16(const __nv_bfloat16_raw &r) : x(r.x) {}
    operator float() const { return static_cast<float>(gpuh_sim_impl::lowp_val(*this)); }
    operator __nv_bfloat16_raw() const
    {
        __nv_bfloat16_raw r = {x};
        return r;
    }
};
struct __nv_bfloat162_raw {
    unsigned short x, y;
};
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
    __nv_bfloat162(const __nv_bfloat162_raw &r) : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
    operator __nv_bfloat162_raw() const
    {
        __nv_bfloat162_raw r = {x.x, y.x};
        return r;
    }
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
namespace gpuh_sim_impl {
template <> struct lowp_traits<__nv_bfloat16> {
    enum { E = 8, M = 7 };
};
} /* namespace gpuh_sim_impl */
GPUH_IMPL_SIM_LOWP_OPS(__nv_bfloat16, __nv_bfloat162)
GPUH_IMPL_SIM_LOWP_NAMED(__nv_bfloat16, __nv_bfloat162, bfloat16, bfloat162)

#endif /* GPUH_SIM_CUDA_BF16_H */
