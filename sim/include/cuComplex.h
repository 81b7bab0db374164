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

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

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
    return make_float2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
/* x / y, both scaled by 1 / (|Re y| + |Im y|) first. */
static inline cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y)
{
    const float s = 1.0f / (fabsf(y.x) + fabsf(y.y));
    const float xr = x.x * s, xi = x.y * s, yr = y.x * s, yi = y.y * s;
    const float d = 1.0f / (yr * yr + yi * yi);
    return make_float2((xr * yr + xi * yi) * d, (xi * yr - xr * yi) * d);
}
/* |x|, by the larger part times sqrt(1 + (smaller / larger)^2). */
static inline float cuCabsf(cuFloatComplex x)
{
    const float a = fabsf(x.x), b = fabsf(x.y);
    const float hi = a > b ? a : b, lo = a > b ? b : a;
    if (hi == 0.0f || hi > 3.402823466e38f || lo > 3.402823466e38f)
        return hi + lo; /* 0, or an infinity or NaN passed on */
    const float q = lo / hi;
    return hi * sqrtf(1.0f + q * q);
}
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
    return make_double2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
/* x / y, both scaled by 1 / (|Re y| + |Im y|) first. */
static inline cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y)
{
    const double s = 1.0 / (fabs(y.x) + fabs(y.y));
    const double xr = x.x * s, xi = x.y * s, yr = y.x * s, yi = y.y * s;
    const double d = 1.0 / (yr * yr + yi * yi);
    return make_double2((xr * yr + xi * yi) * d, (xi * yr - xr * yi) * d);
}
/* |x|, by the larger part times sqrt(1 + (smaller / larger)^2). */
static inline double cuCabs(cuDoubleComplex x)
{
    const double a = fabs(x.x), b = fabs(x.y);
    const double hi = a > b ? a : b, lo = a > b ? b : a;
    if (hi == 0.0 || hi > 1.7976931348623157e308 || lo > 1.7976931348623157e308)
        return hi + lo;
    const double q = lo / hi;
    return hi * sqrt(1.0 + q * q);
}
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
    return make_float2(x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}
/* x * y + d. */
static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d)
{
    return make_double2(x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}
#endif
