/* Stand-in for CUDA's <cuda_fp16.h> on gpuh's CPU simulator: __half and
   __half2 (IEEE 754 binary16), conversions in CUDA's rounding modes,
   arithmetic and comparisons (each result rounded once, as the hardware's
   are), the __h* intrinsics and operators; what it shares with
   <cuda_bf16.h> is in gpuh_sim_lowp.h. It compiles in host code too.
   Semantics from the CUDA Math API's "Half Precision Intrinsics". */
#ifndef GPUH_SIM_CUDA_FP16_H
#define GPUH_SIM_CUDA_FP16_H
/* CUDA's own guard and feature macro, which code tests to see half precision */
#define __CUDA_FP16_H__
#define __CUDA_FP16_TYPES_EXIST__
#include "gpuh_sim_lowp.h"

struct __half_raw {
    unsigned short x;
};
struct alignas(2) __half {
    unsigned short x;
    __half() = default;
    __half(float f) : x(gpuh_sim_impl::lowp_of<__half>(f).x) {}
    __half(double d) : x(gpuh_sim_impl::lowp_of<__half>(d).x) {}
    __half(int i) : x(gpuh_sim_impl::lowp_of<__half>(i).x) {}
    __half(const __half_raw &r) : x(r.x) {}
    operator float() const { return static_cast<float>(gpuh_sim_impl::lowp_val(*this)); }
    operator __half_raw() const
    {
        __half_raw r = {x};
        return r;
    }
};
struct __half2_raw {
    unsigned short x, y;
};
struct alignas(4) __half2 {
    __half x, y;
    __half2() = default;
    __half2(__half a, __half b) : x(a), y(b) {}
    __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    operator __half2_raw() const
    {
        __half2_raw r = {x.x, y.x};
        return r;
    }
};
typedef __half half;
typedef __half2 half2;
namespace gpuh_sim_impl {
template <> struct lowp_traits<__half> {
    enum { E = 5, M = 10 };
};
} /* namespace gpuh_sim_impl */
GPUH_IMPL_SIM_LOWP_OPS(__half, __half2)
GPUH_IMPL_SIM_LOWP_NAMED(__half, __half2, half, half2)

#endif /* GPUH_SIM_CUDA_FP16_H */
