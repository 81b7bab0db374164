/* gpuh_sim_runtime.h - more of the CUDA runtime API on gpuh's CPU simulator:
   the calls real programs make beyond what gpuh itself uses (C++ overloads
   with CUDA's default arguments, device flags, limits, stream attributes and
   callbacks, peer queries of the one device, system- and block-scope
   atomics, umin/umax, the SIMD video intrinsics, __dp2a, __fns, __trap, the
   inverse error functions and cyl_bessel_i0/i1). Included by the simulator's
   stand-in <cuda_runtime.h>; semantics from the CUDA Runtime API reference. */
#ifndef GPUH_SIM_RUNTIME_H
#define GPUH_SIM_RUNTIME_H
#include "gpuh_sim.h"

#ifndef CUDART_CB
#define CUDART_CB
#endif
/* A kernel parameter read in place, never copied: here every thread has its
   bytewise copy, which the kernel cannot tell apart. */
#ifndef __grid_constant__
#define __grid_constant__
#endif
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01

/* ---- Overloads with CUDA's default arguments (cuda_runtime.h's C++ API). */
inline cudaError_t cudaEventRecord(cudaEvent_t event) { return cudaEventRecord(event, 0); }
inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags)
{
    return cudaEventCreateWithFlags(event, flags);
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    return cudaMemcpyAsync(dst, src, bytes, kind, 0);
}
inline cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes) { return cudaMemsetAsync(ptr, value, bytes, 0); }
inline cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                     size_t height, enum cudaMemcpyKind kind)
{
    return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, 0);
}
inline cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t bytes, struct cudaMemLocation location,
                                        unsigned int flags)
{
    return cudaMemPrefetchAsync(ptr, bytes, location, flags, 0);
}
/* Managed memory is host memory here, visible to every stream: attaching changes nothing. */
inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void *ptr, size_t length = 0,
                                            unsigned int flags = cudaMemAttachGlobal)
{
    (void)length;
    if (ptr == NULL || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != 0x04))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    return cudaSuccess;
}
inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event)
{
    return cudaStreamWaitEvent(stream, event, 0);
}
inline cudaError_t cudaHostAlloc(void **p, size_t bytes) { return cudaHostAlloc(p, bytes, 0); }
inline cudaError_t cudaMallocHost(void **p, size_t bytes, unsigned int flags) { return cudaHostAlloc(p, bytes, flags); }
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t bytes, unsigned int flags)
{
    return cudaHostAlloc(reinterpret_cast<void **>(p), bytes, flags);
}
template <class T> inline cudaError_t cudaHostGetDevicePointer(T **device_ptr, void *host_ptr, unsigned int flags)
{
    return cudaHostGetDevicePointer(reinterpret_cast<void **>(device_ptr), host_ptr, flags);
}
template <class T> inline cudaError_t cudaMallocAsync(T **p, size_t bytes) { return cudaMallocAsync(p, bytes, 0); }
inline cudaError_t cudaFreeAsync(void *p) { return cudaFreeAsync(p, 0); }
/* The stream-ordered symbol copies: the stream is checked (a destroyed one
   is cudaErrorInvalidResourceHandle), the arguments as the synchronous copy
   checks them, and under stream capture the copy becomes a node of the graph
   that reads its source when the graph runs, as CUDA's memcpy node does. */
template <class T> inline cudaError_t cudaMemcpyToSymbolAsync(T &symbol, const void *src, size_t bytes,
                                                              size_t offset = 0,
                                                              enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                              cudaStream_t stream = 0)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    char *sym = reinterpret_cast<char *>(&symbol);
    const cudaError_t err = gpuh_sim_impl::symbol_check(sym, sizeof(T), offset, const_cast<void *>(src), bytes, kind, true);
    if (err != cudaSuccess)
        return err;
    GPUH_IMPL_SIM_CAPTURE(stream, gpuh_sim_impl::symbol_copy(sym, sizeof(T), offset, const_cast<void *>(src), bytes,
                                                             kind, true))
        return cudaSuccess;
    return cudaMemcpyToSymbol(symbol, src, bytes, offset, kind);
}
template <class T> inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t bytes,
                                                                size_t offset = 0,
                                                                enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                                cudaStream_t stream = 0)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    char *sym = reinterpret_cast<char *>(const_cast<T *>(&symbol));
    const cudaError_t err = gpuh_sim_impl::symbol_check(sym, sizeof(T), offset, dst, bytes, kind, false);
    if (err != cudaSuccess)
        return err;
    GPUH_IMPL_SIM_CAPTURE(stream, gpuh_sim_impl::symbol_copy(sym, sizeof(T), offset, dst, bytes, kind, false))
        return cudaSuccess;
    return cudaMemcpyFromSymbol(dst, symbol, bytes, offset, kind);
}
/* A __device__ variable's address and size (it is a global of the program
   here; its address is device memory from then on: copies take it). */
template <class T> inline cudaError_t cudaGetSymbolAddress(void **p, const T &symbol)
{
    if (p == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *p = const_cast<void *>(static_cast<const void *>(&symbol));
    gpuh_sim_impl::register_symbol(*p, sizeof(T));
    return cudaSuccess;
}
template <class T> inline cudaError_t cudaGetSymbolSize(size_t *size, const T &)
{
    if (size == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *size = sizeof(T);
    return cudaSuccess;
}
/* The occupancy calls given the kernel as a void pointer, or a shared-memory size per block size. */
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, const void *f, size_t shmem = 0,
                                                      int limit = 0)
{
    return gpuh_sim_impl::potential_block(min_grid, block, limit, [=](int *n, int b) {
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, b, shmem);
    });
}
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, void *f, size_t shmem = 0,
                                                      int limit = 0)
{
    return cudaOccupancyMaxPotentialBlockSize(min_grid, block, static_cast<const void *>(f), shmem, limit);
}
template <class F, class S>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *min_grid, int *block, F f, S shmem_of,
                                                                  int limit = 0)
{
    return gpuh_sim_impl::potential_block(min_grid, block, limit, [=](int *n, int b) {
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, b, static_cast<size_t>(shmem_of(b)));
    });
}
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, F f, int block_size,
                                                                          size_t shmem, unsigned int flags)
{
    (void)flags;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, block_size, shmem);
}
template <class F> inline cudaError_t cudaFuncSetCacheConfig(F, int) { return cudaSuccess; }
/* Shared-memory bank sizes (deprecated in CUDA 12, still declared by 13):
   4-byte banks, as on sm_90; a setting is accepted and changes nothing. */
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1,
                           cudaSharedMemBankSizeEightByte = 2 };
template <class F> inline cudaError_t cudaFuncSetSharedMemConfig(F, enum cudaSharedMemConfig) { return cudaSuccess; }
inline cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig) { return cudaSuccess; }
inline cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config)
{
    if (config == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *config = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
}
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2,
                     cudaFuncCachePreferEqual = 3 };
inline cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache) { return cudaSuccess; }

/* ---- Device flags: recorded and returned; the simulator behaves the same
   under each (host memory is always mapped). */
namespace gpuh_sim_impl {
inline unsigned &device_flags()
{
    static unsigned f = 0;
    return f;
}
} /* namespace gpuh_sim_impl */
inline cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    if (flags & ~0x1fu)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::device_flags() = flags;
    return cudaSuccess;
}
inline cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (flags == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *flags = gpuh_sim_impl::device_flags() | cudaDeviceMapHost;
    return cudaSuccess;
}
inline cudaError_t cudaSetValidDevices(int *, int) { return cudaSuccess; }
inline cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *)
{
    if (device == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}
inline cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }

/* ---- Limits: recorded and returned (the simulator has no fixed heap or stack
   for them to size). */
enum cudaLimit {
    cudaLimitStackSize = 0x00,
    cudaLimitPrintfFifoSize = 0x01,
    cudaLimitMallocHeapSize = 0x02,
    cudaLimitDevRuntimeSyncDepth = 0x03,
    cudaLimitDevRuntimePendingLaunchCount = 0x04,
    cudaLimitMaxL2FetchGranularity = 0x05,
    cudaLimitPersistingL2CacheSize = 0x06
};
namespace gpuh_sim_impl {
inline size_t *limits()
{
    static size_t v[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};
    return v;
}
} /* namespace gpuh_sim_impl */
inline cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    if (static_cast<unsigned>(limit) > 6u)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::limits()[limit] = value;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    if (value == NULL || static_cast<unsigned>(limit) > 6u)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *value = gpuh_sim_impl::limits()[limit];
    return cudaSuccess;
}
inline cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }

/* ---- Stream attributes (an L2 access-policy window: accepted, no effect on a CPU). */
enum cudaAccessProperty { cudaAccessPropertyNormal = 0, cudaAccessPropertyStreaming = 1,
                          cudaAccessPropertyPersisting = 2 };
struct cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp, missProp;
};
enum cudaLaunchAttributeID { cudaLaunchAttributeAccessPolicyWindow = 1, cudaLaunchAttributeCooperative = 2,
                             cudaLaunchAttributeSynchronizationPolicy = 3, cudaLaunchAttributePriority = 8 };
typedef enum cudaLaunchAttributeID cudaStreamAttrID;
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority
union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    int priority;
};
typedef union cudaLaunchAttributeValue cudaStreamAttrValue;
inline cudaError_t cudaStreamSetAttribute(cudaStream_t, cudaStreamAttrID, const cudaStreamAttrValue *value)
{
    return value == NULL ? gpuh_sim_impl::record_error(cudaErrorInvalidValue) : cudaSuccess;
}
inline cudaError_t cudaStreamGetAttribute(cudaStream_t, cudaStreamAttrID, cudaStreamAttrValue *value)
{
    if (value == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    memset(value, 0, sizeof *value);
    return cudaSuccess;
}

/* ---- Stream callbacks: cudaStreamAddCallback runs the callback after the
   stream's earlier work, with the stream's status, as CUDA does. */
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *user_data);
namespace gpuh_sim_impl {
struct stream_callback {
    cudaStreamCallback_t fn;
    cudaStream_t stream;
    void *data;
};
inline void run_stream_callback(void *p)
{
    stream_callback *c = static_cast<stream_callback *>(p);
    c->fn(c->stream, cudaSuccess, c->data);
    delete c;
}
} /* namespace gpuh_sim_impl */
inline cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t fn, void *data, unsigned int flags)
{
    if (fn == NULL || flags != 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::stream_callback *c = new gpuh_sim_impl::stream_callback();
    c->fn = fn;
    c->stream = stream;
    c->data = data;
    cudaError_t e = cudaLaunchHostFunc(stream, gpuh_sim_impl::run_stream_callback, c);
    if (e != cudaSuccess)
        delete c;
    return e;
}

/* ---- Peers: gpuh_sim.h presents GPUH_SIM_DEVICES devices that all reach
   one another (SEVERAL DEVICES there); their attributes say so. */
enum cudaDeviceP2PAttr {
    cudaDevP2PAttrPerformanceRank = 1,
    cudaDevP2PAttrAccessSupported = 2,
    cudaDevP2PAttrNativeAtomicSupported = 3,
    cudaDevP2PAttrCudaArrayAccessSupported = 4
};
inline cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int src, int dst)
{
    int can = 0;
    if (value == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const cudaError_t err = cudaDeviceCanAccessPeer(&can, src, dst);
    if (err != cudaSuccess)
        return err;
    *value = attr == cudaDevP2PAttrPerformanceRank ? 0 : can;
    return cudaSuccess;
}

/* ---- Device functions: scoped atomics (every simulated atomic is already
   system-wide). umin/umax & co. are in gpuh_sim_cu.h: CUDA declares them for
   .cu files only, and host .cpp files define their own. */
#define GPUH_IMPL_SIM_SCOPED(op)                                                                                       \
    template <class T, class... U> inline auto op##_system(T *a, U... v) -> decltype(op(a, v...)) { return op(a, v...); } \
    template <class T, class... U> inline auto op##_block(T *a, U... v) -> decltype(op(a, v...)) { return op(a, v...); }
GPUH_IMPL_SIM_SCOPED(atomicAdd)
GPUH_IMPL_SIM_SCOPED(atomicSub)
GPUH_IMPL_SIM_SCOPED(atomicExch)
GPUH_IMPL_SIM_SCOPED(atomicMin)
GPUH_IMPL_SIM_SCOPED(atomicMax)
GPUH_IMPL_SIM_SCOPED(atomicInc)
GPUH_IMPL_SIM_SCOPED(atomicDec)
GPUH_IMPL_SIM_SCOPED(atomicCAS)
GPUH_IMPL_SIM_SCOPED(atomicAnd)
GPUH_IMPL_SIM_SCOPED(atomicOr)
GPUH_IMPL_SIM_SCOPED(atomicXor)
#undef GPUH_IMPL_SIM_SCOPED

/* ---- Warp reductions (__reduce_add_sync & co., compute capability 8.0):
   every lane of mask gets the reduction of the values of mask's lanes; each
   of those lanes must call it with the same mask, as for the shuffles. CUDA's
   overloads: add, min and max for unsigned and for int (a signed minimum and
   maximum; the sum wraps around in 32 bits), and, or and xor for unsigned
   only, so an int argument gives an unsigned result there and one of another
   type converts as it would to CUDA's declarations (a float or a long long is
   ambiguous for add, as with nvcc). One warp operation: the lanes meet once,
   not once per lane of the mask. */
namespace gpuh_sim_impl {
inline unsigned warp_reduce(const char *what, const char *file, int line, unsigned mask, unsigned v, int kind)
{
    return static_cast<unsigned>(warp_op(W_REDUCE, what, file, line, mask, v, kind, 32));
}
#define GPUH_IMPL_SIM_REDUCE_AS(name, kind, T)                                                                    \
    inline T name(const char *file, int line, unsigned mask, T v)                                                 \
    {                                                                                                             \
        return static_cast<T>(warp_reduce("__" #name "_sync", file, line, mask, static_cast<unsigned>(v), kind)); \
    }
GPUH_IMPL_SIM_REDUCE_AS(reduce_add, R_ADD, unsigned)
GPUH_IMPL_SIM_REDUCE_AS(reduce_add, R_ADD, int)
GPUH_IMPL_SIM_REDUCE_AS(reduce_min, R_MIN, unsigned)
GPUH_IMPL_SIM_REDUCE_AS(reduce_min, R_MIN_SIGNED, int)
GPUH_IMPL_SIM_REDUCE_AS(reduce_max, R_MAX, unsigned)
GPUH_IMPL_SIM_REDUCE_AS(reduce_max, R_MAX_SIGNED, int)
GPUH_IMPL_SIM_REDUCE_AS(reduce_and, R_AND, unsigned)
GPUH_IMPL_SIM_REDUCE_AS(reduce_or, R_OR, unsigned)
GPUH_IMPL_SIM_REDUCE_AS(reduce_xor, R_XOR, unsigned)
#undef GPUH_IMPL_SIM_REDUCE_AS
} /* namespace gpuh_sim_impl */
#define __reduce_add_sync(...) gpuh_sim_impl::reduce_add(__FILE__, __LINE__, __VA_ARGS__)
#define __reduce_min_sync(...) gpuh_sim_impl::reduce_min(__FILE__, __LINE__, __VA_ARGS__)
#define __reduce_max_sync(...) gpuh_sim_impl::reduce_max(__FILE__, __LINE__, __VA_ARGS__)
#define __reduce_and_sync(...) gpuh_sim_impl::reduce_and(__FILE__, __LINE__, __VA_ARGS__)
#define __reduce_or_sync(...) gpuh_sim_impl::reduce_or(__FILE__, __LINE__, __VA_ARGS__)
#define __reduce_xor_sync(...) gpuh_sim_impl::reduce_xor(__FILE__, __LINE__, __VA_ARGS__)

/* ---- Warp matches (compute capability 7.0): __match_any_sync gives each
   lane of mask the lanes of mask whose value equals its own (the same bits,
   as PTX's match.any compares them: a float -0.0 is not +0.0, a NaN matches
   itself); __match_all_sync gives mask, and *pred = 1, where all are equal,
   else 0 and *pred = 0. The same rules of masks as the shuffles. One warp
   operation: the lanes meet once, not once per lane of the mask. */
namespace gpuh_sim_impl {
template <class T> inline unsigned warp_match(const char *what, const char *file, int line, unsigned mask, T v)
{
    return static_cast<unsigned>(warp_op(W_MATCH, what, file, line, mask, to_bits(v), 0, 32));
}
} /* namespace gpuh_sim_impl */
#define __match_any_sync(mask, v) gpuh_sim_impl::warp_match("__match_any_sync", __FILE__, __LINE__, (mask), (v))
#define __match_all_sync(mask, v, pred)                                                                                 \
    gpuh_sim_impl::match_all(gpuh_sim_impl::warp_match("__match_all_sync", __FILE__, __LINE__, (mask), (v)), (mask), \
                             (pred))
namespace gpuh_sim_impl {
inline unsigned match_all(unsigned same, unsigned mask, int *pred)
{
    *pred = same == mask;
    return same == mask ? mask : 0u;
}
} /* namespace gpuh_sim_impl */

/* ---- Loads and stores with cache hints (streaming, global-only, last use,
   volatile; write-back, write-through): plain accesses on a CPU. */
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }

/* ---- Integer intrinsics (CUDA Math API, "Integer Intrinsics"). */
/* Byte i of the result is byte s[i] of the 8 bytes y:x, s[i] the i-th nibble
   of the selector (its low 3 bits). */
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const unsigned long long b = (unsigned long long)y << 32 | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i)
        r |= (unsigned)(b >> 8 * (s >> 4 * i & 7u) & 0xffu) << 8 * i;
    return r;
}
/* The high (left) or low (right) 32 bits of hi:lo shifted by s mod 32, or
   by min(s, 32) for the clamped forms. */
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s)
{
    return (unsigned)(((unsigned long long)hi << 32 | lo) << (s & 31u) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s)
{
    return (unsigned)(((unsigned long long)hi << 32 | lo) >> (s & 31u));
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s)
{
    return s >= 32 ? lo : __funnelshift_l(lo, hi, s);
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s)
{
    return s >= 32 ? hi : __funnelshift_r(lo, hi, s);
}
inline unsigned long long __brevll(unsigned long long x)
{
    return (unsigned long long)__brev((unsigned)x) << 32 | __brev((unsigned)(x >> 32));
}
/* |x - y| + z */
inline unsigned __sad(int x, int y, unsigned z) { return z + (unsigned)(x > y ? (long long)x - y : (long long)y - x); }
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }
/* Four 8-bit products summed into c: signed (int) or unsigned bytes. */
inline int __dp4a(int a, int b, int c)
{
    for (int i = 0; i < 4; ++i)
        c += (int)(signed char)(a >> 8 * i) * (int)(signed char)(b >> 8 * i);
    return c;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c)
{
    for (int i = 0; i < 4; ++i)
        c += (a >> 8 * i & 0xffu) * (b >> 8 * i & 0xffu);
    return c;
}
inline int __dp4a(char4 a, char4 b, int c)
{
    return c + a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
inline unsigned __dp4a(uchar4 a, uchar4 b, unsigned c)
{
    return c + (unsigned)a.x * b.x + (unsigned)a.y * b.y + (unsigned)a.z * b.z + (unsigned)a.w * b.w;
}
/* Two 16-bit by 8-bit products summed into c: the halves of a times bytes 0
   and 1 (_lo) or 2 and 3 (_hi) of b; signed (int) or unsigned throughout. */
inline int __dp2a_lo(int a, int b, int c)
{
    return c + (short)a * (signed char)b + (short)(a >> 16) * (signed char)(b >> 8);
}
inline int __dp2a_hi(int a, int b, int c)
{
    return c + (short)a * (signed char)(b >> 16) + (short)(a >> 16) * (signed char)(b >> 24);
}
inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c)
{
    return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * (b >> 8 & 0xffu);
}
inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c)
{
    return c + (a & 0xffffu) * (b >> 16 & 0xffu) + (a >> 16) * (b >> 24);
}
inline int __dp2a_lo(short2 a, char4 b, int c) { return c + a.x * b.x + a.y * b.y; }
inline int __dp2a_hi(short2 a, char4 b, int c) { return c + a.x * b.z + a.y * b.w; }
inline unsigned __dp2a_lo(ushort2 a, uchar4 b, unsigned c) { return c + (unsigned)a.x * b.x + (unsigned)a.y * b.y; }
inline unsigned __dp2a_hi(ushort2 a, uchar4 b, unsigned c) { return c + (unsigned)a.x * b.z + (unsigned)a.y * b.w; }
/* The bit position of the offset-th set bit of mask counting from bit base,
   towards the high bits (offset > 0) or the low ones (offset < 0); offset 0
   asks whether bit base is set. 0xffffffff where there is none (PTX fns). */
inline unsigned __fns(unsigned mask, unsigned base, int offset)
{
    if (offset == 0)
        return base < 32 && (mask >> base & 1u) ? base : 0xffffffffu;
    int left = offset > 0 ? offset : -offset, step = offset > 0 ? 1 : -1;
    for (long long pos = base; pos >= 0 && pos < 32; pos += step)
        if ((mask >> pos & 1u) && --left == 0)
            return (unsigned)pos;
    return 0xffffffffu;
}

/* ---- SIMD video intrinsics (CUDA Math API, "SIMD Intrinsics"): the name's
   2 works on the two 16-bit halves of an unsigned int, 4 on its four bytes,
   each lane on its own. A lane's value is read both unsigned (u) and signed
   (s); wrapping results keep the lane's low bits. */
namespace gpuh_sim_impl {
template <int B, class F> inline unsigned simd_lanes(unsigned a, unsigned b, F f)
{
    const unsigned m = (1u << B) - 1u;
    unsigned r = 0;
    for (int at = 0; at < 32; at += B) {
        const long long ua = a >> at & m, ub = b >> at & m;
        const long long sa = ua >= (1ll << (B - 1)) ? ua - (1ll << B) : ua;
        const long long sb = ub >= (1ll << (B - 1)) ? ub - (1ll << B) : ub;
        r |= ((unsigned)f(ua, ub, sa, sb, B) & m) << at;
    }
    return r;
}
/* v clamped to a lane's signed or unsigned range. */
inline long long simd_sat_s(long long v, int bits)
{
    const long long hi = (1ll << (bits - 1)) - 1, lo = -(1ll << (bits - 1));
    return v < lo ? lo : v > hi ? hi : v;
}
inline long long simd_sat_u(long long v, int bits)
{
    const long long hi = (1ll << bits) - 1;
    return v < 0 ? 0 : v > hi ? hi : v;
}
/* Sum of the lanes' |a - b|. */
template <int B> inline unsigned simd_sad(unsigned a, unsigned b, bool is_signed)
{
    unsigned sum = 0;
    simd_lanes<B>(a, b, [&](long long ua, long long ub, long long sa, long long sb, int) {
        const long long d = is_signed ? sa - sb : ua - ub;
        sum += (unsigned)(d < 0 ? -d : d);
        return 0ll;
    });
    return sum;
}
} /* namespace gpuh_sim_impl */
#define GPUH_IMPL_SIM_SIMD_LANE(expr)                                                                                  \
    [](long long ua, long long ub, long long sa, long long sb, int bits) {                                             \
        return (void)ua, (void)ub, (void)sa, (void)sb, (void)bits, (expr);                                             \
    }
#define GPUH_IMPL_SIM_SIMD(name, expr)                                                                                 \
    inline unsigned name##2(unsigned a, unsigned b)                                                                    \
    {                                                                                                                  \
        return gpuh_sim_impl::simd_lanes<16>(a, b, GPUH_IMPL_SIM_SIMD_LANE(expr));                                     \
    }                                                                                                                  \
    inline unsigned name##4(unsigned a, unsigned b)                                                                    \
    {                                                                                                                  \
        return gpuh_sim_impl::simd_lanes<8>(a, b, GPUH_IMPL_SIM_SIMD_LANE(expr));                                      \
    }
/* __vcmp: all ones in a lane where x < y holds, __vset: 1 there (eq and ne
   as 0 < (test)). */
#define GPUH_IMPL_SIM_SIMD_CMP(op, x, y)                                                                               \
    GPUH_IMPL_SIM_SIMD(__vcmp##op, x < y ? -1ll : 0ll)                                                                 \
    GPUH_IMPL_SIM_SIMD(__vset##op, x < y ? 1ll : 0ll)
GPUH_IMPL_SIM_SIMD(__vadd, ua + ub)
GPUH_IMPL_SIM_SIMD(__vsub, ua - ub)
GPUH_IMPL_SIM_SIMD(__vaddss, gpuh_sim_impl::simd_sat_s(sa + sb, bits))
GPUH_IMPL_SIM_SIMD(__vsubss, gpuh_sim_impl::simd_sat_s(sa - sb, bits))
GPUH_IMPL_SIM_SIMD(__vaddus, gpuh_sim_impl::simd_sat_u(ua + ub, bits))
GPUH_IMPL_SIM_SIMD(__vsubus, gpuh_sim_impl::simd_sat_u(ua - ub, bits))
GPUH_IMPL_SIM_SIMD(__vabsdiffu, ua > ub ? ua - ub : ub - ua)
GPUH_IMPL_SIM_SIMD(__vabsdiffs, sa > sb ? sa - sb : sb - sa)
GPUH_IMPL_SIM_SIMD(__vavgu, (ua + ub + 1) >> 1)
GPUH_IMPL_SIM_SIMD(__vhaddu, (ua + ub) >> 1)
GPUH_IMPL_SIM_SIMD(__vmaxu, ua > ub ? ua : ub)
GPUH_IMPL_SIM_SIMD(__vminu, ua < ub ? ua : ub)
GPUH_IMPL_SIM_SIMD(__vmaxs, sa > sb ? sa : sb)
GPUH_IMPL_SIM_SIMD(__vmins, sa < sb ? sa : sb)
GPUH_IMPL_SIM_SIMD_CMP(eq, 0, (ua == ub))
GPUH_IMPL_SIM_SIMD_CMP(ne, 0, (ua != ub))
GPUH_IMPL_SIM_SIMD_CMP(ltu, ua, ub)
GPUH_IMPL_SIM_SIMD_CMP(leu, ua, ub + 1)
GPUH_IMPL_SIM_SIMD_CMP(gtu, ub, ua)
GPUH_IMPL_SIM_SIMD_CMP(geu, ub, ua + 1)
GPUH_IMPL_SIM_SIMD_CMP(lts, sa, sb)
GPUH_IMPL_SIM_SIMD_CMP(les, sa, sb + 1)
GPUH_IMPL_SIM_SIMD_CMP(gts, sb, sa)
GPUH_IMPL_SIM_SIMD_CMP(ges, sb, sa + 1)
/* The one-operand forms: b is 0. */
GPUH_IMPL_SIM_SIMD(gpuh_impl_sim_vneg, -sa)
GPUH_IMPL_SIM_SIMD(gpuh_impl_sim_vnegss, gpuh_sim_impl::simd_sat_s(-sa, bits))
GPUH_IMPL_SIM_SIMD(gpuh_impl_sim_vabs, sa < 0 ? -sa : sa)
GPUH_IMPL_SIM_SIMD(gpuh_impl_sim_vabsss, gpuh_sim_impl::simd_sat_s(sa < 0 ? -sa : sa, bits))
#undef GPUH_IMPL_SIM_SIMD_CMP
#undef GPUH_IMPL_SIM_SIMD
#undef GPUH_IMPL_SIM_SIMD_LANE
inline unsigned __vneg2(unsigned a) { return gpuh_impl_sim_vneg2(a, 0); }
inline unsigned __vneg4(unsigned a) { return gpuh_impl_sim_vneg4(a, 0); }
inline unsigned __vnegss2(unsigned a) { return gpuh_impl_sim_vnegss2(a, 0); }
inline unsigned __vnegss4(unsigned a) { return gpuh_impl_sim_vnegss4(a, 0); }
inline unsigned __vabs2(unsigned a) { return gpuh_impl_sim_vabs2(a, 0); }
inline unsigned __vabs4(unsigned a) { return gpuh_impl_sim_vabs4(a, 0); }
inline unsigned __vabsss2(unsigned a) { return gpuh_impl_sim_vabsss2(a, 0); }
inline unsigned __vabsss4(unsigned a) { return gpuh_impl_sim_vabsss4(a, 0); }
inline unsigned __vsadu2(unsigned a, unsigned b) { return gpuh_sim_impl::simd_sad<16>(a, b, false); }
inline unsigned __vsadu4(unsigned a, unsigned b) { return gpuh_sim_impl::simd_sad<8>(a, b, false); }
inline unsigned __vsads2(unsigned a, unsigned b) { return gpuh_sim_impl::simd_sad<16>(a, b, true); }
inline unsigned __vsads4(unsigned a, unsigned b) { return gpuh_sim_impl::simd_sad<8>(a, b, true); }

/* __trap(): the kernel stops as at a fault; the launch fails with
   cudaErrorLaunchFailure (sticky: the context is unusable afterwards, as on a GPU). */
[[noreturn]] inline void __trap()
{
    if (gpuh_sim_impl::in_kernel()) {
        char where[96];
        gpuh_sim_impl::format_where(where, sizeof where);
        fprintf(stderr, "gpuh sim: __trap() in kernel %s (%s); the launch fails with cudaErrorLaunchFailure\n",
                gpuh_sim_impl::thread_state().w->job->kernel, where);
        gpuh_sim_impl::kill_launch(cudaErrorLaunchFailure);
    }
    abort();
}

/* ---- Float intrinsics and math functions C's library lacks. Templates, so
   that a program's own host function of the same name wins (see rsqrtf). */
/* sin(πx), cos(πx) */
template <class = void> inline void sincospif(float x, float *s, float *c)
{
    *s = (float)sin(3.14159265358979323846 * x), *c = (float)cos(3.14159265358979323846 * x);
}
/* The halves of a double's bits, and a double from them. */
inline int __double2hiint(double x) { return (int)(gpuh_sim_impl::to_bits(x) >> 32); }
inline int __double2loint(double x) { return (int)(unsigned)gpuh_sim_impl::to_bits(x); }
inline double __hiloint2double(int hi, int lo)
{
    return gpuh_sim_impl::from_bits<double>((unsigned long long)(unsigned)hi << 32 | (unsigned)lo);
}
/* Averages without overflow: (x + y) >> 1 (rounded down), and rounded up, (x + y + 1) >> 1. */
inline unsigned __uhadd(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x + y) >> 1); }
inline unsigned __urhadd(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x + y + 1) >> 1); }
inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
/* The high half of the signed 128-bit product, from the unsigned one. */
inline long long __mul64hi(long long a, long long b)
{
    unsigned long long h = __umul64hi((unsigned long long)a, (unsigned long long)b);
    if (a < 0)
        h -= (unsigned long long)b;
    if (b < 0)
        h -= (unsigned long long)a;
    return (long long)h;
}
template <class = void> inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
template <class = void> inline float rnorm3df(float a, float b, float c) { return 1.0f / sqrtf(a * a + b * b + c * c); }
template <class = void> inline double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
/* The standard normal distribution function, through erfc. */
template <class = void> inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752f); }
template <class = void> inline double normcdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752); }
/* The inverse error functions: Newton's method in long double on erf or, in
   the tails, on erfc (so that erfcinv of a tiny y keeps its digits), from
   Winitzki's approximation; then rounded once to the result's type. */
namespace gpuh_sim_impl {
/* x with erf(x) = t (tail false, |t| < 1) or erfc(x) = t (tail true, 0 < t <= 1). */
inline long double erf_root(long double t, bool tail)
{
    const long double a = 0.147L, two_over_pi_a = 2.0L / (3.14159265358979323846L * a);
    const long double w = tail ? logl(t * (2.0L - t)) : log1pl(-t * t); /* ln(1 - z^2) */
    const long double h = two_over_pi_a + w / 2.0L;
    long double x = sqrtl(sqrtl(h * h - w / a) - h);
    if (!tail && t < 0)
        x = -x;
    for (int i = 0; i < 60; ++i) {
        const long double slope = 1.12837916709551257390L * expl(-x * x); /* erf'(x) */
        const long double dx = tail ? (erfcl(x) - t) / slope : -(erfl(x) - t) / slope;
        x += dx;
        if (fabsl(dx) <= 1e-19L * fabsl(x))
            break;
    }
    return x;
}
inline long double erfinv_ld(long double y)
{
    if (!(y >= -1.0L && y <= 1.0L))
        return NAN;
    if (y == 1.0L || y == -1.0L)
        return y * INFINITY;
    if (fabsl(y) <= 0.5L)
        return erf_root(y, false);
    return y > 0 ? erf_root(1.0L - y, true) : -erf_root(1.0L + y, true);
}
inline long double erfcinv_ld(long double y)
{
    if (!(y >= 0.0L && y <= 2.0L))
        return NAN;
    if (y == 0.0L)
        return INFINITY;
    if (y == 2.0L)
        return -INFINITY;
    if (y <= 0.5L)
        return erf_root(y, true);
    if (y >= 1.5L)
        return -erf_root(2.0L - y, true);
    return erf_root(1.0L - y, false);
}
/* The modified Bessel functions of the first kind of orders 0 and 1, by their
   power series (every term positive: no cancellation) in long double. */
inline long double bessel_i(long double x, int order)
{
    if (isnan(x))
        return x;
    const long double ax = fabsl(x), q = ax * ax / 4.0L;
    if (isinf(ax))
        return order == 0 || x > 0 ? INFINITY : -INFINITY;
    long double term = order == 0 ? 1.0L : ax / 2.0L, sum = term;
    for (int k = 1; k < 100000; ++k) {
        term *= q / ((long double)k * (k + order));
        sum += term;
        if (term <= sum * 1e-21L && k > ax)
            break;
    }
    return order == 1 && x < 0 ? -sum : sum;
}
} /* namespace gpuh_sim_impl */
template <class = void> inline float erfinvf(float y) { return (float)gpuh_sim_impl::erfinv_ld(y); }
template <class = void> inline double erfinv(double y) { return (double)gpuh_sim_impl::erfinv_ld(y); }
template <class = void> inline float erfcinvf(float y) { return (float)gpuh_sim_impl::erfcinv_ld(y); }
template <class = void> inline double erfcinv(double y) { return (double)gpuh_sim_impl::erfcinv_ld(y); }
/* The inverse of the standard normal distribution function: -sqrt(2) erfcinv(2p). */
template <class = void> inline float normcdfinvf(float p)
{
    return (float)(-1.41421356237309504880L * gpuh_sim_impl::erfcinv_ld(2.0L * p));
}
template <class = void> inline double normcdfinv(double p)
{
    return (double)(-1.41421356237309504880L * gpuh_sim_impl::erfcinv_ld(2.0L * p));
}
template <class = void> inline float cyl_bessel_i0f(float x) { return (float)gpuh_sim_impl::bessel_i(x, 0); }
template <class = void> inline float cyl_bessel_i1f(float x) { return (float)gpuh_sim_impl::bessel_i(x, 1); }
template <class = void> inline double cyl_bessel_i0(double x) { return (double)gpuh_sim_impl::bessel_i(x, 0); }
template <class = void> inline double cyl_bessel_i1(double x) { return (double)gpuh_sim_impl::bessel_i(x, 1); }

/* ---- Memory pools: gpuh_sim.h simulates created pools (MEMORY POOLS there);
   here, the device's default and current pool for programs that ask for
   them: one pool, created on first use, that cudaDeviceSetMemPool can replace. */
namespace gpuh_sim_impl {
inline cudaMemPool_t &current_pool()
{
    static cudaMemPool_t current = [] {
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        cudaMemPool_t p = NULL;
        cudaMemPoolCreate(&p, &props);
        return p;
    }();
    return current;
}
inline cudaMemPool_t default_pool()
{
    static cudaMemPool_t first = current_pool();
    return first;
}
} /* namespace gpuh_sim_impl */
inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device)
{
    if (pool == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (device != 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    *pool = gpuh_sim_impl::default_pool();
    return cudaSuccess;
}
inline cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device)
{
    if (pool == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (device != 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    *pool = gpuh_sim_impl::current_pool();
    return cudaSuccess;
}
inline cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool)
{
    if (pool == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (device != 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    gpuh_sim_impl::current_pool() = pool;
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMallocFromPoolAsync(T **p, size_t bytes, cudaMemPool_t pool, cudaStream_t stream)
{
    return cudaMallocFromPoolAsync(reinterpret_cast<void **>(p), bytes, pool, stream);
}

#endif /* GPUH_SIM_RUNTIME_H */
