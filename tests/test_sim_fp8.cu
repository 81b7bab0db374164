/* FP8 (<cuda_fp8.h>) on the simulator (through tools/gpuh-simcc) and on a
   GPU (nvcc): E4M3 and E5M2 checked against the formats' definitions (the
   OCP 8-bit floating point specification, as the CUDA Math API's "FP8
   Intrinsics" use it), in host code and in a kernel: every one of the 256
   codes decodes to its value; every finite value converts back to its code;
   each midpoint between neighbours rounds to the even one, and a hair off it
   to the nearer; overflow, infinities, NaN and underflow give what
   __NV_SATFINITE and __NV_NOSAT say.
   Exit 1 on a failure, 77 with no device. */
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "gpuh_test.h"

/* ---- The definitions: value of a code, from its fields. */
struct format {
    const char *name;
    __nv_fp8_interpretation_t f;
    int E, M;
};
static const format formats[] = {{"E4M3", __NV_E4M3, 4, 3}, {"E5M2", __NV_E5M2, 5, 2}};

static bool is_nan(const format &t, unsigned c)
{
    const unsigned ex = (c & 0x7F) >> t.M, m = c & ((1u << t.M) - 1), top = (1u << t.E) - 1;
    return t.E == 4 ? ex == top && m == 7 : ex == top && m != 0;
}
static bool is_inf(const format &t, unsigned c) { return t.E == 5 && (c & 0x7F) == 0x7C; }
static double value(const format &t, unsigned c)
{
    const int bias = (1 << (t.E - 1)) - 1, ex = static_cast<int>((c & 0x7F) >> t.M);
    const double m = c & ((1u << t.M) - 1), s = (c & 0x80) ? -1.0 : 1.0;
    if (is_nan(t, c))
        return NAN;
    if (is_inf(t, c))
        return s * INFINITY;
    return ex == 0 ? s * ldexp(m, 1 - bias - t.M) : s * ldexp(1.0 + ldexp(m, -t.M), ex - bias);
}
static double largest(const format &t) { return value(t, t.E == 4 ? 0x7E : 0x7B); }

/* ---- What is converted: inputs, the saturation each uses, and the code the definitions give. */
struct probe {
    double x;
    __nv_saturation_t sat;
    unsigned want;
};
static std::vector<probe> probes(const format &t)
{
    std::vector<probe> p;
    const unsigned top = t.E == 4 ? 0x7E : 0x7B; /* the largest finite code */
    for (unsigned c = 0; c <= top; ++c) {
        for (int s = 0; s < 2; ++s) {
            const double sign = s ? -1.0 : 1.0;
            const unsigned sc = c | (s ? 0x80u : 0u);
            p.push_back({sign * value(t, c), __NV_NOSAT, sc}); /* each value to its own code */
            if (c < top) {
                const double lo = value(t, c), hi = value(t, c + 1), mid = (lo + hi) / 2;
                p.push_back({sign * mid, __NV_SATFINITE, (c & 1) ? sc + 1 : sc}); /* a tie: to even */
                p.push_back({sign * nextafter(mid, 0.0), __NV_SATFINITE, sc});
                p.push_back({sign * nextafter(mid, INFINITY), __NV_SATFINITE, sc + 1});
            }
        }
    }
    const double over = largest(t) + (largest(t) - value(t, top - 1)) / 2; /* the largest plus half its ulp */
    const unsigned nosat_over = t.E == 4 ? 0x7F : 0x7C;                     /* NaN in E4M3, infinity in E5M2 */
    /* E4M3's tie above 448 rounds to even, to 448; E5M2's to the infinity */
    p.push_back({over, __NV_NOSAT, t.E == 4 ? top : nosat_over});
    p.push_back({nextafter(over, INFINITY), __NV_NOSAT, nosat_over});
    p.push_back({nextafter(over, INFINITY), __NV_SATFINITE, top});
    p.push_back({-1e30, __NV_SATFINITE, 0x80 | top});
    p.push_back({-1e30, __NV_NOSAT, 0x80 | nosat_over});
    p.push_back({INFINITY, __NV_SATFINITE, top});
    p.push_back({-INFINITY, __NV_NOSAT, 0x80 | nosat_over});
    p.push_back({NAN, __NV_SATFINITE, 0x7F});
    p.push_back({NAN, __NV_NOSAT, 0x7F});
    const double tiny = value(t, 1); /* the smallest subnormal: half of it is a tie, to 0 */
    p.push_back({tiny / 2, __NV_NOSAT, 0x00});
    p.push_back({-tiny / 2, __NV_NOSAT, 0x80});
    p.push_back({nextafter(tiny / 2, 1.0), __NV_NOSAT, 0x01});
    return p;
}

static bool same_code(const format &t, unsigned got, unsigned want)
{
    return got == want || (is_nan(t, want) && is_nan(t, got)); /* a GPU's NaN may differ from the canonical one */
}

__global__ void convert_kernel(const double *x, const int *sat, unsigned char *code, float *back, int n,
                               __nv_fp8_interpretation_t f)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) {
        code[i] = __nv_cvt_float_to_fp8(static_cast<float>(x[i]), static_cast<__nv_saturation_t>(sat[i]), f);
        __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(i & 0xFF), f);
        back[i] = __half2float(__half(h));
    }
}

static void test_format(const format &t)
{
    /* every code decodes to its value, through each path */
    int bad = 0;
    for (unsigned c = 0; c < 256; ++c) {
        const double v = value(t, c);
        __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(c), t.f);
        const float hv = __half2float(__half(h));
        float cv;
        if (t.E == 4) {
            __nv_fp8_e4m3 q;
            q.__x = static_cast<__nv_fp8_storage_t>(c);
            cv = static_cast<float>(q);
        } else {
            __nv_fp8_e5m2 q;
            q.__x = static_cast<__nv_fp8_storage_t>(c);
            cv = static_cast<float>(q);
        }
        const bool ok = std::isnan(v) ? std::isnan(hv) && std::isnan(cv) : hv == v && cv == v;
        if (!ok && bad++ < 5)
            printf("  %s code 0x%02x: value %g, through half %g, through the class %g\n", t.name, c, v, hv, cv);
    }
    TEST_ASSERT(bad == 0, "%s: %d of 256 codes decode wrong", t.name, bad);

    /* conversions, in double and float on the host */
    const std::vector<probe> p = probes(t);
    bad = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        const unsigned d = __nv_cvt_double_to_fp8(p[i].x, p[i].sat, t.f);
        const unsigned f = __nv_cvt_float_to_fp8(static_cast<float>(p[i].x), p[i].sat, t.f);
        /* a float may not hold the hair off a midpoint: only exact floats are checked through it */
        const bool exact = static_cast<double>(static_cast<float>(p[i].x)) == p[i].x || std::isnan(p[i].x);
        if ((!same_code(t, d, p[i].want) || (exact && !same_code(t, f, p[i].want))) && bad++ < 5)
            printf("  %s %s of %.17g: 0x%02x (double), 0x%02x (float); want 0x%02x\n", t.name,
                   p[i].sat == __NV_SATFINITE ? "satfinite" : "nosat", p[i].x, d, f, p[i].want);
    }
    TEST_ASSERT(bad == 0, "%s: %d of %zu conversions wrong", t.name, bad, p.size());

    /* the class constructors saturate */
    const float big = 1e6f;
    const unsigned c1 = t.E == 4 ? __nv_fp8_e4m3(big).__x : __nv_fp8_e5m2(big).__x;
    const unsigned c2 = t.E == 4 ? __nv_fp8_e4m3(-big).__x : __nv_fp8_e5m2(-big).__x;
    TEST_ASSERT(c1 == (t.E == 4 ? 0x7Eu : 0x7Bu) && c2 == (0x80u | c1), "%s: the constructor of 1e6 gives 0x%02x, "
                "of -1e6 0x%02x (satfinite)", t.name, c1, c2);

    /* the same in a kernel: exact float inputs only */
    std::vector<double> x;
    std::vector<int> sat;
    std::vector<unsigned> want;
    for (size_t i = 0; i < p.size(); ++i)
        if (static_cast<double>(static_cast<float>(p[i].x)) == p[i].x || std::isnan(p[i].x)) {
            x.push_back(p[i].x);
            sat.push_back(p[i].sat);
            want.push_back(p[i].want);
        }
    const int n = static_cast<int>(x.size());
    double *d_x = NULL;
    int *d_sat = NULL;
    unsigned char *d_code = NULL;
    float *d_back = NULL;
    TEST_CUDA(cudaMalloc(&d_x, n * sizeof(double)));
    TEST_CUDA(cudaMalloc(&d_sat, n * sizeof(int)));
    TEST_CUDA(cudaMalloc(&d_code, n));
    TEST_CUDA(cudaMalloc(&d_back, n * sizeof(float)));
    TEST_CUDA(cudaMemcpy(d_x, x.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemcpy(d_sat, sat.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    convert_kernel<<<(n + 127) / 128, 128>>>(d_x, d_sat, d_code, d_back, n, t.f);
    TEST_CUDA(cudaGetLastError());
    std::vector<unsigned char> code(n);
    std::vector<float> back(n);
    TEST_CUDA(cudaMemcpy(code.data(), d_code, n, cudaMemcpyDeviceToHost));
    TEST_CUDA(cudaMemcpy(back.data(), d_back, n * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; ++i) {
        const double v = value(t, static_cast<unsigned>(i & 0xFF));
        bad += !same_code(t, code[i], want[i]) || !(std::isnan(v) ? std::isnan(back[i]) : back[i] == v);
    }
    TEST_ASSERT(bad == 0, "%s in a kernel: %d of %d conversions wrong", t.name, bad, n);
    TEST_CUDA(cudaFree(d_x));
    TEST_CUDA(cudaFree(d_sat));
    TEST_CUDA(cudaFree(d_code));
    TEST_CUDA(cudaFree(d_back));
}

int main()
{
    GPUH_TEST_REQUIRE_DEVICE();
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; ++i)
        test_format(formats[i]);
    return gpuh_test_summary("test_sim_fp8");
}
