/*
 * 01-no-syncthreads-cxx.cu - 01-sync-cxx.cu with lesson 01's wrong fix
 * wrong/no-syncthreads.cu: the __syncthreads between writing the warps'
 * partial sums and reading them is left out. Its C-style twin fails the
 * check; so must this file.
 */
#include "lesson.h"

namespace sums {

constexpr unsigned all_lanes = 0xffffffffu;

/* Lane 0 (tree) or every lane (butterfly) ends with the warp's sum. */
template <bool Butterfly>
__device__ int warp_sum(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += Butterfly ? __shfl_xor_sync(all_lanes, v, offset)
                       : __shfl_down_sync(all_lanes, v, offset);
    return v;
}

__device__ inline int warp_sum(int v, bool butterfly)
{
    return butterfly ? warp_sum<true>(v) : warp_sum<false>(v);
}

/* The lane that holds the sum: an overload for a variant number. */
__device__ inline int holder(bool butterfly) { return butterfly ? 31 : 0; }
__device__ inline int holder(int variant) { return holder(variant == 2); }

__device__ void store(int &slot, int value) { slot = value; }

} /* namespace sums */

__global__ void block_sum(const int *in, long long n, int *warp_sums,
                          int *block_sums, int variant)
{
    __shared__ int partial[32];
    const auto i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = LANE(), warp = WARP_IN_BLOCK();
    const int nwarps = min((int)(blockDim.x / 32), 32);
    const bool butterfly = variant == 2;
    int v = i < n ? in[i] : 0;
    int s = sums::warp_sum(v, butterfly);
    if (lane == sums::holder(variant)) {
        sums::store(warp_sums[i / 32], s);
        sums::store(partial[warp], s);
    }
    if (warp == 0) {
        v = lane < nwarps ? partial[lane] : 0;
        s = sums::warp_sum(v, butterfly);
        if (lane == sums::holder(variant))
            block_sums[blockIdx.x] = s;
    }
}
