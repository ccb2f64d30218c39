/*
 * sync.cu - lesson 06, the corrected version: block and device-wide sums
 * built from _sync warp steps, from a plain block reduction up to a kernel
 * meant to read memory as fast as cub::DeviceReduce::Sum. Twin: legacy.cu.
 *
 * Build:  make                  (nvcc -I../../include sync.cu -o build/sync)
 * Run:    build/sync -n 16M -j 200     odd lanes sleep 200 ns before each step
 *         build/sync -k 5 -n 256M      the one-launch device-wide sum, 1 GiB
 * Check:  make check                   every variant, sizes 1 .. 2^28
 * Bench:  make bench                   every variant against CUB (bench.cu)
 *
 * Why it is right: inside a warp, values move only through __shfl_down_sync
 * (or __reduce_add_sync) with the full mask, so no lane can read a partner's
 * value before the partner has produced it. Between warps, the partials go
 * through shared memory with one __syncthreads, a real barrier. Between the
 * blocks of one launch, a block's sum reaches the last block through global
 * memory, ordered by __threadfence and an atomic ticket, as in the CUDA
 * Programming Guide's __threadfence example; or through a second launch.
 *
 * Every variant leaves the sum of the n ints in *out as an int. main
 * compares it with the 64-bit CPU sum modulo 2^32: the same number whenever
 * the sum fits in an int (always with the default values), and what the
 * GPU's wrapping 32-bit adds give when it does not (-m 1G).
 *
 * Variant 1, block (two passes): each thread adds a grid-stride share of the
 *   input one int at a time; each warp sums its threads with five
 *   __shfl_down_sync steps; lane 0 of each warp stores the warp's sum in
 *   shared memory; one __syncthreads; the first warp sums those partials.
 *   One partial per block goes to global memory, and a second launch (one
 *   block) sums the partials. Any block size that is a multiple of 32 up to
 *   1024, any n.                                     build/sync -k 1 -b 96
 * Variant 2, the same with __reduce_add_sync: one instruction sums a warp on
 *   compute capability 8.0 and later. Older GPUs (and a warpsim without it)
 *   fall back to the __shfl_xor_sync butterfly, which also leaves the sum in
 *   every lane.                                      build/sync -k 2
 * Variants 3, 4, 5, device-wide: the loads are what costs, so each thread
 *   reads 16 bytes at a time (four ints in one load instruction) and issues
 *   -u of those loads before it adds any, so that several are in flight; the
 *   grid is sized to the GPU (-g blocks), not to n; the last n % 4 ints go
 *   to the first threads. Then the block sum of variant 1. They differ only
 *   in how the blocks' sums are combined:
 *   3: one partial per block, then a second launch sums them.
 *                                                    build/sync -k 3 -n 256M
 *   4: one atomicAdd per block into *out (zeroed first, by a cudaMemset).
 *                                                    build/sync -k 4 -n 256M
 *   5: one launch: each block stores its partial, fences, and takes a ticket
 *   with atomicInc; the block that draws the last ticket sums the partials.
 *                                                    build/sync -k 5 -n 256M
 *
 * cg.cu, cub_ref.cu and bench.cu include this file (LESSON_AS_LIBRARY) for
 * its kernels, launcher and CPU reference.
 */
#include "lesson.h"

/* ---- sizes and CPU reference --------------------------------------- */

/* The block partials live in one buffer of MAX_BLOCKS ints. */
#define MAX_BLOCKS 65536

/* The exact sum of in[0..n), in 64 bits. */
static long long cpu_sum(const int *in, long long n)
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
static int int32_of(long long sum)
{
    return (int)(uint32_t)(uint64_t)sum;
}

/*
 * Prints the expected and the computed sum, then the result line; returns
 * the exit status (lesson_result). what names the run in the result line.
 * (inline: bench.cu includes this file and has no use for it.)
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

/* ==== the lesson ===================================================== */

/* Lane 0 ends with the sum of v over the warp (the others: partial sums). */
__device__ int warp_sum(int v, unsigned jitter)
{
    int offset;
    for (offset = 16; offset > 0; offset /= 2) {
        jitter_sleep(jitter, LANE() & 1);
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;
}

/* Every lane ends with the sum of v over the warp: one __reduce_add_sync on
 * compute capability 8.0 and later (and on warpsim, where it defines it),
 * the __shfl_xor_sync butterfly on older GPUs. */
__device__ int warp_sum_redux(int v, unsigned jitter)
{
#if (defined(WARPSIM) && defined(__reduce_add_sync)) || \
    (!defined(WARPSIM) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)
    jitter_sleep(jitter, LANE() & 1);
    return __reduce_add_sync(FULL_MASK, v);
#else
    int offset;
    for (offset = 16; offset > 0; offset /= 2) {
        jitter_sleep(jitter, LANE() & 1);
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    }
    return v;
#endif
}

/*
 * The sum of v over the block, in thread 0 (the other threads get partial
 * sums). partial points at 32 ints of shared memory; blockDim.x is a
 * multiple of 32, at most 1024, so there are at most 32 warp sums and the
 * first warp can sum them in one warp step. It has one __syncthreads, so
 * every thread of the block must call it; two calls that reuse partial need
 * a __syncthreads between them.
 */
__device__ int block_sum(int v, int *partial, unsigned jitter, int redux)
{
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    v = redux ? warp_sum_redux(v, jitter) : warp_sum(v, jitter);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    v = 0;
    if (warp == 0) {
        v = lane < nwarps ? partial[lane] : 0;
        v = redux ? warp_sum_redux(v, jitter) : warp_sum(v, jitter);
    }
    return v;
}

/* Variants 1 and 2, and the second pass of variants 1 to 3: out[b] is the
 * sum of block b's grid-stride share of in[0..n). */
__global__ void block_reduce(const int *in, long long n, int *out,
                             unsigned jitter, int redux)
{
    __shared__ int partial[32];
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int sum = 0;
    for (; i < n; i += stride)
        sum += in[i];
    sum = block_sum(sum, partial, jitter, redux);
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

/* ---- the device-wide reduction (variants 3, 4, 5) ------------------- */

/* Four ints that move as one 16-byte load. The CUDA int4 is aligned to 16
 * bytes, which is what lets nvcc use one 128-bit load instruction. */
#if defined(WARPSIM)
typedef struct { int x, y, z, w; } vec4i;
#else
typedef int4 vec4i;
#endif

/* nvcc unrolls the loops marked UNROLL completely; their bounds are
 * constants once thread_sum4 is inlined into a kernel below. */
#if defined(__CUDACC__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

#define MAX_UNROLL 8

enum { FINISH_PARTIAL = 3, FINISH_ATOMIC = 4, FINISH_LAST_BLOCK = 5 };

/*
 * This thread's share of the sum of in[0..n): a grid-stride loop over
 * 16-byte vectors that issues `unroll` independent loads before it adds
 * any, then the last n % 4 ints, one each in the first threads of the grid.
 * in must be 16-byte aligned (cudaMalloc's pointers are). unroll is 1, 2, 4
 * or 8, a constant in each kernel that calls this.
 */
static __device__ inline int thread_sum4(const int *__restrict__ in,
                                         long long n, int unroll)
{
    const vec4i *in4 = (const vec4i *)in;
    long long n4 = n / 4;
    long long stride = (long long)gridDim.x * blockDim.x;
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long i = first;
    vec4i v[MAX_UNROLL];
    int sum = 0, u;
    /* Rounds in which all `unroll` loads are in range. */
    for (; i + (unroll - 1) * stride < n4; i += unroll * stride) {
        UNROLL
        for (u = 0; u < MAX_UNROLL; u++)
            if (u < unroll)
                v[u] = in4[i + u * stride];
        UNROLL
        for (u = 0; u < MAX_UNROLL; u++)
            if (u < unroll)
                sum += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    /* The vectors left over, one at a time. */
    for (; i < n4; i += stride) {
        vec4i w = in4[i];
        sum += w.x + w.y + w.z + w.w;
    }
    if (first < n - n4 * 4)
        sum += in[n4 * 4 + first];
    return sum;
}

/*
 * The body of the device-wide kernels. shared points at 33 ints of shared
 * memory: 32 for block_sum, one for the "last block" flag. partials holds
 * one int per block; *count is 0 before the launch and 0 again after it.
 */
static __device__ inline void device_reduce(const int *__restrict__ in, long long n,
                                            int unroll, int finish, int *partials,
                                            unsigned *count, int *out,
                                            unsigned jitter, int *shared)
{
    int *is_last = &shared[32];
    int sum = block_sum(thread_sum4(in, n, unroll), shared, jitter, 0);
    int last;
    long long i;
    if (finish == FINISH_ATOMIC) {
        if (threadIdx.x == 0)
            atomicAdd(out, sum);
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        if (finish == FINISH_LAST_BLOCK) {
            /* Release: this block's partial reaches memory before its ticket
             * does. atomicInc wraps to 0 after gridDim.x - 1, so the last
             * block leaves the counter ready for the next launch. */
            __threadfence();
            last = atomicInc(count, gridDim.x - 1) == gridDim.x - 1;
            /* Acquire: the last ticket comes after every other block's
             * fence, so after this fence their partials are visible; the
             * __syncthreads below passes that on to the whole block. */
            if (last)
                __threadfence();
            *is_last = last;
        }
    }
    if (finish != FINISH_LAST_BLOCK)
        return;
    __syncthreads();                    /* is_last is the same for the block */
    if (!*is_last)
        return;
    /* The other blocks' partials, read through volatile so that they come
     * from memory (L2), not from a stale line of this SM's L1. */
    sum = 0;
    for (i = threadIdx.x; i < gridDim.x; i += blockDim.x)
        sum += ((volatile int *)partials)[i];
    sum = block_sum(sum, shared, jitter, 0);
    if (threadIdx.x == 0)
        *out = sum;
}

/* One kernel per number of loads in flight, so that it is a constant. */
__global__ void device_reduce_u1(const int *__restrict__ in, long long n, int finish,
                                 int *partials, unsigned *count, int *out, unsigned jitter)
{
    __shared__ int shared[33];
    device_reduce(in, n, 1, finish, partials, count, out, jitter, shared);
}

__global__ void device_reduce_u2(const int *__restrict__ in, long long n, int finish,
                                 int *partials, unsigned *count, int *out, unsigned jitter)
{
    __shared__ int shared[33];
    device_reduce(in, n, 2, finish, partials, count, out, jitter, shared);
}

__global__ void device_reduce_u4(const int *__restrict__ in, long long n, int finish,
                                 int *partials, unsigned *count, int *out, unsigned jitter)
{
    __shared__ int shared[33];
    device_reduce(in, n, 4, finish, partials, count, out, jitter, shared);
}

__global__ void device_reduce_u8(const int *__restrict__ in, long long n, int finish,
                                 int *partials, unsigned *count, int *out, unsigned jitter)
{
    __shared__ int shared[33];
    device_reduce(in, n, 8, finish, partials, count, out, jitter, shared);
}

/* ---- launcher -------------------------------------------------------- */

/* Blocks of `threads` threads for `work` items: enough for one item per
 * thread, at most max_blocks, at least 1. (The launchers are inline so that
 * cg.cu and cub_ref.cu, which include this file, need not call them.) */
static inline long long grid_for(long long work, long long threads, long long max_blocks)
{
    long long blocks = (work + threads - 1) / threads;
    if (blocks > max_blocks)
        blocks = max_blocks;
    return blocks < 1 ? 1 : blocks;
}

/*
 * Runs variant on in[0..n) and leaves the sum in *out (asynchronously).
 * partials holds MAX_BLOCKS ints, *count is 0, threads is a multiple of 32
 * up to 1024, unroll is 1, 2, 4 or 8 (variants 3 to 5). Returns the number
 * of blocks of the main launch.
 */
static inline long long reduce_run(int variant, const int *in, long long n,
                                   int *partials, unsigned *count, int *out,
                                   long long max_blocks, int threads, int unroll,
                                   unsigned jitter)
{
    long long blocks;
    switch (variant) {
    case 1:
    case 2:
        blocks = grid_for(n, threads, max_blocks);
        LAUNCH(block_reduce, (unsigned)blocks, (unsigned)threads, 0,
               in, n, partials, jitter, variant == 2);
        LAUNCH(block_reduce, 1u, (unsigned)threads, 0,
               (const int *)partials, blocks, out, jitter, variant == 2);
        return blocks;
    case FINISH_PARTIAL:
    case FINISH_ATOMIC:
    case FINISH_LAST_BLOCK:
        blocks = grid_for(n / 4, threads, max_blocks);
        /* The atomic variant adds into *out, which must start at 0. */
        if (variant == FINISH_ATOMIC)
            CUDA_CHECK(cudaMemset(out, 0, sizeof(int)));
        switch (unroll) {
        case 1:
            LAUNCH(device_reduce_u1, (unsigned)blocks, (unsigned)threads, 0,
                   in, n, variant, partials, count, out, jitter);
            break;
        case 2:
            LAUNCH(device_reduce_u2, (unsigned)blocks, (unsigned)threads, 0,
                   in, n, variant, partials, count, out, jitter);
            break;
        case 4:
            LAUNCH(device_reduce_u4, (unsigned)blocks, (unsigned)threads, 0,
                   in, n, variant, partials, count, out, jitter);
            break;
        case 8:
            LAUNCH(device_reduce_u8, (unsigned)blocks, (unsigned)threads, 0,
                   in, n, variant, partials, count, out, jitter);
            break;
        default:
            lesson_fail(LESSON_USAGE, "--unroll must be 1, 2, 4 or 8 (got %d)", unroll);
        }
        if (variant == FINISH_PARTIAL)
            LAUNCH(block_reduce, 1u, (unsigned)threads, 0,
                   (const int *)partials, blocks, out, jitter, 0);
        return blocks;
    default:
        lesson_fail(LESSON_USAGE, "there is no variant %d", variant);
    }
    return 0;
}

#define THIS_FILE "sync.cu"
#define ABOUT \
    "Lesson 06, corrected: sums n random ints (never 0) on the GPU with\n" \
    "block and device-wide reductions built on __shfl_down_sync or\n" \
    "__reduce_add_sync, and checks the sum against the 64-bit CPU sum\n" \
    "(modulo 2^32: the GPU sums in int, which wraps around)."
static const char *variants[] = {
    "block: __shfl_down_sync warp sums, one __syncthreads, first warp sums the partials; second pass",
    "block: __reduce_add_sync warp sums (cc >= 8.0; __shfl_xor_sync elsewhere); second pass",
    "device: 16-byte loads, -u in flight, one partial per block; second pass",
    "device: 16-byte loads, -u in flight, one atomicAdd per block",
    "device: 16-byte loads, -u in flight, one launch; the last block sums the partials",
};

/* ==== end of the lesson ============================================== */


/* ---- main: reference, run, validate, report ------------------------ */

/* cg.cu, cub_ref.cu and bench.cu include this file for its kernels and its
 * CPU reference: they define LESSON_AS_LIBRARY and bring their own main. */
#ifndef LESSON_AS_LIBRARY
int main(int argc, char **argv)
{
    long long n = 1 << 24, seed = 1, jitter = 0, threads = 256, variant = 1;
    long long max_blocks = 1024, unroll = 4, max_value = 100;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 36, "number of ints to sum" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "odd lanes sleep NS nanoseconds before each warp step" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which reduction" },
        { 'g', "blocks", "G", &max_blocks, 1, MAX_BLOCKS,
          "blocks in the grid at most (fewer when n is small)" },
        { 'u', "unroll", "U", &unroll, 1, 8,
          "16-byte loads in flight per thread, 1, 2, 4 or 8 (device-wide variants)" },
        { 'm', "max", "M", &max_value, 1, 1 << 30,
          "input values are -M..-1 and 1..M" },
    };
    lesson_program program = { THIS_FILE, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long want64, blocks;
    int *in, *d_in, *d_partials, *d_out, got;
    unsigned *d_count;
    char what[64];

    lesson_parse(argc, argv, &program);
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    if (unroll != 1 && unroll != 2 && unroll != 4 && unroll != 8)
        lesson_fail(LESSON_USAGE, "--unroll must be 1, 2, 4 or 8 (got %lld)", unroll);

    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_partials = (int *)lesson_device_alloc(MAX_BLOCKS * sizeof(int), "the block partials");
    d_count = (unsigned *)lesson_device_alloc(sizeof(unsigned), "the block counter");
    d_out = (int *)lesson_device_alloc(sizeof(int), "the sum");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");

    printf("%s variant %lld (%s)\n", THIS_FILE, variant, variants[variant - 1]);
    printf("n=%lld seed=%lld values=+-1..%lld jitter=%lldns threads=%lld "
           "blocks<=%lld unroll=%lld\n",
           n, seed, max_value, jitter, threads, max_blocks, unroll);
    lesson_random_ints(in, n, seed, (int)max_value);
    want64 = cpu_sum(in, n);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_count, 0, sizeof(unsigned)));
    /* Poison the outputs: a sum or a partial never written cannot pass. */
    CUDA_CHECK(cudaMemset(d_partials, 0xab, MAX_BLOCKS * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_out, 0xab, sizeof(int)));
    blocks = reduce_run((int)variant, d_in, n, d_partials, d_count, d_out,
                        max_blocks, (int)threads, (int)unroll, (unsigned)jitter);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    printf("ran %lld blocks of %lld threads\n", blocks, threads);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_partials));
    CUDA_CHECK(cudaFree(d_count));
    CUDA_CHECK(cudaFree(d_out));
    free(in);
    snprintf(what, sizeof what, "variant %lld, n=%lld", variant, n);
    return report_sum(got, want64, what);
}
#endif /* LESSON_AS_LIBRARY */
