/* Stand-in for CUDA's <cooperative_groups.h> on gpuh's CPU simulator.

   Semantics follow the CUDA C++ Programming Guide's "Cooperative Groups":
     thread_block        this_thread_block(): the block; sync() is a barrier
                         like __syncthreads(); thread_rank() the linear index
     thread_block_tile<N>  tiled_partition<N>(parent), N a power of two <= 32:
                         N consecutive lanes of a warp; shfl, shfl_up/down/xor,
                         any, all, ballot, match_any, sync act on those lanes only
     thread_group        tiled_partition(parent, n) at run time (n <= 32), and
                         the type every group converts to
     coalesced_group     binary_partition / labeled_partition of a tile: the
                         lanes that gave the same predicate or label
     reduce(g, v, op)    cooperative_groups/reduce.h: plus, less, greater,
                         bit_and, bit_or, bit_xor over a tile, in a fixed order
     memcpy_async/wait   done at once by the group's threads, each a share;
                         wait() is the group's barrier
     cg::sync(g)         g.sync()
     grid_group          this_grid(): sync() is a grid-wide barrier in a kernel
                         launched with cudaLaunchCooperativeKernel
     coalesced_threads() the lanes of the warp that reach the call together: each
                         waits there until no thread of the block can run, then
                         those at the same call form the group
     tiles of 64..1024  thread_rank, size, meta_group_*, sync and reduce, the
                         block's barrier standing for the tile's (all tiles of
                         the block sync together, as usual code does)
   Not simulated: clusters. */
#ifndef GPUH_SIM_COOPERATIVE_GROUPS_H
#define GPUH_SIM_COOPERATIVE_GROUPS_H
#include "gpuh_sim.h"
#include "gpuh_sim_async.h"

namespace cooperative_groups {
namespace details {
inline gpuh_sim_impl::thread_view &me() { return gpuh_sim_impl::thread_state(); }
inline unsigned lane() { return static_cast<unsigned>(me().lin) % 32u; }
/* Index of the n-th set bit of m (n counted from 0). */
inline unsigned nth_bit(unsigned m, unsigned n)
{
    for (unsigned k = 0; k < 32; ++k)
        if (m >> k & 1u) {
            if (n == 0)
                return k;
            --n;
        }
    return 0;
}
/* A group shuffle moves any trivially copyable type, 8 bytes per warp exchange. */
template <class T> inline T lanes_op(int op, const char *what, unsigned mask, T v, int p, int width)
{
    static_assert(std::is_trivially_copyable<T>::value, "group shuffles move trivially copyable types");
    T r;
    const unsigned char *src = reinterpret_cast<const unsigned char *>(&v);
    unsigned char *dst = reinterpret_cast<unsigned char *>(&r);
    for (size_t o = 0; o < sizeof(T); o += 8) {
        const size_t n = sizeof(T) - o < 8 ? sizeof(T) - o : 8;
        uint64_t chunk = 0;
        memcpy(&chunk, src + o, n);
        chunk = gpuh_sim_impl::warp_op(op, what, "<cooperative_groups>", 0, mask, chunk, p, width);
        memcpy(dst + o, &chunk, n);
    }
    return r;
}
} /* namespace details */

/* Any group: its size, the calling thread's rank in it, a barrier over it. */
class thread_group {
  protected:
    enum kind_t { BLOCK, LANES };
    kind_t kind_;
    unsigned mask_; /* LANES: the lanes of this warp in the group */
    unsigned size_, rank_, meta_rank_, meta_size_;
    thread_group(kind_t k, unsigned mask, unsigned size, unsigned rank, unsigned mrank = 0, unsigned msize = 1)
        : kind_(k), mask_(mask), size_(size), rank_(rank), meta_rank_(mrank), meta_size_(msize)
    {
    }

  public:
    unsigned long long size() const { return size_; }
    unsigned long long num_threads() const { return size_; }
    unsigned long long thread_rank() const { return rank_; }
    unsigned long long meta_group_rank() const { return meta_rank_; }
    unsigned long long meta_group_size() const { return meta_size_; }
    bool is_valid() const { return size_ != 0; }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        if (kind_ == BLOCK)
            gpuh_sim_impl::sync_block("thread_block::sync", file, line, 0);
        else
            gpuh_sim_impl::warp_op(gpuh_sim_impl::W_SYNC, "thread_block_tile::sync", file, line, mask_, 0, 0, 32);
    }
    unsigned gpuh_sim_mask() const { return mask_; }
    friend thread_group tiled_partition(const thread_group &parent, unsigned n);
};

/* The calling thread's block. */
class thread_block : public thread_group {
    friend thread_block this_thread_block();
    thread_block()
        : thread_group(BLOCK, 0, static_cast<unsigned>(::blockDim.x * ::blockDim.y * ::blockDim.z),
                       static_cast<unsigned>(details::me().lin))
    {
    }

  public:
    dim3 group_index() const { return ::blockIdx; }
    dim3 thread_index() const { return ::threadIdx; }
    dim3 group_dim() const { return ::blockDim; }
    dim3 dim_threads() const { return ::blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

/* Lanes of a warp acting together: the shared part of tiles and coalesced groups. */
class lane_group : public thread_group {
  protected:
    unsigned width_; /* a tile's size: the shuffle segment */
    bool tiled_;     /* consecutive lanes (a tile) rather than any subset */
    lane_group(unsigned mask, unsigned size, unsigned rank, unsigned width, bool tiled, unsigned mrank = 0,
               unsigned msize = 1)
        : thread_group(LANES, mask, size, rank, mrank, msize), width_(width), tiled_(tiled)
    {
    }
    int src_lane(unsigned rank) const
    {
        return tiled_ ? static_cast<int>(rank % width_) : static_cast<int>(details::nth_bit(mask_, rank));
    }

  public:
    template <class T> T shfl(T v, int src) const
    {
        if (tiled_)
            return details::lanes_op(gpuh_sim_impl::W_SHFL, "thread_block_tile::shfl", mask_, v, src,
                                     static_cast<int>(width_));
        return details::lanes_op(gpuh_sim_impl::W_SHFL, "coalesced_group::shfl", mask_, v,
                                 src_lane(static_cast<unsigned>(src) % size_), 32);
    }
    template <class T> T shfl_down(T v, unsigned d) const
    {
        if (tiled_)
            return details::lanes_op(gpuh_sim_impl::W_DOWN, "thread_block_tile::shfl_down", mask_, v,
                                     static_cast<int>(d), static_cast<int>(width_));
        unsigned r = rank_ + d < size_ ? rank_ + d : rank_;
        return details::lanes_op(gpuh_sim_impl::W_SHFL, "coalesced_group::shfl_down", mask_, v, src_lane(r), 32);
    }
    template <class T> T shfl_up(T v, unsigned d) const
    {
        if (tiled_)
            return details::lanes_op(gpuh_sim_impl::W_UP, "thread_block_tile::shfl_up", mask_, v,
                                     static_cast<int>(d), static_cast<int>(width_));
        unsigned r = rank_ >= d ? rank_ - d : rank_;
        return details::lanes_op(gpuh_sim_impl::W_SHFL, "coalesced_group::shfl_up", mask_, v, src_lane(r), 32);
    }
    template <class T> T shfl_xor(T v, unsigned m) const
    {
        if (tiled_)
            return details::lanes_op(gpuh_sim_impl::W_XOR, "thread_block_tile::shfl_xor", mask_, v,
                                     static_cast<int>(m), static_cast<int>(width_));
        unsigned r = (rank_ ^ m) < size_ ? rank_ ^ m : rank_;
        return details::lanes_op(gpuh_sim_impl::W_SHFL, "coalesced_group::shfl_xor", mask_, v, src_lane(r), 32);
    }
    /* Bit i: the predicate of the group's thread of rank i. */
    unsigned ballot(int p) const
    {
        unsigned all = static_cast<unsigned>(gpuh_sim_impl::warp_op(gpuh_sim_impl::W_BALLOT, "group::ballot",
                                                                    "<cooperative_groups>", 0, mask_, p != 0, 0, 32));
        unsigned out = 0, i = 0;
        for (unsigned k = 0; k < 32; ++k)
            if (mask_ >> k & 1u)
                out |= (all >> k & 1u) << i++;
        return out;
    }
    int any(int p) const { return ballot(p) != 0; }
    int all(int p) const { return ballot(p) == (size_ == 32 ? 0xffffffffu : (1u << size_) - 1u); }
    /* Ranks (as bits) of the group's threads whose v equals this thread's. */
    template <class T> unsigned match_any(T v) const
    {
        unsigned out = 0;
        for (unsigned r = 0; r < size_; ++r)
            if (shfl(v, static_cast<int>(r)) == v)
                out |= 1u << r;
        return out;
    }
    template <class T> unsigned match_all(T v, int &pred) const
    {
        unsigned m = match_any(v);
        pred = m == (size_ == 32 ? 0xffffffffu : (1u << size_) - 1u);
        return pred ? m : 0;
    }
};

/* A set of lanes picked at run time (binary_partition, labeled_partition). */
class coalesced_group : public lane_group {
  public:
    coalesced_group(unsigned mask)
        : lane_group(mask, static_cast<unsigned>(__builtin_popcount(mask)),
                     static_cast<unsigned>(__builtin_popcount(mask & ((1u << details::lane()) - 1u))), 32, false)
    {
    }
};

/* Tiles of more than 32 threads (several warps): the block's barrier stands
   for the tile's, so every tile of the block must sync (and reduce) at the
   same point, as the usual code does; shuffles are not offered (as in CUDA).
   block_tile_memory is the scratch space CUDA asks for: unused here. */
template <unsigned N> struct block_tile_memory {
    unsigned char reserved[8];
};
template <unsigned N> inline thread_block this_thread_block(block_tile_memory<N> &) { return this_thread_block(); }
namespace details {
template <unsigned N> class multi_warp_tile : public thread_group {
    static_assert(N > 32 && N <= 1024 && (N & (N - 1)) == 0, "a tile of a power of two threads, at most 1024");

  public:
    multi_warp_tile()
        : thread_group(BLOCK, 0, N, static_cast<unsigned>(me().lin) % N, static_cast<unsigned>(me().lin) / N,
                       (::blockDim.x * ::blockDim.y * ::blockDim.z + N - 1) / N)
    {
    }
    static constexpr unsigned long long size() { return N; }
    static constexpr unsigned long long num_threads() { return N; }
    /* op over the tile, in rank order: each thread leaves its value in the
       block's scratch, all meet, each combines its tile's values. */
    template <class T, class Op> T reduce(T v, Op op, const char *file, int line) const
    {
        static thread_local unsigned char scratch[1024 * 16];
        static_assert(sizeof(T) <= 16, "reduce over a multi-warp tile: values of up to 16 bytes");
        T *s = reinterpret_cast<T *>(scratch);
        const unsigned me_lin = static_cast<unsigned>(me().lin), first = me_lin / N * N;
        gpuh_sim_impl::sync_block("multi-warp tile reduce", file, line, 0); /* the scratch is free */
        s[me_lin] = v;
        gpuh_sim_impl::sync_block("multi-warp tile reduce", file, line + 1000000, 0);
        T acc = s[first];
        for (unsigned r = 1; r < N; ++r)
            acc = op(acc, s[first + r]);
        return acc;
    }
};
} /* namespace details */

/* N consecutive lanes of a warp, N a power of two up to 32; or, beyond 32,
   N consecutive threads of the block (details::multi_warp_tile). */
template <unsigned N, class Parent = void, bool Warp = (N <= 32)> class thread_block_tile;
template <unsigned N, class Parent> class thread_block_tile<N, Parent, false> : public details::multi_warp_tile<N> {
  public:
    thread_block_tile() {}
    template <class P> thread_block_tile(const thread_block_tile<N, P, false> &t) : details::multi_warp_tile<N>(t) {}
};
template <unsigned N, class Parent> class thread_block_tile<N, Parent, true> : public lane_group {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                  "gpuh simulator: a thread_block_tile of a power of two threads");

  public:
    thread_block_tile()
        : lane_group((N == 32 ? 0xffffffffu : (1u << N) - 1u) << (details::lane() / N * N), N, details::lane() % N, N,
                     true, static_cast<unsigned>(details::me().lin) / N,
                     (::blockDim.x * ::blockDim.y * ::blockDim.z + N - 1) / N)
    {
    }
    template <class P> thread_block_tile(const thread_block_tile<N, P, true> &t) : lane_group(t) {}
    static constexpr unsigned long long size() { return N; }
    static constexpr unsigned long long num_threads() { return N; }
};

template <unsigned N, class Parent> inline thread_block_tile<N, Parent> tiled_partition(const Parent &)
{
    return thread_block_tile<N, Parent>();
}

/* A tile whose size is known at run time: n a power of two up to 32. */
inline thread_group tiled_partition(const thread_group &parent, unsigned n)
{
    (void)parent;
    if (n == 0 || n > 32 || (n & (n - 1)) != 0) {
        fprintf(stderr, "gpuh simulator: tiled_partition(group, %u): only tiles of 1 to 32 threads, a power of two, "
                        "are simulated\n", n);
        abort();
    }
    const unsigned lane = details::lane();
    const unsigned mask = (n == 32 ? 0xffffffffu : (1u << n) - 1u) << (lane / n * n);
    const unsigned bsize = ::blockDim.x * ::blockDim.y * ::blockDim.z;
    return thread_group(thread_group::LANES, mask, n, lane % n, static_cast<unsigned>(details::me().lin) / n,
                        (bsize + n - 1) / n);
}

/* The lanes of tile that gave the same predicate. */
template <class G> inline coalesced_group binary_partition(const G &tile, bool pred)
{
    unsigned mask = tile.gpuh_sim_mask();
    unsigned b = static_cast<unsigned>(gpuh_sim_impl::warp_op(gpuh_sim_impl::W_BALLOT, "binary_partition",
                                                              "<cooperative_groups>", 0, mask, pred, 0, 32));
    return coalesced_group(pred ? (b & mask) : (~b & mask));
}

/* The lanes of tile that gave the same label. */
template <class G, class T> inline coalesced_group labeled_partition(const G &tile, T label)
{
    unsigned mask = tile.gpuh_sim_mask(), out = 0;
    for (unsigned k = 0; k < 32; ++k)
        if (mask >> k & 1u) {
            T v = details::lanes_op(gpuh_sim_impl::W_SHFL, "labeled_partition", mask, label, static_cast<int>(k), 32);
            if (v == label)
                out |= 1u << k;
        }
    return coalesced_group(out);
}

template <class G> inline void sync(const G &g, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    g.sync(file, line);
}

/* The whole grid. sync() is a grid-wide barrier: the kernel must have been
   launched with cudaLaunchCooperativeKernel (the simulator then runs every
   block at once); otherwise the launch fails with a message. */
class grid_group {
  public:
    unsigned long long size() const
    {
        return static_cast<unsigned long long>(::gridDim.x) * ::gridDim.y * ::gridDim.z * ::blockDim.x * ::blockDim.y *
               ::blockDim.z;
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long block_rank() const
    {
        return (static_cast<unsigned long long>(::blockIdx.z) * ::gridDim.y + ::blockIdx.y) * ::gridDim.x +
               ::blockIdx.x;
    }
    unsigned long long num_blocks() const
    {
        return static_cast<unsigned long long>(::gridDim.x) * ::gridDim.y * ::gridDim.z;
    }
    unsigned long long thread_rank() const
    {
        return block_rank() * ::blockDim.x * ::blockDim.y * ::blockDim.z +
               static_cast<unsigned long long>(details::me().lin);
    }
    bool is_valid() const { return gpuh_sim_impl::this_grid_barrier() != NULL; }
    dim3 group_dim() const { return ::gridDim; }
    dim3 dim_blocks() const { return ::gridDim; }
    dim3 block_index() const { return ::blockIdx; }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        gpuh_sim_impl::grid_sync(file, line);
    }
};
inline grid_group this_grid() { return grid_group(); }
/* The lanes of this warp that reach this call together (see gpuh_sim.h, converge). */
inline coalesced_group coalesced_threads(const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    return coalesced_group(gpuh_sim_impl::converge(file, line));
}

/* memcpy_async done at once: each thread of the group copies its share;
   wait(group) is the group's barrier, after which the data is there. */
template <class G> inline void memcpy_async(const G &g, void *dst, const void *src, size_t bytes)
{
    gpuh_sim_impl::group_copy(g, dst, src, bytes);
}
template <class G, class T> inline void memcpy_async(const G &g, T *dst, const T *src, size_t bytes)
{
    memcpy_async(g, static_cast<void *>(dst), static_cast<const void *>(src), bytes);
}
template <class G> inline void wait(const G &g, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    g.sync(file, line);
}
template <class G> inline void wait_prior(const G &g) { g.sync(); }

/* Binary operators for reduce (cooperative_groups/functional.h). */
template <class T> struct plus {
    T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less {
    T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater {
    T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
    T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
    T operator()(const T &a, const T &b) const { return a ^ b; }
};

/* reduce(g, v, op): op over the values of every thread of g, returned to all,
   combined in rank order (the same result whatever order threads run in). */
template <unsigned N, class P, class T, class Op>
inline T reduce(const thread_block_tile<N, P, false> &g, T v, Op op, const char *file = __builtin_FILE(),
                int line = __builtin_LINE())
{
    return g.reduce(v, op, file, line);
}
template <class G, class T, class Op> inline T reduce(const G &g, T v, Op op)
{
    const unsigned n = static_cast<unsigned>(g.size());
    T acc = g.shfl(v, 0);
    for (unsigned r = 1; r < n; ++r)
        acc = op(acc, g.shfl(v, static_cast<int>(r)));
    return acc;
}
/* inclusive_scan / exclusive_scan over a tile, in rank order. */
template <class G, class T, class Op> inline T inclusive_scan(const G &g, T v, Op op)
{
    const unsigned n = static_cast<unsigned>(g.size()), me = static_cast<unsigned>(g.thread_rank());
    T acc = g.shfl(v, 0);
    for (unsigned r = 1; r < n; ++r) {
        T x = g.shfl(v, static_cast<int>(r));
        if (r <= me)
            acc = op(acc, x);
    }
    return acc;
}
template <class G, class T> inline T inclusive_scan(const G &g, T v) { return inclusive_scan(g, v, plus<T>()); }
template <class G, class T, class Op> inline T exclusive_scan(const G &g, T v, Op op)
{
    T inc = inclusive_scan(g, v, op);
    T prev = g.shfl_up(inc, 1);
    return g.thread_rank() == 0 ? T() : prev;
}
template <class G, class T> inline T exclusive_scan(const G &g, T v) { return exclusive_scan(g, v, plus<T>()); }

} /* namespace cooperative_groups */

#endif /* GPUH_SIM_COOPERATIVE_GROUPS_H */
