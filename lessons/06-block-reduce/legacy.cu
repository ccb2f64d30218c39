/*
 * legacy.cu - lesson 06, the legacy version: the block reduction as pre-CUDA-9
 * code and many tutorials wrote it. Each warp sums its 32 values through
 * volatile shared memory with no warp synchronization; one __syncthreads;
 * then the first warp sums the warps' sums the same way. Twin: sync.cu.
 *
 * Build:  make                 (build/legacy: this file's kernels and harness.cu,
 *                              the host side: input, launch, CPU reference, verdict)
 * Run:    build/legacy -n 16M          usually right on a current GPU: luck
 *         build/legacy -n 16M -j 200   odd lanes sleep 200 ns at each read of
 *                                      threadIdx and around each warp primitive
 *         build/legacy -k 2 -j 200     the second form: no ifs, zero padding
 * Check:  make check
 *
 * Why it breaks: the warp steps assume the 32 lanes run in lockstep, so that
 * every lane has finished step k before any lane reads in step k+1.
 * `volatile` only makes each access go to memory; it orders nothing between
 * lanes. Since Volta, independent thread scheduling lets a lane run ahead,
 * and then lane 0 reads s[1] before lane 1 has added s[3] to it. The
 * __syncthreads between the two levels is a real barrier and is not the bug.
 * On a current GPU the sums usually come out right by luck; a 200 ns sleep
 * in the odd lanes (an order the hardware is allowed to pick) makes the
 * warps' sums, and so the blocks' sums, wrong.
 *
 * Variant 1 is the single-warp reduction idiom, used twice: once per warp,
 * then by the first warp over the warps' sums. Variant 2 is the same
 * source's second form: no `if`s, every lane runs every step, and each
 * warp's 32 slots are followed by 16 zeros so that lanes 16-31 read
 * something harmless. It saves the comparisons and changes nothing else:
 * it relies on lockstep just the same (lanes 16-31 now also write slots
 * that lanes 0-15 read). Variants 3 to 6 (device.cuh, included at the end)
 * use this file's block_sum (variant 1): they are wrong the same way.
 */
#include "lesson.h"

/*
 * The sum of v over the warp, through s[0..31], this warp's slots in shared
 * memory. Every lane gets s[0], which it assumes holds the sum by now.
 */
__device__ int warp_sum(volatile int *s, int v)
{
    int lane = LANE();
    s[lane] = v;
    if (lane < 16) s[lane] += s[lane + 16];
    if (lane < 8) s[lane] += s[lane + 8];
    if (lane < 4) s[lane] += s[lane + 4];
    if (lane < 2) s[lane] += s[lane + 2];
    if (lane == 0) s[lane] += s[lane + 1];
    return s[0];
}

/*
 * The second form: s[0..47], 32 slots and 16 zeros after them. Every lane
 * runs every step: lanes past the tree add sums nobody needs into slots that
 * others read (lane 12 reads s[16] in step 3); in lockstep none reaches s[0].
 */
__device__ int warp_sum_padded(volatile int *s, int v)
{
    int lane = LANE();
    s[lane] = v;
    if (lane < 16) s[32 + lane] = 0;
    s[lane] += s[lane + 16];
    s[lane] += s[lane + 8];
    s[lane] += s[lane + 4];
    s[lane] += s[lane + 2];
    s[lane] += s[lane + 1];
    return s[0];
}

/* The shared memory block_sum needs: 32 slots and 16 zeros per warp. */
#define BLOCK_SUM_SHARED (32 * 48)

/*
 * The sum of v over the block, in thread 0. Each warp sums in its own slots
 * of r (32 apart, or 48 for variant 2); after the barrier the first warp
 * gathers the warps' sums (slot 0 of each warp's slots) and sums them.
 */
__device__ int block_sum(int v, int *r, int variant)
{
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    int slots = variant == 2 ? 48 : 32;
    if (variant == 2)
        warp_sum_padded(&r[warp * slots], v);
    else
        warp_sum(&r[warp * slots], v);
    __syncthreads();
    v = 0;
    if (warp == 0) {
        v = lane < nwarps ? r[lane * slots] : 0;
        v = variant == 2 ? warp_sum_padded(r, v) : warp_sum(r, v);
    }
    return v;
}

/* Variants 1 and 2, and the second pass of variants 1 to 3: out[b] is the
 * sum of block b's grid-stride share of in[0..n). */
__global__ void block_reduce(const int *in, long long n, int *out, int variant)
{
    __shared__ int shared[BLOCK_SUM_SHARED];
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int sum = 0;
    for (; i < n; i += stride)
        sum += in[i];
    sum = block_sum(sum, shared, variant);
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

/* Variants 3 to 6: the device-wide kernels, on this file's block_sum. */
#include "device.cuh"
