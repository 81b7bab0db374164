/* Stand-in for CUDA's <cuda_fp8.h> on gpuh's CPU simulator: the 8-bit float
   formats of the OCP's "8-bit Floating Point Specification (OFP8)" as CUDA
   names them, their storage types, the __nv_cvt_* conversions and the classes
   __nv_fp8{,x2,x4}_{e4m3,e5m2}. It compiles in host code too.

   E5M2: 5 exponent bits (bias 15), 2 fraction bits, infinities and NaNs as
   IEEE 754 has them; the largest finite value 57344. E4M3: 4 exponent bits
   (bias 7), 3 fraction bits, no infinity, one NaN per sign (S.1111.111);
   the largest finite value 448. A conversion to either rounds to nearest
   even. What lies beyond the largest finite value plus half its ulp (an
   infinity too) becomes, with __NV_SATFINITE, the largest finite value of
   its sign, and with __NV_NOSAT the format's infinity (E5M2) or NaN (E4M3).
   A NaN becomes 0x7F, the NaN a GPU's cvt gives. The classes' constructors
   saturate, as CUDA's do; every value converts exactly to half, bfloat16,
   float and double; to an integer, toward zero with saturation, NaN giving 0.
   Semantics from the CUDA Math API's "FP8 Intrinsics". */
#ifndef GPUH_SIM_CUDA_FP8_H
#define GPUH_SIM_CUDA_FP8_H
/* CUDA's own guard and feature macro */
#define __CUDA_FP8_H__
#define __CUDA_FP8_TYPES_EXIST__
#include "cuda_bf16.h"
#include "cuda_fp16.h"

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace gpuh_sim_impl {
/* d in the format, bits as the top comment says. */
inline __nv_fp8_storage_t fp8_bits(double d, __nv_saturation_t sat, __nv_fp8_interpretation_t f)
{
    const bool e4m3 = f == __NV_E4M3;
    const unsigned sign = signbit(d) ? 0x80u : 0u;
    const double a = fabs(d);
    if (a != a)
        return 0x7F;
    if (e4m3 ? a > 464.0 : a >= 61440.0) /* 448 + 16 rounds to even, to 448; 57344 + 4096 to the infinity */
        return static_cast<__nv_fp8_storage_t>(sign | (sat == __NV_SATFINITE ? (e4m3 ? 0x7Eu : 0x7Bu)
                                                                             : (e4m3 ? 0x7Fu : 0x7Cu)));
    if (!e4m3)
        return static_cast<__nv_fp8_storage_t>(lowp_bits(d, 5, 2, LOWP_RN));
    /* E4M3 below 256 is IEEE-like with E = 4, M = 3 (rounding up to 256 gives
       the pattern IEEE keeps for infinity, which is 256 here); from 256 the
       exponent IEEE keeps for infinities holds 256 .. 448, 32 apart */
    if (a >= 256.0)
        return static_cast<__nv_fp8_storage_t>(sign | (0x70u + static_cast<unsigned>(nearbyint(a / 32.0))));
    return static_cast<__nv_fp8_storage_t>(lowp_bits(d, 4, 3, LOWP_RN));
}
/* The value of bits b of the format (exact). */
inline double fp8_value(__nv_fp8_storage_t b, __nv_fp8_interpretation_t f)
{
    if (f == __NV_E5M2)
        return lowp_value(b, 5, 2);
    const double s = (b & 0x80) ? -1.0 : 1.0;
    const int ex = b >> 3 & 15, m = b & 7;
    if (ex == 15 && m == 7)
        return NAN;
    return ex == 0 ? s * ldexp(m, -9) : s * ldexp(8 + m, ex - 10);
}
template <class I> inline I fp8_to_int(__nv_fp8_storage_t b, __nv_fp8_interpretation_t f)
{
    const double v = fp8_value(b, f);
    return v != v ? I(0) : saturate_to<I, float>(trunc(v));
}
inline __nv_fp8x2_storage_t fp8_pair(__nv_fp8_storage_t lo, __nv_fp8_storage_t hi)
{
    return static_cast<__nv_fp8x2_storage_t>(lo | hi << 8);
}
inline __nv_fp8x4_storage_t fp8_quad(__nv_fp8x2_storage_t lo, __nv_fp8x2_storage_t hi)
{
    return lo | static_cast<unsigned>(hi) << 16;
}
} /* namespace gpuh_sim_impl */

inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t sat, __nv_fp8_interpretation_t f)
{
    return gpuh_sim_impl::fp8_bits(x, sat, f);
}
inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t sat, __nv_fp8_interpretation_t f)
{
    return gpuh_sim_impl::fp8_bits(x, sat, f);
}
inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t sat, __nv_fp8_interpretation_t f)
{
    return gpuh_sim_impl::fp8_bits(static_cast<float>(__half(x)), sat, f);
}
inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw x, __nv_saturation_t sat,
                                                      __nv_fp8_interpretation_t f)
{
    return gpuh_sim_impl::fp8_bits(static_cast<float>(__nv_bfloat16(x)), sat, f);
}
/* Pairs: .x in the low byte, as CUDA packs them. */
inline __nv_fp8x2_storage_t __nv_cvt_double2_to_fp8x2(double2 x, __nv_saturation_t sat, __nv_fp8_interpretation_t f)
{
    return gpuh_sim_impl::fp8_pair(gpuh_sim_impl::fp8_bits(x.x, sat, f), gpuh_sim_impl::fp8_bits(x.y, sat, f));
}
inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t sat, __nv_fp8_interpretation_t f)
{
    return gpuh_sim_impl::fp8_pair(gpuh_sim_impl::fp8_bits(x.x, sat, f), gpuh_sim_impl::fp8_bits(x.y, sat, f));
}
inline __nv_fp8x2_storage_t __nv_cvt_halfraw2_to_fp8x2(__half2_raw x, __nv_saturation_t sat,
                                                       __nv_fp8_interpretation_t f)
{
    return gpuh_sim_impl::fp8_pair(__nv_cvt_halfraw_to_fp8(__half_raw{x.x}, sat, f),
                                   __nv_cvt_halfraw_to_fp8(__half_raw{x.y}, sat, f));
}
inline __nv_fp8x2_storage_t __nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw x, __nv_saturation_t sat,
                                                           __nv_fp8_interpretation_t f)
{
    return gpuh_sim_impl::fp8_pair(__nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.x}, sat, f),
                                   __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.y}, sat, f));
}
inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t f)
{
    return static_cast<__half_raw>(__half(gpuh_sim_impl::fp8_value(x, f)));
}
inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t f)
{
    __half2_raw r = {__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x & 0xFF), f).x,
                     __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x >> 8), f).x};
    return r;
}

/* The classes, one set per format F (E4M3, E5M2): the storage in __x;
   explicit conversions both ways, as CUDA declares them. */
#define GPUH_IMPL_SIM_FP8_CLASSES(name, F)                                                                            \
    struct alignas(1) __nv_fp8_##name {                                                                               \
        __nv_fp8_storage_t __x;                                                                                       \
        __nv_fp8_##name() = default;                                                                                  \
        explicit __nv_fp8_##name(double d) : __x(gpuh_sim_impl::fp8_bits(d, __NV_SATFINITE, F)) {}                  \
        explicit __nv_fp8_##name(float v) : __x(gpuh_sim_impl::fp8_bits(v, __NV_SATFINITE, F)) {}                   \
        explicit __nv_fp8_##name(__half h) : __x(gpuh_sim_impl::fp8_bits(static_cast<float>(h), __NV_SATFINITE, F)) {} \
        explicit __nv_fp8_##name(__nv_bfloat16 h)                                                                     \
            : __x(gpuh_sim_impl::fp8_bits(static_cast<float>(h), __NV_SATFINITE, F)) {}                               \
        explicit __nv_fp8_##name(int i) : __x(gpuh_sim_impl::fp8_bits(i, __NV_SATFINITE, F)) {}                      \
        explicit __nv_fp8_##name(unsigned int i) : __x(gpuh_sim_impl::fp8_bits(i, __NV_SATFINITE, F)) {}             \
        explicit __nv_fp8_##name(short i) : __x(gpuh_sim_impl::fp8_bits(i, __NV_SATFINITE, F)) {}                    \
        explicit __nv_fp8_##name(unsigned short i) : __x(gpuh_sim_impl::fp8_bits(i, __NV_SATFINITE, F)) {}           \
        explicit __nv_fp8_##name(long i) : __x(gpuh_sim_impl::fp8_bits(static_cast<double>(i), __NV_SATFINITE, F)) {} \
        explicit __nv_fp8_##name(unsigned long i)                                                                     \
            : __x(gpuh_sim_impl::fp8_bits(static_cast<double>(i), __NV_SATFINITE, F)) {}                              \
        explicit __nv_fp8_##name(long long i)                                                                         \
            : __x(gpuh_sim_impl::fp8_bits(static_cast<double>(i), __NV_SATFINITE, F)) {}                              \
        explicit __nv_fp8_##name(unsigned long long i)                                                                \
            : __x(gpuh_sim_impl::fp8_bits(static_cast<double>(i), __NV_SATFINITE, F)) {}                              \
        operator __half_raw() const { return __nv_cvt_fp8_to_halfraw(__x, F); }                                       \
        explicit operator __half() const { return __half(__nv_cvt_fp8_to_halfraw(__x, F)); }                          \
        explicit operator __nv_bfloat16() const { return __nv_bfloat16(gpuh_sim_impl::fp8_value(__x, F)); }           \
        explicit operator float() const { return static_cast<float>(gpuh_sim_impl::fp8_value(__x, F)); }              \
        explicit operator double() const { return gpuh_sim_impl::fp8_value(__x, F); }                                 \
        explicit operator char() const { return gpuh_sim_impl::fp8_to_int<char>(__x, F); }                            \
        explicit operator signed char() const { return gpuh_sim_impl::fp8_to_int<signed char>(__x, F); }              \
        explicit operator unsigned char() const { return gpuh_sim_impl::fp8_to_int<unsigned char>(__x, F); }          \
        explicit operator short() const { return gpuh_sim_impl::fp8_to_int<short>(__x, F); }                          \
        explicit operator unsigned short() const { return gpuh_sim_impl::fp8_to_int<unsigned short>(__x, F); }        \
        explicit operator int() const { return gpuh_sim_impl::fp8_to_int<int>(__x, F); }                              \
        explicit operator unsigned int() const { return gpuh_sim_impl::fp8_to_int<unsigned int>(__x, F); }            \
        explicit operator long() const { return gpuh_sim_impl::fp8_to_int<long>(__x, F); }                            \
        explicit operator unsigned long() const { return gpuh_sim_impl::fp8_to_int<unsigned long>(__x, F); }          \
        explicit operator long long() const { return gpuh_sim_impl::fp8_to_int<long long>(__x, F); }                  \
        explicit operator unsigned long long() const { return gpuh_sim_impl::fp8_to_int<unsigned long long>(__x, F); } \
        explicit operator bool() const { return (__x & 0x7F) != 0; }                                                  \
    };                                                                                                                \
    struct alignas(2) __nv_fp8x2_##name {                                                                             \
        __nv_fp8x2_storage_t __x;                                                                                     \
        __nv_fp8x2_##name() = default;                                                                                \
        explicit __nv_fp8x2_##name(double2 v) : __x(__nv_cvt_double2_to_fp8x2(v, __NV_SATFINITE, F)) {}              \
        explicit __nv_fp8x2_##name(float2 v) : __x(__nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, F)) {}                \
        explicit __nv_fp8x2_##name(__half2 v)                                                                         \
            : __x(__nv_cvt_halfraw2_to_fp8x2(static_cast<__half2_raw>(v), __NV_SATFINITE, F)) {}                      \
        explicit __nv_fp8x2_##name(__nv_bfloat162 v)                                                                  \
            : __x(__nv_cvt_bfloat16raw2_to_fp8x2(static_cast<__nv_bfloat162_raw>(v), __NV_SATFINITE, F)) {}           \
        operator __half2_raw() const { return __nv_cvt_fp8x2_to_halfraw2(__x, F); }                                   \
        explicit operator __half2() const { return __half2(__nv_cvt_fp8x2_to_halfraw2(__x, F)); }                     \
        explicit operator float2() const                                                                              \
        {                                                                                                             \
            return make_float2(static_cast<float>(gpuh_sim_impl::fp8_value(__x & 0xFF, F)),                           \
                               static_cast<float>(gpuh_sim_impl::fp8_value(__x >> 8, F)));                            \
        }                                                                                                             \
    };                                                                                                                \
    struct alignas(4) __nv_fp8x4_##name {                                                                             \
        __nv_fp8x4_storage_t __x;                                                                                     \
        __nv_fp8x4_##name() = default;                                                                                \
        explicit __nv_fp8x4_##name(double4 v)                                                                         \
            : __x(gpuh_sim_impl::fp8_quad(__nv_cvt_double2_to_fp8x2(make_double2(v.x, v.y), __NV_SATFINITE, F),       \
                                          __nv_cvt_double2_to_fp8x2(make_double2(v.z, v.w), __NV_SATFINITE, F))) {}    \
        explicit __nv_fp8x4_##name(float4 v)                                                                          \
            : __x(gpuh_sim_impl::fp8_quad(__nv_cvt_float2_to_fp8x2(make_float2(v.x, v.y), __NV_SATFINITE, F),         \
                                          __nv_cvt_float2_to_fp8x2(make_float2(v.z, v.w), __NV_SATFINITE, F))) {}      \
        __nv_fp8x4_##name(__half2 lo, __half2 hi)                                                                     \
            : __x(gpuh_sim_impl::fp8_quad(__nv_fp8x2_##name(lo).__x, __nv_fp8x2_##name(hi).__x)) {}                   \
        __nv_fp8x4_##name(__nv_bfloat162 lo, __nv_bfloat162 hi)                                                       \
            : __x(gpuh_sim_impl::fp8_quad(__nv_fp8x2_##name(lo).__x, __nv_fp8x2_##name(hi).__x)) {}                   \
        explicit operator float4() const                                                                              \
        {                                                                                                             \
            return make_float4(static_cast<float>(gpuh_sim_impl::fp8_value(__x & 0xFF, F)),                           \
                               static_cast<float>(gpuh_sim_impl::fp8_value(__x >> 8 & 0xFF, F)),                      \
                               static_cast<float>(gpuh_sim_impl::fp8_value(__x >> 16 & 0xFF, F)),                     \
                               static_cast<float>(gpuh_sim_impl::fp8_value(__x >> 24, F)));                           \
        }                                                                                                             \
    };
GPUH_IMPL_SIM_FP8_CLASSES(e4m3, __NV_E4M3)
GPUH_IMPL_SIM_FP8_CLASSES(e5m2, __NV_E5M2)
#undef GPUH_IMPL_SIM_FP8_CLASSES

#endif /* GPUH_SIM_CUDA_FP8_H */
