/*
 * cooperative_groups/reduce.h - cg::reduce over a thread_block_tile or a
 * coalesced_group, on warpsim, as the toolkit's details/reduce.h computes
 * it on compute capability 8.0 and newer: an integral value of at most 4
 * bytes with plus, less, greater, bit_and, bit_or or bit_xor, over a tile
 * of 16 or 32 threads or a coalesced group, is one __reduce_*_sync of the
 * group's mask; otherwise a tile takes log2(N) shfl_xor steps, a full
 * coalesced group the same, and a partial one an inclusive scan of its
 * ranks (cooperative_groups/scan.h) whose last member's result every
 * member reads. Every member gets the result.
 */
#ifndef WARPSIM_COOPERATIVE_GROUPS_REDUCE_H
#define WARPSIM_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"
#include "scan.h"

namespace cooperative_groups {
namespace details {

/* WS_RED_* of an operator on T, or -1 when __reduce_*_sync has none. */
template <class Op, class T> struct redux_op { static constexpr int op = -1; };
template <class T> struct redux_op<plus<T>, T> { static constexpr int op = WS_RED_ADD; };
template <class T> struct redux_op<less<T>, T> { static constexpr int op = WS_RED_MIN; };
template <class T> struct redux_op<greater<T>, T> { static constexpr int op = WS_RED_MAX; };
template <class T> struct redux_op<bit_and<T>, T> { static constexpr int op = WS_RED_AND; };
template <class T> struct redux_op<bit_or<T>, T> { static constexpr int op = WS_RED_OR; };
template <class T> struct redux_op<bit_xor<T>, T> { static constexpr int op = WS_RED_XOR; };
template <class Op, class T>
constexpr int redux_of() { return std::is_integral<T>::value && sizeof(T) <= 4 ? redux_op<Op, T>::op : -1; }

template <class T>
WS_CG_INLINE T redux(int op, unsigned int mask, T val, const char *file, int line)
{
    int sgn = (T)-1 < (T)0;
    return (T)ws_reduce(op, sgn, mask, sgn ? (unsigned int)(int)val : (unsigned int)val, file, line);
}

template <unsigned int N, class P, class T, class Op>
WS_CG_INLINE T reduce(const thread_block_tile<N, P> &g, T val, Op op, const char *file, int line)
{
    unsigned int d;
    if constexpr (N >= 16 && redux_of<Op, T>() >= 0)
        return redux(redux_of<Op, T>(), access::mask(g), val, file, line);
    for (d = N >> 1; d > 0; d >>= 1)
        val = op(val, g.shfl_xor(val, d, file, line));
    return val;
}

template <class T, class Op>
WS_CG_INLINE T reduce(const coalesced_group &g, T val, Op op, const char *file, int line)
{
    unsigned int mask = access::mask(g), d;
    if constexpr (redux_of<Op, T>() >= 0)
        return redux(redux_of<Op, T>(), mask, val, file, line);
    if (g.size() == 32) {
        for (d = 16; d > 0; d >>= 1)
            val = op(val, shuffle(WS_SHFL_XOR, mask, val, (int)d, 32, file, line));
        return val;
    }
    val = inclusive(g, val, op, file, line);
    return shuffle(WS_SHFL_IDX, mask, val, 31 - __clz((int)mask), 32, file, line);
}

} /* namespace details */

template <class G, class T, class Op>
WS_CG_INLINE T reduce(const G &g, T val, Op op, WS_CG_HERE)
{
    return details::reduce(g, val, op, file, line);
}

} /* namespace cooperative_groups */

#endif /* WARPSIM_COOPERATIVE_GROUPS_REDUCE_H */
