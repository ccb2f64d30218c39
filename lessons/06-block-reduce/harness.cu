/*
 * harness.cu - lesson 06's host side, shared by legacy.cu, sync.cu and your
 * own copy (mine.cu). You never edit it: it reads the command line, makes
 * the input, computes the CPU reference, launches the kernels, and gives the
 * verdict. mk/lesson.mk builds each program from it and one lesson file:
 *
 *   build/legacy = harness.cu + legacy.cu      build/emu/legacy for warpsim
 *   build/sync   = harness.cu + sync.cu
 *   build/mine   = harness.cu + SRC            (make check SRC=mine.cu)
 *   build/verify = harness.cu alone, built by the C compiler with
 *                  LESSON_VERIFY: runs a program with --dump and judges what
 *                  it wrote, so that nothing the lesson file does can print
 *                  the verdict (the checker runs every program this way)
 *
 * What a lesson file must define (device code only, after
 * `#include "lesson.h"`; external linkage, not static):
 *
 *   #define BLOCK_SUM_SHARED  N
 *   __device__ int block_sum(int v, int *shared, int variant);
 *       the sum of v over the block in thread 0 (shared: N ints of shared
 *       memory); variant 1 or 2, the file's two ways of doing it
 *   __global__ void block_reduce(const int *in, long long n, int *out,
 *                                int variant);
 *       out[b] = the sum of block b's grid-stride share of in[0..n): in[i]
 *       for i = b * blockDim.x + t + k * gridDim.x * blockDim.x
 *   and, last, #include "device.cuh": the device-wide kernels of variants
 *   3 to 6, built on the file's block_sum (reduce.h declares them).
 *
 * blockDim.x is a multiple of 32, at most 1024. Every variant leaves the sum
 * of the n ints in one int; it is compared with the 64-bit CPU sum modulo
 * 2^32 (the same number whenever the sum fits in an int, always with the
 * default values; what the GPU's wrapping int adds give with -m 1G).
 * Variants 1 and 2 are also judged block by block: the sum of each block of
 * the first launch.
 */
#include "lesson.h"
#include "reduce.h"

#define ABOUT \
    "Lesson 06: sums n random ints (never 0) on the GPU with the kernels of\n" \
    "{file}, and checks the sum (and, for variants 1 and 2, each\n" \
    "block's sum) against the 64-bit CPU sum, modulo 2^32: the GPU sums in\n" \
    "int, which wraps around. legacy.cu sums each warp through volatile shared\n" \
    "memory with no warp synchronization: right by luck without delays, wrong\n" \
    "with -j 200 on a GPU with independent thread scheduling, right on the\n" \
    "pre-Volta path (--path, make pascal). sync.cu uses __shfl_down_sync or\n" \
    "__reduce_add_sync and is right under every delay."

static const char *variants[] = {
    "block: legacy.cu the volatile tree; sync.cu __shfl_down_sync; then one __syncthreads and the first warp; second pass",
    "second: legacy.cu the second form, no ifs over zero-padded slots; sync.cu __reduce_add_sync; second pass",
    "partials: 16-byte loads, -u in flight, one partial per block; second pass",
    "atomic: 16-byte loads, -u in flight, one atomicAdd per block",
    "lastblock: 16-byte loads, -u in flight, one launch; the last block sums the partials",
    "packed: 16-byte loads, -u in flight, one launch; one 64-bit atomicAdd per block carries its sum and a block count",
};

/* The sum of each block's grid-stride share (variants 1 and 2), wrapping
 * as the GPU's int adds do. */
static void cpu_block_sums(const int *in, long long n, long long threads,
                           long long blocks, int *want)
{
    long long i, stride = threads * blocks;
    unsigned *sum;
    if (blocks <= 0)
        return;
    sum = (unsigned *)lesson_host_alloc((size_t)blocks * sizeof(unsigned), "the block sums");
    memset(sum, 0, (size_t)blocks * sizeof(unsigned));
    for (i = 0; i < n; i++)
        sum[(i % stride) / threads] += (unsigned)in[i];
    for (i = 0; i < blocks; i++)
        want[i] = (int)sum[i];
    lesson_host_free(sum);
}

/* The comparison, the closing line and the exit status. */
static int judge(int variant, long long n, const int *want_block, const int *got_block,
                 long long nblocks, long long want64, int got)
{
    long long wrong_blocks = 0;
    int want = int32_of(want64);
    if (nblocks > 0)
        wrong_blocks = lesson_compare_ints("block", want_block, got_block, nblocks);
    if (want64 == (long long)want)
        printf("sum: expected %d (the 64-bit CPU sum) got %d\n", want, got);
    else
        printf("sum: expected %d (the 64-bit CPU sum %lld modulo 2^32) got %d\n",
               want, want64, got);
    if (nblocks > 0)
        return lesson_result(got == want && wrong_blocks == 0,
                             "variant %d, n=%lld: %lld of %lld blocks wrong, sum %s",
                             variant, n, wrong_blocks, nblocks,
                             got == want ? "right" : "wrong");
    return lesson_result(got == want, "variant %d, n=%lld: sum %s", variant, n,
                         got == want ? "right" : "wrong");
}

int lesson_main(int argc, char **argv)
{
    long long n = 1 << 24, seed = 1, jitter = 0, threads = 256, variant = 1;
    long long max_blocks = 1024, unroll = 4, max_value = 100;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 36, "number of ints to sum" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input (and of --sleepers random)" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "the --sleepers lanes sleep NS nanoseconds at each delay point" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which reduction" },
        { 'g', "blocks", "G", &max_blocks, 1, MAX_BLOCKS,
          "blocks in the grid at most (fewer when n is small)" },
        { 'u', "unroll", "U", &unroll, 1, 8,
          "16-byte loads in flight per thread, 1, 2, 4 or 8 (variants 3 to 6)" },
        { 'm', "max", "M", &max_value, 1, 1 << 30,
          "input values are -M..-1 and 1..M" },
    };
    lesson_program program = { lesson_src_name, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long want64, blocks, nblocks;
    int *in, *want_block, *got_block, got;
#if defined(LESSON_VERIFY)
    int status, rc, args_argc;
    char **args_argv;
    FILE *dump = lesson_verify_start(argc, argv, &args_argc, &args_argv, &status);
#else
    int *d_in, *d_partials, *d_out;
    unsigned *d_count;
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
    if (unroll != 1 && unroll != 2 && unroll != 4 && unroll != 8)
        lesson_fail(LESSON_USAGE, "--unroll must be 1, 2, 4 or 8 (got %lld)", unroll);
    blocks = blocks_for((int)variant, n, threads, max_blocks);
    nblocks = variant <= 2 ? blocks : 0;      /* blocks judged one by one */

#if !defined(LESSON_VERIFY)
    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_partials = (int *)lesson_device_alloc(MAX_BLOCKS * sizeof(int), "the block partials");
    d_count = (unsigned *)lesson_device_alloc(sizeof(unsigned), "the block counter");
    d_out = (int *)lesson_device_alloc(sizeof(int), "the sum");
#endif
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want_block = (int *)lesson_host_alloc((size_t)(nblocks + 1) * sizeof(int), "the block sums");
    got_block = (int *)lesson_host_alloc((size_t)(nblocks + 1) * sizeof(int), "the block sums");
    lesson_random_ints(in, n, seed, (int)max_value);

#if defined(LESSON_VERIFY)
    want64 = cpu_sum(in, n);
    cpu_block_sums(in, n, threads, nblocks, want_block);
    if (lesson_dump_read_ints(dump, "block_sums", got_block, nblocks) != 0 ||
        lesson_dump_read_ints(dump, "sum", &got, 1) != 0) {
        printf("result: WRONG (the results written are not those of these arguments)\n");
        return LESSON_WRONG;
    }
    fclose(dump);
    rc = judge((int)variant, n, want_block, got_block, nblocks, want64, got);
    return status ? status : rc;
#else
    printf("%s variant %lld (%s)\n", lesson_src_name, variant, variants[variant - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld values=+-1..%lld jitter=%lldns%s%s%s threads=%lld "
           "blocks<=%lld unroll=%lld\n",
           n, seed, max_value, jitter, jitter ? " (" : "", jitter ? lesson_sleepers : "",
           jitter ? " lanes sleep)" : "", threads, max_blocks, unroll);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_count, 0, sizeof(unsigned)));
    /* Poison the outputs: a sum or a partial never written cannot pass. */
    CUDA_CHECK(cudaMemset(d_partials, 0xab, MAX_BLOCKS * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_out, 0xab, sizeof(int)));
    lesson_delay_from_options(jitter, seed);
    lesson_launching(variant <= 2 ? "block_reduce" : "device_reduce", blocks, threads);
    reduce_run((int)variant, d_in, n, d_partials, d_count, d_out, max_blocks,
               (int)threads, (int)unroll);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    if (nblocks > 0)
        CUDA_CHECK(cudaMemcpy(got_block, d_partials, (size_t)nblocks * sizeof(int),
                              cudaMemcpyDeviceToHost));
    printf("ran %lld blocks of %lld threads\n", blocks, threads);
    lesson_device_free(d_in);
    lesson_device_free(d_partials);
    lesson_device_free(d_count);
    lesson_device_free(d_out);

    if (lesson_dump_path) {
        /* build/verify judges these. */
        FILE *f = lesson_dump_open(lesson_dump_path);
        lesson_dump_ints(f, "block_sums", got_block, nblocks);
        lesson_dump_ints(f, "sum", &got, 1);
        lesson_dump_close(f);
        return LESSON_OK;
    }
    want64 = cpu_sum(in, n);
    cpu_block_sums(in, n, threads, nblocks, want_block);
    return judge((int)variant, n, want_block, got_block, nblocks, want64, got);
#endif
}
