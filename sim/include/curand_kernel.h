/* Stand-in for CUDA's <curand_kernel.h> on gpuh's CPU simulator: the cuRAND
   device API (curand_init, curand, curand_uniform[_double], curand_normal[2]
   [_double], curand_uniform4, curand_log_normal, skipahead).

   Every state type draws from Philox4x32-10 (Salmon et al., "Parallel random
   numbers: as easy as 1, 2, 3", SC'11), keyed by the seed, with the
   subsequence and the position in it as the counter. The semantics are
   cuRAND's: the same (seed, subsequence, offset) gives the same numbers in
   any thread order, different subsequences are independent, uniform floats
   lie in (0, 1], normals are Box-Muller pairs. The numbers are not cuRAND's
   own (its XORWOW and MRG32k3a sequences are not reproduced): a program that
   compares against numbers from a GPU run will differ; one that checks
   statistics, as Monte Carlo programs do, will not. */
#ifndef GPUH_SIM_CURAND_KERNEL_H
#define GPUH_SIM_CURAND_KERNEL_H
#include "gpuh_sim.h"
#include <math.h>

/* One state type for all generators: the key, the counter, and the
   undrawn words of the last Philox block. */
struct gpuh_sim_curand_state {
    unsigned long long seed, subsequence, position; /* position: words drawn so far */
    int has_normal;
    float normal;
    double normal_double;
    int has_normal_double;
};
typedef struct gpuh_sim_curand_state curandState;
typedef struct gpuh_sim_curand_state curandStateXORWOW;
typedef struct gpuh_sim_curand_state curandStateXORWOW_t;
typedef struct gpuh_sim_curand_state curandState_t;
typedef struct gpuh_sim_curand_state curandStatePhilox4_32_10;
typedef struct gpuh_sim_curand_state curandStatePhilox4_32_10_t;
typedef struct gpuh_sim_curand_state curandStateMRG32k3a;
typedef struct gpuh_sim_curand_state curandStateMRG32k3a_t;

namespace gpuh_sim_impl {
/* Word i of the Philox4x32-10 stream for (seed, subsequence). */
inline uint32_t philox_at(unsigned long long seed, unsigned long long subsequence, unsigned long long i)
{
    uint32_t c0 = static_cast<uint32_t>(i / 4), c1 = static_cast<uint32_t>(i / 4 >> 32),
             c2 = static_cast<uint32_t>(subsequence), c3 = static_cast<uint32_t>(subsequence >> 32);
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int r = 0; r < 10; ++r) {
        const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0, p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
        const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0, n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
        c1 = static_cast<uint32_t>(p1);
        c3 = static_cast<uint32_t>(p0);
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    const uint32_t out[4] = {c0, c1, c2, c3};
    return out[i % 4];
}
} /* namespace gpuh_sim_impl */

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandState *state)
{
    state->seed = seed;
    state->subsequence = subsequence;
    state->position = offset;
    state->has_normal = state->has_normal_double = 0;
    state->normal = 0.0f;
    state->normal_double = 0.0;
}
inline void skipahead(unsigned long long n, curandState *state) { state->position += n; }
inline void skipahead_sequence(unsigned long long n, curandState *state) { state->subsequence += n; }
inline unsigned int curand(curandState *state)
{
    return gpuh_sim_impl::philox_at(state->seed, state->subsequence, state->position++);
}
inline uint4 curand4(curandState *state)
{
    uint4 r;
    r.x = curand(state);
    r.y = curand(state);
    r.z = curand(state);
    r.w = curand(state);
    return r;
}
/* (0, 1]: as cuRAND, never 0, so that log() of it is finite. */
inline float curand_uniform(curandState *state) { return (static_cast<float>(curand(state)) + 1.0f) * 2.3283064e-10f; }
inline double curand_uniform_double(curandState *state)
{
    const unsigned long long hi = curand(state), lo = curand(state);
    return (static_cast<double>((hi << 21) ^ lo) + 1.0) * (1.0 / 9007199254740993.0);
}
inline float4 curand_uniform4(curandState *state)
{
    float4 r;
    r.x = curand_uniform(state);
    r.y = curand_uniform(state);
    r.z = curand_uniform(state);
    r.w = curand_uniform(state);
    return r;
}
/* Box-Muller: two normals per two uniforms, the second kept for the next call. */
inline float2 curand_normal2(curandState *state)
{
    const float u = curand_uniform(state), v = curand_uniform(state);
    const float r = sqrtf(-2.0f * logf(u)), t = 6.2831853f * v;
    float2 out;
    out.x = r * cosf(t);
    out.y = r * sinf(t);
    return out;
}
inline float curand_normal(curandState *state)
{
    if (state->has_normal) {
        state->has_normal = 0;
        return state->normal;
    }
    const float2 p = curand_normal2(state);
    state->normal = p.y;
    state->has_normal = 1;
    return p.x;
}
inline double2 curand_normal2_double(curandState *state)
{
    const double u = curand_uniform_double(state), v = curand_uniform_double(state);
    const double r = sqrt(-2.0 * log(u)), t = 6.283185307179586 * v;
    double2 out;
    out.x = r * cos(t);
    out.y = r * sin(t);
    return out;
}
inline double curand_normal_double(curandState *state)
{
    if (state->has_normal_double) {
        state->has_normal_double = 0;
        return state->normal_double;
    }
    const double2 p = curand_normal2_double(state);
    state->normal_double = p.y;
    state->has_normal_double = 1;
    return p.x;
}
inline float4 curand_normal4(curandState *state)
{
    const float2 a = curand_normal2(state), b = curand_normal2(state);
    return make_float4(a.x, a.y, b.x, b.y);
}
inline float curand_log_normal(curandState *state, float mean, float stddev)
{
    return expf(mean + stddev * curand_normal(state));
}
inline double curand_log_normal_double(curandState *state, double mean, double stddev)
{
    return exp(mean + stddev * curand_normal_double(state));
}

#endif /* GPUH_SIM_CURAND_KERNEL_H */
