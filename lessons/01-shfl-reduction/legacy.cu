/*
 * legacy.cu - lesson 01, the legacy version: warp and block sums through
 * volatile shared memory with no warp synchronization, the way pre-CUDA-9
 * code and many tutorials wrote them. Twin: sync.cu.
 *
 * Build:  make           (build/legacy: this file's kernels and harness.cu,
 *                        the host side: input, launch, CPU reference, verdict)
 * Run:    build/legacy -n 1M          usually right on a current GPU: luck
 *         build/legacy -n 1M -j 200   odd lanes sleep 200 ns at each read of
 *                                     threadIdx and around each warp primitive
 *         build/legacy -k shfl -j 200 the mask-less __shfl_down
 * Check:  make check
 *
 * Why it breaks: the code assumes the 32 lanes of a warp run in lockstep, so
 * that every lane has finished step k before any lane reads in step k+1.
 * `volatile` only makes each access go to memory; it orders nothing between
 * lanes. Since Volta, independent thread scheduling lets a lane run ahead of
 * the others, and then lane 0 reads s[1] before lane 1 has added s[3] to it.
 * On a current GPU the compiler and the hardware usually keep the warp
 * together, so the sums come out right by luck; a 200 ns sleep in the odd
 * lanes (an order the hardware is allowed to pick) makes every warp wrong.
 *
 * Variant 1 is the tree of the single-warp reduction idiom, used twice:
 * once per warp, then by the first warp over the warps' sums. Variant 2 is
 * the same two-level sum with the mask-less __shfl_down of CUDA 8: the real
 * one where the kernels are built below compute capability 7.0 (make pascal:
 * compute_60 PTX, which opts into pre-Volta scheduling even on a new GPU).
 * From 7.0 on that call is unavailable, and the macro is the common, wrong
 * port of it, __shfl_down_sync(__activemask(), ...), which trusts whoever
 * is active. Both variants were right on the pre-Volta path, as on Pascal:
 * observed, never promised. --path tells which path a build runs.
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
    if (lane < 1) s[lane] += s[lane + 1];
    return s[0];
}

/*
 * Variant 2: the shuffle reduction as CUDA 8 wrote it, with the mask-less
 * __shfl_down. LEGACY_SHFL_DOWN (lesson.h) is the real __shfl_down where the
 * kernels are built below compute capability 7.0 (make pascal); from 7.0
 * on, where __shfl_down is unavailable, it is the port commonly made of it,
 * and a wrong one: __shfl_down_sync(__activemask(), v, offset), whoever
 * happens to be here. Every lane assumes the other 31 are in each
 * step with it. Lane 0 gets the sum.
 */
__device__ int warp_sum_shfl(int v)
{
    int offset;
    for (offset = 16; offset > 0; offset /= 2)
        v += LEGACY_SHFL_DOWN(v, offset);
    return v;
}

/* One element per thread: warp_sums[w] for each warp, block_sums[b] for
 * each block. blockDim.x is a multiple of 32. */
__global__ void block_sum(const int *in, long long n, int *warp_sums,
                          int *block_sums, int variant)
{
    __shared__ int r[1024];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    int v = i < n ? in[i] : 0;
    int s;
    if (variant == 2) {
        s = warp_sum_shfl(v);
        if (lane == 0)
            r[warp * 32] = s;
    } else {
        s = warp_sum(&r[warp * 32], v);
    }
    if (lane == 0)
        warp_sums[i / 32] = s;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? r[lane * 32] : 0;
        s = variant == 2 ? warp_sum_shfl(v) : warp_sum(r, v);
        if (lane == 0)
            block_sums[blockIdx.x] = s;
    }
}
