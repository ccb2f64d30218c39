/*
 * sync.cu - lesson 01, the corrected version: warp and block sums with
 * __shfl_down_sync and __shfl_xor_sync. Twin: legacy.cu.
 *
 * Build:  make                  (nvcc -I../../include sync.cu -o build/sync)
 * Run:    build/sync -n 1M -j 200     odd lanes sleep 200 ns before each step
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

/* Lane 0 ends with the sum of v over the warp. */
__device__ int warp_sum(int v, unsigned jitter)
{
    int offset;
    for (offset = 16; offset > 0; offset /= 2) {
        jitter_sleep(jitter, LANE() & 1);
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;
}

/* Every lane ends with the sum of v over the warp. */
__device__ int warp_sum_all(int v, unsigned jitter)
{
    int offset;
    for (offset = 16; offset > 0; offset /= 2) {
        jitter_sleep(jitter, LANE() & 1);
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    }
    return v;
}

/* One element per thread: warp_sums[w] for each warp, block_sums[b] for
 * each block. blockDim.x is a multiple of 32. */
__global__ void block_sum(const int *in, long long n, int *warp_sums,
                          int *block_sums, unsigned jitter, int variant)
{
    __shared__ int partial[32];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    int holder = variant == 2 ? 31 : 0;     /* a lane that has the sum */
    int v = i < n ? in[i] : 0;
    int s = variant == 2 ? warp_sum_all(v, jitter) : warp_sum(v, jitter);
    if (lane == holder) {
        warp_sums[i / 32] = s;
        partial[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? partial[lane] : 0;
        s = variant == 2 ? warp_sum_all(v, jitter) : warp_sum(v, jitter);
        if (lane == holder)
            block_sums[blockIdx.x] = s;
    }
}

#define THIS_FILE "sync.cu"
#define ABOUT \
    "Lesson 01, corrected: sums n random ints per warp and per block with\n" \
    "__shfl_down_sync (tree) or __shfl_xor_sync (butterfly), and checks every\n" \
    "warp sum and block sum against the CPU."
static const char *variants[] = {
    "tree: __shfl_down_sync, lane 0 holds the sum",
    "butterfly: __shfl_xor_sync, every lane holds the sum (stored from lane 31)",
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
