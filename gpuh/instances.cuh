/* gpuh/instances.cuh - part of gpuh_kernels.cuh: what the compiled mode
   compiles once, as lists (every shipped entry point with every type it
   ships, and the typed C entry points), and the declarations every other
   file of that mode sees. Included by gpuh_kernels.cuh, never on its own: the
   public names it defines are declared and documented there. */
#ifndef GPUH_IMPL_INSTANCES_CUH
#define GPUH_IMPL_INSTANCES_CUH

/* ===========================================================================
   [SECTION: C ENTRY POINTS]
   The instances gpuh ships, topic by topic. In each list `how` is
   `template` (explicit instantiation definitions: the one file that
   compiles them) or `extern template` (declarations: every file of the
   compiled mode, GPUH_KERNELS_LIBRARY). A part, GPUH_IMPL_PART_*, is one
   topic's instances with its C entry points and sharded launchers; the
   implementation file (GPUH_KERNELS_IMPLEMENTATION) expands every part,
   and gpuh/kernels_*.cu, the sources of CMake's gpuh::kernels, one part
   each, so that they compile in parallel. Without CMake, compile those files
   into the program (or one file of its own with GPUH_KERNELS_IMPLEMENTATION)
   with the folder of gpuh_kernels.cuh on the include path, and define
   GPUH_KERNELS_LIBRARY in its other files.
   =========================================================================== */

#define GPUH_IMPL_MEMORY_INSTANCES(how, T)                                                                    \
    how cudaError_t gpuh_vector_add<T>(const T *, const T *, T *, size_t, cudaStream_t);                      \
    how cudaError_t gpuh_sum<T>(const T *, size_t, T *, void *, cudaStream_t);                                \
    how cudaError_t gpuh_min<T>(const T *, size_t, T *, void *, cudaStream_t);                                \
    how cudaError_t gpuh_max<T>(const T *, size_t, T *, void *, cudaStream_t);                                \
    how cudaError_t gpuh_sharded_vector_add<T>(const gpuh_devices *, const gpuh_shards *, const gpuh_shards *, \
                                               gpuh_shards *);                                                \
    how cudaError_t gpuh_sharded_sum<T>(const gpuh_devices *, const gpuh_shards *, T *);                      \
    how cudaError_t gpuh_sharded_min<T>(const gpuh_devices *, const gpuh_shards *, T *);                      \
    how cudaError_t gpuh_sharded_max<T>(const gpuh_devices *, const gpuh_shards *, T *);
#define GPUH_IMPL_FLOATING_INSTANCES(how, T)                                                                  \
    how cudaError_t gpuh_dot<T>(const T *, const T *, size_t, T *, void *, cudaStream_t);                     \
    how cudaError_t gpuh_norm2<T>(const T *, size_t, T *, void *, cudaStream_t);                              \
    how cudaError_t gpuh_sharded_dot<T>(const gpuh_devices *, const gpuh_shards *, const gpuh_shards *, T *); \
    how cudaError_t gpuh_sharded_norm2<T>(const gpuh_devices *, const gpuh_shards *, T *);
#define GPUH_IMPL_GEMM_INSTANCES(how, T)                                                                      \
    how cudaError_t gpuh_gemm<T>(size_t, size_t, size_t, T, const T *, size_t, const T *, size_t, T, T *,     \
                                 size_t, cudaStream_t);                                                       \
    how cudaError_t gpuh_gemm<T>(gpuh_op, gpuh_op, size_t, size_t, size_t, T, const T *, size_t, const T *,   \
                                 size_t, T, T *, size_t, cudaStream_t);                                       \
    how cudaError_t gpuh_matmul<T>(const T *, const T *, T *, size_t, size_t, size_t, cudaStream_t);          \
    how cudaError_t gpuh_sharded_gemm<T>(const gpuh_devices *, size_t, size_t, size_t, T, const gpuh_shards *, \
                                         const gpuh_shards *, T, gpuh_shards *);
#define GPUH_IMPL_TC_INSTANCES(how, TIn, TOut)                                                                \
    how cudaError_t gpuh_gemm<TIn, TOut>(gpuh_op, gpuh_op, size_t, size_t, size_t, float, const TIn *, size_t, \
                                         const TIn *, size_t, float, TOut *, size_t, cudaStream_t);           \
    how cudaError_t gpuh_gemm<TIn, TOut>(size_t, size_t, size_t, float, const TIn *, size_t, const TIn *,     \
                                         size_t, float, TOut *, size_t, cudaStream_t);
#define GPUH_IMPL_TF32_INSTANCES(how)                                                                         \
    how cudaError_t gpuh_gemm_tf32<float>(gpuh_op, gpuh_op, size_t, size_t, size_t, float, const float *,     \
                                          size_t, const float *, size_t, float, float *, size_t, cudaStream_t); \
    how cudaError_t gpuh_gemm_tf32<float>(size_t, size_t, size_t, float, const float *, size_t, const float *, \
                                          size_t, float, float *, size_t, cudaStream_t);

#ifdef GPUH_KERNELS_LIBRARY
/* A file of the compiled mode: the instances are declared, never compiled
   here. The 16-bit ones only where this file has the types. */
GPUH_IMPL_MEMORY_INSTANCES(extern template, float)
GPUH_IMPL_MEMORY_INSTANCES(extern template, double)
GPUH_IMPL_MEMORY_INSTANCES(extern template, int)
GPUH_IMPL_FLOATING_INSTANCES(extern template, float)
GPUH_IMPL_FLOATING_INSTANCES(extern template, double)
GPUH_IMPL_GEMM_INSTANCES(extern template, float)
GPUH_IMPL_GEMM_INSTANCES(extern template, double)
GPUH_IMPL_TF32_INSTANCES(extern template)
#if defined(__CUDA_BF16_TYPES_EXIST__) || defined(GPUH_SIM_CUDA_BF16_H)
GPUH_IMPL_TC_INSTANCES(extern template, __nv_bfloat16, float)
GPUH_IMPL_TC_INSTANCES(extern template, __nv_bfloat16, __nv_bfloat16)
#endif
#if defined(__CUDA_FP16_TYPES_EXIST__) || defined(GPUH_SIM_CUDA_FP16_H)
GPUH_IMPL_TC_INSTANCES(extern template, __half, float)
GPUH_IMPL_TC_INSTANCES(extern template, __half, __half)
#endif
#endif

/* The typed C entry points of [SECTION: C DECLARATIONS]. */
#define GPUH_IMPL_MEMORY_ENTRIES(suffix, T)                                                                   \
    extern "C" cudaError_t gpuh_vector_add_##suffix(const T *d_a, const T *d_b, T *d_c, size_t n,            \
                                                    cudaStream_t stream)                                      \
    {                                                                                                         \
        return gpuh_vector_add<T>(d_a, d_b, d_c, n, stream);                                                  \
    }                                                                                                         \
    GPUH_IMPL_REDUCE_ENTRY(sum, suffix, T)                                                                    \
    GPUH_IMPL_REDUCE_ENTRY(min, suffix, T)                                                                    \
    GPUH_IMPL_REDUCE_ENTRY(max, suffix, T)
#define GPUH_IMPL_REDUCE_ENTRY(name, suffix, T)                                                               \
    extern "C" cudaError_t gpuh_##name##_##suffix(const T *d_in, size_t n, T *d_out, void *d_temp,            \
                                                  cudaStream_t stream)                                        \
    {                                                                                                         \
        return gpuh_##name<T>(d_in, n, d_out, d_temp, stream);                                                \
    }
#define GPUH_IMPL_FLOATING_ENTRIES(suffix, T)                                                                 \
    extern "C" cudaError_t gpuh_dot_##suffix(const T *d_a, const T *d_b, size_t n, T *d_out, void *d_temp,    \
                                             cudaStream_t stream)                                             \
    {                                                                                                         \
        return gpuh_dot<T>(d_a, d_b, n, d_out, d_temp, stream);                                               \
    }                                                                                                         \
    GPUH_IMPL_REDUCE_ENTRY(norm2, suffix, T)
#define GPUH_IMPL_GEMM_ENTRIES(suffix, T)                                                                     \
    extern "C" cudaError_t gpuh_matmul_##suffix(const T *d_A, const T *d_B, T *d_C, size_t M, size_t N,       \
                                                size_t K, cudaStream_t stream)                                \
    {                                                                                                         \
        return gpuh_matmul<T>(d_A, d_B, d_C, M, N, K, stream);                                                \
    }                                                                                                         \
    extern "C" cudaError_t gpuh_gemm_##suffix(size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda, \
                                              const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc,           \
                                              cudaStream_t stream)                                            \
    {                                                                                                         \
        return gpuh_gemm<T>(M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);                      \
    }                                                                                                         \
    extern "C" cudaError_t gpuh_gemm_op_##suffix(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K,    \
                                                 T alpha, const T *d_A, size_t lda, const T *d_B, size_t ldb, \
                                                 T beta, T *d_C, size_t ldc, cudaStream_t stream)             \
    {                                                                                                         \
        return gpuh_gemm<T>(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);          \
    }
/* gpuh_bf16 / gpuh_f16 have the layout of __nv_bfloat16 / __half. */
#define GPUH_IMPL_TC_ENTRY(name, TC, TIn, TOutC, TOut)                                                        \
    extern "C" cudaError_t name(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,        \
                                const TC *d_A, size_t lda, const TC *d_B, size_t ldb, float beta, TOutC *d_C, \
                                size_t ldc, cudaStream_t stream)                                              \
    {                                                                                                         \
        return gpuh_gemm<TIn, TOut>(op_a, op_b, M, N, K, alpha, reinterpret_cast<const TIn *>(d_A), lda,      \
                                    reinterpret_cast<const TIn *>(d_B), ldb, beta,                            \
                                    reinterpret_cast<TOut *>(d_C), ldc, stream);                              \
    }

/* The parts, one topic each. */
#define GPUH_IMPL_PART_MEMORY()                                                                               \
    GPUH_IMPL_MEMORY_INSTANCES(template, float)                                                               \
    GPUH_IMPL_MEMORY_INSTANCES(template, double)                                                              \
    GPUH_IMPL_MEMORY_INSTANCES(template, int)                                                                 \
    GPUH_IMPL_FLOATING_INSTANCES(template, float)                                                             \
    GPUH_IMPL_FLOATING_INSTANCES(template, double)                                                            \
    GPUH_IMPL_MEMORY_ENTRIES(f32, float)                                                                      \
    GPUH_IMPL_MEMORY_ENTRIES(f64, double)                                                                     \
    GPUH_IMPL_MEMORY_ENTRIES(i32, int)                                                                        \
    GPUH_IMPL_FLOATING_ENTRIES(f32, float)                                                                    \
    GPUH_IMPL_FLOATING_ENTRIES(f64, double)
#define GPUH_IMPL_PART_GEMM(suffix, T)                                                                        \
    GPUH_IMPL_GEMM_INSTANCES(template, T)                                                                     \
    GPUH_IMPL_GEMM_ENTRIES(suffix, T)
#define GPUH_IMPL_PART_BF16()                                                                                 \
    GPUH_IMPL_TC_INSTANCES(template, __nv_bfloat16, float)                                                    \
    GPUH_IMPL_TC_INSTANCES(template, __nv_bfloat16, __nv_bfloat16)                                            \
    GPUH_IMPL_TC_ENTRY(gpuh_gemm_bf16, gpuh_bf16, __nv_bfloat16, float, float)                                \
    GPUH_IMPL_TC_ENTRY(gpuh_gemm_bf16_bf16, gpuh_bf16, __nv_bfloat16, gpuh_bf16, __nv_bfloat16)
#define GPUH_IMPL_PART_F16()                                                                                  \
    GPUH_IMPL_TC_INSTANCES(template, __half, float)                                                           \
    GPUH_IMPL_TC_INSTANCES(template, __half, __half)                                                          \
    GPUH_IMPL_TC_ENTRY(gpuh_gemm_f16, gpuh_f16, __half, float, float)                                         \
    GPUH_IMPL_TC_ENTRY(gpuh_gemm_f16_f16, gpuh_f16, __half, gpuh_f16, __half)
#define GPUH_IMPL_PART_TF32()                                                                                 \
    GPUH_IMPL_TF32_INSTANCES(template)                                                                        \
    extern "C" cudaError_t gpuh_gemm_tf32_f32(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K,       \
                                              float alpha, const float *d_A, size_t lda, const float *d_B,    \
                                              size_t ldb, float beta, float *d_C, size_t ldc,                 \
                                              cudaStream_t stream)                                            \
    {                                                                                                         \
        return gpuh_gemm_tf32<float>(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream); \
    }

#ifdef GPUH_KERNELS_IMPLEMENTATION
GPUH_IMPL_PART_MEMORY()
GPUH_IMPL_PART_GEMM(f32, float)
GPUH_IMPL_PART_GEMM(f64, double)
#if GPUH_IMPL_TC
GPUH_IMPL_PART_BF16()
GPUH_IMPL_PART_F16()
GPUH_IMPL_PART_TF32()
#endif
#endif

#endif /* GPUH_IMPL_INSTANCES_CUH */
