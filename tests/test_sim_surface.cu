/* test_sim_surface.cu - what device code names, checked on the simulator
   (through tools/gpuh-simcc; CTest sim.surface) and on a GPU (nvcc; CTest
   gpu.sim_surface), so that the simulator's answers are the GPU's:
     - every vector type of CUDA's vector_types.h: size, alignment, make_*;
     - every intrinsic of the CUDA Math API's single, double, integer,
       type-cast and half sections, each called once in a kernel, its result
       against a value worked out by hand (exact where the API names a
       rounding; within the stated error for the fast forms);
     - volatile pointers with every qualifier nvcc takes (const, __restrict__,
       const pointers) and the casts written on them;
     - <cuComplex.h>'s functions, on values whose results are exact (the
       quotients within rounding).
   Exit 1 on a failure, 77 with no device. */
/* nvcc 13 deprecates long4, double4 & co.; they are checked here on purpose.
   nvcc includes cuda_runtime.h before this line, so a build with nvcc defines
   __NV_NO_VECTOR_DEPRECATION_DIAG on its command line (cmake/samples_tests.cmake). */
#ifndef __NV_NO_VECTOR_DEPRECATION_DIAG
#define __NV_NO_VECTOR_DEPRECATION_DIAG
#endif
#if defined(__CUDACC__) && !defined(GPUH_SIM)
#pragma nv_diag_suppress 1444
#endif
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <cuComplex.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "test_sim_check.h"

/* ---- Vector types: size and alignment as CUDA's vector_types.h gives them
   (2 and 4 components aligned to their size, at most 16 bytes; 1 and 3 to
   the component), and make_* for each. */
#define VEC_LAYOUT(V, T)                                                                                               \
    static_assert(sizeof(V##1) == sizeof(T) && alignof(V##1) == alignof(T), #V "1");                                   \
    static_assert(sizeof(V##2) == 2 * sizeof(T) && alignof(V##2) == 2 * sizeof(T), #V "2");                            \
    static_assert(sizeof(V##3) == 3 * sizeof(T) && alignof(V##3) == alignof(T), #V "3");                               \
    static_assert(sizeof(V##4) == 4 * sizeof(T) && alignof(V##4) == (4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16), #V "4");
VEC_LAYOUT(char, signed char)
VEC_LAYOUT(uchar, unsigned char)
VEC_LAYOUT(short, short)
VEC_LAYOUT(ushort, unsigned short)
VEC_LAYOUT(int, int)
VEC_LAYOUT(uint, unsigned int)
VEC_LAYOUT(long, long)
VEC_LAYOUT(ulong, unsigned long)
VEC_LAYOUT(longlong, long long)
VEC_LAYOUT(ulonglong, unsigned long long)
VEC_LAYOUT(float, float)
VEC_LAYOUT(double, double)
#if defined(GPUH_SIM) || CUDART_VERSION >= 13000 /* CUDA 13's 4-wide 64-bit types with a chosen alignment */
#define VEC_WIDE(V)                                                                                                    \
    static_assert(alignof(V##4_16a) == 16 && alignof(V##4_32a) == 32 && sizeof(V##4_32a) == 32, #V "4_16a/_32a");
VEC_WIDE(long)
VEC_WIDE(ulong)
VEC_WIDE(longlong)
VEC_WIDE(ulonglong)
VEC_WIDE(double)
#endif

/* Each type's make_1..4 with components 1..4: 1 + 3 + 6 + 10 = 20 per type. */
#define VEC_SUM(V)                                                                                                     \
    do {                                                                                                               \
        const V##1 a = make_##V##1(1);                                                                                 \
        const V##2 b = make_##V##2(1, 2);                                                                              \
        const V##3 c = make_##V##3(1, 2, 3);                                                                           \
        const V##4 d = make_##V##4(1, 2, 3, 4);                                                                        \
        sum += (double)a.x + b.x + b.y + c.x + c.y + c.z + d.x + d.y + d.z + d.w;                                      \
    } while (0)
__global__ void vectors_kernel(double *g_sum)
{
    double sum = 0;
    VEC_SUM(char);
    VEC_SUM(uchar);
    VEC_SUM(short);
    VEC_SUM(ushort);
    VEC_SUM(int);
    VEC_SUM(uint);
    VEC_SUM(long);
    VEC_SUM(ulong);
    VEC_SUM(longlong);
    VEC_SUM(ulonglong);
    VEC_SUM(float);
    VEC_SUM(double);
    *g_sum = sum;
}

static void test_vectors()
{
    double *d = nullptr, h = 0;
    CUDA_OK(cudaMalloc(&d, sizeof h));
    vectors_kernel<<<1, 1>>>(d);
    CUDA_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h == 12 * 20, "the make_* of 12 vector types sum to %g, not 240", h);
    CUDA_OK(cudaFree(d));
}

/* ---- Intrinsics. Each entry: the expression (run in the kernel), the value
   it must give, and the tolerance (0: exact; else relative, or absolute
   below 1). The directed roundings use operands whose exact result lies
   between two floats, so that each mode has its own answer. */
#define P30 9.313225746154785e-10f /* 2^-30 */
#define E23 1.1920928955078125e-07 /* 2^-23 */
#define E52 2.220446049250313e-16  /* 2^-52 */
#define F1U (1.0f + (float)E23)    /* the float after 1 */
#define D1U (1.0 + E52)            /* the double after 1 */
#define THIRD_UP 0.3333333432674408 /* 1/3 as a float, rounded to nearest (up) */
#define THIRD_DN 0.3333333134651184 /* the float below it */
#define SQRT2_DN 1.4142135381698608 /* sqrt(2) as a float, rounded to nearest (down) */
#define SQRT2_UP 1.4142136573791504 /* the float above it */
#define DTHIRD_DN (1.0 / 3.0)                  /* 1/3 as a double rounds down */
#define DSQRT2_UP 1.4142135623730951           /* sqrt(2) as a double rounds up */
#define DSQRT2_DN 1.4142135623730949           /* the double below it */
#define SINGLE(X)                                                                                                      \
    X(__fadd_rn(1.0f, P30), 1.0, 0) X(__fadd_rz(1.0f, P30), 1.0, 0) X(__fadd_ru(1.0f, P30), 1.0 + E23, 0)             \
    X(__fadd_rd(1.0f, P30), 1.0, 0) X(__fsub_rn(1.0f, P30), 1.0, 0) X(__fsub_rz(1.0f, P30), 1.0 - E23 / 2, 0)         \
    X(__fsub_ru(1.0f, P30), 1.0, 0) X(__fsub_rd(1.0f, P30), 1.0 - E23 / 2, 0)                                         \
    X(__fmul_rn(F1U, F1U), 1.0 + 2 * E23, 0) X(__fmul_rz(F1U, F1U), 1.0 + 2 * E23, 0)                                 \
    X(__fmul_ru(F1U, F1U), 1.0 + 3 * E23, 0) X(__fmul_rd(F1U, F1U), 1.0 + 2 * E23, 0)                                 \
    X(__fdiv_rn(1.0f, 3.0f), THIRD_UP, 0) X(__fdiv_rz(1.0f, 3.0f), THIRD_DN, 0)                                       \
    X(__fdiv_ru(1.0f, 3.0f), THIRD_UP, 0) X(__fdiv_rd(1.0f, 3.0f), THIRD_DN, 0)                                       \
    X(__frcp_rn(3.0f), THIRD_UP, 0) X(__frcp_rz(3.0f), THIRD_DN, 0) X(__frcp_ru(3.0f), THIRD_UP, 0)                   \
    X(__frcp_rd(3.0f), THIRD_DN, 0) X(__fsqrt_rn(2.0f), SQRT2_DN, 0) X(__fsqrt_rz(2.0f), SQRT2_DN, 0)                 \
    X(__fsqrt_ru(2.0f), SQRT2_UP, 0) X(__fsqrt_rd(2.0f), SQRT2_DN, 0)                                                 \
    X(__fmaf_rn(F1U, F1U, 0.0f), 1.0 + 2 * E23, 0) X(__fmaf_rz(F1U, F1U, 0.0f), 1.0 + 2 * E23, 0)                     \
    X(__fmaf_ru(F1U, F1U, 0.0f), 1.0 + 3 * E23, 0) X(__fmaf_rd(F1U, F1U, 0.0f), 1.0 + 2 * E23, 0)                     \
    X(__fmaf_ieee_rn(F1U, F1U, 0.0f), 1.0 + 2 * E23, 0) X(__fmaf_ieee_rz(F1U, F1U, 0.0f), 1.0 + 2 * E23, 0)           \
    X(__fmaf_ieee_ru(F1U, F1U, 0.0f), 1.0 + 3 * E23, 0) X(__fmaf_ieee_rd(F1U, F1U, 0.0f), 1.0 + 2 * E23, 0)           \
    X(__frsqrt_rn(4.0f), 0.5, 0) X(__fdividef(1.0f, 4.0f), 0.25, 1e-6) X(__expf(1.5f), 4.4816890703380645, 1e-5)     \
    X(__exp10f(0.5f), 3.1622776601683795, 1e-5) X(__logf(3.0f), 1.0986122886681098, 1e-5)                             \
    X(__log2f(3.0f), 1.5849625007211562, 1e-5) X(__log10f(3.0f), 0.47712125471966244, 1e-5)                           \
    X(__sinf(0.5f), 0.479425538604203, 1e-5) X(__cosf(0.5f), 0.8775825618903728, 1e-5)                                \
    X(__tanf(0.5f), 0.5463024898437905, 1e-5) X(__powf(2.0f, 0.5f), 1.4142135623730951, 1e-5)                         \
    X(__saturatef(1.5f), 1.0, 0) X(__saturatef(-0.5f), 0.0, 0) X(__saturatef(0.25f), 0.25, 0)                         \
    X(__saturatef(nanf("")), 0.0, 0) X(sincosf_sum(0.5f), 0.479425538604203 + 0.8775825618903728, 1e-5)
#define DOUBLE(X)                                                                                                      \
    X(__dadd_rn(1.0, E52 / 256), 1.0, 0) X(__dadd_rz(1.0, E52 / 256), 1.0, 0) X(__dadd_ru(1.0, E52 / 256), D1U, 0)    \
    X(__dadd_rd(1.0, E52 / 256), 1.0, 0) X(__dsub_rn(1.0, E52 / 256), 1.0, 0)                                         \
    X(__dsub_rz(1.0, E52 / 256), 1.0 - E52 / 2, 0) X(__dsub_ru(1.0, E52 / 256), 1.0, 0)                               \
    X(__dsub_rd(1.0, E52 / 256), 1.0 - E52 / 2, 0) X(__dmul_rn(D1U, D1U), 1.0 + 2 * E52, 0)                           \
    X(__dmul_rz(D1U, D1U), 1.0 + 2 * E52, 0) X(__dmul_ru(D1U, D1U), 1.0 + 3 * E52, 0)                                 \
    X(__dmul_rd(D1U, D1U), 1.0 + 2 * E52, 0) X(__ddiv_rn(1.0, 3.0), DTHIRD_DN, 0)                                     \
    X(__ddiv_rz(1.0, 3.0), DTHIRD_DN, 0) X(__ddiv_ru(1.0, 3.0), DTHIRD_DN + E52 / 4, 0)                               \
    X(__ddiv_rd(1.0, 3.0), DTHIRD_DN, 0) X(__drcp_rn(3.0), DTHIRD_DN, 0) X(__drcp_rz(3.0), DTHIRD_DN, 0)              \
    X(__drcp_ru(3.0), DTHIRD_DN + E52 / 4, 0) X(__drcp_rd(3.0), DTHIRD_DN, 0) X(__dsqrt_rn(2.0), DSQRT2_UP, 0)        \
    X(__dsqrt_rz(2.0), DSQRT2_DN, 0) X(__dsqrt_ru(2.0), DSQRT2_UP, 0) X(__dsqrt_rd(2.0), DSQRT2_DN, 0)                \
    X(__fma_rn(D1U, D1U, 0.0), 1.0 + 2 * E52, 0) X(__fma_rz(D1U, D1U, 0.0), 1.0 + 2 * E52, 0)                         \
    X(__fma_ru(D1U, D1U, 0.0), 1.0 + 3 * E52, 0) X(__fma_rd(D1U, D1U, 0.0), 1.0 + 2 * E52, 0)
#define CASTS(X)                                                                                                       \
    X(__float2int_rn(2.5f), 2, 0) X(__float2int_rz(-2.7f), -2, 0) X(__float2int_ru(2.1f), 3, 0)                       \
    X(__float2int_rd(-2.1f), -3, 0) X(__float2int_rz(3e9f), INT_MAX, 0) X(__float2int_rn(-3e9f), INT_MIN, 0)          \
    X(__float2uint_rn(3.5f), 4, 0) X(__float2uint_rz(-1.0f), 0, 0) X(__float2uint_ru(4294967296.0f), UINT_MAX, 0)     \
    X(__float2uint_rd(7.9f), 7, 0) X(__float2ll_rn(-0.5f), 0, 0) X(__float2ll_rz(1e19f), (double)LLONG_MAX, 0)        \
    X(__float2ll_ru(-1.5f), -1, 0) X(__float2ll_rd(-1e19f), (double)LLONG_MIN, 0) X(__float2ull_rn(1.5f), 2, 0)       \
    X(__float2ull_rz(2e19f), (double)ULLONG_MAX, 0) X(__float2ull_ru(0.1f), 1, 0) X(__float2ull_rd(-5.0f), 0, 0)      \
    X(__double2int_rn(-2.5), -2, 0) X(__double2int_rz(nan("")), INT_MIN, 0) X(__double2int_ru(-0.5), 0, 0)            \
    X(__double2int_rd(1e10), INT_MAX, 0) X(__double2uint_rn(2.5), 2, 0) X(__double2uint_rz(-7.0), 0, 0)               \
    X(__double2uint_ru(1e10), UINT_MAX, 0) X(__double2uint_rd(3.99), 3, 0) X(__double2ll_rn(-1e19), (double)LLONG_MIN, 0) \
    X(__double2ll_rz(-3.9), -3, 0) X(__double2ll_ru(3.1), 4, 0) X(__double2ll_rd(3.9), 3, 0)                          \
    X(__double2ull_rn(0.5), 0, 0) X(__double2ull_rz(2e19), (double)ULLONG_MAX, 0) X(__double2ull_ru(1.2), 2, 0)       \
    X(__double2ull_rd(1.8), 1, 0) X(__int2float_rn(16777217), 16777216, 0) X(__int2float_rz(16777217), 16777216, 0)   \
    X(__int2float_ru(16777217), 16777218, 0) X(__int2float_rd(16777217), 16777216, 0)                                 \
    X(__uint2float_rn(16777219u), 16777220, 0) X(__uint2float_rz(16777219u), 16777218, 0)                             \
    X(__uint2float_ru(16777217u), 16777218, 0) X(__uint2float_rd(16777219u), 16777218, 0)                             \
    X(__ll2float_rn(16777217ll), 16777216, 0) X(__ll2float_rz(-16777217ll), -16777216, 0)                             \
    X(__ll2float_ru(-16777217ll), -16777216, 0) X(__ll2float_rd(-16777217ll), -16777218, 0)                           \
    X(__ull2float_rn(16777217ull), 16777216, 0) X(__ull2float_rz(16777217ull), 16777216, 0)                           \
    X(__ull2float_ru(16777217ull), 16777218, 0) X(__ull2float_rd(16777217ull), 16777216, 0)                           \
    X(__ll2double_rn((1ll << 53) + 1), 9007199254740992.0, 0) X(__ll2double_rz((1ll << 53) + 1), 9007199254740992.0, 0) \
    X(__ll2double_ru((1ll << 53) + 1), 9007199254740994.0, 0) X(__ll2double_rd((1ll << 53) + 1), 9007199254740992.0, 0) \
    X(__ull2double_rn((1ull << 53) + 3), 9007199254740996.0, 0) X(__ull2double_rz((1ull << 53) + 3), 9007199254740994.0, 0) \
    X(__ull2double_ru((1ull << 53) + 1), 9007199254740994.0, 0) X(__ull2double_rd((1ull << 53) + 3), 9007199254740994.0, 0) \
    X(__int2double_rn(-7), -7, 0) X(__uint2double_rn(7u), 7, 0) X(__double2float_rn(1.0 + E23 / 4), 1.0, 0)           \
    X(__double2float_rz(1.0 + E23 / 4), 1.0, 0) X(__double2float_ru(1.0 + E23 / 4), 1.0 + E23, 0)                     \
    X(__double2float_rd(-1.0 - E23 / 4), -1.0 - E23, 0) X(__float_as_int(1.0f), 0x3f800000, 0)                        \
    X(__float_as_uint(-0.0f), 0x80000000u, 0) X(__int_as_float(0x40000000), 2.0, 0) X(__uint_as_float(0x3f000000u), 0.5, 0) \
    X(__double_as_longlong(1.0), 4607182418800017408.0, 0) X(__longlong_as_double(4611686018427387904ll), 2.0, 0)     \
    X(__double2hiint(2.0), 0x40000000, 0) X(__double2loint(1.0 + E52), 1, 0) X(__hiloint2double(0x3ff00000, 0), 1.0, 0)
#define INTEGER(X)                                                                                                     \
    X(__brev(1u), 2147483648.0, 0) X(__brevll(1ull), 9223372036854775808.0, 0)                                        \
    X(__byte_perm(0x33221100u, 0x77665544u, 0x5410u), 0x55441100u, 0) X(__clz(1), 31, 0) X(__clzll(1ll), 63, 0)       \
    X(__ffs(8), 4, 0) X(__ffsll(1ll << 40), 41, 0) X(__funnelshift_l(0x80000000u, 1u, 1u), 3, 0)                      \
    X(__funnelshift_l(0x80000000u, 1u, 40u), 0x180, 0) X(__funnelshift_lc(0x80000000u, 1u, 40u), 0x80000000u, 0)      \
    X(__funnelshift_r(1u, 1u, 1u), 0x80000000u, 0) X(__funnelshift_rc(1u, 1u, 40u), 1, 0) X(__hadd(-3, 2), -1, 0)     \
    X(__rhadd(-3, 2), 0, 0) X(__uhadd(3u, 4u), 3, 0) X(__urhadd(3u, 4u), 4, 0) X(__mul24(3, -4), -12, 0)              \
    X(__umul24(3u, 4u), 12, 0) X(__mulhi(0x40000000, 8), 2, 0) X(__umulhi(0x80000000u, 4u), 2, 0)                     \
    X(__mul64hi(-1ll, 1ll), -1, 0) X(__umul64hi(1ull << 63, 4ull), 2, 0) X(__popc(0xffu), 8, 0)                       \
    X(__popcll(~0ull), 64, 0) X(__sad(1, 5, 10u), 14, 0) X(__usad(5u, 1u, 10u), 14, 0) X(__fns(0xffu, 0u, 3), 2, 0)   \
    X(__dp4a(0x01020304, 0x01010101, 5), 15, 0) X(__dp2a_lo(0x00020001, 0x00000302, 0), 8, 0)                          \
    X(__dp2a_hi(0x00020001, 0x03020000, 0), 8, 0)
/* Half precision: results read back as float (exact for every value below). */
#define HALF(X)                                                                                                        \
    X(__half2float(__hadd(H(1.5f), H(2.25f))), 3.75, 0) X(__half2float(__hsub(H(1.5f), H(2.25f))), -0.75, 0)          \
    X(__half2float(__hmul(H(1.5f), H(2.0f))), 3.0, 0) X(__half2float(__hdiv(H(3.0f), H(2.0f))), 1.5, 0)               \
    X(__half2float(__hfma(H(1.5f), H(2.0f), H(0.5f))), 3.5, 0) X(__half2float(__hneg(H(1.5f))), -1.5, 0)              \
    X(__half2float(__habs(H(-1.5f))), 1.5, 0) X(__half2float(__hadd_sat(H(0.75f), H(0.5f))), 1.0, 0)                  \
    X(__half2float(__hsub_sat(H(0.25f), H(0.5f))), 0.0, 0) X(__half2float(__hmul_sat(H(0.75f), H(2.0f))), 1.0, 0)     \
    X(__half2float(__hfma_sat(H(0.5f), H(0.5f), H(1.0f))), 1.0, 0)                                                    \
    X(__half2float(__hfma_relu(H(-1.0f), H(2.0f), H(0.5f))), 0.0, 0) X(__half2float(__hmax(H(1.0f), H(2.0f))), 2.0, 0) \
    X(__half2float(__hmin(H(1.0f), H(2.0f))), 1.0, 0) X(__half2float(__hmax_nan(H(1.0f), H(2.0f))), 2.0, 0)           \
    X(__half2float(__hmin_nan(H(1.0f), H(2.0f))), 1.0, 0) X(__heq(H(1.0f), H(1.0f)), 1, 0)                           \
    X(__hne(H(1.0f), H(2.0f)), 1, 0) X(__hlt(H(1.0f), H(2.0f)), 1, 0) X(__hle(H(2.0f), H(2.0f)), 1, 0)                \
    X(__hgt(H(1.0f), H(2.0f)), 0, 0) X(__hge(H(1.0f), H(2.0f)), 0, 0) X(__hequ(H(1.0f), HNAN), 1, 0)                  \
    X(__hneu(H(1.0f), H(1.0f)), 0, 0) X(__hltu(H(1.0f), HNAN), 1, 0) X(__hleu(H(3.0f), H(2.0f)), 0, 0)                \
    X(__hgtu(H(1.0f), HNAN), 1, 0) X(__hgeu(H(1.0f), H(2.0f)), 0, 0) X(__hisnan(HNAN), 1, 0) X(__hisinf(H(1.0f)), 0, 0) \
    X(__half2float(hexp(H(0.0f))), 1.0, 2e-3) X(__half2float(hexp2(H(3.0f))), 8.0, 2e-3)                                    \
    X(__half2float(hexp10(H(2.0f))), 100.0, 2e-3) X(__half2float(hlog(H(1.0f))), 0.0, 2e-3)                                 \
    X(__half2float(hlog2(H(8.0f))), 3.0, 2e-3) X(__half2float(hlog10(H(100.0f))), 2.0, 2e-3)                                \
    X(__half2float(hsin(H(0.0f))), 0.0, 2e-3) X(__half2float(hcos(H(0.0f))), 1.0, 2e-3)                                     \
    X(__half2float(hsqrt(H(4.0f))), 2.0, 0) X(__half2float(hrsqrt(H(4.0f))), 0.5, 2e-3)                                  \
    X(__half2float(hrcp(H(4.0f))), 0.25, 2e-3) X(__half2float(hceil(H(1.25f))), 2.0, 0)                                  \
    X(__half2float(hfloor(H(1.75f))), 1.0, 0) X(__half2float(htrunc(H(-1.75f))), -1.0, 0)                             \
    X(__half2float(hrint(H(2.5f))), 2.0, 0) X(__low2float(__hadd2(H2(1, 2), H2(3, 4))), 4.0, 0)                       \
    X(__high2float(__hsub2(H2(1, 2), H2(3, 5))), -3.0, 0) X(__high2float(__hmul2(H2(1, 2), H2(3, 4))), 8.0, 0)        \
    X(__high2float(__h2div(H2(1, 2), H2(4, 8))), 0.25, 0) X(__low2float(__hfma2(H2(1, 2), H2(3, 4), H2(1, 1))), 4.0, 0) \
    X(__high2float(__hneg2(H2(1, 2))), -2.0, 0) X(__low2float(__habs2(H2(-1, 2))), 1.0, 0)                            \
    X(__high2float(__hmax2(H2(1, 2), H2(3, 1))), 2.0, 0) X(__low2float(__hmin2(H2(1, 2), H2(3, 1))), 1.0, 0)          \
    X(__high2float(__hadd2_sat(H2(0, 0.75f), H2(0, 0.5f))), 1.0, 0)                                                   \
    X(__low2float(__hsub2_sat(H2(0.25f, 0), H2(0.5f, 0))), 0.0, 0)                                                    \
    X(__high2float(__hmul2_sat(H2(0, 0.75f), H2(0, 2))), 1.0, 0)                                                      \
    X(__high2float(__hfma2_sat(H2(0, 0.5f), H2(0, 0.5f), H2(0, 1))), 1.0, 0)                                          \
    X(__low2float(__hfma2_relu(H2(-1, 0), H2(2, 0), H2(0.5f, 0))), 0.0, 0)                                            \
    X(__high2float(__heq2(H2(1, 2), H2(1, 2))), 1.0, 0) X(__low2float(__hne2(H2(1, 2), H2(1, 2))), 0.0, 0)            \
    X(__high2float(__hlt2(H2(1, 2), H2(1, 3))), 1.0, 0) X(__low2float(__hle2(H2(1, 2), H2(0, 3))), 0.0, 0)            \
    X(__high2float(__hgt2(H2(1, 4), H2(1, 3))), 1.0, 0) X(__low2float(__hge2(H2(1, 2), H2(1, 3))), 1.0, 0)            \
    X(__hbeq2(H2(1, 2), H2(1, 2)), 1, 0) X(__hblt2(H2(1, 2), H2(2, 3)), 1, 0)                                         \
    X(__high2float(h2exp(H2(0, 0))), 1.0, 2e-3) X(__low2float(h2exp2(H2(2, 0))), 4.0, 2e-3)                                 \
    X(__low2float(h2exp10(H2(1, 0))), 10.0, 2e-3) X(__high2float(h2log(H2(0, 1))), 0.0, 2e-3)                               \
    X(__low2float(h2log2(H2(4, 1))), 2.0, 2e-3) X(__low2float(h2log10(H2(10, 1))), 1.0, 2e-3)                               \
    X(__low2float(h2sin(H2(0, 0))), 0.0, 2e-3) X(__low2float(h2cos(H2(0, 0))), 1.0, 2e-3)                                   \
    X(__high2float(h2sqrt(H2(0, 9))), 3.0, 0) X(__high2float(h2rsqrt(H2(0, 4))), 0.5, 2e-3)                              \
    X(__high2float(h2rcp(H2(0, 2))), 0.5, 2e-3) X(__low2float(h2ceil(H2(1.5f, 0))), 2.0, 0)                              \
    X(__low2float(h2floor(H2(1.5f, 0))), 1.0, 0) X(__low2float(h2trunc(H2(-1.5f, 0))), -1.0, 0)                       \
    X(__low2float(h2rint(H2(1.5f, 0))), 2.0, 0) X(__high2float(__hisnan2(__halves2half2(H(0.0f), HNAN))), 1.0, 0)     \
    X(__half2float(__float2half_rz(1.0f + P30 * 4096)), 1.0, 0) X(__half2float(__float2half_ru(1.0f + P30 * 4096)), 1.0009765625, 0) \
    X(__half2float(__float2half_rd(-1.0f - P30 * 4096)), -1.0009765625, 0) X(__half2float(__float2half_rn(2.0f)), 2.0, 0) \
    X(__low2float(__floats2half2_rn(1.0f, 2.0f)), 1.0, 0) X(__high2float(__float22half2_rn(make_float2(1, 2))), 2.0, 0) \
    X(__half22float2(H2(3, 4)).y, 4.0, 0) X(__half2float(__low2half(H2(3, 4))), 3.0, 0)                               \
    X(__half2float(__high2half(H2(3, 4))), 4.0, 0) X(__high2float(__half2half2(H(5.0f))), 5.0, 0)                     \
    X(__high2float(__lowhigh2highlow(H2(3, 4))), 3.0, 0) X(__high2float(__lows2half2(H2(3, 4), H2(5, 6))), 5.0, 0)    \
    X(__low2float(__highs2half2(H2(3, 4), H2(5, 6))), 4.0, 0) X(__half_as_short(H(1.0f)), 0x3c00, 0)                  \
    X(__half_as_ushort(H(-2.0f)), 0xc000, 0) X(__half2float(__short_as_half(0x3c00)), 1.0, 0)                         \
    X(__half2float(__ushort_as_half(0x4000)), 2.0, 0) X(__half2int_rn(H(2.5f)), 2, 0) X(__half2int_rz(H(-2.5f)), -2, 0) \
    X(__half2int_rd(H(-2.5f)), -3, 0) X(__half2int_ru(H(2.25f)), 3, 0) X(__half2short_rz(H(-3.5f)), -3, 0)            \
    X(__half2uint_rz(H(3.5f)), 3, 0) X(__half2ll_rz(H(-3.5f)), -3, 0) X(__half2ull_rz(H(3.5f)), 3, 0)                 \
    X(__half2float(__int2half_rn(-3)), -3.0, 0) X(__half2float(__uint2half_rn(3u)), 3.0, 0)                           \
    X(__half2float(__short2half_rn(-4)), -4.0, 0) X(__half2float(__ushort2half_rn(4)), 4.0, 0)                        \
    X(__half2float(__ll2half_rn(-5ll)), -5.0, 0) X(__half2float(__ull2half_rn(5ull)), 5.0, 0)
#define H(f) __float2half(f)
#define H2(a, b) __floats2half2_rn((float)(a), (float)(b))
#define HNAN __ushort_as_half(0x7e00)

__device__ float sincosf_sum(float x)
{
    float s, c;
    __sincosf(x, &s, &c);
    return s + c;
}

#define COUNT(e, w, t) +1
enum { N_INTRINSICS = 0 SINGLE(COUNT) DOUBLE(COUNT) CASTS(COUNT) INTEGER(COUNT) HALF(COUNT) };
#define RUN(e, w, t) g_out[k++] = (double)(e);
__global__ void intrinsics_kernel(double *g_out)
{
    int k = 0;
    SINGLE(RUN) DOUBLE(RUN) CASTS(RUN) INTEGER(RUN) HALF(RUN)
}

static void test_intrinsics()
{
    static const struct {
        const char *what;
        double want, tol;
    } expect[] = {
#define EXPECT(e, w, t) {#e, (double)(w), (t)},
        SINGLE(EXPECT) DOUBLE(EXPECT) CASTS(EXPECT) INTEGER(EXPECT) HALF(EXPECT)};
    double *d = nullptr, h[N_INTRINSICS];
    CUDA_OK(cudaMalloc(&d, sizeof h));
    CUDA_OK(cudaMemset(d, 0xff, sizeof h)); /* NaN until written */
    intrinsics_kernel<<<1, 1>>>(d);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int k = 0; k < N_INTRINSICS; ++k) {
        const double w = expect[k].want, scale = fabs(w) > 1 ? fabs(w) : 1;
        CHECK(expect[k].tol == 0 ? h[k] == w : fabs(h[k] - w) <= expect[k].tol * scale, "%s = %.17g, want %.17g",
              expect[k].what, h[k], w);
    }
    printf("intrinsics: %d called\n", (int)N_INTRINSICS);
    CUDA_OK(cudaFree(d));
}

/* ---- volatile pointers with the qualifiers and casts nvcc takes: a
   restrict-qualified const pointer to volatile, a plain pointer taken back
   from an element's address, pointers to other types, the address as an
   integer, and a volatile pointer of another type. Thread 0 of one block
   writes; every check is on values only the writes give. */
__device__ int first_of(volatile int *__restrict__ p) { return p[0]; }
__global__ void volatile_kernel(volatile int *const __restrict__ g_flags, volatile float *__restrict g_x, int *g_out)
{
    g_flags[1] = 5;
    int *plain = (int *)&g_flags[1];
    *plain += 1;                                          /* 6 */
    const int *ro = (const int *)g_flags;
    volatile unsigned *as_unsigned = (volatile unsigned *)g_flags;
    const unsigned long long addr = (unsigned long long)g_flags;
    const volatile int *cv = g_flags;
    g_x[0] = 2.5f;
    g_out[0] = ro[1];                                     /* 6 */
    g_out[1] = (int)as_unsigned[1] + first_of(g_flags);  /* 6 + g_flags[0] */
    g_out[2] = addr == (unsigned long long)(const void *)ro && g_flags != nullptr;
    g_out[3] = cv[1] + (int)(g_x[0] * 2);                 /* 6 + 5 */
    g_out[4] = (int)*(float *)g_x;                        /* 2 */
}

static void test_volatile()
{
    int *flags = nullptr, *out = nullptr, h[5];
    float *x = nullptr;
    CUDA_OK(cudaMalloc(&flags, 2 * sizeof(int)));
    CUDA_OK(cudaMalloc(&x, sizeof(float)));
    CUDA_OK(cudaMalloc(&out, sizeof h));
    const int first = 40;
    CUDA_OK(cudaMemcpy(flags, &first, sizeof first, cudaMemcpyHostToDevice));
    volatile_kernel<<<1, 1>>>(flags, x, out);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 6 && h[1] == 46 && h[2] == 1 && h[3] == 11 && h[4] == 2,
          "volatile accesses and casts gave %d %d %d %d %d, want 6 46 1 11 2", h[0], h[1], h[2], h[3], h[4]);
    CUDA_OK(cudaFree(flags));
    CUDA_OK(cudaFree(x));
    CUDA_OK(cudaFree(out));
}

/* <cuComplex.h> in device code: each function once, on values with exact results (a quotient within
   rounding: the division scales its operands first). */
__global__ void complex_kernel(float *f, double *d)
{
    const cuFloatComplex a = make_cuFloatComplex(3.0f, 4.0f), b = make_cuComplex(1.0f, -2.0f);
    const cuFloatComplex q = cuCdivf(cuCmulf(a, b), b), s = cuCsubf(cuCaddf(a, b), cuConjf(b));
    const cuFloatComplex m = cuCfmaf(a, b, make_cuFloatComplex(0.5f, 0.25f));
    f[0] = cuCrealf(q), f[1] = cuCimagf(q), f[2] = cuCabsf(a), f[3] = cuCrealf(s), f[4] = cuCimagf(s);
    f[5] = cuCrealf(m), f[6] = cuCimagf(m);
    const cuDoubleComplex x = make_cuDoubleComplex(-6.0, 8.0), y = cuComplexFloatToDouble(b);
    const cuDoubleComplex r = cuCdiv(cuCmul(x, y), y), t = cuCsub(cuCadd(x, y), cuConj(y));
    const cuDoubleComplex n = cuCfma(x, y, make_cuDoubleComplex(1.0, -1.0));
    const cuFloatComplex back = cuComplexDoubleToFloat(x);
    d[0] = cuCreal(r), d[1] = cuCimag(r), d[2] = cuCabs(x), d[3] = cuCreal(t), d[4] = cuCimag(t);
    d[5] = cuCreal(n), d[6] = cuCimag(n), d[7] = cuCrealf(back) + cuCimagf(back);
}
static void test_complex()
{
    float *f = nullptr, hf[7];
    double *d = nullptr, hd[8];
    CUDA_OK(cudaMalloc(&f, sizeof hf));
    CUDA_OK(cudaMalloc(&d, sizeof hd));
    complex_kernel<<<1, 1>>>(f, d);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost));
    /* (3+4i)(1-2i) = 11-2i; (3+4i)+(1-2i)-(1+2i) = 3+0i; 11-2i + 0.5+0.25i = 11.5-1.75i */
    CHECK(fabsf(hf[0] - 3.0f) < 1e-6f && fabsf(hf[1] - 4.0f) < 1e-6f && hf[2] == 5.0f && hf[3] == 3.0f && hf[4] == 0.0f && hf[5] == 11.5f &&
              hf[6] == -1.75f,
          "cuComplex single: %g %g %g %g %g %g %g", hf[0], hf[1], hf[2], hf[3], hf[4], hf[5], hf[6]);
    /* (-6+8i)(1-2i) = 10+20i; (-6+8i)+(1-2i)-(1+2i) = -6+4i; 10+20i + 1-i = 11+19i */
    CHECK(fabs(hd[0] + 6.0) < 1e-14 && fabs(hd[1] - 8.0) < 1e-14 && hd[2] == 10.0 && hd[3] == -6.0 && hd[4] == 4.0 && hd[5] == 11.0 &&
              hd[6] == 19.0 && hd[7] == 2.0,
          "cuComplex double: %g %g %g %g %g %g %g %g", hd[0], hd[1], hd[2], hd[3], hd[4], hd[5], hd[6], hd[7]);
    CUDA_OK(cudaFree(f));
    CUDA_OK(cudaFree(d));
}

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    test_vectors();
    test_intrinsics();
    test_volatile();
    test_complex();
    printf("test_sim_surface: %s\n", failures ? "FAIL" : "PASS");
    return failures != 0;
}
