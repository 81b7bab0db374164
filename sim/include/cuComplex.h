/* Stand-in for CUDA's <cuComplex.h> on gpuh's CPU simulator: single and
   double precision complex numbers as float2 and double2 (x the real part, y
   the imaginary part), with the functions the CUDA Toolkit documents for
   them, for host and device code alike. Division and the absolute value
   scale their operands first, so that neither overflows nor underflows in
   its intermediate products where the result is representable. */
#ifndef GPUH_SIM_CUCOMPLEX_H
#define GPUH_SIM_CUCOMPLEX_H
#include "gpuh_sim.h"
#include <math.h>

#include <cmath>
#include <limits>

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

namespace gpuh_sim_impl {
/* The arithmetic both precisions share, on C (float2 or double2) with parts
   of type T; make builds the result. */
template <class T, class C> inline C complex_make(T r, T i)
{
    C c;
    c.x = r, c.y = i;
    return c;
}
template <class T, class C> inline C complex_mul(C x, C y)
{
    return complex_make<T, C>(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
template <class T, class C> inline C complex_fma(C x, C y, C d)
{
    return complex_make<T, C>(x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}
/* x / y, both scaled by 1 / (|Re y| + |Im y|) first. */
template <class T, class C> inline C complex_div(C x, C y)
{
    const T s = T(1) / (std::fabs(y.x) + std::fabs(y.y));
    const T xr = x.x * s, xi = x.y * s, yr = y.x * s, yi = y.y * s;
    const T d = T(1) / (yr * yr + yi * yi);
    return complex_make<T, C>((xr * yr + xi * yi) * d, (xi * yr - xr * yi) * d);
}
/* |x|, by the larger part times sqrt(1 + (smaller / larger)^2). */
template <class T, class C> inline T complex_abs(C x)
{
    const T a = std::fabs(x.x), b = std::fabs(x.y), most = std::numeric_limits<T>::max();
    const T hi = a > b ? a : b, lo = a > b ? b : a;
    if (hi == T(0) || hi > most || lo > most)
        return hi + lo; /* 0, or an infinity or NaN passed on */
    const T q = lo / hi;
    return hi * std::sqrt(T(1) + q * q);
}
} // namespace gpuh_sim_impl

/* The real part of x. */
static inline float cuCrealf(cuFloatComplex x) { return x.x; }
/* The imaginary part of x. */
static inline float cuCimagf(cuFloatComplex x) { return x.y; }
/* r + i j. */
static inline cuFloatComplex make_cuFloatComplex(float r, float i) { return make_float2(r, i); }
/* The complex conjugate of x. */
static inline cuFloatComplex cuConjf(cuFloatComplex x) { return make_float2(x.x, -x.y); }
/* x + y. */
static inline cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) { return make_float2(x.x + y.x, x.y + y.y); }
/* x - y. */
static inline cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) { return make_float2(x.x - y.x, x.y - y.y); }
/* x * y. */
static inline cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y)
{
    return gpuh_sim_impl::complex_mul<float>(x, y);
}
/* x / y, both scaled by 1 / (|Re y| + |Im y|) first. */
static inline cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y)
{
    return gpuh_sim_impl::complex_div<float>(x, y);
}
/* |x|, by the larger part times sqrt(1 + (smaller / larger)^2). */
static inline float cuCabsf(cuFloatComplex x) { return gpuh_sim_impl::complex_abs<float>(x); }
/* The real part of x. */
static inline double cuCreal(cuDoubleComplex x) { return x.x; }
/* The imaginary part of x. */
static inline double cuCimag(cuDoubleComplex x) { return x.y; }
/* r + i j. */
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return make_double2(r, i); }
/* The complex conjugate of x. */
static inline cuDoubleComplex cuConj(cuDoubleComplex x) { return make_double2(x.x, -x.y); }
/* x + y. */
static inline cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) { return make_double2(x.x + y.x, x.y + y.y); }
/* x - y. */
static inline cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) { return make_double2(x.x - y.x, x.y - y.y); }
/* x * y. */
static inline cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y)
{
    return gpuh_sim_impl::complex_mul<double>(x, y);
}
/* x / y, both scaled by 1 / (|Re y| + |Im y|) first. */
static inline cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y)
{
    return gpuh_sim_impl::complex_div<double>(x, y);
}
/* |x|, by the larger part times sqrt(1 + (smaller / larger)^2). */
static inline double cuCabs(cuDoubleComplex x) { return gpuh_sim_impl::complex_abs<double>(x); }
/* r + i j (cuComplex is cuFloatComplex). */
static inline cuComplex make_cuComplex(float r, float i) { return make_float2(r, i); }
/* c in double precision. */
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return make_double2(c.x, c.y); }
/* c rounded to single precision. */
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c)
{
    return make_float2(static_cast<float>(c.x), static_cast<float>(c.y));
}
/* x * y + d. */
static inline cuComplex cuCfmaf(cuComplex x, cuComplex y, cuComplex d)
{
    return gpuh_sim_impl::complex_fma<float>(x, y, d);
}
/* x * y + d. */
static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d)
{
    return gpuh_sim_impl::complex_fma<double>(x, y, d);
}
#endif
