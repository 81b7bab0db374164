/* gpuh_sim_texture.h - textures, surfaces and CUDA arrays on gpuh's CPU simulator.

   Included by the simulator's stand-in <cuda_runtime.h>. Semantics follow the
   CUDA C++ Programming Guide ("Texture and Surface Memory", "Texture
   Fetching"):
     arrays      cudaMallocArray, cudaMalloc3DArray (layered, cubemap),
                 cudaMemcpyToArray/FromArray, cudaMemcpy2DToArray/FromArray,
                 cudaMemcpy3D, cudaFreeArray; pitched memory: cudaMallocPitch,
                 cudaMemset2D
     textures    cudaCreateTextureObject on an array, linear or pitch-2D
                 memory; tex1Dfetch, tex1D, tex2D, tex3D, tex1DLayered,
                 tex2DLayered, texCubemap; point and linear filtering (the
                 weight kept to 8 fraction bits, as the hardware does); wrap,
                 mirror, clamp and border addressing; normalized coordinates;
                 element-type and normalized-float reads of 8- and 16-bit
                 integers
     surfaces    cudaCreateSurfaceObject on an array; surf1D/2D/3D read and
                 write (x in bytes), out-of-range accesses trap
   Not simulated: mipmaps, half-precision texels, sRGB, texture gather,
   anisotropic filtering. */
#ifndef GPUH_SIM_TEXTURE_H
#define GPUH_SIM_TEXTURE_H
#include "gpuh_sim.h"
#include <math.h>

enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};
struct cudaChannelFormatDesc {
    int x, y, z, w;
    enum cudaChannelFormatKind f;
};
struct cudaExtent {
    size_t width, height, depth;
};
struct cudaPos {
    size_t x, y, z;
};
struct cudaPitchedPtr {
    void *ptr;
    size_t pitch, xsize, ysize;
};
/* An array: width x height x depth elements (depth: layers when layered, 6
   faces when a cubemap), stored row after row. */
struct cudaArray {
    struct cudaChannelFormatDesc desc;
    size_t width, height, depth, elem;
    unsigned int flags;
    unsigned char *data;
};
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

enum cudaResourceType {
    cudaResourceTypeArray = 0,
    cudaResourceTypeMipmappedArray = 1,
    cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3
};
struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            void *mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height, pitchInBytes;
        } pitch2D;
    } res;
};
enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };
struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    int disableTrilinearOptimization, seamlessCubemap;
};
struct cudaResourceViewDesc {
    int format;
    size_t width, height, depth;
    unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
};
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    struct cudaExtent e = {w, h, d};
    return e;
}
static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    struct cudaPos p = {x, y, z};
    return p;
}
static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *p, size_t pitch, size_t xsize, size_t ysize)
{
    struct cudaPitchedPtr r = {p, pitch, xsize, ysize};
    return r;
}
static inline struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                 enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

namespace gpuh_sim_impl {
/* The channel layout of a vector type: its component type's bits and kind, and count. */
template <class T> struct channel_of;
#define GPUH_IMPL_SIM_CHANNEL(T, C, N, K)                                                                              \
    template <> struct channel_of<T> {                                                                               \
        enum { bits = 8 * sizeof(C), n = N };                                                                        \
        static enum cudaChannelFormatKind kind() { return K; }                                                       \
    };
} /* namespace gpuh_sim_impl */


namespace gpuh_sim_impl {
GPUH_IMPL_SIM_CHANNEL(float, float, 1, cudaChannelFormatKindFloat)
GPUH_IMPL_SIM_CHANNEL(::float1, float, 1, cudaChannelFormatKindFloat)
GPUH_IMPL_SIM_CHANNEL(float2, float, 2, cudaChannelFormatKindFloat)
GPUH_IMPL_SIM_CHANNEL(float4, float, 4, cudaChannelFormatKindFloat)
GPUH_IMPL_SIM_CHANNEL(char, char, 1, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(signed char, signed char, 1, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(char1, signed char, 1, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(char2, signed char, 2, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(char4, signed char, 4, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(unsigned char, unsigned char, 1, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(uchar1, unsigned char, 1, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(uchar2, unsigned char, 2, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(uchar4, unsigned char, 4, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(short, short, 1, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(short1, short, 1, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(short2, short, 2, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(short4, short, 4, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(unsigned short, unsigned short, 1, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(ushort1, unsigned short, 1, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(ushort2, unsigned short, 2, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(ushort4, unsigned short, 4, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(int, int, 1, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(int1, int, 1, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(int2, int, 2, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(int4, int, 4, cudaChannelFormatKindSigned)
GPUH_IMPL_SIM_CHANNEL(unsigned int, unsigned int, 1, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(uint1, unsigned int, 1, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(uint2, unsigned int, 2, cudaChannelFormatKindUnsigned)
GPUH_IMPL_SIM_CHANNEL(uint4, unsigned int, 4, cudaChannelFormatKindUnsigned)
#undef GPUH_IMPL_SIM_CHANNEL

/* What a texture or surface object refers to. */
struct tex_obj {
    unsigned char *base;
    size_t width, height, depth, pitch, elem; /* pitch: bytes from one row to the next */
    size_t slice;                             /* bytes from one layer or depth slice to the next */
    struct cudaChannelFormatDesc desc;
    struct cudaTextureDesc tex;
    int dims; /* 1, 2 or 3 */
};

inline size_t elem_bytes(const struct cudaChannelFormatDesc &d) { return static_cast<size_t>(d.x + d.y + d.z + d.w) / 8; }

/* Texel (x, y, z) of o (already in range) as four floats, normalized if asked. */
inline float4 texel(const tex_obj &o, size_t x, size_t y, size_t z)
{
    const unsigned char *p = o.base + z * o.slice + y * o.pitch + x * o.elem;
    const int bits[4] = {o.desc.x, o.desc.y, o.desc.z, o.desc.w};
    float c[4] = {0, 0, 0, 0};
    const bool norm = o.tex.readMode == cudaReadModeNormalizedFloat;
    for (int k = 0; k < 4 && bits[k]; ++k) {
        const int b = bits[k];
        if (o.desc.f == cudaChannelFormatKindFloat && b == 32) {
            memcpy(&c[k], p, 4);
        } else if (o.desc.f == cudaChannelFormatKindSigned) {
            long long v = b == 8 ? *reinterpret_cast<const int8_t *>(p)
                        : b == 16 ? *reinterpret_cast<const int16_t *>(p) : *reinterpret_cast<const int32_t *>(p);
            c[k] = static_cast<float>(v);
            if (norm && b <= 16)
                c[k] = fmaxf(c[k] / static_cast<float>((1 << (b - 1)) - 1), -1.0f);
        } else {
            unsigned long long v = b == 8 ? *p : b == 16 ? *reinterpret_cast<const uint16_t *>(p)
                                                        : *reinterpret_cast<const uint32_t *>(p);
            c[k] = static_cast<float>(v);
            if (norm && b <= 16)
                c[k] /= static_cast<float>((1 << b) - 1);
        }
        p += b / 8;
    }
    return make_float4(c[0], c[1], c[2], c[3]);
}

/* An index moved into [0, n) by the address mode; -1: outside (border). */
inline long long address(long long i, long long n, enum cudaTextureAddressMode m, bool normalized)
{
    if (!normalized && (m == cudaAddressModeWrap || m == cudaAddressModeMirror))
        m = cudaAddressModeClamp; /* wrap and mirror need normalized coordinates */
    switch (m) {
    case cudaAddressModeWrap: return ((i % n) + n) % n;
    case cudaAddressModeMirror: {
        long long t = ((i % (2 * n)) + 2 * n) % (2 * n);
        return t < n ? t : 2 * n - 1 - t;
    }
    case cudaAddressModeBorder: return i < 0 || i >= n ? -1 : i;
    default: return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

inline float4 texel_at(const tex_obj &o, long long x, long long y, long long z, size_t layer)
{
    const bool nc = o.tex.normalizedCoords != 0;
    x = address(x, static_cast<long long>(o.width), o.tex.addressMode[0], nc);
    y = o.dims >= 2 ? address(y, static_cast<long long>(o.height), o.tex.addressMode[1], nc) : 0;
    z = o.dims >= 3 ? address(z, static_cast<long long>(o.depth), o.tex.addressMode[2], nc) : 0;
    if (x < 0 || y < 0 || z < 0)
        return make_float4(o.tex.borderColor[0], o.tex.borderColor[1], o.tex.borderColor[2], o.tex.borderColor[3]);
    return texel(o, static_cast<size_t>(x), static_cast<size_t>(y), o.dims >= 3 ? static_cast<size_t>(z) : layer);
}

inline float4 lerp4(float4 a, float4 b, float t)
{
    return make_float4(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z), a.w + t * (b.w - a.w));
}

/* A fetch at coordinates (u, v, w) of a texture with o.dims dimensions. */
inline float4 sample(const tex_obj &o, float u, float v, float w, size_t layer)
{
    const float c[3] = {u, v, w};
    const size_t n[3] = {o.width, o.height, o.depth};
    float pos[3];
    for (int d = 0; d < 3; ++d)
        pos[d] = d < o.dims ? (o.tex.normalizedCoords ? c[d] * static_cast<float>(n[d]) : c[d]) : 0.0f;
    if (o.tex.filterMode == cudaFilterModePoint)
        return texel_at(o, static_cast<long long>(floorf(pos[0])), static_cast<long long>(floorf(pos[1])),
                        static_cast<long long>(floorf(pos[2])), layer);
    long long i[3];
    float a[3];
    for (int d = 0; d < 3; ++d) {
        const float b = pos[d] - 0.5f;
        i[d] = static_cast<long long>(floorf(b));
        a[d] = roundf((b - floorf(b)) * 256.0f) / 256.0f; /* the hardware keeps 8 fraction bits */
    }
    if (o.dims == 1)
        return lerp4(texel_at(o, i[0], 0, 0, layer), texel_at(o, i[0] + 1, 0, 0, layer), a[0]);
    float4 r2[2];
    for (int k = 0; k < (o.dims == 3 ? 2 : 1); ++k) {
        float4 t0 = lerp4(texel_at(o, i[0], i[1], i[2] + k, layer), texel_at(o, i[0] + 1, i[1], i[2] + k, layer), a[0]);
        float4 t1 = lerp4(texel_at(o, i[0], i[1] + 1, i[2] + k, layer),
                          texel_at(o, i[0] + 1, i[1] + 1, i[2] + k, layer), a[0]);
        r2[k] = lerp4(t0, t1, a[1]);
    }
    return o.dims == 3 ? lerp4(r2[0], r2[1], a[2]) : r2[0];
}

inline const tex_obj &obj_of(unsigned long long h) { return *reinterpret_cast<const tex_obj *>(h); }

/* The fetch's result as T: the element's own bytes for a point fetch of the
   element type, otherwise the (filtered, normalized) floats. */
template <class T> inline T texel_as(float4 f)
{
    T r;
    float c[4] = {f.x, f.y, f.z, f.w};
    static_assert(sizeof(T) % sizeof(float) == 0 || sizeof(T) < sizeof(float), "a texel type");
    if (channel_of<T>::kind() == cudaChannelFormatKindFloat) {
        memcpy(&r, c, sizeof(T));
    } else { /* an integer type read as its elements: convert each component */
        typedef typename std::conditional<channel_of<T>::bits == 8, unsigned char,
                typename std::conditional<channel_of<T>::bits == 16, unsigned short, unsigned int>::type>::type U;
        unsigned char *p = reinterpret_cast<unsigned char *>(&r);
        for (int k = 0; k < channel_of<T>::n; ++k) {
            U u = channel_of<T>::kind() == cudaChannelFormatKindSigned ? static_cast<U>(static_cast<long long>(c[k]))
                                                                       : static_cast<U>(c[k]);
            memcpy(p + k * sizeof(U), &u, sizeof(U));
        }
    }
    return r;
}

template <class T> inline T fetch(unsigned long long h, float u, float v, float w, size_t layer)
{
    const tex_obj &o = obj_of(h);
    if (o.tex.filterMode == cudaFilterModePoint && o.tex.readMode == cudaReadModeElementType) {
        /* the element itself, bytes and all */
        const bool nc = o.tex.normalizedCoords != 0;
        const float c[3] = {u, v, w};
        const size_t n[3] = {o.width, o.height, o.depth};
        long long idx[3] = {0, 0, 0};
        for (int d = 0; d < o.dims; ++d)
            idx[d] = address(static_cast<long long>(floorf(nc ? c[d] * static_cast<float>(n[d]) : c[d])),
                             static_cast<long long>(n[d]), o.tex.addressMode[d], nc);
        T r;
        memset(&r, 0, sizeof r);
        if (idx[0] < 0 || idx[1] < 0 || idx[2] < 0)
            return r;
        const size_t z = o.dims >= 3 ? static_cast<size_t>(idx[2]) : layer;
        memcpy(&r, o.base + z * o.slice + static_cast<size_t>(idx[1]) * o.pitch + static_cast<size_t>(idx[0]) * o.elem,
               sizeof(T) < o.elem ? sizeof(T) : o.elem);
        return r;
    }
    return texel_as<T>(sample(o, u, v, w, layer));
}

/* The face and the face coordinates of a cubemap direction (Programming
   Guide, "Cubemap Textures"). */
inline void cube_face(float x, float y, float z, size_t *face, float *s, float *t)
{
    const float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
    float ma, sc, tc;
    if (ax >= ay && ax >= az) {
        ma = ax;
        *face = x >= 0 ? 0 : 1;
        sc = x >= 0 ? -z : z;
        tc = -y;
    } else if (ay >= az) {
        ma = ay;
        *face = y >= 0 ? 2 : 3;
        sc = x;
        tc = y >= 0 ? z : -z;
    } else {
        ma = az;
        *face = z >= 0 ? 4 : 5;
        sc = z >= 0 ? x : -x;
        tc = -y;
    }
    *s = (sc / ma + 1.0f) * 0.5f;
    *t = (tc / ma + 1.0f) * 0.5f;
}

/* Texture and surface objects made and not destroyed: a handle destroyed
   twice (or never made) is not freed again. */
struct live_obj_table {
    std::mutex m;
    std::set<const tex_obj *> set;
};
inline live_obj_table &live_objs()
{
    static live_obj_table t;
    return t;
}
inline tex_obj *new_obj(const struct cudaResourceDesc *r, const struct cudaTextureDesc *t, cudaError_t *err)
{
    *err = cudaErrorInvalidValue;
    if (r == NULL)
        return NULL;
    tex_obj o;
    memset(&o, 0, sizeof o);
    if (t != NULL)
        o.tex = *t;
    switch (r->resType) {
    case cudaResourceTypeArray: {
        cudaArray_t a = r->res.array.array;
        if (a == NULL)
            return NULL;
        o.base = a->data;
        o.desc = a->desc;
        o.elem = a->elem;
        o.width = a->width;
        o.height = a->height ? a->height : 1;
        o.depth = a->depth ? a->depth : 1;
        o.pitch = a->width * a->elem;
        o.slice = o.pitch * o.height;
        o.dims = (a->flags & (cudaArrayLayered | cudaArrayCubemap)) ? (a->height ? 2 : 1)
               : a->depth ? 3 : a->height ? 2 : 1;
        break;
    }
    case cudaResourceTypeLinear:
        o.base = static_cast<unsigned char *>(r->res.linear.devPtr);
        o.desc = r->res.linear.desc;
        o.elem = elem_bytes(o.desc);
        if (o.base == NULL || o.elem == 0)
            return NULL;
        o.width = r->res.linear.sizeInBytes / o.elem;
        o.height = o.depth = 1;
        o.pitch = o.slice = r->res.linear.sizeInBytes;
        o.dims = 1;
        break;
    case cudaResourceTypePitch2D:
        o.base = static_cast<unsigned char *>(r->res.pitch2D.devPtr);
        o.desc = r->res.pitch2D.desc;
        o.elem = elem_bytes(o.desc);
        if (o.base == NULL || o.elem == 0 || r->res.pitch2D.pitchInBytes < r->res.pitch2D.width * o.elem)
            return NULL;
        o.width = r->res.pitch2D.width;
        o.height = r->res.pitch2D.height;
        o.depth = 1;
        o.pitch = r->res.pitch2D.pitchInBytes;
        o.slice = o.pitch * o.height;
        o.dims = 2;
        break;
    default:
        *err = cudaErrorNotSupported;
        return NULL;
    }
    *err = cudaSuccess;
    tex_obj *made = new tex_obj(o);
    std::lock_guard<std::mutex> g(live_objs().m);
    live_objs().set.insert(made);
    return made;
}

/* Copies a box of rows: height rows of width bytes, depth slices. */
inline void copy_rows(unsigned char *dst, size_t dpitch, size_t dslice, const unsigned char *src, size_t spitch,
                      size_t sslice, size_t width, size_t height, size_t depth)
{
    for (size_t z = 0; z < depth; ++z)
        for (size_t y = 0; y < height; ++y)
            memmove(dst + z * dslice + y * dpitch, src + z * sslice + y * spitch, width);
}
} /* namespace gpuh_sim_impl */

template <class T> inline struct cudaChannelFormatDesc cudaCreateChannelDesc()
{
    typedef gpuh_sim_impl::channel_of<T> C;
    const int b = C::bits;
    return cudaCreateChannelDesc(b, C::n > 1 ? b : 0, C::n > 2 ? b : 0, C::n > 3 ? b : 0, C::kind());
}

static inline cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                           struct cudaExtent extent, unsigned int flags = 0)
{
    if (array == NULL || desc == NULL || extent.width == 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const size_t elem = gpuh_sim_impl::elem_bytes(*desc);
    if (elem == 0 || ((flags & cudaArrayCubemap) && (extent.width != extent.height || extent.depth % 6 != 0)))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    cudaArray_t a = new cudaArray();
    a->desc = *desc;
    a->width = extent.width;
    a->height = extent.height;
    a->depth = extent.depth;
    a->elem = elem;
    a->flags = flags;
    const size_t n = extent.width * (extent.height ? extent.height : 1) * (extent.depth ? extent.depth : 1) * elem;
    a->data = static_cast<unsigned char *>(calloc(n, 1));
    if (a->data == NULL) {
        delete a;
        return gpuh_sim_impl::record_error(cudaErrorMemoryAllocation);
    }
    *array = a;
    return cudaSuccess;
}
static inline cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                                          size_t height = 0, unsigned int flags = 0)
{
    return cudaMalloc3DArray(array, desc, make_cudaExtent(width, height, 0), flags);
}
static inline cudaError_t cudaFreeArray(cudaArray_t array)
{
    if (array != NULL) {
        free(array->data);
        delete array;
    }
    return cudaSuccess;
}
static inline cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    if (desc == NULL || array == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *desc = array->desc;
    return cudaSuccess;
}
static inline cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                                           unsigned int *flags, cudaArray_t array)
{
    if (array == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (desc)
        *desc = array->desc;
    if (extent)
        *extent = make_cudaExtent(array->width, array->height, array->depth);
    if (flags)
        *flags = array->flags;
    return cudaSuccess;
}

/* Row-major copies into and out of an array; offsets and widths in bytes
   along x, in rows along y, as CUDA has them. */
static inline cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src,
                                              size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind)
{
    (void)kind;
    if (dst == NULL || (src == NULL && width * height > 0))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const size_t row = dst->width * dst->elem, rows = dst->height ? dst->height : 1;
    if (w_offset + width > row || h_offset + height > rows || (height > 1 && spitch < width))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::copy_rows(dst->data + h_offset * row + w_offset, row, 0, static_cast<const unsigned char *>(src),
                             spitch, 0, width, height, 1);
    return cudaSuccess;
}
static inline cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                                size_t h_offset, size_t width, size_t height, enum cudaMemcpyKind kind)
{
    (void)kind;
    if (src == NULL || (dst == NULL && width * height > 0))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const size_t row = src->width * src->elem, rows = src->height ? src->height : 1;
    if (w_offset + width > row || h_offset + height > rows || (height > 1 && dpitch < width))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::copy_rows(static_cast<unsigned char *>(dst), dpitch, 0, src->data + h_offset * row + w_offset, row,
                             0, width, height, 1);
    return cudaSuccess;
}
/* The deprecated linear forms: count bytes from (w_offset, h_offset) on. */
static inline cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src,
                                            size_t count, enum cudaMemcpyKind kind)
{
    (void)kind;
    if (dst == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const size_t row = dst->width * dst->elem;
    const size_t total = row * (dst->height ? dst->height : 1) * (dst->depth ? dst->depth : 1);
    const size_t at = h_offset * row + w_offset;
    if (at > total || count > total - at || (src == NULL && count > 0))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    memmove(dst->data + at, src, count);
    return cudaSuccess;
}
static inline cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                              size_t count, enum cudaMemcpyKind kind)
{
    (void)kind;
    if (src == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const size_t row = src->width * src->elem;
    const size_t total = row * (src->height ? src->height : 1) * (src->depth ? src->depth : 1);
    const size_t at = h_offset * row + w_offset;
    if (at > total || count > total - at || (dst == NULL && count > 0))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    memmove(dst, src->data + at, count);
    return cudaSuccess;
}
/* A box between arrays and pitched memory: extent in elements when an array
   is involved, else width in bytes. */
static inline cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    if (p == NULL || (p->srcArray == NULL && p->srcPtr.ptr == NULL) || (p->dstArray == NULL && p->dstPtr.ptr == NULL))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const size_t elem = p->srcArray ? p->srcArray->elem : p->dstArray ? p->dstArray->elem : 1;
    const size_t w = p->extent.width * elem, h = p->extent.height ? p->extent.height : 1,
                 d = p->extent.depth ? p->extent.depth : 1;
    unsigned char *dst;
    const unsigned char *src;
    size_t dp, ds, sp, ss;
    if (p->dstArray) {
        cudaArray_t a = p->dstArray;
        dp = a->width * a->elem;
        ds = dp * (a->height ? a->height : 1);
        if ((p->dstPos.x + p->extent.width) > a->width || p->dstPos.y + h > (a->height ? a->height : 1) ||
            p->dstPos.z + d > (a->depth ? a->depth : 1))
            return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
        dst = a->data + p->dstPos.z * ds + p->dstPos.y * dp + p->dstPos.x * a->elem;
    } else {
        dp = p->dstPtr.pitch;
        ds = dp * p->dstPtr.ysize;
        dst = static_cast<unsigned char *>(p->dstPtr.ptr) + p->dstPos.z * ds + p->dstPos.y * dp + p->dstPos.x;
    }
    if (p->srcArray) {
        cudaArray_t a = p->srcArray;
        sp = a->width * a->elem;
        ss = sp * (a->height ? a->height : 1);
        if ((p->srcPos.x + p->extent.width) > a->width || p->srcPos.y + h > (a->height ? a->height : 1) ||
            p->srcPos.z + d > (a->depth ? a->depth : 1))
            return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
        src = a->data + p->srcPos.z * ss + p->srcPos.y * sp + p->srcPos.x * a->elem;
    } else {
        sp = p->srcPtr.pitch;
        ss = sp * p->srcPtr.ysize;
        src = static_cast<const unsigned char *>(p->srcPtr.ptr) + p->srcPos.z * ss + p->srcPos.y * sp + p->srcPos.x;
    }
    gpuh_sim_impl::copy_rows(dst, dp, ds, src, sp, ss, w, h, d);
    return cudaSuccess;
}
/* The stream-ordered forms check their stream (a destroyed one is
   cudaErrorInvalidResourceHandle) and, under stream capture, become nodes of
   the graph (the parameters copied at the call, as CUDA copies them). */
static inline cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream = 0)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (p == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const struct cudaMemcpy3DParms params = *p;
    GPUH_IMPL_SIM_CAPTURE(stream, cudaMemcpy3D(&params))
        return cudaSuccess;
    return cudaMemcpy3D(p);
}
static inline cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wo, size_t ho, const void *src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream = 0)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    GPUH_IMPL_SIM_CAPTURE(stream, cudaMemcpy2DToArray(dst, wo, ho, src, spitch, width, height, kind))
        return cudaSuccess;
    return cudaMemcpy2DToArray(dst, wo, ho, src, spitch, width, height, kind);
}

/* Pitched allocations: rows padded to 512 bytes, as GPUs commonly do. */
static inline cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    if (ptr == NULL || pitch == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const size_t p = (width + 511) / 512 * 512;
    cudaError_t e = cudaMalloc(ptr, p * (height ? height : 1));
    if (e == cudaSuccess)
        *pitch = p;
    return e;
}
template <class T> inline cudaError_t cudaMallocPitch(T **ptr, size_t *pitch, size_t width, size_t height)
{
    return cudaMallocPitch(reinterpret_cast<void **>(ptr), pitch, width, height);
}
static inline cudaError_t cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e)
{
    if (p == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    size_t pitch = 0;
    void *ptr = NULL;
    cudaError_t err = cudaMallocPitch(&ptr, &pitch, e.width, (e.height ? e.height : 1) * (e.depth ? e.depth : 1));
    if (err == cudaSuccess)
        *p = make_cudaPitchedPtr(ptr, pitch, e.width, e.height);
    return err;
}
static inline cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
    for (size_t y = 0; y < height; ++y) {
        cudaError_t e = cudaMemset(static_cast<char *>(ptr) + y * pitch, value, width);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}
static inline cudaError_t cudaMemset2DAsync(void *ptr, size_t pitch, int value, size_t width, size_t height,
                                            cudaStream_t stream = 0)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    GPUH_IMPL_SIM_CAPTURE(stream, cudaMemset2D(ptr, pitch, value, width, height))
        return cudaSuccess;
    return cudaMemset2D(ptr, pitch, value, width, height);
}

static inline cudaError_t cudaCreateTextureObject(cudaTextureObject_t *obj, const struct cudaResourceDesc *res,
                                                  const struct cudaTextureDesc *tex,
                                                  const struct cudaResourceViewDesc *view)
{
    (void)view;
    cudaError_t err;
    if (obj == NULL || tex == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::tex_obj *o = gpuh_sim_impl::new_obj(res, tex, &err);
    if (o == NULL)
        return gpuh_sim_impl::record_error(err);
    *obj = reinterpret_cast<unsigned long long>(o);
    return cudaSuccess;
}
/* A handle destroyed already (or 0) is cudaSuccess with nothing freed: an
   H200 with CUDA 13 answers a second cudaDestroyTextureObject so. */
static inline cudaError_t cudaDestroyTextureObject(cudaTextureObject_t obj)
{
    gpuh_sim_impl::tex_obj *o = reinterpret_cast<gpuh_sim_impl::tex_obj *>(obj);
    {
        std::lock_guard<std::mutex> g(gpuh_sim_impl::live_objs().m);
        if (gpuh_sim_impl::live_objs().set.erase(o) == 0)
            return cudaSuccess;
    }
    delete o;
    return cudaSuccess;
}
static inline cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *obj, const struct cudaResourceDesc *res)
{
    cudaError_t err;
    if (obj == NULL || res == NULL || res->resType != cudaResourceTypeArray)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::tex_obj *o = gpuh_sim_impl::new_obj(res, NULL, &err);
    if (o == NULL)
        return gpuh_sim_impl::record_error(err);
    *obj = reinterpret_cast<unsigned long long>(o);
    return cudaSuccess;
}
static inline cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t obj) { return cudaDestroyTextureObject(obj); }

/* ---- Device side: fetches. */
template <class T> inline T tex1Dfetch(cudaTextureObject_t t, int x)
{
    const gpuh_sim_impl::tex_obj &o = gpuh_sim_impl::obj_of(t);
    T r;
    memset(&r, 0, sizeof r);
    if (x < 0 || static_cast<size_t>(x) >= o.width)
        return r;
    if (o.tex.readMode == cudaReadModeElementType) {
        memcpy(&r, o.base + static_cast<size_t>(x) * o.elem, sizeof(T) < o.elem ? sizeof(T) : o.elem);
        return r;
    }
    return gpuh_sim_impl::texel_as<T>(gpuh_sim_impl::texel(o, static_cast<size_t>(x), 0, 0));
}
template <class T> inline T tex1D(cudaTextureObject_t t, float x) { return gpuh_sim_impl::fetch<T>(t, x, 0, 0, 0); }
template <class T> inline T tex2D(cudaTextureObject_t t, float x, float y)
{
    return gpuh_sim_impl::fetch<T>(t, x, y, 0, 0);
}
template <class T> inline T tex3D(cudaTextureObject_t t, float x, float y, float z)
{
    return gpuh_sim_impl::fetch<T>(t, x, y, z, 0);
}
template <class T> inline T tex1DLayered(cudaTextureObject_t t, float x, int layer)
{
    return gpuh_sim_impl::fetch<T>(t, x, 0, 0, static_cast<size_t>(layer));
}
template <class T> inline T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer)
{
    return gpuh_sim_impl::fetch<T>(t, x, y, 0, static_cast<size_t>(layer));
}
template <class T> inline T texCubemap(cudaTextureObject_t t, float x, float y, float z)
{
    size_t face;
    float s, u;
    gpuh_sim_impl::cube_face(x, y, z, &face, &s, &u);
    const gpuh_sim_impl::tex_obj &o = gpuh_sim_impl::obj_of(t);
    if (!o.tex.normalizedCoords) { /* the face coordinates are normalized: scale them for the fetch */
        s *= static_cast<float>(o.width);
        u *= static_cast<float>(o.height);
    }
    return gpuh_sim_impl::fetch<T>(t, s, u, 0, face);
}
template <class T> inline T texCubemapLayered(cudaTextureObject_t t, float x, float y, float z, int layer)
{
    size_t face;
    float s, u;
    gpuh_sim_impl::cube_face(x, y, z, &face, &s, &u);
    const gpuh_sim_impl::tex_obj &o = gpuh_sim_impl::obj_of(t);
    if (!o.tex.normalizedCoords) {
        s *= static_cast<float>(o.width);
        u *= static_cast<float>(o.height);
    }
    return gpuh_sim_impl::fetch<T>(t, s, u, 0, static_cast<size_t>(layer) * 6 + face);
}
template <class T> inline void tex1Dfetch(T *r, cudaTextureObject_t t, int x) { *r = tex1Dfetch<T>(t, x); }
template <class T> inline void tex1D(T *r, cudaTextureObject_t t, float x) { *r = tex1D<T>(t, x); }
template <class T> inline void tex2D(T *r, cudaTextureObject_t t, float x, float y) { *r = tex2D<T>(t, x, y); }
template <class T> inline void tex3D(T *r, cudaTextureObject_t t, float x, float y, float z)
{
    *r = tex3D<T>(t, x, y, z);
}
template <class T> inline void tex2DLayered(T *r, cudaTextureObject_t t, float x, float y, int l)
{
    *r = tex2DLayered<T>(t, x, y, l);
}

/* ---- Device side: surfaces (x in bytes). Out of range: the launch fails
   (cudaBoundaryModeTrap, the default), is clamped, or reads zero / drops the write. */
namespace gpuh_sim_impl {
inline unsigned char *surf_at(cudaSurfaceObject_t s, int xb, int y, int z, size_t bytes, int mode)
{
    const tex_obj &o = obj_of(s);
    long long x = xb, yy = y, zz = z;
    const long long w = static_cast<long long>(o.width * o.elem), h = static_cast<long long>(o.height),
                    d = static_cast<long long>(o.depth);
    if (x < 0 || x + static_cast<long long>(bytes) > w || yy < 0 || yy >= h || zz < 0 || zz >= d) {
        if (mode == cudaBoundaryModeZero)
            return NULL;
        if (mode == cudaBoundaryModeTrap) {
            fprintf(stderr, "gpuh sim: surface access out of range at byte x %d, y %d, z %d\n", xb, y, z);
            kill_launch(cudaErrorIllegalAddress);
        }
        x = x < 0 ? 0 : x + static_cast<long long>(bytes) > w ? w - static_cast<long long>(bytes) : x;
        yy = yy < 0 ? 0 : yy >= h ? h - 1 : yy;
        zz = zz < 0 ? 0 : zz >= d ? d - 1 : zz;
    }
    return o.base + static_cast<size_t>(zz) * o.slice + static_cast<size_t>(yy) * o.pitch + static_cast<size_t>(x);
}
} /* namespace gpuh_sim_impl */
template <class T>
inline void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int mode = cudaBoundaryModeTrap)
{
    unsigned char *p = gpuh_sim_impl::surf_at(s, x, y, 0, sizeof(T), mode);
    if (p)
        memcpy(p, &v, sizeof(T));
}
template <class T> inline void surf1Dwrite(T v, cudaSurfaceObject_t s, int x, int mode = cudaBoundaryModeTrap)
{
    surf2Dwrite(v, s, x, 0, mode);
}
template <class T>
inline void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z, int mode = cudaBoundaryModeTrap)
{
    unsigned char *p = gpuh_sim_impl::surf_at(s, x, y, z, sizeof(T), mode);
    if (p)
        memcpy(p, &v, sizeof(T));
}
template <class T>
inline void surf2DLayeredwrite(T v, cudaSurfaceObject_t s, int x, int y, int layer, int mode = cudaBoundaryModeTrap)
{
    surf3Dwrite(v, s, x, y, layer, mode);
}
template <class T> inline T surf2Dread(cudaSurfaceObject_t s, int x, int y, int mode = cudaBoundaryModeTrap)
{
    T v;
    memset(&v, 0, sizeof v);
    const unsigned char *p = gpuh_sim_impl::surf_at(s, x, y, 0, sizeof(T), mode);
    if (p)
        memcpy(&v, p, sizeof(T));
    return v;
}
template <class T> inline void surf2Dread(T *v, cudaSurfaceObject_t s, int x, int y, int mode = cudaBoundaryModeTrap)
{
    *v = surf2Dread<T>(s, x, y, mode);
}
template <class T> inline T surf1Dread(cudaSurfaceObject_t s, int x, int mode = cudaBoundaryModeTrap)
{
    return surf2Dread<T>(s, x, 0, mode);
}
template <class T> inline T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z, int mode = cudaBoundaryModeTrap)
{
    T v;
    memset(&v, 0, sizeof v);
    const unsigned char *p = gpuh_sim_impl::surf_at(s, x, y, z, sizeof(T), mode);
    if (p)
        memcpy(&v, p, sizeof(T));
    return v;
}

#endif /* GPUH_SIM_TEXTURE_H */
