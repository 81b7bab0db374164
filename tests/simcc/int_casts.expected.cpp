#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// Explicit conversions to integer types in device code become
// gpuh_sim_int_convert<T>(...), which saturates a float as a GPU's cvt does;
// host code, sizeof(T), declarators and function types stay as written.
#include <cstddef>
#include <cstdint>
struct S { float g[2]; };
template <int N> __device__ float scaled(float x) { return N * x; }
__device__ void (*hook)(int);
__global__ void k(const float *in, unsigned *u, int *i, const S *s)
{
    float x = in[0];
    u[0] = gpuh_sim_int_convert<unsigned>(x) + gpuh_sim_int_convert<unsigned int>((x * 2));
    u[1] = gpuh_sim_int_convert<unsigned>(x) + gpuh_sim_int_convert<std::uint32_t>(x) + static_cast<float>(x);
    i[0] = gpuh_sim_int_convert<int>(-x) - -gpuh_sim_int_convert<int>(x) * gpuh_sim_int_convert<long long>(s->g[1]);
    i[1] = gpuh_sim_int_convert<int>(scaled<2>(x)) + gpuh_sim_int_convert<int>(gpuh_sim_int_convert<char>(in[1])) + gpuh_sim_int_convert<std::size_t>(in[2]) + gpuh_sim_int_convert<uint64_t>(x++);
    i[2] = sizeof(int) + sizeof(unsigned long) + gpuh_sim_int_convert<int>(sizeof(x));
    i[3] = x > 0 ? gpuh_sim_int_convert<short>(x) : gpuh_sim_int_convert<signed char>(-x);
    i[4] = gpuh_sim_int_convert<int>(1.5f) + gpuh_sim_int_convert<int>('a') + gpuh_sim_int_convert<int>((x)) * gpuh_sim_int_convert<int>(x);
}
__host__ __device__ int both(float x) { return gpuh_sim_int_convert<int>(x); }
int host_only(float x) { return (int)x + static_cast<int>(x); }

static const int gpuh_sim_kernel_k = GPUH_SIM_REGISTER_KERNEL(k);
