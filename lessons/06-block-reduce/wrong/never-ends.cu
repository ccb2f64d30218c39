/* wrong: the warp step loop runs while offset >= 0, and offset / 2 stays 0 for ever */
/*
 * sync.cu - lesson 06, the corrected version: a block sum built from _sync
 * warp steps, one __syncthreads and a second warp step. Twin: legacy.cu.
 *
 * Build:  make                 (build/sync: this file's kernels and harness.cu,
 *                              the host side: input, launch, CPU reference, verdict)
 * Run:    build/sync -n 16M -j 200     odd lanes sleep 200 ns at each read of
 *                                      threadIdx and around each warp primitive
 *         build/sync -k 2              __reduce_add_sync
 *         build/sync -k 6 -n 256M      a device-wide sum of 1 GiB (device.cuh)
 * Check:  make check
 *
 * Why it is right: inside a warp, values move only through __shfl_down_sync
 * (or __reduce_add_sync) with the full mask: all 32 lanes meet inside the
 * primitive before any of them gets a partner's value, so a lane that
 * sleeps only makes the others wait. Between warps, the partials go through
 * shared memory with one __syncthreads, a real barrier; the first warp reads
 * only the partials of warps the block has, and adds 0 for the others.
 *
 * Variant 1: five __shfl_down_sync steps per warp, lane 0 holds the sum.
 * Variant 2: one __reduce_add_sync per warp (compute capability 8.0 and
 *   later; the __shfl_xor_sync butterfly before), every lane holds the sum.
 * Variants 3 to 6 (device.cuh, included at the end) read memory 16 bytes at
 * a time and combine the blocks' sums in four ways, each block summing with
 * this file's block_sum (variant 1).
 */
#include "lesson.h"

/* Lane 0 ends with the sum of v over the warp (the others: partial sums). */
__device__ int warp_sum(int v)
{
    int offset;
    for (offset = 16; offset >= 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* Every lane ends with the sum of v over the warp: one __reduce_add_sync on
 * compute capability 8.0 and later (and on warpsim, which defines it), the
 * __shfl_xor_sync butterfly on older GPUs. */
__device__ int warp_sum_all(int v)
{
#if (defined(WARPSIM) && defined(__reduce_add_sync)) || \
    (!defined(WARPSIM) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)
    return __reduce_add_sync(FULL_MASK, v);
#else
    int offset;
    for (offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
#endif
}

/* The shared memory block_sum needs: one partial per warp, 32 at most. */
#define BLOCK_SUM_SHARED 32

/*
 * The sum of v over the block, in thread 0 (the other threads get partial
 * sums). partial points at BLOCK_SUM_SHARED ints of shared memory;
 * blockDim.x is a multiple of 32, at most 1024, so there are at most 32
 * warp sums and the first warp sums them in one warp step. It holds a
 * __syncthreads, so every thread of the block must call it; two calls that
 * reuse partial need a __syncthreads between them.
 */
__device__ int block_sum(int v, int *partial, int variant)
{
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    v = variant == 2 ? warp_sum_all(v) : warp_sum(v);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    v = 0;
    if (warp == 0) {
        v = lane < nwarps ? partial[lane] : 0;
        v = variant == 2 ? warp_sum_all(v) : warp_sum(v);
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
