/*
 * legacy.cu - lesson 06, the legacy version: the block reduction as pre-CUDA-9
 * code and many tutorials wrote it. Each warp sums its 32 values through
 * volatile shared memory with no warp synchronization; one __syncthreads;
 * then the first warp sums the warps' sums the same way. Twin: sync.cu.
 *
 * Build:  make                  (nvcc -I../../include legacy.cu -o build/legacy)
 * Run:    build/legacy -n 16M          usually right on a current GPU: luck
 *         build/legacy -n 16M -j 200   odd lanes sleep 200 ns before each step
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
 * warps' sums, and so the total, wrong.
 *
 * There is one variant, in two launches like sync.cu's variant 1: each block
 * sums a grid-stride share of the input into one partial per block; a second
 * launch of one block sums the partials. -u is for sync.cu's device-wide
 * variants and does nothing here.
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

/*
 * The sum of the 32 slots s[0..31] of this warp, left in s[0], which every
 * lane returns: the single-warp reduction idiom. Each lane has stored its
 * value in s[LANE()] before the call. No synchronization between the steps,
 * because "a warp executes in lockstep": it does not.
 */
__device__ int warp_sum(volatile int *s, unsigned jitter)
{
    int lane = LANE();
    jitter_sleep(jitter, lane & 1);
    if (lane < 16) s[lane] += s[lane + 16];
    jitter_sleep(jitter, lane & 1);
    if (lane < 8) s[lane] += s[lane + 8];
    jitter_sleep(jitter, lane & 1);
    if (lane < 4) s[lane] += s[lane + 4];
    jitter_sleep(jitter, lane & 1);
    if (lane < 2) s[lane] += s[lane + 2];
    jitter_sleep(jitter, lane & 1);
    if (lane == 0) s[lane] += s[lane + 1];
    return s[0];
}

/* out[b] is the sum of block b's grid-stride share of in[0..n). Each warp
 * sums in its own 32 slots of r; after the barrier the first warp gathers
 * the warps' sums (slot 0 of each warp's slots) and sums them. */
__global__ void block_reduce(const int *in, long long n, int *out, unsigned jitter)
{
    __shared__ int r[1024];
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int sum = 0;
    for (; i < n; i += stride)
        sum += in[i];
    r[threadIdx.x] = sum;
    warp_sum(&r[warp * 32], jitter);
    __syncthreads();
    if (warp == 0) {
        r[lane] = lane * 32 < (int)blockDim.x ? r[lane * 32] : 0;
        sum = warp_sum(r, jitter);
        if (lane == 0)
            out[blockIdx.x] = sum;
    }
}

/* ---- launcher -------------------------------------------------------- */

/*
 * Runs the reduction on in[0..n) and leaves the sum in *out
 * (asynchronously): one partial per block into partials, then one block
 * sums them. Returns the number of blocks of the first launch.
 */
static long long reduce_run(int variant, const int *in, long long n, int *partials,
                            unsigned *count, int *out, long long max_blocks,
                            int threads, int unroll, unsigned jitter)
{
    long long blocks = (n + threads - 1) / threads;
    (void)count;
    (void)unroll;
    if (variant != 1)
        lesson_fail(LESSON_USAGE, "there is no variant %d", variant);
    if (blocks > max_blocks)
        blocks = max_blocks;
    LAUNCH(block_reduce, (unsigned)blocks, (unsigned)threads, 0,
           in, n, partials, jitter);
    LAUNCH(block_reduce, 1u, (unsigned)threads, 0,
           (const int *)partials, blocks, out, jitter);
    return blocks;
}

#define THIS_FILE "legacy.cu"
#define ABOUT \
    "Lesson 06, legacy: sums n random ints (never 0) with the block reduction\n" \
    "of volatile shared memory and no warp synchronization, and checks the sum\n" \
    "against the 64-bit CPU sum. Right by luck without jitter; wrong with\n" \
    "-j 100 or more on a GPU with independent thread scheduling."
static const char *variants[] = {
    "block: volatile shared-memory warp sums, no warp sync; second pass",
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
