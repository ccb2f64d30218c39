/*
 * device.cuh - lesson 06's device-wide sums (variants 3 to 6), the same for
 * every lesson file: legacy.cu, sync.cu and your mine.cu end with
 * `#include "device.cuh"`, after defining
 *
 *   #define BLOCK_SUM_SHARED   the ints of shared memory block_sum needs
 *   __device__ int block_sum(int v, int *shared, int variant);
 *       the sum of v over the block, in thread 0; every thread calls it
 *
 * so that these kernels combine the threads' sums with the lesson file's
 * own block sum (its variant 1): a wrong block sum makes them wrong too.
 * bench.cu includes sync.cu, and so this file, for the kernels it times.
 * Device code only; reduce.h launches the kernels.
 *
 * Summing 2^28 ints is reading 1 GiB; the additions are almost free. So
 * these kernels change how memory is read, not how the sums are made: each
 * thread reads 16 bytes at a time (four ints in one load instruction) and
 * issues `unroll` of those loads before it adds any, so that several are in
 * flight; the grid is sized to the GPU (-g blocks), not to n; the last
 * n % 4 ints go to the first threads. The variants differ only in how the
 * blocks' sums are combined:
 *   3: one partial per block, then a second launch (block_reduce) sums them;
 *   4: one atomicAdd per block into *out (zeroed first, by a cudaMemset);
 *   5: one launch: each block stores its partial, fences, and takes a ticket
 *      with atomicInc; the block that draws the last ticket sums the
 *      partials (the CUDA Programming Guide's __threadfence example);
 *   6: one launch, one atomic per block and no fence: a 64-bit atomicAdd
 *      adds the block's sum (high half) and 1 (low half, a block count) to
 *      one word; the block that finds all the others counted writes the sum
 *      and zeroes the word again.
 */
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
 * in must be 16-byte aligned (the runtime's allocations are). unroll (1, 2, 4,
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
 * The body of the device-wide kernels. shared points at BLOCK_SUM_SHARED + 1
 * ints of shared memory: those of block_sum, then the "last block" flag.
 * partials holds one int per block; *count is 0 before the launch and 0
 * again after it.
 */
static __device__ inline void device_reduce(const int *__restrict__ in, long long n,
                                            int unroll, int load, int finish,
                                            int *partials, unsigned *count, int *out,
                                            int *shared)
{
    int *is_last = &shared[BLOCK_SUM_SHARED];
    int sum = block_sum(thread_sum4(in, n, unroll, load), shared, 1);
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
    sum = block_sum(sum, shared, 1);
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
        unsigned *count, int *out)                                            \
    {                                                                         \
        __shared__ int shared[BLOCK_SUM_SHARED + 1];                          \
        device_reduce(in, n, unroll, load, finish, partials, count, out,      \
                      shared);                                                \
    }
#define DEVICE_REDUCE_KERNELS(name, load)                                     \
    DEVICE_REDUCE_KERNEL(1, name, load) DEVICE_REDUCE_KERNEL(2, name, load)   \
    DEVICE_REDUCE_KERNEL(4, name, load) DEVICE_REDUCE_KERNEL(8, name, load)   \
    DEVICE_REDUCE_KERNEL(16, name, load)

DEVICE_REDUCE_KERNELS(nc, LOAD_NC)
