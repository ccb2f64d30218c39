/*
 * harness.cu - lesson 01's host side, shared by legacy.cu, sync.cu and your
 * own copy (mine.cu). You never edit it: it reads the command line, makes
 * the input, computes the CPU reference, launches the kernel, and gives the
 * verdict. mk/lesson.mk builds each program from it and one lesson file:
 *
 *   build/legacy = harness.cu + legacy.cu      build/emu/legacy for warpsim
 *   build/sync   = harness.cu + sync.cu
 *   build/mine   = harness.cu + SRC            (make check SRC=mine.cu)
 *   build/verify = harness.cu alone, built by the C compiler with
 *                  LESSON_VERIFY: runs a program with --dump and judges what
 *                  it wrote, so that nothing the lesson file does can
 *                  print the verdict (the checker runs every program this way)
 *
 * What a lesson file must define (device code only, after
 * `#include "lesson.h"`; external linkage, not static):
 *
 *   __global__ void block_sum(const int *in, long long n, int *warp_sums,
 *                             int *block_sums, int variant);
 *
 *     One element per thread (in[i] for i < n, 0 past n). Writes the sum
 *     of each warp's 32 elements to warp_sums[global warp] and the sum of
 *     each block's elements to block_sums[blockIdx.x]. blockDim.x is a
 *     multiple of 32, at most 1024; variant is 1 or 2 (-k), the file's two
 *     ways of doing it.
 */
#include "lesson.h"

#if !defined(LESSON_VERIFY)
__global__ void block_sum(const int *in, long long n, int *warp_sums,
                          int *block_sums, int variant);
#endif

#define ABOUT \
    "Lesson 01: sums n random ints per warp and per block on the GPU with the\n" \
    "kernels of {file}, and checks every warp sum and block sum\n" \
    "against the CPU. legacy.cu sums through volatile shared memory with no\n" \
    "warp synchronization (variant 1) or with the mask-less __shfl_down of\n" \
    "CUDA 8 (variant 2): right by luck without delays, wrong with -j 200 on a\n" \
    "GPU with independent thread scheduling; right on the pre-Volta path\n" \
    "(--path, make pascal). sync.cu uses __shfl_down_sync (variant 1) and\n" \
    "__shfl_xor_sync (variant 2) and is right under every delay."

static const char *variants[] = {
    "tree: legacy.cu volatile shared memory; sync.cu __shfl_down_sync",
    "shfl: legacy.cu mask-less __shfl_down; sync.cu __shfl_xor_sync butterfly",
};

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

/* The comparison, the closing line and the exit status. */
static int judge(const int *want_warp, const int *got_warp, long long nwarps,
                 const int *want_block, const int *got_block, long long blocks)
{
    long long wrong_warps, wrong_blocks, b, total = 0, got_total = 0;
    wrong_warps = lesson_compare_ints("warp", want_warp, got_warp, nwarps);
    wrong_blocks = lesson_compare_ints("block", want_block, got_block, blocks);
    for (b = 0; b < blocks; b++) {
        total += want_block[b];
        got_total += got_block[b];
    }
    printf("sum of all blocks: expected %lld got %lld\n", total, got_total);
    return lesson_result(wrong_warps == 0 && wrong_blocks == 0,
                         "%lld of %lld warps wrong, %lld of %lld blocks wrong",
                         wrong_warps, nwarps, wrong_blocks, blocks);
}

int lesson_main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, variant = 1;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 36, "number of ints to sum" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input (and of --sleepers random)" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "the --sleepers lanes sleep NS nanoseconds at each delay point" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which kernel" },
    };
    lesson_program program = { lesson_src_name, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks, nwarps;
    int *in, *want_warp, *want_block, *got_warp, *got_block;
#if defined(LESSON_VERIFY)
    int status, rc, args_argc;
    char **args_argv;
    FILE *dump = lesson_verify_start(argc, argv, &args_argc, &args_argv, &status);
#else
    int *d_in, *d_warp, *d_block;
#endif

    lesson_harness_options = 1;
#if defined(LESSON_VERIFY)
    lesson_parse(args_argc, args_argv, &program);
    lesson_prog = "verify";
#else
    lesson_parse(argc, argv, &program);
#endif
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    blocks = (n + threads - 1) / threads;
    nwarps = blocks * (threads / 32);

#if !defined(LESSON_VERIFY)
    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_warp = (int *)lesson_device_alloc((size_t)nwarps * sizeof(int), "the warp sums");
    d_block = (int *)lesson_device_alloc((size_t)blocks * sizeof(int), "the block sums");
#endif
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want_warp = (int *)lesson_host_alloc((size_t)nwarps * sizeof(int), "the warp sums");
    got_warp = (int *)lesson_host_alloc((size_t)nwarps * sizeof(int), "the warp sums");
    want_block = (int *)lesson_host_alloc((size_t)blocks * sizeof(int), "the block sums");
    got_block = (int *)lesson_host_alloc((size_t)blocks * sizeof(int), "the block sums");
    lesson_random_ints(in, n, seed, 100);

#if defined(LESSON_VERIFY)
    cpu_sums(in, n, threads, want_warp, nwarps, want_block, blocks);
    if (lesson_dump_read_ints(dump, "warp_sums", got_warp, nwarps) != 0 ||
        lesson_dump_read_ints(dump, "block_sums", got_block, blocks) != 0) {
        printf("result: WRONG (the results written are not those of these arguments)\n");
        return LESSON_WRONG;
    }
    fclose(dump);
    rc = judge(want_warp, got_warp, nwarps, want_block, got_block, blocks);
    return status ? status : rc;
#else
    printf("%s variant %lld (%s)\n", lesson_src_name, variant, variants[variant - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld jitter=%lldns%s%s%s: %lld blocks of %lld threads, %lld warps\n",
           n, seed, jitter, jitter ? " (" : "", jitter ? lesson_sleepers : "",
           jitter ? " lanes sleep)" : "", blocks, threads, nwarps);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* Poison the outputs: a sum the kernel never writes cannot pass. */
    CUDA_CHECK(cudaMemset(d_warp, 0xab, (size_t)nwarps * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_block, 0xab, (size_t)blocks * sizeof(int)));
    lesson_delay_from_options(jitter, seed);
    lesson_launching("block_sum", blocks, threads);
    LAUNCH(block_sum, (unsigned)blocks, (unsigned)threads, 0,
           d_in, n, d_warp, d_block, (int)variant);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got_warp, d_warp, (size_t)nwarps * sizeof(int),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got_block, d_block, (size_t)blocks * sizeof(int),
                          cudaMemcpyDeviceToHost));
    lesson_device_free(d_in);
    lesson_device_free(d_warp);
    lesson_device_free(d_block);

    if (lesson_dump_path) {
        /* build/verify judges these. */
        FILE *f = lesson_dump_open(lesson_dump_path);
        lesson_dump_ints(f, "warp_sums", got_warp, nwarps);
        lesson_dump_ints(f, "block_sums", got_block, blocks);
        lesson_dump_close(f);
        return LESSON_OK;
    }
    cpu_sums(in, n, threads, want_warp, nwarps, want_block, blocks);
    return judge(want_warp, got_warp, nwarps, want_block, got_block, blocks);
#endif
}
