/* Stand-in for CUDA's <cuda_fp16.h> on gpuh's CPU simulator: __half and
   __half2 (IEEE 754 binary16), conversions with round-to-nearest-even,
   arithmetic and comparisons (each result rounded once, as the hardware's
   are: the exact value is formed in double, which holds any sum, product or
   fused multiply-add of halves exactly), the __h* intrinsics and operators.
   Semantics from the CUDA Math API's "Half Precision Intrinsics". */
#ifndef GPUH_SIM_CUDA_FP16_H
#define GPUH_SIM_CUDA_FP16_H
#include "gpuh_sim.h"
#include <math.h>

namespace gpuh_sim_impl {
/* The binary16 nearest to d (ties to even). */
inline unsigned short half_bits(double d)
{
    const unsigned short sign = signbit(d) ? 0x8000 : 0;
    d = fabs(d);
    if (isnan(d))
        return 0x7e00;
    if (d >= 65520.0) /* beyond the largest half (65504) by half a step or more */
        return sign | 0x7c00;
    int e = 0;
    frexp(d, &e);
    const int E = e - 1; /* d = 1.f * 2^E */
    if (d == 0.0 || E < -14)
        return static_cast<unsigned short>(sign | static_cast<unsigned>(nearbyint(ldexp(d, 24)))); /* subnormal */
    unsigned q = static_cast<unsigned>(nearbyint(ldexp(d, 10 - E))); /* 1024 .. 2048 */
    int ex = E;
    if (q == 2048) {
        q = 1024;
        ++ex;
    }
    if (ex > 15)
        return sign | 0x7c00;
    return static_cast<unsigned short>(sign | (static_cast<unsigned>(ex + 15) << 10) | (q - 1024));
}
inline float half_value(unsigned short b)
{
    const int ex = b >> 10 & 31, m = b & 1023;
    const float s = (b & 0x8000) ? -1.0f : 1.0f;
    if (ex == 0)
        return s * ldexpf(static_cast<float>(m), -24);
    if (ex == 31)
        return m ? NAN : s * INFINITY;
    return s * ldexpf(static_cast<float>(1024 + m), ex - 25);
}
} /* namespace gpuh_sim_impl */

struct __half_raw {
    unsigned short x;
};
struct __half {
    unsigned short x;
    __half() = default;
    __half(float f) : x(gpuh_sim_impl::half_bits(f)) {}
    __half(double d) : x(gpuh_sim_impl::half_bits(d)) {}
    __half(int i) : x(gpuh_sim_impl::half_bits(i)) {}
    __half(const __half_raw &r) : x(r.x) {}
    operator float() const { return gpuh_sim_impl::half_value(x); }
    operator __half_raw() const
    {
        __half_raw r = {x};
        return r;
    }
};
struct alignas(4) __half2 {
    __half x, y;
    __half2() = default;
    __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half half;
typedef __half2 half2;

inline __half gpuh_sim_half_of(double d)
{
    __half_raw r = {gpuh_sim_impl::half_bits(d)};
    return __half(r);
}
inline __half __float2half(float f) { return gpuh_sim_half_of(f); }
inline __half __float2half_rn(float f) { return gpuh_sim_half_of(f); }
inline __half __double2half(double d) { return gpuh_sim_half_of(d); }
inline float __half2float(__half h) { return static_cast<float>(h); }
inline __half __int2half_rn(int i) { return gpuh_sim_half_of(i); }
inline int __half2int_rn(__half h) { return static_cast<int>(nearbyintf(static_cast<float>(h))); }
inline int __half2int_rz(__half h) { return static_cast<int>(static_cast<float>(h)); }
inline short __half_as_short(__half h) { return static_cast<short>(h.x); }
inline unsigned short __half_as_ushort(__half h) { return h.x; }
inline __half __ushort_as_half(unsigned short u)
{
    __half_raw r = {u};
    return __half(r);
}
inline __half2 __halves2half2(__half a, __half b)
{
    __half2 r;
    r.x = a;
    r.y = b;
    return r;
}
inline __half2 __float2half2_rn(float f) { return __halves2half2(__float2half(f), __float2half(f)); }
inline __half2 __floats2half2_rn(float a, float b) { return __halves2half2(__float2half(a), __float2half(b)); }
inline __half2 __half2half2(__half a) { return __halves2half2(a, a); }
inline __half2 make_half2(__half a, __half b) { return __halves2half2(a, b); }
inline float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
inline __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
inline float __low2float(__half2 h) { return __half2float(h.x); }
inline float __high2float(__half2 h) { return __half2float(h.y); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __halves2half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __halves2half2(a.y, b.y); }
inline __half2 __low2half2(__half2 a) { return __halves2half2(a.x, a.x); }
inline __half2 __high2half2(__half2 a) { return __halves2half2(a.y, a.y); }
inline __half2 __lowhigh2highlow(__half2 a) { return __halves2half2(a.y, a.x); }

/* Arithmetic: the exact result, rounded once. */
inline double gpuh_sim_hd(__half h) { return static_cast<double>(static_cast<float>(h)); }
inline __half __hadd(__half a, __half b) { return gpuh_sim_half_of(gpuh_sim_hd(a) + gpuh_sim_hd(b)); }
inline __half __hsub(__half a, __half b) { return gpuh_sim_half_of(gpuh_sim_hd(a) - gpuh_sim_hd(b)); }
inline __half __hmul(__half a, __half b) { return gpuh_sim_half_of(gpuh_sim_hd(a) * gpuh_sim_hd(b)); }
inline __half __hdiv(__half a, __half b) { return gpuh_sim_half_of(gpuh_sim_hd(a) / gpuh_sim_hd(b)); }
inline __half __hfma(__half a, __half b, __half c)
{
    return gpuh_sim_half_of(gpuh_sim_hd(a) * gpuh_sim_hd(b) + gpuh_sim_hd(c));
}
inline __half __hneg(__half a) { return __ushort_as_half(static_cast<unsigned short>(a.x ^ 0x8000)); }
inline __half __habs(__half a) { return __ushort_as_half(static_cast<unsigned short>(a.x & 0x7fff)); }
inline __half __hadd_sat(__half a, __half b)
{
    return gpuh_sim_half_of(fmin(fmax(gpuh_sim_hd(a) + gpuh_sim_hd(b), 0.0), 1.0));
}
inline __half __hmul_sat(__half a, __half b)
{
    return gpuh_sim_half_of(fmin(fmax(gpuh_sim_hd(a) * gpuh_sim_hd(b), 0.0), 1.0));
}
inline __half2 __hadd2(__half2 a, __half2 b) { return __halves2half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
inline __half2 __hsub2(__half2 a, __half2 b) { return __halves2half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
inline __half2 __hmul2(__half2 a, __half2 b) { return __halves2half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
inline __half2 __h2div(__half2 a, __half2 b) { return __halves2half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __halves2half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
inline __half2 __hneg2(__half2 a) { return __halves2half2(__hneg(a.x), __hneg(a.y)); }
inline __half2 __habs2(__half2 a) { return __halves2half2(__habs(a.x), __habs(a.y)); }
inline bool __heq(__half a, __half b) { return static_cast<float>(a) == static_cast<float>(b); }
inline bool __hne(__half a, __half b) { return static_cast<float>(a) != static_cast<float>(b); }
inline bool __hlt(__half a, __half b) { return static_cast<float>(a) < static_cast<float>(b); }
inline bool __hle(__half a, __half b) { return static_cast<float>(a) <= static_cast<float>(b); }
inline bool __hgt(__half a, __half b) { return static_cast<float>(a) > static_cast<float>(b); }
inline bool __hge(__half a, __half b) { return static_cast<float>(a) >= static_cast<float>(b); }
inline bool __hisnan(__half a) { return isnan(static_cast<float>(a)); }
inline int __hisinf(__half a) { return (a.x & 0x7fff) == 0x7c00 ? ((a.x & 0x8000) ? -1 : 1) : 0; }
inline __half __hmax(__half a, __half b) { return __hlt(a, b) ? b : a; }
inline __half __hmin(__half a, __half b) { return __hlt(b, a) ? b : a; }
inline __half hsqrt(__half a) { return gpuh_sim_half_of(sqrt(gpuh_sim_hd(a))); }
inline __half hrsqrt(__half a) { return gpuh_sim_half_of(1.0 / sqrt(gpuh_sim_hd(a))); }
inline __half hexp(__half a) { return gpuh_sim_half_of(exp(gpuh_sim_hd(a))); }
inline __half hlog(__half a) { return gpuh_sim_half_of(log(gpuh_sim_hd(a))); }
inline __half hsin(__half a) { return gpuh_sim_half_of(sin(gpuh_sim_hd(a))); }
inline __half hcos(__half a) { return gpuh_sim_half_of(cos(gpuh_sim_hd(a))); }
inline __half hfloor(__half a) { return gpuh_sim_half_of(floor(gpuh_sim_hd(a))); }
inline __half hceil(__half a) { return gpuh_sim_half_of(ceil(gpuh_sim_hd(a))); }

inline __half operator+(__half a, __half b) { return __hadd(a, b); }
inline __half operator-(__half a, __half b) { return __hsub(a, b); }
inline __half operator*(__half a, __half b) { return __hmul(a, b); }
inline __half operator/(__half a, __half b) { return __hdiv(a, b); }
inline __half operator-(__half a) { return __hneg(a); }
inline __half &operator+=(__half &a, __half b) { return a = __hadd(a, b); }
inline __half &operator-=(__half &a, __half b) { return a = __hsub(a, b); }
inline __half &operator*=(__half &a, __half b) { return a = __hmul(a, b); }
inline __half &operator/=(__half &a, __half b) { return a = __hdiv(a, b); }
inline bool operator==(__half a, __half b) { return __heq(a, b); }
inline bool operator!=(__half a, __half b) { return __hne(a, b); }
inline bool operator<(__half a, __half b) { return __hlt(a, b); }
inline bool operator<=(__half a, __half b) { return __hle(a, b); }
inline bool operator>(__half a, __half b) { return __hgt(a, b); }
inline bool operator>=(__half a, __half b) { return __hge(a, b); }
inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
inline __half2 &operator+=(__half2 &a, __half2 b) { return a = __hadd2(a, b); }
inline __half2 &operator*=(__half2 &a, __half2 b) { return a = __hmul2(a, b); }

/* Atomic add of halves: a compare-and-swap loop on the 16 or 32 bits. */
inline __half atomicAdd(__half *p, __half v)
{
    unsigned short *u = reinterpret_cast<unsigned short *>(p);
    unsigned short old = __atomic_load_n(u, __ATOMIC_RELAXED), want;
    do {
        want = __hadd(__ushort_as_half(old), v).x;
    } while (!__atomic_compare_exchange_n(u, &old, want, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return __ushort_as_half(old);
}
inline __half2 atomicAdd(__half2 *p, __half2 v)
{
    unsigned *u = reinterpret_cast<unsigned *>(p);
    unsigned old = __atomic_load_n(u, __ATOMIC_RELAXED), want;
    __half2 o, n;
    do {
        memcpy(&o, &old, 4);
        n = __hadd2(o, v);
        memcpy(&want, &n, 4);
    } while (!__atomic_compare_exchange_n(u, &old, want, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    memcpy(&o, &old, 4);
    return o;
}

#endif /* GPUH_SIM_CUDA_FP16_H */
