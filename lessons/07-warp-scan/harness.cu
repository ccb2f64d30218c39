/*
 * harness.cu - lesson 07's host side: command line, seeded input, CPU
 * reference, launches, read-back, comparison, the result line and the exit
 * status. You never edit it. mk/lesson.mk builds each program from it and
 * one lesson file:
 *
 *   build/legacy = harness.cu + legacy.cu      build/emu/legacy for warpsim
 *   build/sync   = harness.cu + sync.cu
 *   build/cg     = harness.cu + cg.cu          (GPU only: C++)
 *   build/mine   = harness.cu + SRC            (make check SRC=mine.cu)
 *   build/verify = harness.cu alone, built by the C compiler with
 *                  LESSON_VERIFY: runs a program with --dump and judges what
 *                  it wrote, so that nothing the lesson file does can print
 *                  the verdict (the checker runs every program this way)
 *
 * A lesson file (legacy.cu, sync.cu, mine.cu) includes "lesson.h" and must
 * define these kernels, with external linkage (not static):
 *
 *   __global__ void scan_segments(const int *in, long long n, int *out,
 *                                 int width, int exclusive);
 *       out[i] = inclusive (exclusive != 0: exclusive) scan of in over the
 *       segment of `width` elements (2, 4, 8, 16 or 32, aligned) holding i.
 *   __global__ void scan_blocks(const int *in, long long n, int *out,
 *                               int *block_totals);
 *       out[i] = inclusive scan of in over i's block of blockDim.x elements;
 *       block_totals[b] = block b's total when block_totals is not NULL.
 *       in and out may be the same array.
 *   __global__ void add_block_offsets(int *out, long long n,
 *                                     const int *scanned_totals);
 *       out[i] += scanned_totals[blockIdx.x - 1] in every block but the first.
 *   __global__ void compact_scan(const int *in, long long n, int *out,
 *                                int *counts);
 *   __global__ void compact_ballot(const int *in, long long n, int *out,
 *                                  int *counts);
 *       block b's positive elements, in order, at out[b * blockDim.x ...];
 *       counts[b] = how many; ranks from a block scan (compact_scan) or
 *       from __ballot_sync + __popc (compact_ballot).
 *
 * blockDim.x is a multiple of 32 (32 to 1024); threads past n take part
 * with the value 0 and write nothing.
 */
#include "lesson.h"

#if !defined(LESSON_VERIFY)
__global__ void scan_segments(const int *in, long long n, int *out, int width,
                              int exclusive);
__global__ void scan_blocks(const int *in, long long n, int *out, int *block_totals);
__global__ void add_block_offsets(int *out, long long n, const int *scanned_totals);
__global__ void compact_scan(const int *in, long long n, int *out, int *counts);
__global__ void compact_ballot(const int *in, long long n, int *out, int *counts);
#endif

enum { V_INCLUSIVE = 1, V_EXCLUSIVE, V_BLOCK, V_COMPACT, V_BALLOT, V_DEVICE };

static const char *variants[] = {
    "inclusive: scan of each -w-lane segment of a warp (scan_segments)",
    "exclusive: exclusive scan of each -w-lane segment (scan_segments)",
    "block: inclusive scan of each block (scan_blocks)",
    "compact: keep the positive elements of each block, ranks from a block scan (compact_scan)",
    "ballot: the same compaction, ranks from __ballot_sync + __popc (compact_ballot)",
    "device: one inclusive scan of all n: block scans, a scan of the block totals, add back",
};

#define POISON ((int)0xabababab)    /* what cudaMemset(0xab) leaves in an int */

/* ---- CPU reference -------------------------------------------------- */

/*
 * The expected output of variant v for in[0..n) with `threads` per block
 * and segments of `width`, in want[0..n) and, for the compactions, the
 * expected counts in want_counts[0..blocks). Sums wrap as the GPU's int
 * adds do (computed in unsigned). Slots a compaction leaves unwritten keep
 * the poison.
 */
static void cpu_reference(int v, const int *in, long long n, long long threads,
                          int width, int *want, int *want_counts)
{
    long long i, seg = v == V_INCLUSIVE || v == V_EXCLUSIVE ? width
                     : v == V_DEVICE ? n : threads;
    unsigned sum = 0;
    if (v == V_COMPACT || v == V_BALLOT) {
        long long b, kept = 0;
        for (i = 0; i < n; i++)
            want[i] = POISON;
        for (i = 0; i < n; i++) {
            b = i / threads;
            if (i % threads == 0)
                kept = 0;
            if (in[i] > 0)
                want[b * threads + kept++] = in[i];
            want_counts[b] = (int)kept;
        }
        /* The last block's threads past n still count: nothing more kept. */
        return;
    }
    for (i = 0; i < n; i++) {
        if (i % seg == 0)
            sum = 0;
        if (v == V_EXCLUSIVE) {
            want[i] = (int)sum;
            sum += (unsigned)in[i];
        } else {
            sum += (unsigned)in[i];
            want[i] = (int)sum;
        }
    }
}

/*
 * Compares got with want; prints the first ten differences with where they
 * are (block, warp, lane of the thread that owns the element) and returns
 * how many differ.
 */
static long long compare(const char *what, const int *want, const int *got,
                         long long count, long long threads)
{
    long long i, wrong = 0;
    for (i = 0; i < count; i++) {
        if (want[i] == got[i])
            continue;
        if (++wrong <= 10) {
            if (threads > 0)
                printf("  %s %lld: expected %d got %d%s (block %lld, warp %lld, lane %lld)\n",
                       what, i, want[i], got[i], got[i] == POISON ? ", never written" : "",
                       i / threads, i % threads / 32, i % 32);
            else
                printf("  %s %lld: expected %d got %d\n", what, i, want[i], got[i]);
        }
    }
    if (wrong > 10)
        printf("  ... and %lld more\n", wrong - 10);
    return wrong;
}

/* ---- running the lesson's kernels ----------------------------------- */

static long long blocks_for(long long n, long long threads)
{
    return (n + threads - 1) / threads;
}

#if !defined(LESSON_VERIFY)
/*
 * Variant 6 on data[0..n), in place: scan each block and keep the block
 * totals in levels[0]; scan those the same way (levels[1], ...) until one
 * block holds them all; then add each level's scanned totals back into the
 * level below.
 */
static void device_scan(int *data, long long n, int threads, int **levels)
{
    long long blocks = blocks_for(n, threads);
    lesson_launching("scan_blocks", blocks, threads);
    LAUNCH(scan_blocks, (unsigned)blocks, (unsigned)threads, 0,
           (const int *)data, n, data, blocks > 1 ? levels[0] : (int *)NULL);
    if (blocks == 1)
        return;
    device_scan(levels[0], blocks, threads, levels + 1);
    lesson_launching("add_block_offsets", blocks, threads);
    LAUNCH(add_block_offsets, (unsigned)blocks, (unsigned)threads, 0,
           data, n, (const int *)levels[0]);
}

/* Runs variant v on d_in[0..n) into d_out (and d_counts for the
 * compactions), and waits for it. */
static void run_variant(int v, const int *d_in, long long n, int *d_out, int *d_counts,
                        long long blocks, int threads, int width, int **levels)
{
    static const char *kernel[] = { "", "scan_segments", "scan_segments", "scan_blocks",
                                    "compact_scan", "compact_ballot", "" };
    if (v != V_DEVICE)
        lesson_launching(kernel[v], blocks, threads);
    switch (v) {
    case V_INCLUSIVE:
    case V_EXCLUSIVE:
        LAUNCH(scan_segments, (unsigned)blocks, (unsigned)threads, 0,
               d_in, n, d_out, width, v == V_EXCLUSIVE);
        break;
    case V_BLOCK:
        LAUNCH(scan_blocks, (unsigned)blocks, (unsigned)threads, 0,
               d_in, n, d_out, (int *)NULL);
        break;
    case V_COMPACT:
        LAUNCH(compact_scan, (unsigned)blocks, (unsigned)threads, 0,
               d_in, n, d_out, d_counts);
        break;
    case V_BALLOT:
        LAUNCH(compact_ballot, (unsigned)blocks, (unsigned)threads, 0,
               d_in, n, d_out, d_counts);
        break;
    default:
        CUDA_CHECK(cudaMemcpy(d_out, d_in, (size_t)n * sizeof(int),
                              cudaMemcpyDeviceToDevice));
        device_scan(d_out, n, threads, levels);
        break;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}
#endif

/* The comparison, the closing line and the exit status. */
static int judge(int v, long long variant, long long n, long long threads, long long blocks,
                 const int *want, const int *got, const int *want_counts,
                 const int *got_counts)
{
    long long wrong = compare("element", want, got, n, v == V_DEVICE ? 0 : threads);
    long long count = n;
    if (want_counts) {
        wrong += compare("count of block", want_counts, got_counts, blocks, 0);
        count += blocks;
    }
    return lesson_result(wrong == 0, "variant %lld, n=%lld: %lld of %lld values wrong",
                         variant, n, wrong, count);
}

int lesson_main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, variant = 1, width = 32;
    long long max_value = 100;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 32, "number of ints to scan" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX,
          "seed of the random input (and of --sleepers random)" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "the --sleepers lanes sleep NS nanoseconds at each delay point" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which scan" },
        { 'w', "width", "W", &width, 2, 32,
          "segment width of variants 1 and 2: 2, 4, 8, 16 or 32" },
        { 'm', "max", "M", &max_value, 1, 1 << 30,
          "input values are -M..-1 and 1..M" },
    };
    lesson_program program = { lesson_src_name,
        "Lesson 07: prefix sums (scans) with the warp-level code of\n"
        "{file}, checked against the CPU. n random ints (never 0) are\n"
        "scanned over warp segments, over blocks, or as one array; or each\n"
        "block's positive elements are compacted to the front of its part of\n"
        "the output, in order. legacy.cu scans in volatile shared memory with\n"
        "no warp synchronization: right by luck without delays, wrong with\n"
        "-j 200 on a GPU with independent thread scheduling. sync.cu uses\n"
        "__shfl_up_sync and is right under every delay.",
        variants, (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks;
    int *in, *want, *got, *want_counts = NULL, *got_counts = NULL;
    int v, compaction;
#if defined(LESSON_VERIFY)
    int status, rc, args_argc;
    char **args_argv;
    FILE *dump = lesson_verify_start(argc, argv, &args_argc, &args_argv, &status);
#else
    long long nlevels = 0, m;
    int *d_in, *d_out, *d_counts = NULL, *levels[8];
#endif

    lesson_harness_options = 1;
#if defined(LESSON_VERIFY)
    lesson_parse(args_argc, args_argv, &program);
    lesson_prog = "verify";
#else
    lesson_parse(argc, argv, &program);
#endif
    v = (int)variant;
    compaction = v == V_COMPACT || v == V_BALLOT;
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    if (width & (width - 1))
        lesson_fail(LESSON_USAGE, "--width must be 2, 4, 8, 16 or 32 (got %lld)", width);
    blocks = blocks_for(n, threads);
    if (blocks > 0x7fffffffLL)
        lesson_fail(LESSON_USAGE, "-n %lld needs more than 2^31-1 blocks of %lld threads",
                    n, threads);

#if !defined(LESSON_VERIFY)
    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the output");
    if (compaction)
        d_counts = (int *)lesson_device_alloc((size_t)blocks * sizeof(int), "the counts");
    if (v == V_DEVICE)
        for (m = blocks; m > 1 && nlevels < 8; m = blocks_for(m, threads))
            levels[nlevels++] = (int *)lesson_device_alloc((size_t)m * sizeof(int),
                                                           "the block totals");
#endif
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the reference");
    got = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the output");
    if (compaction) {
        want_counts = (int *)lesson_host_alloc((size_t)blocks * sizeof(int), "the counts");
        got_counts = (int *)lesson_host_alloc((size_t)blocks * sizeof(int), "the counts");
    }
    lesson_random_ints(in, n, seed, (int)max_value);

#if defined(LESSON_VERIFY)
    cpu_reference(v, in, n, threads, (int)width, want, want_counts);
    if (lesson_dump_read_ints(dump, "out", got, n) != 0 ||
        (compaction && lesson_dump_read_ints(dump, "counts", got_counts, blocks) != 0)) {
        printf("result: WRONG (the results written are not those of these arguments)\n");
        return LESSON_WRONG;
    }
    fclose(dump);
    rc = judge(v, variant, n, threads, blocks, want, got, want_counts, got_counts);
    return status ? status : rc;
#else
    printf("%s variant %lld (%s)\n", lesson_src_name, variant, variants[v - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld values=+-1..%lld jitter=%lldns (%s lanes sleep): "
           "%lld blocks of %lld threads", n, seed, max_value, jitter, lesson_sleepers,
           blocks, threads);
    if (v == V_INCLUSIVE || v == V_EXCLUSIVE)
        printf(", segments of %lld", width);
    printf("\n");

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* Poison the outputs: a slot never written cannot pass. */
    CUDA_CHECK(cudaMemset(d_out, 0xab, (size_t)n * sizeof(int)));
    if (d_counts)
        CUDA_CHECK(cudaMemset(d_counts, 0xab, (size_t)blocks * sizeof(int)));
    lesson_delay_from_options(jitter, seed);
    run_variant(v, d_in, n, d_out, d_counts, blocks, (int)threads, (int)width, levels);
    CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
    if (d_counts)
        CUDA_CHECK(cudaMemcpy(got_counts, d_counts, (size_t)blocks * sizeof(int),
                              cudaMemcpyDeviceToHost));
    lesson_device_free(d_in);
    lesson_device_free(d_out);
    if (d_counts)
        lesson_device_free(d_counts);
    while (nlevels > 0)
        lesson_device_free(levels[--nlevels]);

    if (lesson_dump_path) {
        /* build/verify judges these. */
        FILE *f = lesson_dump_open(lesson_dump_path);
        lesson_dump_ints(f, "out", got, n);
        if (compaction)
            lesson_dump_ints(f, "counts", got_counts, blocks);
        lesson_dump_close(f);
        return LESSON_OK;
    }
    cpu_reference(v, in, n, threads, (int)width, want, want_counts);
    return judge(v, variant, n, threads, blocks, want, got, want_counts, got_counts);
#endif
}
