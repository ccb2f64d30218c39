/*
 * legacy.cu - lesson 01, the legacy version: warp and block sums through
 * volatile shared memory with no warp synchronization, the way pre-CUDA-9
 * code and many tutorials wrote them. Twin: sync.cu.
 *
 * Build:  make                  (nvcc -I../../include legacy.cu -o build/legacy)
 * Run:    build/legacy -n 1M          usually right on a current GPU: luck
 *         build/legacy -n 1M -j 200   odd lanes sleep 200 ns before each step
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
 * compute_60 PTX, pre-Volta scheduling even on a new GPU), else
 * __shfl_down_sync(__activemask(), ...), which trusts whoever is active.
 * Both are right on the pre-Volta path, as they were on Pascal; --path
 * tells which path a build runs.
 */
#include "lesson.h"

/* ---- CPU reference ------------------------------------------------- */

/* Sums of each warp's 32 elements and of each block's elements; elements
 * past n count as 0, as in the kernels. */
static void cpu_sums(const int *in, long long n, long long threads,
                     int *warp_sums, long long nwarps,
                     int *block_sums, long long nblocks)
{
    long long i;
    memset(warp_sums, 0, (size_t)nwarps * sizeof(int));
    memset(block_sums, 0, (size_t)nblocks * sizeof(int));
    for (i = 0; i < n; i++) {
        warp_sums[i / 32] += in[i];
        block_sums[i / threads] += in[i];
    }
}

/* ==== the lesson ===================================================== */

/*
 * The sum of v over the warp, through s[0..31], this warp's slots in shared
 * memory. Every lane gets s[0], which it assumes holds the sum by now.
 */
__device__ int warp_sum(volatile int *s, int v, unsigned jitter)
{
    int lane = LANE();
    s[lane] = v;
    jitter_sleep(jitter, lane & 1);
    if (lane < 16) s[lane] += s[lane + 16];
    jitter_sleep(jitter, lane & 1);
    if (lane < 8) s[lane] += s[lane + 8];
    jitter_sleep(jitter, lane & 1);
    if (lane < 4) s[lane] += s[lane + 4];
    jitter_sleep(jitter, lane & 1);
    if (lane < 2) s[lane] += s[lane + 2];
    jitter_sleep(jitter, lane & 1);
    if (lane < 1) s[lane] += s[lane + 1];
    return s[0];
}

/*
 * Variant 2: the shuffle reduction as CUDA 8 wrote it, with the mask-less
 * __shfl_down. LEGACY_SHFL_DOWN (lesson.h) is the real __shfl_down where the
 * kernels are built below compute capability 7.0 (make pascal), and what it
 * amounts to from 7.0 on, __shfl_down_sync(__activemask(), v, offset):
 * whoever happens to be here. Every lane assumes the other 31 are in each
 * step with it. Lane 0 gets the sum.
 */
__device__ int warp_sum_shfl(int v, unsigned jitter)
{
    int offset;
    for (offset = 16; offset > 0; offset /= 2) {
        jitter_sleep(jitter, LANE() & 1);
        v += LEGACY_SHFL_DOWN(v, offset);
    }
    return v;
}

/* One element per thread: warp_sums[w] for each warp, block_sums[b] for
 * each block. blockDim.x is a multiple of 32. */
__global__ void block_sum(const int *in, long long n, int *warp_sums,
                          int *block_sums, unsigned jitter, int variant)
{
    __shared__ int r[1024];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    int v = i < n ? in[i] : 0;
    int s;
    if (variant == 2) {
        s = warp_sum_shfl(v, jitter);
        if (lane == 0)
            r[warp * 32] = s;
    } else {
        s = warp_sum(&r[warp * 32], v, jitter);
    }
    if (lane == 0)
        warp_sums[i / 32] = s;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? r[lane * 32] : 0;
        s = variant == 2 ? warp_sum_shfl(v, jitter) : warp_sum(r, v, jitter);
        if (lane == 0)
            block_sums[blockIdx.x] = s;
    }
}

#define THIS_FILE "legacy.cu"
#define ABOUT \
    "Lesson 01, legacy: sums n random ints per warp and per block through\n" \
    "volatile shared memory with no warp synchronization (variant 1) or with\n" \
    "the mask-less __shfl_down of CUDA 8 (variant 2), and checks every warp\n" \
    "sum and block sum against the CPU. Variant 1 is right by luck without\n" \
    "jitter and wrong with -j 100 or more on a GPU with independent thread\n" \
    "scheduling; both are right on the pre-Volta path (--path, make pascal)."
static const char *variants[] = {
    "tree: volatile shared memory, no warp sync",
    "shfl: mask-less __shfl_down (__shfl_down_sync(__activemask()) from 7.0 on)",
};

/* ==== end of the lesson ============================================== */

/* ---- main: reference, run, validate, report ------------------------ */

int main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, variant = 1;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 36, "number of ints to sum" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "odd lanes sleep NS nanoseconds before each step" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which kernel" },
    };
    lesson_program program = { THIS_FILE, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks, nwarps, wrong_warps, wrong_blocks, b, total = 0, got_total = 0;
    int *in, *want_warp, *want_block, *got_warp, *got_block;
    int *d_in, *d_warp, *d_block;

    lesson_parse(argc, argv, &program);
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    blocks = (n + threads - 1) / threads;
    nwarps = blocks * (threads / 32);

    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_warp = (int *)lesson_device_alloc((size_t)nwarps * sizeof(int), "the warp sums");
    d_block = (int *)lesson_device_alloc((size_t)blocks * sizeof(int), "the block sums");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want_warp = (int *)lesson_host_alloc((size_t)nwarps * sizeof(int), "the warp sums");
    got_warp = (int *)lesson_host_alloc((size_t)nwarps * sizeof(int), "the warp sums");
    want_block = (int *)lesson_host_alloc((size_t)blocks * sizeof(int), "the block sums");
    got_block = (int *)lesson_host_alloc((size_t)blocks * sizeof(int), "the block sums");

    printf("%s variant %lld (%s)\n", THIS_FILE, variant, variants[variant - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld jitter=%lldns: %lld blocks of %lld threads, %lld warps\n",
           n, seed, jitter, blocks, threads, nwarps);
    lesson_random_ints(in, n, seed, 100);
    cpu_sums(in, n, threads, want_warp, nwarps, want_block, blocks);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* Poison the outputs: a sum the kernel never writes cannot pass. */
    CUDA_CHECK(cudaMemset(d_warp, 0xab, (size_t)nwarps * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_block, 0xab, (size_t)blocks * sizeof(int)));
    LAUNCH(block_sum, (unsigned)blocks, (unsigned)threads, 0,
           d_in, n, d_warp, d_block, (unsigned)jitter, (int)variant);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got_warp, d_warp, (size_t)nwarps * sizeof(int),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got_block, d_block, (size_t)blocks * sizeof(int),
                          cudaMemcpyDeviceToHost));

    wrong_warps = lesson_compare_ints("warp", want_warp, got_warp, nwarps);
    wrong_blocks = lesson_compare_ints("block", want_block, got_block, blocks);
    for (b = 0; b < blocks; b++) {
        total += want_block[b];
        got_total += got_block[b];
    }
    printf("sum of all blocks: expected %lld got %lld\n", total, got_total);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_warp));
    CUDA_CHECK(cudaFree(d_block));
    free(in);
    free(want_warp);
    free(got_warp);
    free(want_block);
    free(got_block);
    return lesson_result(wrong_warps == 0 && wrong_blocks == 0,
                         "%lld of %lld warps wrong, %lld of %lld blocks wrong",
                         wrong_warps, nwarps, wrong_blocks, blocks);
}
