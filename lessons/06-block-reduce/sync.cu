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
 * Programming Guide's __threadfence example; or inside one atomic word; or
 * through a second launch.
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
 * Variants 3 to 6, device-wide: the loads are what costs, so each thread
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
 *   6: one launch, one atomic per block and no fence: a 64-bit atomicAdd
 *   adds the block's sum (high half) and 1 (low half, a block count) to one
 *   word; the block that finds all the others counted writes the sum and
 *   zeroes the word again. No cudaMemset, no second launch.
 *                                                    build/sync -k 6 -n 256M
 *   The device-wide kernels can also read with cache hints (LOAD_ kinds,
 *   compute capability 8.0 and later) and with 16 loads in flight: bench.cu
 *   times those; this file's programs use plain ld.global.nc reads.
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

/* ---- the device-wide reduction (variants 3 to 6) -------------------- */

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

/* Loads in flight per thread: 1, 2, 4, 8 or 16. The command line of this
 * file takes up to 8; bench.cu also times 16. */
#define MAX_UNROLL 16

enum { FINISH_PARTIAL = 3, FINISH_ATOMIC = 4, FINISH_LAST_BLOCK = 5, FINISH_PACKED = 6 };

/*
 * How thread_sum4 reads 16 bytes. This file's programs read LOAD_NC;
 * bench.cu (-L) also times the others, which read the same bytes with
 * other cache hints (PTX ISA: "ld", "ld.global.nc", "createpolicy"):
 *   LOAD_NC       in4[i]: in is const and __restrict__, so nvcc uses the
 *                 read-only path, ld.global.nc (LDG.E.128.CONSTANT in SASS)
 *   LOAD_PLAIN    ld.global: the ordinary load, cached in L1 and L2
 *   LOAD_CG       __ldcg, ld.global.cg: cached in L2 only
 *   LOAD_CS       __ldcs, ld.global.cs: streaming, read once (evict first)
 *   LOAD_LU       __ldlu, ld.global.lu: last use
 *   LOAD_NA       ld.global.nc.L1::no_allocate: takes no L1 line
 *   LOAD_NA_256B  LOAD_NA, and L2 fetches the whole 256-byte block
 *   LOAD_NC_256B  ld.global.nc.L2::256B
 *   LOAD_CS_256B  ld.global.cs.nc.L2::256B
 *   LOAD_EF_256B  LOAD_NA_256B under an evict-first L2 policy
 * The hints need compute capability 8.0 (L2::256B); older GPUs, and
 * warpsim, read every kind as LOAD_NC does.
 */
enum {
    LOAD_NC, LOAD_PLAIN, LOAD_CG, LOAD_CS, LOAD_LU, LOAD_NA, LOAD_NA_256B,
    LOAD_NC_256B, LOAD_CS_256B, LOAD_EF_256B, LOAD_KINDS
};

#if !defined(WARPSIM) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define LOAD_HINTS
/* v = the 16 bytes at p, read by the PTX instruction ld (a string). */
#define LD4(ld, p, v)                                                         \
    asm volatile(ld " {%0, %1, %2, %3}, [%4];"                                \
                 : "=r"((v).x), "=r"((v).y), "=r"((v).z), "=r"((v).w)         \
                 : "l"(p))
#endif

/* *p, read the way `load` says (a constant in each kernel below). */
static __device__ inline vec4i load4(const vec4i *__restrict__ p, int load)
{
#if defined(LOAD_HINTS)
    vec4i v;
    switch (load) {
    case LOAD_PLAIN:   LD4("ld.global.v4.s32", p, v); return v;
    case LOAD_CG:      return __ldcg(p);
    case LOAD_CS:      return __ldcs(p);
    case LOAD_LU:      return __ldlu(p);
    case LOAD_NA:      LD4("ld.global.nc.L1::no_allocate.v4.s32", p, v); return v;
    case LOAD_NA_256B: LD4("ld.global.nc.L1::no_allocate.L2::256B.v4.s32", p, v); return v;
    case LOAD_NC_256B: LD4("ld.global.nc.L2::256B.v4.s32", p, v); return v;
    case LOAD_CS_256B: LD4("ld.global.cs.nc.L2::256B.v4.s32", p, v); return v;
    case LOAD_EF_256B:
        asm volatile("{\n\t.reg .b64 policy;\n\t"
                     "createpolicy.fractional.L2::evict_first.b64 policy, 1.0;\n\t"
                     "ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v4.s32"
                     " {%0, %1, %2, %3}, [%4], policy;\n\t}"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
        return v;
    default:
        break;
    }
#else
    (void)load;
#endif
    return *p;
}

/*
 * This thread's share of the sum of in[0..n): a grid-stride loop over
 * 16-byte vectors that issues `unroll` independent loads before it adds
 * any, then the last n % 4 ints, one each in the first threads of the grid.
 * in must be 16-byte aligned (cudaMalloc's pointers are). unroll (1, 2, 4,
 * 8 or 16) and load (a LOAD_ kind) are constants in each kernel that calls
 * this.
 */
static __device__ inline int thread_sum4(const int *__restrict__ in,
                                         long long n, int unroll, int load)
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
                v[u] = load4(in4 + i + u * stride, load);
        UNROLL
        for (u = 0; u < MAX_UNROLL; u++)
            if (u < unroll)
                sum += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    /* The vectors left over, one at a time. */
    for (; i < n4; i += stride) {
        vec4i w = load4(in4 + i, load);
        sum += w.x + w.y + w.z + w.w;
    }
    if (first < n - n4 * 4)
        sum += in[n4 * 4 + first];
    return sum;
}

/*
 * Variant 6 in one word, zero between launches: the blocks' sums in the
 * high 32 bits (an int sum's carries fall off the top, as in an int) and
 * the number of blocks that have added theirs in the low 32 (at most
 * 65,536, so it never carries into the sum).
 */
__device__ unsigned long long count_and_sum;

/*
 * Adds this block's sum and 1 to count_and_sum with one atomicAdd, which
 * returns the word as it was before. The block that finds gridDim.x - 1
 * blocks counted there is the last, and that word plus its own share holds
 * the total: it writes *out and sets the word back to 0 for the next
 * launch. No fence is needed: the sums travel inside the atomic, not
 * through other memory whose writes it would have to order.
 */
static __device__ inline void add_count_and_sum(int sum, int *out)
{
    unsigned long long mine = ((unsigned long long)(unsigned)sum << 32) | 1u;
    unsigned long long before = atomicAdd(&count_and_sum, mine);
    if ((unsigned)before == gridDim.x - 1) {
        atomicExch(&count_and_sum, 0ull);
        *out = (int)(unsigned)((before + mine) >> 32);
    }
}

/*
 * The body of the device-wide kernels. shared points at 33 ints of shared
 * memory: 32 for block_sum, one for the "last block" flag. partials holds
 * one int per block; *count is 0 before the launch and 0 again after it.
 */
static __device__ inline void device_reduce(const int *__restrict__ in, long long n,
                                            int unroll, int load, int finish,
                                            int *partials, unsigned *count, int *out,
                                            unsigned jitter, int *shared)
{
    int *is_last = &shared[32];
    int sum = block_sum(thread_sum4(in, n, unroll, load), shared, jitter, 0);
    int last;
    long long i;
    if (finish == FINISH_ATOMIC) {
        if (threadIdx.x == 0)
            atomicAdd(out, sum);
        return;
    }
    if (finish == FINISH_PACKED) {
        if (threadIdx.x == 0)
            add_count_and_sum(sum, out);
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

/*
 * One kernel per number of loads in flight and way of loading, so that
 * both are constants in it: DEVICE_REDUCE_KERNELS(nc, LOAD_NC) defines
 * device_reduce_u1_nc, ..._u2_nc, ..._u4_nc, ..._u8_nc and ..._u16_nc.
 * This file defines the LOAD_NC ones; bench.cu the other kinds.
 */
#define DEVICE_REDUCE_KERNEL(unroll, name, load)                              \
    __global__ void device_reduce_u##unroll##_##name(                         \
        const int *__restrict__ in, long long n, int finish, int *partials,   \
        unsigned *count, int *out, unsigned jitter)                           \
    {                                                                         \
        __shared__ int shared[33];                                            \
        device_reduce(in, n, unroll, load, finish, partials, count, out,      \
                      jitter, shared);                                        \
    }
#define DEVICE_REDUCE_KERNELS(name, load)                                     \
    DEVICE_REDUCE_KERNEL(1, name, load) DEVICE_REDUCE_KERNEL(2, name, load)   \
    DEVICE_REDUCE_KERNEL(4, name, load) DEVICE_REDUCE_KERNEL(8, name, load)   \
    DEVICE_REDUCE_KERNEL(16, name, load)

DEVICE_REDUCE_KERNELS(nc, LOAD_NC)

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

/* A device-wide kernel, as DEVICE_REDUCE_KERNEL defines them. */
typedef void (*device_kernel)(const int *, long long, int, int *, unsigned *, int *,
                              unsigned);

/* The LOAD_NC kernel with `unroll` loads in flight; exits 2 for an unroll
 * other than 1, 2, 4, 8 or 16. */
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
                                     int *out, long long blocks, int threads,
                                     unsigned jitter)
{
    /* A static, because warpsim's LAUNCH calls the kernel from a nested
     * function, which may use statics but not this function's locals. */
    static device_kernel run;
    run = kernel;
    /* The atomic variant adds into *out, which must start at 0. */
    if (variant == FINISH_ATOMIC)
        CUDA_CHECK(cudaMemset(out, 0, sizeof(int)));
    LAUNCH(run, (unsigned)blocks, (unsigned)threads, 0,
           in, n, variant, partials, count, out, jitter);
    if (variant == FINISH_PARTIAL)
        LAUNCH(block_reduce, 1u, (unsigned)threads, 0,
               (const int *)partials, blocks, out, jitter, 0);
}

/*
 * Runs variant on in[0..n) and leaves the sum in *out (asynchronously).
 * partials holds MAX_BLOCKS ints, *count is 0, threads is a multiple of 32
 * up to 1024, unroll is 1, 2, 4, 8 or 16 (variants 3 to 6). Returns the
 * number of blocks of the main launch.
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
    case FINISH_PACKED:
        blocks = grid_for(n / 4, threads, max_blocks);
        device_reduce_run(device_kernel_nc(unroll), variant, in, n, partials, count,
                          out, blocks, threads, jitter);
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
    "device: 16-byte loads, -u in flight, one launch; one 64-bit atomicAdd per block carries its sum and a block count",
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
    lesson_print_path();
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
