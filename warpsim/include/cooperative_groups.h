/*
 * cooperative_groups.h - CUDA's Cooperative Groups on warpsim: the part
 * the lessons use, with the semantics of the toolkit's own header
 * (cooperative_groups.h, cooperative_groups/details/partitioning.h), built
 * on warpsim's primitives so that its checks apply to groups too.
 *
 *   this_thread_block()              thread_block: sync(), thread_rank(),
 *                                    size(), num_threads(), group_index(),
 *                                    thread_index(), group_dim(), dim_threads()
 *   tiled_partition<N>(g)            thread_block_tile<N> of a thread_block
 *                                    or a larger tile, N a power of two up
 *                                    to 32: shfl, shfl_up, shfl_down,
 *                                    shfl_xor, ballot, any, all, match_any,
 *                                    match_all, sync, thread_rank, size,
 *                                    num_threads, meta_group_rank,
 *                                    meta_group_size
 *   tiled_partition(g, n)            a thread_group of n threads (sync,
 *                                    thread_rank, size; no shfl), or of a
 *                                    coalesced_group a coalesced_group
 *   coalesced_threads()              the threads here together, as
 *                                    __activemask() finds them
 *   binary_partition(g, pred), labeled_partition(g, label)
 *                                    coalesced_group of a tile or a
 *                                    coalesced_group
 *   sync(g), thread_rank(g), group_size(g)
 *   plus, less, greater, bit_and, bit_or, bit_xor
 *   reduce (cooperative_groups/reduce.h), inclusive_scan, exclusive_scan
 *   (cooperative_groups/scan.h)
 *
 * A collective of a group is the warp primitive it is on the GPU, over the
 * group's lanes: tile.shfl(v, 0) is __shfl_sync(tile's mask, v, 0, N),
 * tile.sync() __syncwarp(mask), block.sync() __syncthreads(). So a tile
 * collective that a lane of the tile does not reach is reported as missing
 * lanes, named by the primitive and the mask, at the caller's line, and a
 * group's sync orders memory for the race detector as __syncwarp and
 * __syncthreads do. As on the GPU, these calls are not lesson.h's delay
 * points. Tiles of more than 32 threads (block_tile_memory), grid groups
 * and clusters are not here.
 */
#ifndef WARPSIM_COOPERATIVE_GROUPS_H
#define WARPSIM_COOPERATIVE_GROUPS_H

#include <type_traits>
#include "warpsim.h"

#define WS_CG_INLINE inline __attribute__((always_inline))
#define WS_CG_HERE const char *file = __builtin_FILE(), int line = __builtin_LINE()

namespace cooperative_groups {

namespace details {

enum { coalesced_group_id = 1, thread_block_id = 4 };

/* The running thread's rank in its block, its lane, the block's size. */
WS_CG_INLINE unsigned int cta_rank()
{
    return ws_self->thread_idx.x +
           ws_block_dim.x * (ws_self->thread_idx.y + ws_block_dim.y * ws_self->thread_idx.z);
}
WS_CG_INLINE unsigned int cta_size()
{
    return ws_block_dim.x * ws_block_dim.y * ws_block_dim.z;
}
WS_CG_INLINE unsigned int laneid() { return cta_rank() & 31u; }
WS_CG_INLINE unsigned int lanemask_lt() { return (1u << laneid()) - 1u; }

/* A shuffle of any trivially copyable value, in 8-byte pieces (one
 * collective each) when it is larger than 8 bytes, as CUDA's header does
 * in 4-byte ones. */
template <class T>
WS_CG_INLINE T shuffle(int mode, unsigned int mask, T v, int arg, int width,
                       const char *file, int line)
{
    static_assert(__is_trivially_copyable(T), "a group shuffles trivially copyable values");
    T r;
    if (sizeof(T) <= 8) {
        uint64_t b = 0;
        __builtin_memcpy(&b, &v, sizeof v);
        b = ws_shfl_here(mode, mask, b, sizeof(T) <= 4 ? 4 : 8, arg, width, file, line);
        __builtin_memcpy(&r, &b, sizeof r);
    } else {
        unsigned char in[sizeof(T)], out[sizeof(T)];
        size_t i;
        __builtin_memcpy(in, &v, sizeof v);
        for (i = 0; i < sizeof(T); i += 8) {
            uint64_t b = 0;
            size_t n = sizeof(T) - i < 8 ? sizeof(T) - i : 8;
            __builtin_memcpy(&b, in + i, n);
            b = ws_shfl_here(mode, mask, b, 8, arg, width, file, line);
            __builtin_memcpy(out + i, &b, n);
        }
        __builtin_memcpy(&r, out, sizeof r);
    }
    return r;
}

template <class T>
WS_CG_INLINE uint64_t match_bits(T v)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "match_any takes 4- and 8-byte values");
    uint64_t b = 0;
    __builtin_memcpy(&b, &v, sizeof v);
    return b;
}

/* The lanes of laneMask as bits by their rank in mask (CUDA's _packLanes). */
WS_CG_INLINE unsigned int pack_lanes(unsigned int mask, unsigned int laneMask)
{
    unsigned int pack = 0, rank = 0, bit;
    for (bit = 0; bit < 32; bit++)
        if (mask >> bit & 1u) {
            if (laneMask >> bit & 1u)
                pack |= 1u << rank;
            rank++;
        }
    return pack;
}

struct access;

} /* namespace details */

/*
 * thread_group: any group, by value (a thread_block, or a set of lanes of
 * one warp: a tile or a coalesced group). Its calls dispatch on which.
 */
class thread_group {
protected:
    unsigned int type_;           /* details::thread_block_id or coalesced_group_id */
    unsigned int mask_;           /* coalesced: the lanes */
    unsigned int meta_rank_, meta_size_;
    bool tiled_;                  /* coalesced: a tile (contiguous lanes from the
                                     first of a power-of-two segment) */
    WS_CG_INLINE thread_group(unsigned int type, unsigned int mask, unsigned int meta_rank,
                              unsigned int meta_size, bool tiled)
        : type_(type), mask_(mask), meta_rank_(meta_rank), meta_size_(meta_size),
          tiled_(tiled) {}
    friend struct details::access;

public:
    WS_CG_INLINE unsigned long long size() const
    {
        return type_ == details::thread_block_id ? details::cta_size() : __popc(mask_);
    }
    WS_CG_INLINE unsigned long long num_threads() const { return size(); }
    WS_CG_INLINE unsigned long long thread_rank() const
    {
        return type_ == details::thread_block_id ? details::cta_rank()
                                                 : __popc(mask_ & details::lanemask_lt());
    }
    WS_CG_INLINE void sync(WS_CG_HERE) const
    {
        if (type_ == details::thread_block_id)
            ws_syncthreads(file, line);
        else
            ws_syncwarp(mask_, file, line);
    }
    WS_CG_INLINE unsigned int get_type() const { return type_; }
};

/* this_thread_block(): the block. sync() is __syncthreads(). */
class thread_block : public thread_group {
    friend thread_block this_thread_block();
    WS_CG_INLINE thread_block() : thread_group(details::thread_block_id, 0, 0, 1, false) {}

public:
    static WS_CG_INLINE void sync(WS_CG_HERE) { ws_syncthreads(file, line); }
    static WS_CG_INLINE unsigned int size() { return details::cta_size(); }
    static WS_CG_INLINE unsigned int num_threads() { return details::cta_size(); }
    static WS_CG_INLINE unsigned int thread_rank() { return details::cta_rank(); }
    static WS_CG_INLINE dim3 group_index()
    {
        return dim3(ws_self->block_idx.x, ws_self->block_idx.y, ws_self->block_idx.z);
    }
    static WS_CG_INLINE dim3 thread_index()
    {
        return dim3(ws_self->thread_idx.x, ws_self->thread_idx.y, ws_self->thread_idx.z);
    }
    static WS_CG_INLINE dim3 group_dim() { return ws_block_dim; }
    static WS_CG_INLINE dim3 dim_threads() { return ws_block_dim; }
};

WS_CG_INLINE thread_block this_thread_block() { return thread_block(); }

/* A set of lanes of one warp: coalesced_threads(), binary_partition,
 * labeled_partition, tiled_partition of one. Ranks go by lane. */
class coalesced_group : public thread_group {
    friend struct details::access;

protected:
    WS_CG_INLINE coalesced_group(unsigned int mask, unsigned int meta_rank = 0,
                                 unsigned int meta_size = 1, bool tiled = false)
        : thread_group(details::coalesced_group_id, mask, meta_rank, meta_size, tiled) {}

public:
    WS_CG_INLINE unsigned int size() const { return __popc(mask_); }
    WS_CG_INLINE unsigned int num_threads() const { return __popc(mask_); }
    WS_CG_INLINE unsigned int thread_rank() const { return __popc(mask_ & details::lanemask_lt()); }
    WS_CG_INLINE unsigned int meta_group_rank() const { return meta_rank_; }
    WS_CG_INLINE unsigned int meta_group_size() const { return meta_size_; }
    WS_CG_INLINE void sync(WS_CG_HERE) const { ws_syncwarp(mask_, file, line); }

    /* The value of the thread of rank srcRank. */
    template <class T>
    WS_CG_INLINE T shfl(T var, int srcRank, WS_CG_HERE) const
    {
        unsigned int lane = srcRank == 0 ? (unsigned int)__ffs((int)mask_) - 1u
                            : size() == 32 ? (unsigned int)srcRank
                            : __fns(mask_, 0, srcRank + 1);
        return details::shuffle(WS_SHFL_IDX, mask_, var, (int)lane, 32, file, line);
    }
    /* The value of the thread delta ranks below (above); its own where
     * there is none. */
    template <class T>
    WS_CG_INLINE T shfl_up(T var, int delta, WS_CG_HERE) const
    {
        unsigned int lane;
        if (size() == 32)
            return details::shuffle(WS_SHFL_UP, 0xffffffffu, var, delta, 32, file, line);
        lane = __fns(mask_, details::laneid(), -(delta + 1));
        if (lane >= 32)
            lane = details::laneid();
        return details::shuffle(WS_SHFL_IDX, mask_, var, (int)lane, 32, file, line);
    }
    template <class T>
    WS_CG_INLINE T shfl_down(T var, unsigned int delta, WS_CG_HERE) const
    {
        unsigned int lane;
        if (size() == 32)
            return details::shuffle(WS_SHFL_DOWN, 0xffffffffu, var, (int)delta, 32, file, line);
        lane = __fns(mask_, details::laneid(), (int)delta + 1);
        if (lane >= 32)
            lane = details::laneid();
        return details::shuffle(WS_SHFL_IDX, mask_, var, (int)lane, 32, file, line);
    }
    WS_CG_INLINE int any(int predicate, WS_CG_HERE) const
    {
        return ws_vote(WS_VOTE_BALLOT, mask_, predicate != 0, file, line) != 0;
    }
    WS_CG_INLINE int all(int predicate, WS_CG_HERE) const
    {
        return ws_vote(WS_VOTE_BALLOT, mask_, predicate != 0, file, line) == mask_;
    }
    /* Bits by rank. */
    WS_CG_INLINE unsigned int ballot(int predicate, WS_CG_HERE) const
    {
        unsigned int b = ws_vote(WS_VOTE_BALLOT, mask_, predicate != 0, file, line);
        return size() == 32 ? b : details::pack_lanes(mask_, b);
    }
    template <class T>
    WS_CG_INLINE unsigned int match_any(T val, WS_CG_HERE) const
    {
        unsigned int m = ws_match(0, mask_, details::match_bits(val), (int)sizeof val, NULL,
                                  file, line);
        return size() == 32 ? m : details::pack_lanes(mask_, m);
    }
    template <class T>
    WS_CG_INLINE unsigned int match_all(T val, int &pred, WS_CG_HERE) const
    {
        unsigned int m = ws_match(1, mask_, details::match_bits(val), (int)sizeof val, &pred,
                                  file, line);
        return size() == 32 ? m : details::pack_lanes(mask_, m);
    }
};

/* coalesced_threads(): the threads that call it together, as
 * __activemask() finds them (warpsim: the lanes that stand at this call). */
WS_CG_INLINE coalesced_group coalesced_threads(WS_CG_HERE);

/*
 * thread_block_tile<N>: N threads (a power of two up to 32) of one warp,
 * lanes (lane & ~(N-1)) to that + N - 1. Its collectives are the warp
 * primitives with that mask and width N.
 */
template <unsigned int N, class ParentT = void>
class thread_block_tile : public thread_group {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                  "warpsim: a thread_block_tile is a power of two from 1 to 32 threads "
                  "(larger tiles need block_tile_memory, which warpsim does not have)");
    friend struct details::access;

    static WS_CG_INLINE unsigned int build_mask()
    {
        return N == 32 ? 0xffffffffu : ((1u << N) - 1u) << (details::laneid() & ~(N - 1u));
    }

public:
    WS_CG_INLINE thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
        : thread_group(details::coalesced_group_id, build_mask(), meta_rank, meta_size, true) {}
    /* A tile of another parent type is the same tile. */
    template <class P>
    WS_CG_INLINE thread_block_tile(const thread_block_tile<N, P> &t)
        : thread_group(details::coalesced_group_id, build_mask(), t.meta_group_rank(),
                       t.meta_group_size(), true) {}

    static constexpr unsigned int numThreads = N;
    static WS_CG_INLINE constexpr unsigned int size() { return N; }
    static WS_CG_INLINE constexpr unsigned int num_threads() { return N; }
    static WS_CG_INLINE unsigned int thread_rank() { return details::laneid() & (N - 1u); }
    WS_CG_INLINE unsigned int meta_group_rank() const { return meta_rank_; }
    WS_CG_INLINE unsigned int meta_group_size() const { return meta_size_; }
    WS_CG_INLINE void sync(WS_CG_HERE) const { ws_syncwarp(mask_, file, line); }

    template <class T>
    WS_CG_INLINE T shfl(T var, int srcRank, WS_CG_HERE) const
    {
        return details::shuffle(WS_SHFL_IDX, mask_, var, srcRank, (int)N, file, line);
    }
    template <class T>
    WS_CG_INLINE T shfl_up(T var, unsigned int delta, WS_CG_HERE) const
    {
        return details::shuffle(WS_SHFL_UP, mask_, var, (int)delta, (int)N, file, line);
    }
    template <class T>
    WS_CG_INLINE T shfl_down(T var, unsigned int delta, WS_CG_HERE) const
    {
        return details::shuffle(WS_SHFL_DOWN, mask_, var, (int)delta, (int)N, file, line);
    }
    template <class T>
    WS_CG_INLINE T shfl_xor(T var, unsigned int laneMask, WS_CG_HERE) const
    {
        return details::shuffle(WS_SHFL_XOR, mask_, var, (int)laneMask, (int)N, file, line);
    }
    WS_CG_INLINE int any(int predicate, WS_CG_HERE) const
    {
        return ws_vote(WS_VOTE_ANY, mask_, predicate != 0, file, line) != 0;
    }
    WS_CG_INLINE int all(int predicate, WS_CG_HERE) const
    {
        return ws_vote(WS_VOTE_ALL, mask_, predicate != 0, file, line) != 0;
    }
    /* Bits by rank: bit r is the thread of rank r. */
    WS_CG_INLINE unsigned int ballot(int predicate, WS_CG_HERE) const
    {
        unsigned int b = ws_vote(WS_VOTE_BALLOT, mask_, predicate != 0, file, line);
        return N == 32 ? b : b >> (details::laneid() & ~(N - 1u));
    }
    template <class T>
    WS_CG_INLINE unsigned int match_any(T val, WS_CG_HERE) const
    {
        unsigned int m = ws_match(0, mask_, details::match_bits(val), (int)sizeof val, NULL,
                                  file, line);
        return N == 32 ? m : m >> (details::laneid() & ~(N - 1u));
    }
    template <class T>
    WS_CG_INLINE unsigned int match_all(T val, int &pred, WS_CG_HERE) const
    {
        unsigned int m = ws_match(1, mask_, details::match_bits(val), (int)sizeof val, &pred,
                                  file, line);
        return N == 32 ? m : m >> (details::laneid() & ~(N - 1u));
    }
};

namespace details {

/* What the partitions below reach inside the groups. */
struct access {
    static WS_CG_INLINE unsigned int mask(const thread_group &g) { return g.mask_; }
    static WS_CG_INLINE bool tiled(const thread_group &g) { return g.tiled_; }
    static WS_CG_INLINE unsigned int type(const thread_group &g) { return g.type_; }
    static WS_CG_INLINE coalesced_group coalesced(unsigned int mask, unsigned int meta_rank,
                                                  unsigned int meta_size, bool tiled)
    {
        return coalesced_group(mask, meta_rank, meta_size, tiled);
    }
    static WS_CG_INLINE thread_group group(const coalesced_group &c) { return c; }
};

/* A tile of n threads of a block, as CUDA's thread_block::_get_tiled_threads. */
WS_CG_INLINE coalesced_group block_tile(unsigned int n)
{
    unsigned int base = cta_rank() & ~(n - 1u), len = cta_size() - base < n ? cta_size() - base : n;
    unsigned int mask = (0xffffffffu >> (32 - len)) << (laneid() & ~(n - 1u));
    return access::coalesced(mask, cta_rank() / n, (cta_size() + n - 1u) / n, true);
}

/* The same of a coalesced group (CUDA's coalesced_group::_get_tiled_threads). */
WS_CG_INLINE coalesced_group coalesced_tile(const coalesced_group &g, unsigned int n)
{
    unsigned int gmask = access::mask(g), size = __popc(gmask), rank = g.thread_rank();
    unsigned int mask = 0, taken = 0, bit;
    int seen;
    if (size <= n)
        return g;
    if (access::tiled(g)) {
        unsigned int base = rank & ~(n - 1u), len = size - base < n ? size - base : n;
        mask = (0xffffffffu >> (32 - len)) << (laneid() & ~(n - 1u));
        return access::coalesced(mask, rank / n, size / n, true);
    }
    seen = (int)(rank / n * n);
    for (bit = 0; bit < 32; bit++)
        if (gmask >> bit & 1u) {
            if (seen <= 0 && taken < n) {
                mask |= 1u << bit;
                taken++;
            }
            seen--;
        }
    return access::coalesced(mask, rank / n, (size + n - 1u) / n, false);
}

WS_CG_INLINE void check_tile_size(unsigned int n, const char *file, int line)
{
    if (n == 0 || n > 32 || (n & (n - 1u)))
        ws_device_error("tiled_partition(g, n) with n not a power of two from 1 to 32 "
                        "(cooperative groups aborts the kernel)", file, line);
}

WS_CG_INLINE coalesced_group binary(unsigned int mask, bool pred, const char *file, int line)
{
    unsigned int set = ws_vote(WS_VOTE_BALLOT, mask, pred, file, line);
    if (set == mask || set == 0)
        return access::coalesced(mask, 0, 1, false);
    return access::coalesced(mask & (pred ? set : ~set), pred, 2, false);
}

template <class T>
WS_CG_INLINE coalesced_group labeled(unsigned int mask, T label, const char *file, int line)
{
    static_assert(std::is_integral<T>::value || std::is_pointer<T>::value,
                  "labeled_partition's label is an integral or pointer type");
    unsigned long long v = (unsigned long long)label;
    unsigned int sub = ws_match(0, mask, v, 8, NULL, file, line);
    unsigned int leader = (unsigned int)__ffs((int)sub) - 1u;
    unsigned int leaders = ws_vote(WS_VOTE_BALLOT, mask, leader == laneid(), file, line);
    return access::coalesced(sub, __popc(leaders & ((1u << leader) - 1u)), __popc(leaders), false);
}

} /* namespace details */

WS_CG_INLINE coalesced_group coalesced_threads(const char *file, int line)
{
    return details::access::coalesced(ws_activemask(file, line), 0, 1, false);
}

/* tiled_partition(g, n): a group of n threads (a power of two up to 32). */
WS_CG_INLINE thread_group tiled_partition(const thread_block &parent, unsigned int n, WS_CG_HERE)
{
    (void)parent;
    details::check_tile_size(n, file, line);
    return details::access::group(details::block_tile(n));
}
WS_CG_INLINE coalesced_group tiled_partition(const coalesced_group &parent, unsigned int n,
                                             WS_CG_HERE)
{
    details::check_tile_size(n, file, line);
    return details::coalesced_tile(parent, n);
}
WS_CG_INLINE thread_group tiled_partition(const thread_group &parent, unsigned int n, WS_CG_HERE)
{
    details::check_tile_size(n, file, line);
    if (details::access::type(parent) == details::thread_block_id)
        return details::access::group(details::block_tile(n));
    return details::access::group(details::coalesced_tile(
        details::access::coalesced(details::access::mask(parent), 0, 1,
                                   details::access::tiled(parent)), n));
}

/* tiled_partition<N>(g): a thread_block_tile<N> of a block or a tile. */
template <unsigned int N>
WS_CG_INLINE thread_block_tile<N> tiled_partition(const thread_block &parent)
{
    (void)parent;
    return thread_block_tile<N>(details::cta_rank() / N, (details::cta_size() + N - 1u) / N);
}
template <unsigned int N, unsigned int M, class P>
WS_CG_INLINE thread_block_tile<N> tiled_partition(const thread_block_tile<M, P> &parent)
{
    static_assert(N <= M, "a tile's tiles are no larger than it");
    return thread_block_tile<N>(parent.thread_rank() / N, M / N);
}

/* binary_partition(g, pred): the threads of g whose pred is the same as
 * this thread's (a ballot of g). */
WS_CG_INLINE coalesced_group binary_partition(const coalesced_group &g, bool pred, WS_CG_HERE)
{
    return details::binary(details::access::mask(g), pred, file, line);
}
template <unsigned int N, class P>
WS_CG_INLINE coalesced_group binary_partition(const thread_block_tile<N, P> &g, bool pred,
                                              WS_CG_HERE)
{
    return details::binary(details::access::mask(g), pred, file, line);
}

/* labeled_partition(g, label): the threads of g with this thread's label
 * (__match_any_sync, then a ballot of the leaders for the meta ranks). */
template <class T>
WS_CG_INLINE coalesced_group labeled_partition(const coalesced_group &g, T label, WS_CG_HERE)
{
    return details::labeled(details::access::mask(g), label, file, line);
}
template <class T, unsigned int N, class P>
WS_CG_INLINE coalesced_group labeled_partition(const thread_block_tile<N, P> &g, T label,
                                               WS_CG_HERE)
{
    return details::labeled(details::access::mask(g), label, file, line);
}

template <class G>
WS_CG_INLINE void sync(const G &g, WS_CG_HERE) { g.sync(file, line); }
template <class G>
WS_CG_INLINE unsigned long long thread_rank(const G &g) { return g.thread_rank(); }
template <class G>
WS_CG_INLINE unsigned long long group_size(const G &g) { return g.size(); }

/* The operators of reduce and the scans (details/functional.h). */
template <class T> struct plus {
    WS_CG_INLINE T operator()(T a, T b) const { return a + b; }
};
template <class T> struct less {
    WS_CG_INLINE T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T> struct greater {
    WS_CG_INLINE T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    WS_CG_INLINE T operator()(T a, T b) const { return a & b; }
};
template <class T> struct bit_or {
    WS_CG_INLINE T operator()(T a, T b) const { return a | b; }
};
template <class T> struct bit_xor {
    WS_CG_INLINE T operator()(T a, T b) const { return a ^ b; }
};

} /* namespace cooperative_groups */

#endif /* WARPSIM_COOPERATIVE_GROUPS_H */
