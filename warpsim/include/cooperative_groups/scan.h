/*
 * cooperative_groups/scan.h - cg::inclusive_scan and cg::exclusive_scan
 * over a thread_block_tile or a coalesced_group, on warpsim, as the
 * toolkit's details/coalesced_scan.h computes them: Hillis-Steele with
 * shfl_up over a tile, over the ranks of a coalesced group (each step one
 * __shfl_sync of the group's mask); op(own, earlier) at each step; the
 * exclusive scan is the inclusive one less the own value for an integral
 * plus, else the inclusive one of the rank below (T{} in rank 0).
 */
#ifndef WARPSIM_COOPERATIVE_GROUPS_SCAN_H
#define WARPSIM_COOPERATIVE_GROUPS_SCAN_H

#include "../cooperative_groups.h"

namespace cooperative_groups {
namespace details {

template <unsigned int N, class P, class T, class Op>
WS_CG_INLINE T inclusive(const thread_block_tile<N, P> &g, T val, Op op, const char *file,
                         int line)
{
    unsigned int d;
    for (d = 1; d < N; d <<= 1) {
        T t = g.shfl_up(val, d, file, line);
        if (d <= g.thread_rank())
            val = op(val, t);
    }
    return val;
}

template <class T, class Op>
WS_CG_INLINE T inclusive(const coalesced_group &g, T val, Op op, const char *file, int line)
{
    unsigned int size = g.size(), rank = g.thread_rank(), mask = access::mask(g), i;
    if (size == 32) {
        for (i = 1; i < 32; i <<= 1) {
            T t = g.shfl_up(val, (int)i, file, line);
            if (i <= rank)
                val = op(val, t);
        }
        return val;
    }
    /* each step reads the member i ranks below, or itself */
    for (i = 1; i < size; i <<= 1) {
        unsigned int src = i <= rank ? __fns(mask, 0, (int)(rank - i + 1)) : laneid();
        T t = shuffle(WS_SHFL_IDX, mask, val, (int)src, 32, file, line);
        if (i <= rank)
            val = op(val, t);
    }
    return val;
}

template <class G, class T, class Op>
WS_CG_INLINE T exclusive(const G &g, T val, Op op, const char *file, int line)
{
    T inc = inclusive(g, val, op, file, line), t;
    if (std::is_same<Op, plus<T>>::value && std::is_integral<T>::value)
        return inc - val;
    t = g.shfl_up(inc, 1, file, line);
    return g.thread_rank() == 0 ? T{} : t;
}

} /* namespace details */

template <class G, class T, class Op>
WS_CG_INLINE T inclusive_scan(const G &g, T val, Op op, WS_CG_HERE)
{
    return details::inclusive(g, val, op, file, line);
}
template <class G, class T>
WS_CG_INLINE T inclusive_scan(const G &g, T val, WS_CG_HERE)
{
    return details::inclusive(g, val, plus<T>(), file, line);
}
template <class G, class T, class Op>
WS_CG_INLINE T exclusive_scan(const G &g, T val, Op op, WS_CG_HERE)
{
    return details::exclusive(g, val, op, file, line);
}
template <class G, class T>
WS_CG_INLINE T exclusive_scan(const G &g, T val, WS_CG_HERE)
{
    return details::exclusive(g, val, plus<T>(), file, line);
}

} /* namespace cooperative_groups */

#endif /* WARPSIM_COOPERATIVE_GROUPS_SCAN_H */
