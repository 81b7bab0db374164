/* gpuh_sim_lowp.h - what the simulator's stand-ins for <cuda_fp16.h> and
   <cuda_bf16.h> share: rounding a value to a 16-bit float format (binary16:
   5 exponent bits, 10 fraction bits; bfloat16: 8 and 7) in each of CUDA's
   rounding modes, and the intrinsics and operators both headers declare for
   their scalar and pair types (GPUH_IMPL_SIM_LOWP_OPS).

   Each arithmetic result is rounded once from the exact value, as the
   hardware's are. The exact value is first brought to a double rounded to
   odd (the nearest double whose last significand bit is 1 when the value is
   not a double): a 53-bit round-to-odd value rounds to any format of at
   most 51 bits exactly as the exact value would, in every mode (Boldo and
   Melquiond, "Emulation of FMA and correctly rounded sums: proved
   algorithms using rounding to odd", IEEE TC 2008). Products of two 16-bit
   floats are exact in double; sums and fused multiply-adds are made odd with
   Knuth's TwoSum; quotients and square roots are rounded to nearest in
   double first, which is innocuous for 53 >= 2p + 2 (Figueroa, "When is
   double rounding innocuous?", SIGNUM 1995). Semantics from the CUDA Math
   API's "Half Precision Intrinsics" and "Bfloat16 Precision Intrinsics". */
#ifndef GPUH_SIM_LOWP_H
#define GPUH_SIM_LOWP_H
#include "gpuh_sim.h"
#include <limits.h>
#include <math.h>
#include <string.h>

namespace gpuh_sim_impl {
enum lowp_round { LOWP_RN, LOWP_RZ, LOWP_RD, LOWP_RU };

/* The bits of d rounded to the format with E exponent and M fraction bits. A
   NaN becomes the canonical NaN (all ones but the sign), as CUDA's conversions
   give; overflow gives infinity or the largest finite value as the mode says. */
inline unsigned lowp_bits(double d, int E, int M, lowp_round mode)
{
    const unsigned long long emax = (1ull << E) - 1, inf = emax << M;
    const int bias = (1 << (E - 1)) - 1, emin = 1 - bias;
    if (d != d)
        return static_cast<unsigned>(inf | ((1ull << M) - 1));
    const bool neg = signbit(d) != 0;
    const unsigned sign = neg ? 1u << (E + M) : 0u;
    const double a = fabs(d);
    if (a == 0.0)
        return sign;
    if (isinf(a))
        return sign | static_cast<unsigned>(inf);
    int e = 0;
    frexp(a, &e);
    const int sc = e - 1 < emin ? emin : e - 1; /* the grid's ulp is 2^(sc - M) */
    const double x = ldexp(a, M - sc);          /* below 2^(M+1): floor and rem are exact */
    const double q = floor(x), rem = x - q;
    bool up = false;
    switch (mode) {
    case LOWP_RN: up = rem > 0.5 || (rem == 0.5 && fmod(q, 2.0) == 1.0); break;
    case LOWP_RZ: break;
    case LOWP_RD: up = neg && rem > 0.0; break;
    case LOWP_RU: up = !neg && rem > 0.0; break;
    }
    /* (sc - emin) << M plus the count: a count of 2^(M+1) carries into the
       exponent, a subnormal's (sc = emin, count < 2^M) leaves it 0. */
    const unsigned long long bits =
        (static_cast<unsigned long long>(sc - emin) << M) + static_cast<unsigned long long>(q) + up;
    if (bits >= inf) {
        const bool to_inf = mode == LOWP_RN || (mode == LOWP_RU && !neg) || (mode == LOWP_RD && neg);
        return sign | static_cast<unsigned>(to_inf ? inf : inf - 1);
    }
    return sign | static_cast<unsigned>(bits);
}

/* The value of the bits b of the format with E exponent and M fraction bits (exact). */
inline double lowp_value(unsigned b, int E, int M)
{
    const unsigned emax = (1u << E) - 1, ex = b >> M & emax, f = b & ((1u << M) - 1);
    const int bias = static_cast<int>(emax >> 1);
    const double s = (b >> (E + M) & 1) ? -1.0 : 1.0;
    if (ex == emax)
        return f ? NAN : s * INFINITY;
    if (ex == 0)
        return s * ldexp(static_cast<double>(f), 1 - bias - M);
    return s * ldexp(static_cast<double>(f | (1u << M)), static_cast<int>(ex) - bias - M);
}

/* a + b rounded to odd (see the top of this file). */
inline double odd_sum(double a, double b)
{
    double s = a + b;
    if (!isfinite(s))
        return s;
    const double bb = s - a, err = (a - (s - bb)) + (b - bb); /* TwoSum: s + err == a + b exactly */
    unsigned long long u;
    memcpy(&u, &s, sizeof u);
    if (err != 0.0 && !(u & 1))
        s = nextafter(s, err > 0.0 ? INFINITY : -INFINITY);
    return s;
}
/* An integer's magnitude rounded to odd as a double (a 64-bit integer may not be one). */
inline double odd_of(unsigned long long m)
{
    if (m < (1ull << 53))
        return static_cast<double>(m);
    const int k = 64 - __builtin_clzll(m) - 53; /* bits that do not fit */
    unsigned long long t = m >> k;
    t |= (m & ((1ull << k) - 1)) != 0; /* a lost bit makes the last kept one 1 */
    return ldexp(static_cast<double>(t), k);
}
inline double odd_of(long long i)
{
    return i < 0 ? -odd_of(0ull - static_cast<unsigned long long>(i)) : odd_of(static_cast<unsigned long long>(i));
}

/* An integer of any type rounded to odd as a double. */
template <class I> inline double odd_int(I v)
{
    return std::is_signed<I>::value ? odd_of(static_cast<long long>(v)) : odd_of(static_cast<unsigned long long>(v));
}

/* lowp_traits<T>: E and M of the 16-bit float type T (each stand-in header
   specialises it). T keeps its bits in a public member x. */
template <class T> struct lowp_traits;
template <class T> inline T lowp_of(double d, lowp_round mode = LOWP_RN)
{
    T r;
    r.x = static_cast<unsigned short>(lowp_bits(d, lowp_traits<T>::E, lowp_traits<T>::M, mode));
    return r;
}
template <class T> inline double lowp_val(T h) { return lowp_value(h.x, lowp_traits<T>::E, lowp_traits<T>::M); }
template <class T> inline T lowp_raw(unsigned short u)
{
    T r;
    r.x = u;
    return r;
}
template <class T> inline bool lowp_isnan(T h) { return lowp_val(h) != lowp_val(h); }
/* __hmax / __hmin: a NaN loses to a number, two NaNs give the canonical NaN, +0 > -0. */
template <class T> inline T lowp_max(T a, T b, bool want_max)
{
    if (lowp_isnan(a) || lowp_isnan(b))
        return lowp_isnan(a) && lowp_isnan(b) ? lowp_of<T>(NAN) : lowp_isnan(a) ? b : a;
    const double x = lowp_val(a), y = lowp_val(b);
    if (x == y) /* equal, or +0 and -0: the sign bit decides */
        return ((a.x >> 15) != 0) == want_max ? b : a;
    return (x < y) == want_max ? b : a;
}
/* v rounded to an integer, ties to even (whatever the FP environment says). */
inline double lowp_rint(double v)
{
    const double f = floor(v), rem = v - f;
    return rem > 0.5 || (rem == 0.5 && fmod(f, 2.0) != 0.0) ? f + 1.0 : f;
}
/* An integer from v, rounded as mode says; NaN gives 0 and values beyond I's range saturate (cvt's rules). */
template <class I> inline I lowp_to_int(double v, lowp_round mode)
{
    if (v != v)
        return 0;
    const double r = mode == LOWP_RZ ? trunc(v) : mode == LOWP_RD ? floor(v) : mode == LOWP_RU ? ceil(v) : lowp_rint(v);
    if (r <= static_cast<double>(std::numeric_limits<I>::min()))
        return std::numeric_limits<I>::min();
    if (r >= static_cast<double>(std::numeric_limits<I>::max()))
        return std::numeric_limits<I>::max();
    return static_cast<I>(r);
}
/* An atomic read-modify-write of a 2- or 4-byte value by compare-and-swap. */
template <class T, class F> inline T lowp_atomic(T *addr, F f)
{
    typedef typename std::conditional<sizeof(T) == 2, unsigned short, unsigned>::type U;
    U *p = reinterpret_cast<U *>(addr);
    U old = __atomic_load_n(p, __ATOMIC_RELAXED), want;
    T o;
    do {
        memcpy(&o, &old, sizeof o);
        const T n = f(o);
        memcpy(&want, &n, sizeof want);
    } while (!__atomic_compare_exchange_n(p, &old, want, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    memcpy(&o, &old, sizeof o);
    return o;
}
} /* namespace gpuh_sim_impl */

/* GPUH_IMPL_SIM_LOWP_OPS(T, T2): the intrinsics and operators CUDA declares
   alike for a 16-bit float type T and its pair T2 (members x, y; a
   constructor T2(T, T)). Each result is rounded once (see the top). */
/* The unordered comparison op of each half of a pair (1 or 0 in each half),
   and of both halves (bool). */
#define GPUH_IMPL_SIM_LOWP_UNORDERED2(T, T2, op)                                                                 \
    inline T2 __h##op##2(T2 a, T2 b) { return gpuh_impl_sim_pair_cmp(__h##op, a, b); }                           \
    inline bool __hb##op##2(T2 a, T2 b) { return __h##op(a.x, b.x) && __h##op(a.y, b.y); }
#define GPUH_IMPL_SIM_LOWP_OPS(T, T2)                                                                            \
    inline T __hadd(T a, T b) { return gpuh_sim_impl::lowp_of<T>(gpuh_sim_impl::odd_sum(gpuh_sim_impl::lowp_val(a), gpuh_sim_impl::lowp_val(b))); }              \
    inline T __hsub(T a, T b) { return gpuh_sim_impl::lowp_of<T>(gpuh_sim_impl::odd_sum(gpuh_sim_impl::lowp_val(a), -gpuh_sim_impl::lowp_val(b))); }             \
    inline T __hmul(T a, T b) { return gpuh_sim_impl::lowp_of<T>(gpuh_sim_impl::lowp_val(a) * gpuh_sim_impl::lowp_val(b)); }                         \
    inline T __hdiv(T a, T b) { return gpuh_sim_impl::lowp_of<T>(gpuh_sim_impl::lowp_val(a) / gpuh_sim_impl::lowp_val(b)); }                         \
    inline T __hfma(T a, T b, T c)                                                                               \
    {                                                                                                            \
        return gpuh_sim_impl::lowp_of<T>(gpuh_sim_impl::odd_sum(gpuh_sim_impl::lowp_val(a) * gpuh_sim_impl::lowp_val(b), gpuh_sim_impl::lowp_val(c)));                       \
    }                                                                                                            \
    inline T __hadd_rn(T a, T b) { return __hadd(a, b); }                                                        \
    inline T __hsub_rn(T a, T b) { return __hsub(a, b); }                                                        \
    inline T __hmul_rn(T a, T b) { return __hmul(a, b); }                                                        \
    inline T __hneg(T a) { return gpuh_sim_impl::lowp_raw<T>(static_cast<unsigned short>(a.x ^ 0x8000u)); }                  \
    inline T __habs(T a) { return gpuh_sim_impl::lowp_raw<T>(static_cast<unsigned short>(a.x & 0x7fffu)); }                  \
    inline T gpuh_impl_sim_sat(T a) /* [0, 1]; NaN gives 0 */                                                    \
    {                                                                                                            \
        const double v = gpuh_sim_impl::lowp_val(a);                                                                         \
        return v > 0.0 ? (v < 1.0 ? a : gpuh_sim_impl::lowp_of<T>(1.0)) : gpuh_sim_impl::lowp_of<T>(0.0);                                \
    }                                                                                                            \
    inline T __hadd_sat(T a, T b) { return gpuh_impl_sim_sat(__hadd(a, b)); }                                    \
    inline T __hsub_sat(T a, T b) { return gpuh_impl_sim_sat(__hsub(a, b)); }                                    \
    inline T __hmul_sat(T a, T b) { return gpuh_impl_sim_sat(__hmul(a, b)); }                                    \
    inline T __hfma_sat(T a, T b, T c) { return gpuh_impl_sim_sat(__hfma(a, b, c)); }                            \
    inline T __hfma_relu(T a, T b, T c)                                                                          \
    {                                                                                                            \
        const T r = __hfma(a, b, c);                                                                             \
        return gpuh_sim_impl::lowp_val(r) < 0.0 ? gpuh_sim_impl::lowp_of<T>(0.0) : r;                                                    \
    }                                                                                                            \
    inline bool __heq(T a, T b) { return gpuh_sim_impl::lowp_val(a) == gpuh_sim_impl::lowp_val(b); }                                     \
    inline bool __hne(T a, T b) { return gpuh_sim_impl::lowp_val(a) < gpuh_sim_impl::lowp_val(b) || gpuh_sim_impl::lowp_val(a) > gpuh_sim_impl::lowp_val(b); }   \
    inline bool __hlt(T a, T b) { return gpuh_sim_impl::lowp_val(a) < gpuh_sim_impl::lowp_val(b); }                                      \
    inline bool __hle(T a, T b) { return gpuh_sim_impl::lowp_val(a) <= gpuh_sim_impl::lowp_val(b); }                                     \
    inline bool __hgt(T a, T b) { return gpuh_sim_impl::lowp_val(a) > gpuh_sim_impl::lowp_val(b); }                                      \
    inline bool __hge(T a, T b) { return gpuh_sim_impl::lowp_val(a) >= gpuh_sim_impl::lowp_val(b); }                                     \
    inline bool __hequ(T a, T b) { return !__hne(a, b); }                                                        \
    inline bool __hneu(T a, T b) { return !__heq(a, b); }                                                        \
    inline bool __hltu(T a, T b) { return !__hge(a, b); }                                                        \
    inline bool __hleu(T a, T b) { return !__hgt(a, b); }                                                        \
    inline bool __hgtu(T a, T b) { return !__hle(a, b); }                                                        \
    inline bool __hgeu(T a, T b) { return !__hlt(a, b); }                                                        \
    inline bool __hisnan(T a) { return gpuh_sim_impl::lowp_isnan(a); }                                                       \
    inline int __hisinf(T a) { return isinf(gpuh_sim_impl::lowp_val(a)) ? (a.x & 0x8000u ? -1 : 1) : 0; }                    \
    inline T __hmax(T a, T b) { return gpuh_sim_impl::lowp_max(a, b, true); }                                                \
    inline T __hmin(T a, T b) { return gpuh_sim_impl::lowp_max(a, b, false); }                                               \
    inline T __hmax_nan(T a, T b) { return __hisnan(a) || __hisnan(b) ? gpuh_sim_impl::lowp_of<T>(NAN) : __hmax(a, b); }     \
    inline T __hmin_nan(T a, T b) { return __hisnan(a) || __hisnan(b) ? gpuh_sim_impl::lowp_of<T>(NAN) : __hmin(a, b); }     \
    inline T hsqrt(T a) { return gpuh_sim_impl::lowp_of<T>(sqrt(gpuh_sim_impl::lowp_val(a))); }                                          \
    inline T hrsqrt(T a) { return gpuh_sim_impl::lowp_of<T>(1.0 / sqrt(gpuh_sim_impl::lowp_val(a))); }                                   \
    inline T hrcp(T a) { return gpuh_sim_impl::lowp_of<T>(1.0 / gpuh_sim_impl::lowp_val(a)); }                                           \
    inline T hexp(T a) { return gpuh_sim_impl::lowp_of<T>(exp(gpuh_sim_impl::lowp_val(a))); }                                            \
    inline T hexp2(T a) { return gpuh_sim_impl::lowp_of<T>(exp2(gpuh_sim_impl::lowp_val(a))); }                                          \
    inline T hexp10(T a) { return gpuh_sim_impl::lowp_of<T>(pow(10.0, gpuh_sim_impl::lowp_val(a))); }                                    \
    inline T hlog(T a) { return gpuh_sim_impl::lowp_of<T>(log(gpuh_sim_impl::lowp_val(a))); }                                            \
    inline T hlog2(T a) { return gpuh_sim_impl::lowp_of<T>(log2(gpuh_sim_impl::lowp_val(a))); }                                          \
    inline T hlog10(T a) { return gpuh_sim_impl::lowp_of<T>(log10(gpuh_sim_impl::lowp_val(a))); }                                        \
    inline T hsin(T a) { return gpuh_sim_impl::lowp_of<T>(sin(gpuh_sim_impl::lowp_val(a))); }                                            \
    inline T hcos(T a) { return gpuh_sim_impl::lowp_of<T>(cos(gpuh_sim_impl::lowp_val(a))); }                                            \
    inline T htanh(T a) { return gpuh_sim_impl::lowp_of<T>(tanh(gpuh_sim_impl::lowp_val(a))); }                                          \
    inline T hfloor(T a) { return gpuh_sim_impl::lowp_of<T>(floor(gpuh_sim_impl::lowp_val(a))); }                                        \
    inline T hceil(T a) { return gpuh_sim_impl::lowp_of<T>(ceil(gpuh_sim_impl::lowp_val(a))); }                                          \
    inline T htrunc(T a) { return gpuh_sim_impl::lowp_of<T>(trunc(gpuh_sim_impl::lowp_val(a))); }                                        \
    inline T hrint(T a) { return gpuh_sim_impl::lowp_of<T>(gpuh_sim_impl::lowp_rint(gpuh_sim_impl::lowp_val(a))); } \
    /* the pair: each half on its own */                                                                         \
    inline T2 gpuh_impl_sim_pair(T (*f)(T, T), T2 a, T2 b) { return T2(f(a.x, b.x), f(a.y, b.y)); }            \
    inline T2 gpuh_impl_sim_pair(T (*f)(T), T2 a) { return T2(f(a.x), f(a.y)); }                                \
    inline T2 gpuh_impl_sim_pair_cmp(bool (*f)(T, T), T2 a, T2 b)                                               \
    {                                                                                                            \
        return T2(gpuh_sim_impl::lowp_of<T>(f(a.x, b.x) ? 1.0 : 0.0), gpuh_sim_impl::lowp_of<T>(f(a.y, b.y) ? 1.0 : 0.0));               \
    }                                                                                                            \
    inline T2 __hadd2(T2 a, T2 b) { return gpuh_impl_sim_pair(__hadd, a, b); }                                   \
    inline T2 __hsub2(T2 a, T2 b) { return gpuh_impl_sim_pair(__hsub, a, b); }                                   \
    inline T2 __hmul2(T2 a, T2 b) { return gpuh_impl_sim_pair(__hmul, a, b); }                                   \
    inline T2 __h2div(T2 a, T2 b) { return gpuh_impl_sim_pair(__hdiv, a, b); }                                   \
    inline T2 __hadd2_sat(T2 a, T2 b) { return gpuh_impl_sim_pair(__hadd_sat, a, b); }                           \
    inline T2 __hmul2_sat(T2 a, T2 b) { return gpuh_impl_sim_pair(__hmul_sat, a, b); }                           \
    inline T2 __hmax2(T2 a, T2 b) { return gpuh_impl_sim_pair(__hmax, a, b); }                                   \
    inline T2 __hmin2(T2 a, T2 b) { return gpuh_impl_sim_pair(__hmin, a, b); }                                   \
    inline T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }             \
    inline T2 __hfma2_relu(T2 a, T2 b, T2 c) { return T2(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y)); } \
    inline T2 __hneg2(T2 a) { return gpuh_impl_sim_pair(__hneg, a); }                                            \
    inline T2 __habs2(T2 a) { return gpuh_impl_sim_pair(__habs, a); }                                            \
    inline T2 h2sqrt(T2 a) { return gpuh_impl_sim_pair(hsqrt, a); }                                              \
    inline T2 h2exp(T2 a) { return gpuh_impl_sim_pair(hexp, a); }                                                \
    inline T2 h2log(T2 a) { return gpuh_impl_sim_pair(hlog, a); }                                                \
    inline T2 h2floor(T2 a) { return gpuh_impl_sim_pair(hfloor, a); }                                            \
    inline T2 h2ceil(T2 a) { return gpuh_impl_sim_pair(hceil, a); }                                              \
    inline T2 h2exp2(T2 a) { return gpuh_impl_sim_pair(hexp2, a); }                                              \
    inline T2 h2exp10(T2 a) { return gpuh_impl_sim_pair(hexp10, a); }                                            \
    inline T2 h2log2(T2 a) { return gpuh_impl_sim_pair(hlog2, a); }                                              \
    inline T2 h2log10(T2 a) { return gpuh_impl_sim_pair(hlog10, a); }                                            \
    inline T2 h2sin(T2 a) { return gpuh_impl_sim_pair(hsin, a); }                                                \
    inline T2 h2cos(T2 a) { return gpuh_impl_sim_pair(hcos, a); }                                                \
    inline T2 h2tanh(T2 a) { return gpuh_impl_sim_pair(htanh, a); }                                              \
    inline T2 h2rsqrt(T2 a) { return gpuh_impl_sim_pair(hrsqrt, a); }                                            \
    inline T2 h2rcp(T2 a) { return gpuh_impl_sim_pair(hrcp, a); }                                                \
    inline T2 h2trunc(T2 a) { return gpuh_impl_sim_pair(htrunc, a); }                                            \
    inline T2 h2rint(T2 a) { return gpuh_impl_sim_pair(hrint, a); }                                              \
    inline T2 __hsub2_sat(T2 a, T2 b) { return gpuh_impl_sim_pair(__hsub_sat, a, b); }                           \
    inline T2 __hfma2_sat(T2 a, T2 b, T2 c) { return T2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)); } \
    inline T2 __hmax2_nan(T2 a, T2 b) { return gpuh_impl_sim_pair(__hmax_nan, a, b); }                           \
    inline T2 __hmin2_nan(T2 a, T2 b) { return gpuh_impl_sim_pair(__hmin_nan, a, b); }                           \
    /* complex a * b + c, (x, y) as (real, imaginary) */                                                         \
    GPUH_IMPL_SIM_LOWP_UNORDERED2(T, T2, equ)                                                                    \
    GPUH_IMPL_SIM_LOWP_UNORDERED2(T, T2, neu)                                                                    \
    GPUH_IMPL_SIM_LOWP_UNORDERED2(T, T2, ltu)                                                                    \
    GPUH_IMPL_SIM_LOWP_UNORDERED2(T, T2, leu)                                                                    \
    GPUH_IMPL_SIM_LOWP_UNORDERED2(T, T2, gtu)                                                                    \
    GPUH_IMPL_SIM_LOWP_UNORDERED2(T, T2, geu)                                                                    \
    inline T2 __hcmadd(T2 a, T2 b, T2 c)                                                                         \
    {                                                                                                            \
        return T2(__hfma(a.x, b.x, __hfma(__hneg(a.y), b.y, c.x)), __hfma(a.x, b.y, __hfma(a.y, b.x, c.y)));     \
    }                                                                                                            \
    inline T2 __heq2(T2 a, T2 b) { return gpuh_impl_sim_pair_cmp(__heq, a, b); }                                 \
    inline T2 __hne2(T2 a, T2 b) { return gpuh_impl_sim_pair_cmp(__hne, a, b); }                                 \
    inline T2 __hlt2(T2 a, T2 b) { return gpuh_impl_sim_pair_cmp(__hlt, a, b); }                                 \
    inline T2 __hle2(T2 a, T2 b) { return gpuh_impl_sim_pair_cmp(__hle, a, b); }                                 \
    inline T2 __hgt2(T2 a, T2 b) { return gpuh_impl_sim_pair_cmp(__hgt, a, b); }                                 \
    inline T2 __hge2(T2 a, T2 b) { return gpuh_impl_sim_pair_cmp(__hge, a, b); }                                 \
    inline bool __hbeq2(T2 a, T2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }                               \
    inline bool __hbne2(T2 a, T2 b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }                               \
    inline bool __hblt2(T2 a, T2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }                               \
    inline bool __hble2(T2 a, T2 b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }                               \
    inline bool __hbgt2(T2 a, T2 b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }                               \
    inline bool __hbge2(T2 a, T2 b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }                               \
    inline T2 __hisnan2(T2 a) { return T2(gpuh_sim_impl::lowp_of<T>(__hisnan(a.x)), gpuh_sim_impl::lowp_of<T>(__hisnan(a.y))); }         \
    inline float __low2float(T2 a) { return static_cast<float>(gpuh_sim_impl::lowp_val(a.x)); }                              \
    inline float __high2float(T2 a) { return static_cast<float>(gpuh_sim_impl::lowp_val(a.y)); }                             \
    inline T2 __lowhigh2highlow(T2 a) { return T2(a.y, a.x); }                                                   \
    inline T operator+(T a, T b) { return __hadd(a, b); }                                                        \
    inline T operator-(T a, T b) { return __hsub(a, b); }                                                        \
    inline T operator*(T a, T b) { return __hmul(a, b); }                                                        \
    inline T operator/(T a, T b) { return __hdiv(a, b); }                                                        \
    inline T operator-(T a) { return __hneg(a); }                                                                \
    inline T operator+(T a) { return a; }                                                                        \
    inline T &operator+=(T &a, T b) { return a = __hadd(a, b); }                                                 \
    inline T &operator-=(T &a, T b) { return a = __hsub(a, b); }                                                 \
    inline T &operator*=(T &a, T b) { return a = __hmul(a, b); }                                                 \
    inline T &operator/=(T &a, T b) { return a = __hdiv(a, b); }                                                 \
    inline T &operator++(T &a) { return a = __hadd(a, gpuh_sim_impl::lowp_of<T>(1.0)); }                                     \
    inline T &operator--(T &a) { return a = __hsub(a, gpuh_sim_impl::lowp_of<T>(1.0)); }                                     \
    inline bool operator==(T a, T b) { return __heq(a, b); }                                                     \
    inline bool operator!=(T a, T b) { return __hneu(a, b); }                                                    \
    inline bool operator<(T a, T b) { return __hlt(a, b); }                                                      \
    inline bool operator<=(T a, T b) { return __hle(a, b); }                                                     \
    inline bool operator>(T a, T b) { return __hgt(a, b); }                                                      \
    inline bool operator>=(T a, T b) { return __hge(a, b); }                                                     \
    inline T2 operator+(T2 a, T2 b) { return __hadd2(a, b); }                                                    \
    inline T2 operator-(T2 a, T2 b) { return __hsub2(a, b); }                                                    \
    inline T2 operator*(T2 a, T2 b) { return __hmul2(a, b); }                                                    \
    inline T2 operator/(T2 a, T2 b) { return __h2div(a, b); }                                                    \
    inline T2 operator-(T2 a) { return __hneg2(a); }                                                             \
    inline T2 &operator+=(T2 &a, T2 b) { return a = __hadd2(a, b); }                                             \
    inline T2 &operator-=(T2 &a, T2 b) { return a = __hsub2(a, b); }                                             \
    inline T2 &operator*=(T2 &a, T2 b) { return a = __hmul2(a, b); }                                             \
    inline T2 &operator/=(T2 &a, T2 b) { return a = __h2div(a, b); }                                             \
    inline bool operator==(T2 a, T2 b) { return __hbeq2(a, b); }                                                 \
    inline bool operator!=(T2 a, T2 b) { return !__hbeq2(a, b); }                                                \
    inline T atomicAdd(T *p, T v)                                                                                \
    {                                                                                                            \
        return gpuh_sim_impl::lowp_atomic(p, [v](T o) { return __hadd(o, v); });                                             \
    }                                                                                                            \
    inline T2 atomicAdd(T2 *p, T2 v)                                                                             \
    {                                                                                                            \
        return gpuh_sim_impl::lowp_atomic(p, [v](T2 o) { return __hadd2(o, v); });                                           \
    }


/* GPUH_IMPL_SIM_LOWP_NAMED(T, T2, name, name2): the conversions and moves
   whose names spell the type (name: half or bfloat16; name2: half2 or
   bfloat162), e.g. __float2half_rz / __float2bfloat16_rz. */
#define GPUH_IMPL_SIM_LOWP_FROM_INT(fn, I, T, mode) \
    inline T fn(I v) { return gpuh_sim_impl::lowp_of<T>(gpuh_sim_impl::odd_int(v), gpuh_sim_impl::mode); }
#define GPUH_IMPL_SIM_LOWP_TO_INT(fn, I, T, mode) \
    inline I fn(T h) { return gpuh_sim_impl::lowp_to_int<I>(gpuh_sim_impl::lowp_val(h), gpuh_sim_impl::mode); }
#define GPUH_IMPL_SIM_LOWP_INT(T, name, tag, I)                        \
    GPUH_IMPL_SIM_LOWP_FROM_INT(__##tag##2##name##_rn, I, T, LOWP_RN) \
    GPUH_IMPL_SIM_LOWP_FROM_INT(__##tag##2##name##_rz, I, T, LOWP_RZ) \
    GPUH_IMPL_SIM_LOWP_FROM_INT(__##tag##2##name##_rd, I, T, LOWP_RD) \
    GPUH_IMPL_SIM_LOWP_FROM_INT(__##tag##2##name##_ru, I, T, LOWP_RU) \
    GPUH_IMPL_SIM_LOWP_TO_INT(__##name##2##tag##_rn, I, T, LOWP_RN)   \
    GPUH_IMPL_SIM_LOWP_TO_INT(__##name##2##tag##_rz, I, T, LOWP_RZ)   \
    GPUH_IMPL_SIM_LOWP_TO_INT(__##name##2##tag##_rd, I, T, LOWP_RD)   \
    GPUH_IMPL_SIM_LOWP_TO_INT(__##name##2##tag##_ru, I, T, LOWP_RU)
#define GPUH_IMPL_SIM_LOWP_NAMED(T, T2, name, name2)                                                               \
    inline T __float2##name(float f) { return gpuh_sim_impl::lowp_of<T>(f); }                                      \
    inline T __float2##name##_rn(float f) { return gpuh_sim_impl::lowp_of<T>(f); }                                 \
    inline T __float2##name##_rz(float f) { return gpuh_sim_impl::lowp_of<T>(f, gpuh_sim_impl::LOWP_RZ); }         \
    inline T __float2##name##_rd(float f) { return gpuh_sim_impl::lowp_of<T>(f, gpuh_sim_impl::LOWP_RD); }         \
    inline T __float2##name##_ru(float f) { return gpuh_sim_impl::lowp_of<T>(f, gpuh_sim_impl::LOWP_RU); }         \
    inline T __double2##name(double d) { return gpuh_sim_impl::lowp_of<T>(d); }                                    \
    inline float __##name##2float(T h) { return static_cast<float>(gpuh_sim_impl::lowp_val(h)); }                  \
    inline short __##name##_as_short(T h) { return static_cast<short>(h.x); }                                      \
    inline unsigned short __##name##_as_ushort(T h) { return h.x; }                                                \
    inline T __short_as_##name(short s) { return gpuh_sim_impl::lowp_raw<T>(static_cast<unsigned short>(s)); }     \
    inline T __ushort_as_##name(unsigned short u) { return gpuh_sim_impl::lowp_raw<T>(u); }                        \
    inline T2 __halves2##name2(T a, T b) { return T2(a, b); }                                                      \
    inline T2 make_##name2(T a, T b) { return T2(a, b); }                                                          \
    inline T2 __##name##2##name2(T a) { return T2(a, a); }                                                         \
    inline T2 __float2##name2##_rn(float f) { return T2(__float2##name(f), __float2##name(f)); }                   \
    inline T2 __floats2##name2##_rn(float a, float b) { return T2(__float2##name(a), __float2##name(b)); }         \
    inline T2 __float22##name2##_rn(float2 f) { return T2(__float2##name(f.x), __float2##name(f.y)); }            \
    inline float2 __##name2##2float2(T2 h) { return make_float2(__##name##2float(h.x), __##name##2float(h.y)); }   \
    inline T __low2##name(T2 h) { return h.x; }                                                                    \
    inline T __high2##name(T2 h) { return h.y; }                                                                   \
    inline T2 __lows2##name2(T2 a, T2 b) { return T2(a.x, b.x); }                                                  \
    inline T2 __highs2##name2(T2 a, T2 b) { return T2(a.y, b.y); }                                                 \
    inline T2 __low2##name2(T2 a) { return T2(a.x, a.x); }                                                         \
    inline T2 __high2##name2(T2 a) { return T2(a.y, a.y); }                                                        \
    GPUH_IMPL_SIM_LOWP_INT(T, name, int, int)                                                                      \
    GPUH_IMPL_SIM_LOWP_INT(T, name, uint, unsigned int)                                                            \
    GPUH_IMPL_SIM_LOWP_INT(T, name, short, short)                                                                  \
    GPUH_IMPL_SIM_LOWP_INT(T, name, ushort, unsigned short)                                                        \
    GPUH_IMPL_SIM_LOWP_INT(T, name, ll, long long)                                                                 \
    GPUH_IMPL_SIM_LOWP_INT(T, name, ull, unsigned long long)

#endif /* GPUH_SIM_LOWP_H */
