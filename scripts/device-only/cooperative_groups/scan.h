/* cooperative_groups/scan.h - cg::inclusive_scan and cg::exclusive_scan, for
 * scripts/device-only.py. */
#ifndef DEVICE_ONLY_CG_SCAN_H
#define DEVICE_ONLY_CG_SCAN_H
#include "../cooperative_groups.h"
namespace cooperative_groups {
template <typename G, typename T> __device__ T inclusive_scan(const G &, T);
template <typename G, typename T, typename Op> __device__ T inclusive_scan(const G &, T, Op);
template <typename G, typename T> __device__ T exclusive_scan(const G &, T);
template <typename G, typename T, typename Op> __device__ T exclusive_scan(const G &, T, Op);
}
#endif
