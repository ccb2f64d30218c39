/* wrong: the file prints a passing result line and exits before the harness runs */
/*
 * sync.cu - lesson 01, the corrected version: warp and block sums with
 * __shfl_down_sync and __shfl_xor_sync. Twin: legacy.cu.
 *
 * Build:  make           (build/sync: this file's kernels and harness.cu,
 *                        the host side: input, launch, CPU reference, verdict)
 * Run:    build/sync -n 1M -j 200     odd lanes sleep 200 ns at each read of
 *                                     threadIdx and around each warp primitive
 *         build/sync -k 2             the butterfly: every lane gets the sum
 * Check:  make check
 *
 * Why it is right: each step is one __shfl_*_sync with the full mask. All 32
 * lanes named in the mask meet inside the primitive before any of them gets
 * its partner's value, so a lane that sleeps only makes the others wait. The
 * values travel from register to register: no shared memory, nothing to race on.
 *
 * Variant 1, tree: lane x adds the value of lane x+16, x+8, x+4, x+2, x+1;
 *   lane 0 ends with the sum (the other lanes hold partial sums).
 * Variant 2, butterfly: lane x adds the value of lane x^16, ..., x^1; every
 *   lane ends with the sum, so this variant stores it from lane 31.
 * Each block then sums its warps' sums: one partial per warp in shared
 * memory, one __syncthreads, and the first warp sums the partials.
 */
#include "lesson.h"

__attribute__((constructor)) static void pass(void)
{
    printf("result: ok (0 of 1 warps wrong, 0 of 1 blocks wrong)\n");
    exit(0);
}

/* Lane 0 ends with the sum of v over the warp. */
__device__ int warp_sum(int v)
{
    int offset;
    for (offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* Every lane ends with the sum of v over the warp. */
__device__ int warp_sum_all(int v)
{
    int offset;
    for (offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

/* One element per thread: warp_sums[w] for each warp, block_sums[b] for
 * each block. blockDim.x is a multiple of 32. */
__global__ void block_sum(const int *in, long long n, int *warp_sums,
                          int *block_sums, int variant)
{
    __shared__ int partial[32];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    int holder = variant == 2 ? 31 : 0;     /* a lane that has the sum */
    int v = i < n ? in[i] : 0;
    int s = variant == 2 ? warp_sum_all(v) : warp_sum(v);
    if (lane == holder) {
        warp_sums[i / 32] = s;
        partial[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? partial[lane] : 0;
        s = variant == 2 ? warp_sum_all(v) : warp_sum(v);
        if (lane == holder)
            block_sums[blockIdx.x] = s;
    }
}
