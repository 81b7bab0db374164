/* bfloat16 (<cuda_bf16.h>) on the simulator (through tools/gpuh-simcc) and on
   a GPU (nvcc): conversions and arithmetic checked bit for bit against
   references built from integers and float64, in host code and in a kernel,
   on fresh random inputs with ties, NaN, infinities, subnormals and overflow.
   Semantics from the CUDA Math API's "Bfloat16 Precision Intrinsics".
   Exit 1 on a failure, 77 with no device; GPUH_SEED reruns one input set. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "gpuh_test.h"

static std::mt19937_64 rng;

/* ---- References, from integers and float64 only. */
static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* A bfloat16 is a float's high half: its value, exactly. */
static double ref_value(uint16_t b) { return float_of(static_cast<uint32_t>(b) << 16); }
static bool is_nan16(uint16_t b) { return (b & 0x7fff) > 0x7f80; }
/* float -> bfloat16 by integer arithmetic on the float's bits: mode 0 nearest even, 1 toward 0, 2 down, 3 up. */
static uint16_t ref_from_float(float f, int mode)
{
    const uint32_t u = bits_of(f), low = u & 0xffff;
    if ((u & 0x7fffffff) > 0x7f800000)
        return 0x7fff;
    uint32_t h = u >> 16;
    const bool neg = u >> 31;
    bool up = false; /* one step away from 0 (a carry into the exponent is right, up to infinity) */
    if (mode == 0)
        up = low > 0x8000 || (low == 0x8000 && (h & 1));
    else if (mode == 2)
        up = neg && low;
    else if (mode == 3)
        up = !neg && low;
    if ((u & 0x7fffffff) == 0x7f800000)
        up = false;
    return static_cast<uint16_t>(h + up);
}
/* The double x rounded to nearest-even bfloat16, found by bisection over the
   ordered bit patterns of the positive ones and a comparison of distances. */
static uint16_t ref_from_double(double x)
{
    if (x != x)
        return 0x7fff;
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    if (a >= ref_value(0x7f7f) + (ref_value(0x7f7f) - ref_value(0x7f7e)) / 2) /* half a step past the largest */
        return sign | 0x7f80;
    uint16_t lo = 0, hi = 0x7f7f; /* the largest lo with value <= a */
    while (lo < hi) {
        const uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
        if (ref_value(mid) <= a)
            lo = mid;
        else
            hi = static_cast<uint16_t>(mid - 1);
    }
    const double dl = a - ref_value(lo), du = ref_value(static_cast<uint16_t>(lo + 1)) - a; /* exact: close values */
    const bool up = du < dl || (du == dl && (lo & 1));
    return sign | static_cast<uint16_t>(lo + up);
}
/* An integer rounded to nearest-even bfloat16, as a value (integers only). */
static double ref_from_int(long long i)
{
    unsigned long long m = i < 0 ? 0ull - static_cast<unsigned long long>(i) : static_cast<unsigned long long>(i);
    int k = 0;
    while ((m >> k) >= 256)
        ++k;
    unsigned long long q = m >> k;
    if (k > 0) {
        const unsigned long long rem = m & ((1ull << k) - 1), half = 1ull << (k - 1);
        q += rem > half || (rem == half && (q & 1));
    }
    return (i < 0 ? -1.0 : 1.0) * std::ldexp(static_cast<double>(q), k);
}
static uint16_t bits16(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
static __nv_bfloat16 bf(uint16_t b) { return __ushort_as_bfloat16(b); }
/* Same bits, or both NaN (a NaN's payload is not specified). */
static bool same(uint16_t got, uint16_t want) { return got == want || (is_nan16(got) && is_nan16(want)); }

/* Random floats: every bit pattern (NaN, infinities, subnormals), ties and near-ties, values near overflow. */
static float random_float()
{
    uint32_t u = static_cast<uint32_t>(rng());
    switch (rng() % 6) {
    case 0: u = (u & 0xffff0000u) | 0x8000u; break;          /* a tie */
    case 1: u = (u & 0xffff0000u) | (0x7fffu + rng() % 3); break; /* beside a tie */
    case 2: u = (u & 0x807fffffu); break;                     /* a subnormal float */
    case 3: u = (u & 0x8000ffffu) | 0x7f7f0000u; break;       /* near the largest bfloat16 */
    case 4: u = (u & 0x80000000u) | (0x7f800000u + rng() % 3); break; /* infinity or NaN */
    default: break;
    }
    return float_of(u);
}
/* A random finite bfloat16 with exponent in [lo, hi] (unbiased). */
static uint16_t random_bf16(int lo, int hi)
{
    const int e = lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1));
    return static_cast<uint16_t>((rng() & 0x8000) | ((e + 127) << 7) | (rng() & 0x7f));
}

/* ---- The same operations in device code. */
struct Triple {
    __nv_bfloat16 a, b, c;
};
__global__ void convert_kernel(const float *in, unsigned short *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        out[4 * i] = __bfloat16_as_ushort(__float2bfloat16(in[i]));
        out[4 * i + 1] = __bfloat16_as_ushort(__float2bfloat16_rz(in[i]));
        out[4 * i + 2] = __bfloat16_as_ushort(__float2bfloat16_rd(in[i]));
        out[4 * i + 3] = __bfloat16_as_ushort(__float2bfloat16_ru(in[i]));
    }
}
__global__ void arith_kernel(const Triple *t, __nv_bfloat16 *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const Triple x = t[i];
        out[4 * i] = __hadd(x.a, x.c);
        out[4 * i + 1] = x.a * x.b;
        out[4 * i + 2] = __hfma(x.a, x.b, x.c);
        out[4 * i + 3] = __hsub(x.a, x.c);
    }
}
/* Each lane's pair moves to its xor-1 neighbour, its scalar down by 3. */
__global__ void shuffle_kernel(const __nv_bfloat162 *in, __nv_bfloat162 *pairs, __nv_bfloat16 *scalars)
{
    const int i = threadIdx.x;
    pairs[i] = __shfl_xor_sync(0xffffffffu, in[i], 1);
    scalars[i] = __shfl_down_sync(0xffffffffu, __low2bfloat16(in[i]), 3);
}

template <class T> static T *to_device(const std::vector<T> &h)
{
    T *d = nullptr;
    TEST_CUDA(cudaMalloc(&d, h.size() * sizeof(T)));
    TEST_CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
template <class T> static std::vector<T> from_device(const T *d, size_t n)
{
    std::vector<T> h(n);
    TEST_CUDA(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}
template <class T> static T *poisoned(size_t n)
{
    T *d = nullptr;
    TEST_CUDA(cudaMalloc(&d, n * sizeof(T)));
    TEST_CUDA(cudaMemset(d, 0xa5, n * sizeof(T)));
    return d;
}

static void test_conversions(int n_device)
{
    /* Host code: every mode on a million random floats. */
    long bad[4] = {0, 0, 0, 0};
    for (int i = 0; i < 1000000; ++i) {
        const float f = random_float();
        const uint16_t got[4] = {bits16(__float2bfloat16(f)), bits16(__float2bfloat16_rz(f)),
                                 bits16(__float2bfloat16_rd(f)), bits16(__float2bfloat16_ru(f))};
        for (int m = 0; m < 4; ++m)
            if (!same(got[m], ref_from_float(f, m)) && bad[m]++ < 3)
                printf("  float %a (0x%08x) mode %d: got 0x%04x, want 0x%04x\n", f, bits_of(f), m, got[m],
                       ref_from_float(f, m));
        TEST_ASSERT(bits16(__float2bfloat16_rn(f)) == got[0] && bits16(__nv_bfloat16(f)) == got[0], "_rn and the constructor");
    }
    TEST_ASSERT(!bad[0] && !bad[1] && !bad[2] && !bad[3], "float -> bfloat16 in host code: %ld %ld %ld %ld wrong", bad[0],
          bad[1], bad[2], bad[3]);
    TEST_ASSERT(bits16(__float2bfloat16(1.0f + 1.0f / 256)) == 0x3f80 && bits16(__float2bfloat16(1.0f + 3.0f / 256)) == 0x3f82,
          "ties go to even");
    TEST_ASSERT(bits16(__float2bfloat16(float_of(0x7f7f8000u))) == 0x7f80 &&
              bits16(__float2bfloat16_rz(float_of(0x7f7fffffu))) == 0x7f7f,
          "overflow: to infinity when rounding to nearest, the largest finite toward zero");
    TEST_ASSERT(bits16(__float2bfloat16_rd(-float_of(1))) == 0x8001 && bits16(__float2bfloat16_ru(float_of(1))) == 0x0001 &&
              bits16(__float2bfloat16(float_of(0x8000))) == 0x0000,
          "the smallest float subnormal rounds to 0 or to the smallest bfloat16 as the mode says");
    TEST_ASSERT(std::isnan(__bfloat162float(__float2bfloat16(NAN))) && __hisnan(__float2bfloat16(-NAN)), "NaN stays NaN");

    /* Back to float: exact, for every bit pattern. */
    long back = 0;
    for (uint32_t b = 0; b < 65536; ++b) {
        const float f = __bfloat162float(bf(static_cast<uint16_t>(b)));
        back += is_nan16(static_cast<uint16_t>(b)) ? !std::isnan(f) : bits_of(f) != b << 16;
    }
    TEST_ASSERT(back == 0, "bfloat16 -> float: %ld of 65536 wrong", back);

    /* Integers: to bfloat16 (int, long long beyond 2^53), and back in the four modes (NaN 0, saturation). */
    long ibad = 0;
    for (int i = 0; i < 200000; ++i) {
        const int sh = static_cast<int>(rng() % 63);
        const long long v = static_cast<long long>(rng() >> (sh + 1)) * ((rng() & 1) ? -1 : 1);
        ibad += ref_value(bits16(__ll2bfloat16_rn(v))) != ref_from_int(v);
        const int w = static_cast<int>(v >> 32 ^ v);
        ibad += ref_value(bits16(__int2bfloat16_rn(w))) != ref_from_int(w);
        const uint16_t h = static_cast<uint16_t>(rng());
        const double x = ref_value(h);
        const double rn = x - std::floor(x) == 0.5 ? 2.0 * std::floor(x / 2 + 0.5) : std::floor(x + 0.5);
        const double want[4] = {rn, std::trunc(x), std::floor(x), std::ceil(x)};
        const int got[4] = {__bfloat162int_rn(bf(h)), __bfloat162int_rz(bf(h)), __bfloat162int_rd(bf(h)),
                            __bfloat162int_ru(bf(h))};
        for (int m = 0; m < 4; ++m) {
            const int expect = x != x ? 0 : want[m] >= 2147483647.0 ? 2147483647 : want[m] <= -2147483648.0
                                                                                    ? (-2147483647 - 1)
                                                                                    : static_cast<int>(want[m]);
            if (got[m] != expect && ibad++ < 3)
                printf("  bfloat16 0x%04x to int, mode %d: got %d, want %d\n", h, m, got[m], expect);
        }
    }
    TEST_ASSERT(ibad == 0, "integer conversions: %ld wrong", ibad);

    /* Device code: the same conversions, outputs poisoned first. */
    std::vector<float> in(static_cast<size_t>(n_device));
    for (float &f : in)
        f = random_float();
    float *d_in = to_device(in);
    unsigned short *d_out = poisoned<unsigned short>(4 * in.size());
    convert_kernel<<<37, 96>>>(d_in, d_out, n_device);
    TEST_CUDA(cudaGetLastError());
    const std::vector<unsigned short> out = from_device(d_out, 4 * in.size());
    long dbad = 0;
    for (int i = 0; i < n_device; ++i)
        for (int m = 0; m < 4; ++m)
            dbad += !same(out[4 * i + m], ref_from_float(in[i], m));
    TEST_ASSERT(dbad == 0, "float -> bfloat16 in a kernel: %ld of %d wrong", dbad, 4 * n_device);
    TEST_CUDA(cudaFree(d_in));
    TEST_CUDA(cudaFree(d_out));
}

/* Arithmetic: each result rounded once from the exact value. Near operands
   (exponents in [-8, 8]) have exact sums and products in float64; far ones
   (c below a * b by 2^60 or more) move a tie of a * b to c's side, which a
   sum rounded to double first would lose; products deep in the subnormals;
   and the special values. */
static void test_arithmetic(int n_device)
{
    std::vector<Triple> t;
    std::vector<uint16_t> want; /* add, mul, fma, sub per triple */
    /* infinities, NaN, zeros, the largest finite: with operands in [2^55, 2^64) and c in [2^110, 2^128),
       an exact result is a double, and one beyond it overflows in bfloat16 however it rounds */
    const uint16_t special[] = {0x7f80, 0xff80, 0x7fc0, 0x0000, 0x8000, 0x7f7f, 0xff7f};
    for (int i = 0; i < 60000; ++i) {
        uint16_t a, b, c;
        const int kind = i % 4;
        if (kind == 0) {
            a = random_bf16(-8, 8), b = random_bf16(-8, 8), c = random_bf16(-8, 8);
        } else if (kind == 1) {
            a = random_bf16(-20, 20), b = random_bf16(0, 20); /* x * y >= x, so c is far below x too */
            const int e = static_cast<int>(std::ilogb(ref_value(a) * ref_value(b))) - 60 - static_cast<int>(rng() % 40);
            c = random_bf16(e, e);
        } else if (kind == 2) {
            a = random_bf16(-70, -60), b = random_bf16(-75, -60), c = random_bf16(-126, -120); /* subnormal products */
        } else {
            a = (rng() & 1) ? special[rng() % 7] : random_bf16(55, 63);
            b = (rng() & 1) ? special[rng() % 7] : random_bf16(55, 63);
            c = (rng() & 1) ? special[rng() % 7] : random_bf16(110, 127);
        }
        const double x = ref_value(a), y = ref_value(b), z = ref_value(c);
        uint16_t r_add, r_fma, r_sub;
        if (kind == 1) { /* x + z: never a tie of x; x * y + z: a tie of x * y goes to z's side */
            r_add = ref_from_double(x), r_sub = r_add;
            r_fma = ref_from_double(std::nextafter(x * y, z > 0 ? INFINITY : -INFINITY));
        } else {
            r_add = ref_from_double(x + z), r_sub = ref_from_double(x - z);
            r_fma = ref_from_double(x * y + z); /* exact here: near operands, or exponents far below double's range limits */
        }
        if (kind == 2)
            r_add = ref_from_double(x + z), r_sub = ref_from_double(x - z);
        Triple tr = {bf(a), bf(b), bf(c)};
        t.push_back(tr);
        const uint16_t w[4] = {r_add, ref_from_double(x * y), r_fma, r_sub};
        want.insert(want.end(), w, w + 4);
    }
    /* A tie of a * b (1.5 * 1.0078125 = 1.51171875, halfway between 1.5078125 and 1.515625) with c = +-2^-100. */
    const Triple tie_up = {__float2bfloat16(1.5f), __float2bfloat16(1.0078125f), __float2bfloat16(ldexpf(1.0f, -100))};
    const Triple tie_down = {__float2bfloat16(1.5f), __float2bfloat16(1.0078125f), __float2bfloat16(-ldexpf(1.0f, -100))};
    TEST_ASSERT(bits16(__hfma(tie_up.a, tie_up.b, tie_up.c)) == 0x3fc2 && bits16(__hfma(tie_down.a, tie_down.b, tie_down.c)) == 0x3fc1,
          "a tie of a * b goes to c's side however small c is: got 0x%04x and 0x%04x",
          bits16(__hfma(tie_up.a, tie_up.b, tie_up.c)), bits16(__hfma(tie_down.a, tie_down.b, tie_down.c)));

    long hbad = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        const uint16_t got[4] = {bits16(__hadd(t[i].a, t[i].c)), bits16(t[i].a * t[i].b),
                                 bits16(__hfma(t[i].a, t[i].b, t[i].c)), bits16(t[i].a - t[i].c)};
        for (int k = 0; k < 4; ++k)
            if (!same(got[k], want[4 * i + k]) && hbad++ < 4)
                printf("  op %d on 0x%04x 0x%04x 0x%04x: got 0x%04x, want 0x%04x\n", k, bits16(t[i].a), bits16(t[i].b),
                       bits16(t[i].c), got[k], want[4 * i + k]);
    }
    TEST_ASSERT(hbad == 0, "arithmetic in host code: %ld wrong", hbad);

    const int n = n_device < static_cast<int>(t.size()) ? n_device : static_cast<int>(t.size());
    std::vector<Triple> td(t.begin(), t.begin() + n);
    Triple *d_t = to_device(td);
    __nv_bfloat16 *d_out = poisoned<__nv_bfloat16>(4 * static_cast<size_t>(n));
    arith_kernel<<<29, 128>>>(d_t, d_out, n);
    TEST_CUDA(cudaGetLastError());
    const std::vector<__nv_bfloat16> out = from_device(d_out, 4 * static_cast<size_t>(n));
    long dbad = 0;
    for (int i = 0; i < 4 * n; ++i)
        dbad += !same(bits16(out[i]), want[i]);
    TEST_ASSERT(dbad == 0, "arithmetic in a kernel: %ld of %d wrong", dbad, 4 * n);
    TEST_CUDA(cudaFree(d_t));
    TEST_CUDA(cudaFree(d_out));

    /* Comparisons, max/min and NaN, negation and absolute value. */
    const __nv_bfloat16 one = __float2bfloat16(1.0f), nan = __float2bfloat16(NAN), pz = bf(0), nz = bf(0x8000);
    TEST_ASSERT(!__heq(nan, nan) && !__hlt(nan, one) && __hltu(nan, one) && __hneu(nan, nan) && !__hne(nan, one),
          "ordered comparisons are false with a NaN, unordered ones true");
    TEST_ASSERT(bits16(__hmax(nan, one)) == 0x3f80 && bits16(__hmin(one, nan)) == 0x3f80 && __hisnan(__hmax_nan(one, nan)),
          "__hmax/__hmin take the number, the _nan forms the NaN");
    TEST_ASSERT(bits16(__hmax(nz, pz)) == 0x0000 && bits16(__hmin(pz, nz)) == 0x8000, "+0 > -0 for max and min");
    TEST_ASSERT(bits16(__hneg(one)) == 0xbf80 && bits16(__habs(__hneg(one))) == 0x3f80 && __hisinf(bf(0xff80)) == -1,
          "negation, absolute value, infinity's sign");
    const __nv_bfloat162 p = __floats2bfloat162_rn(1.0f, -2.0f);
    const float2 f2 = __bfloat1622float2(__hfma2(p, p, __float2bfloat162_rn(0.5f)));
    TEST_ASSERT(f2.x == 1.5f && f2.y == 4.5f && __low2float(p) == 1.0f && __high2float(p) == -2.0f, "pairs");
    TEST_ASSERT(__bfloat162float(__low2bfloat16(__float22bfloat162_rn(make_float2(3.0f, 5.0f)))) == 3.0f, "__float22bfloat162_rn");
}

static void test_shuffles()
{
    std::vector<__nv_bfloat162> in(32);
    for (int i = 0; i < 32; ++i)
        in[i] = __floats2bfloat162_rn(static_cast<float>(i), static_cast<float>(-i) - 0.5f);
    __nv_bfloat162 *d_in = to_device(in), *d_pairs = poisoned<__nv_bfloat162>(32);
    __nv_bfloat16 *d_scalars = poisoned<__nv_bfloat16>(32);
    shuffle_kernel<<<1, 32>>>(d_in, d_pairs, d_scalars);
    TEST_CUDA(cudaGetLastError());
    const std::vector<__nv_bfloat162> pairs = from_device(d_pairs, 32);
    const std::vector<__nv_bfloat16> scalars = from_device(d_scalars, 32);
    int bad = 0;
    for (int i = 0; i < 32; ++i) {
        bad += __low2float(pairs[i]) != static_cast<float>(i ^ 1) || __high2float(pairs[i]) != -(i ^ 1) - 0.5f;
        bad += __bfloat162float(scalars[i]) != static_cast<float>(i + 3 < 32 ? i + 3 : i);
    }
    TEST_ASSERT(bad == 0, "__shfl_xor_sync on __nv_bfloat162 and __shfl_down_sync on __nv_bfloat16: %d wrong", bad);
    TEST_CUDA(cudaFree(d_in));
    TEST_CUDA(cudaFree(d_pairs));
    TEST_CUDA(cudaFree(d_scalars));
}

int main()
{
    GPUH_TEST_REQUIRE_DEVICE();
    rng.seed(gpuh_test_seed());
    test_conversions(30000);
    test_arithmetic(20000);
    test_shuffles();
    return gpuh_test_summary("test_sim_bf16");
}
