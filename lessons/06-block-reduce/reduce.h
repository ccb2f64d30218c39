/*
 * reduce.h - lesson 06's host helpers, shared by harness.cu (the lesson
 * programs and build/verify) and by the GPU-only programs (cg.cu,
 * cub_ref.cu, bench.cu): the CPU reference, the grid sizes, and the
 * launches of the lesson file's kernels for each variant. Host code only.
 *
 * The kernels a lesson file defines (legacy.cu, sync.cu, mine.cu: the
 * lesson's own block_reduce, and device.cuh's device-wide kernels, which
 * every lesson file includes):
 *
 *   __global__ void block_reduce(const int *in, long long n, int *out,
 *                                int variant);
 *       out[b] = the sum of block b's grid-stride share of in[0..n):
 *       in[i] for i = b * blockDim.x + t + k * gridDim.x * blockDim.x.
 *       variant 1 or 2 chooses the file's block sum.
 *   __global__ void device_reduce_uU_nc(const int *in, long long n,
 *                                       int finish, int *partials,
 *                                       unsigned *count, int *out);
 *       for U = 1, 2, 4, 8, 16 loads in flight: variants 3 to 6 (finish),
 *       see device.cuh.
 */
#ifndef REDUCE_H
#define REDUCE_H

#include "lesson.h"

/* The block partials live in one buffer of MAX_BLOCKS ints. */
#define MAX_BLOCKS 65536

/* The exact sum of in[0..n), in 64 bits. */
static inline long long cpu_sum(const int *in, long long n)
{
    long long i, sum = 0;
    for (i = 0; i < n; i++)
        sum += in[i];
    return sum;
}

/*
 * What a 32-bit sum of the same ints must be: the 64-bit sum modulo 2^32.
 * When the 64-bit sum fits in an int (always with the default values) this
 * is the sum itself. When partial sums overflow (-m 1G), the GPU's 32-bit
 * additions wrap around, and every order of the additions ends at this value.
 */
static inline int int32_of(long long sum)
{
    return (int)(uint32_t)(uint64_t)sum;
}

/* Blocks of `threads` threads for `work` items: enough for one item per
 * thread, at most max_blocks, at least 1. */
static inline long long grid_for(long long work, long long threads, long long max_blocks)
{
    long long blocks = (work + threads - 1) / threads;
    if (blocks > max_blocks)
        blocks = max_blocks;
    return blocks < 1 ? 1 : blocks;
}

/* The blocks of the main launch of variant (1 to 6) for n ints. */
static inline long long blocks_for(int variant, long long n, long long threads,
                                   long long max_blocks)
{
    return grid_for(variant <= 2 ? n : n / 4, threads, max_blocks);
}

/*
 * Prints the expected and the computed sum, then the result line; returns
 * the exit status (lesson_result). what names the run in the result line.
 */
static inline int report_sum(int got, long long want64, const char *what)
{
    int want = int32_of(want64);
    int fits = want64 == (long long)want;
    if (fits)
        printf("sum: expected %d (the 64-bit CPU sum) got %d\n", want, got);
    else
        printf("sum: expected %d (the 64-bit CPU sum %lld modulo 2^32) got %d\n",
               want, want64, got);
    return lesson_result(got == want, "%s: got %d, the 64-bit CPU sum%s is %d",
                         what, got, fits ? "" : " modulo 2^32", want);
}

#if !defined(LESSON_VERIFY)
__global__ void block_reduce(const int *in, long long n, int *out, int variant);
#define DEVICE_REDUCE_DECLARE(unroll)                                         \
    __global__ void device_reduce_u##unroll##_nc(const int *in, long long n,  \
        int finish, int *partials, unsigned *count, int *out);
DEVICE_REDUCE_DECLARE(1)
DEVICE_REDUCE_DECLARE(2)
DEVICE_REDUCE_DECLARE(4)
DEVICE_REDUCE_DECLARE(8)
DEVICE_REDUCE_DECLARE(16)

/* A device-wide kernel, as device.cuh's DEVICE_REDUCE_KERNEL defines them. */
typedef void (*device_kernel)(const int *, long long, int, int *, unsigned *, int *);

/* The plain-load kernel with `unroll` loads in flight; exits 2 for an
 * unroll other than 1, 2, 4, 8 or 16. */
static inline device_kernel device_kernel_nc(int unroll)
{
    switch (unroll) {
    case 1: return device_reduce_u1_nc;
    case 2: return device_reduce_u2_nc;
    case 4: return device_reduce_u4_nc;
    case 8: return device_reduce_u8_nc;
    case 16: return device_reduce_u16_nc;
    default:
        lesson_fail(LESSON_USAGE, "--unroll must be 1, 2, 4, 8 or 16 (got %d)", unroll);
    }
    return 0;
}

/*
 * Runs device-wide variant 3, 4, 5 or 6 on in[0..n) with `kernel`, one of
 * the device_reduce kernels, in `blocks` blocks of `threads`: *out zeroed
 * first for 4, the second launch over the partials for 3. The sum lands in
 * *out (asynchronously). partials holds at least `blocks` ints.
 */
static inline void device_reduce_run(device_kernel kernel, int variant, const int *in,
                                     long long n, int *partials, unsigned *count,
                                     int *out, long long blocks, int threads)
{
    /* A static, because warpsim's LAUNCH records the kernel to call. */
    static device_kernel run;
    run = kernel;
    if (variant == 4)              /* one atomicAdd per block into *out */
        CUDA_CHECK(cudaMemset(out, 0, sizeof(int)));
    LAUNCH(run, (unsigned)blocks, (unsigned)threads, 0,
           in, n, variant, partials, count, out);
    if (variant == 3)              /* a second launch sums the partials */
        LAUNCH(block_reduce, 1u, (unsigned)threads, 0,
               (const int *)partials, blocks, out, 1);
}

/*
 * Runs variant on in[0..n) and leaves the sum in *out (asynchronously);
 * variants 1 to 3 leave the blocks' sums of the main launch in partials
 * (MAX_BLOCKS ints). *count is 0; threads is a multiple of 32 up to 1024;
 * unroll is 1, 2, 4, 8 or 16 (variants 3 to 6). Returns the number of
 * blocks of the main launch.
 */
static inline long long reduce_run(int variant, const int *in, long long n,
                                   int *partials, unsigned *count, int *out,
                                   long long max_blocks, int threads, int unroll)
{
    long long blocks = blocks_for(variant, n, threads, max_blocks);
    switch (variant) {
    case 1:
    case 2:
        LAUNCH(block_reduce, (unsigned)blocks, (unsigned)threads, 0,
               in, n, partials, variant);
        LAUNCH(block_reduce, 1u, (unsigned)threads, 0,
               (const int *)partials, blocks, out, variant);
        return blocks;
    case 3:
    case 4:
    case 5:
    case 6:
        device_reduce_run(device_kernel_nc(unroll), variant, in, n, partials, count,
                          out, blocks, threads);
        return blocks;
    default:
        lesson_fail(LESSON_USAGE, "there is no variant %d", variant);
    }
    return 0;
}
#endif /* !LESSON_VERIFY */

#endif /* REDUCE_H */
