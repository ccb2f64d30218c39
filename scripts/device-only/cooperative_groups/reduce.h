/* cooperative_groups/reduce.h - cg::reduce, for scripts/device-only.py. */
#ifndef DEVICE_ONLY_CG_REDUCE_H
#define DEVICE_ONLY_CG_REDUCE_H
#include "../cooperative_groups.h"
namespace cooperative_groups {
template <typename G, typename T, typename Op> __device__ T reduce(const G &, T, Op);
}
#endif
