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
    u[0] = (unsigned)x + (unsigned int)(x * 2);
    u[1] = static_cast<unsigned>(x) + static_cast<std::uint32_t>(x) + static_cast<float>(x);
    i[0] = (int)-x - -(int)x * (long long)s->g[1];
    i[1] = (int)scaled<2>(x) + (int)(char)in[1] + (std::size_t)in[2] + (uint64_t)x++;
    i[2] = sizeof(int) + sizeof(unsigned long) + (int)sizeof(x);
    i[3] = x > 0 ? (short)x : (signed char)-x;
    i[4] = (int)1.5f + (int)'a' + (int)(x) * (int)x;
}
__host__ __device__ int both(float x) { return (int)x; }
int host_only(float x) { return (int)x + static_cast<int>(x); }
