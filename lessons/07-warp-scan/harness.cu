/*
 * harness.cu - lesson 07's host side: command line, seeded input, CPU
 * reference, launches, read-back, comparison, the result line and the exit
 * status. You never edit it: it is built with legacy.cu, with sync.cu, and
 * with your own copy (make check SRC=mine.cu), and it alone decides whether
 * a result is right.
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

__global__ void scan_segments(const int *in, long long n, int *out, int width,
                              int exclusive);
__global__ void scan_blocks(const int *in, long long n, int *out, int *block_totals);
__global__ void add_block_offsets(int *out, long long n, const int *scanned_totals);
__global__ void compact_scan(const int *in, long long n, int *out, int *counts);
__global__ void compact_ballot(const int *in, long long n, int *out, int *counts);

#ifndef LESSON_SRC_NAME
#define LESSON_SRC_NAME "the lesson file"
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
                printf("  %s %lld (block %lld, warp %lld, lane %lld): expected %d got %d%s\n",
                       what, i, i / threads, i % threads / 32, i % 32, want[i], got[i],
                       got[i] == POISON ? " (never written)" : "");
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

/*
 * Variant 6 on data[0..n), in place: scan each block and keep the block
 * totals in levels[0]; scan those the same way (levels[1], ...) until one
 * block holds them all; then add each level's scanned totals back into the
 * level below.
 */
static void device_scan(int *data, long long n, int threads, int **levels)
{
    long long blocks = blocks_for(n, threads);
    LAUNCH(scan_blocks, (unsigned)blocks, (unsigned)threads, 0,
           (const int *)data, n, data, blocks > 1 ? levels[0] : (int *)NULL);
    if (blocks == 1)
        return;
    device_scan(levels[0], blocks, threads, levels + 1);
    LAUNCH(add_block_offsets, (unsigned)blocks, (unsigned)threads, 0,
           data, n, (const int *)levels[0]);
}

int main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, threads = 256, variant = 1, width = 32;
    long long max_value = 100;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 32, "number of ints to scan" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which scan" },
        { 'w', "width", "W", &width, 2, 32,
          "segment width of variants 1 and 2: 2, 4, 8, 16 or 32" },
        { 'm', "max", "M", &max_value, 1, 1 << 30,
          "input values are -M..-1 and 1..M" },
    };
    lesson_program program = { LESSON_SRC_NAME,
        "Lesson 07: prefix sums (scans) with warp-level code, checked against\n"
        "the CPU. n random ints (never 0) are scanned over warp segments, over\n"
        "blocks, or as one array; or each block's positive elements are\n"
        "compacted to the front of its part of the output, in order.",
        variants, (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks, wrong, nlevels = 0, m, count;
    int *in, *want, *got, *want_counts = NULL, *got_counts = NULL;
    int *d_in, *d_out, *d_counts = NULL, *levels[8];
    char what[96];
    int v;

    lesson_parse(argc, argv, &program);
    v = (int)variant;
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    if (width & (width - 1))
        lesson_fail(LESSON_USAGE, "--width must be 2, 4, 8, 16 or 32 (got %lld)", width);
    blocks = blocks_for(n, threads);
    if (blocks > 0x7fffffffLL)
        lesson_fail(LESSON_USAGE, "-n %lld needs more than 2^31-1 blocks of %lld threads",
                    n, threads);

    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the output");
    if (v == V_COMPACT || v == V_BALLOT)
        d_counts = (int *)lesson_device_alloc((size_t)blocks * sizeof(int), "the counts");
    if (v == V_DEVICE)
        for (m = blocks; m > 1 && nlevels < 8; m = blocks_for(m, threads))
            levels[nlevels++] = (int *)lesson_device_alloc((size_t)m * sizeof(int),
                                                           "the block totals");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the reference");
    got = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the output");
    if (d_counts) {
        want_counts = (int *)lesson_host_alloc((size_t)blocks * sizeof(int), "the counts");
        got_counts = (int *)lesson_host_alloc((size_t)blocks * sizeof(int), "the counts");
    }

    printf("%s variant %lld (%s)\n", LESSON_SRC_NAME, variant, variants[v - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld values=+-1..%lld threads=%lld blocks=%lld", n, seed,
           max_value, threads, blocks);
    if (v == V_INCLUSIVE || v == V_EXCLUSIVE)
        printf(" width=%lld", width);
    printf("\n");
    lesson_random_ints(in, n, seed, (int)max_value);
    cpu_reference(v, in, n, threads, (int)width, want, want_counts);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* Poison the outputs: a slot never written cannot pass. */
    CUDA_CHECK(cudaMemset(d_out, 0xab, (size_t)n * sizeof(int)));
    if (d_counts)
        CUDA_CHECK(cudaMemset(d_counts, 0xab, (size_t)blocks * sizeof(int)));

    switch (v) {
    case V_INCLUSIVE:
    case V_EXCLUSIVE:
        LAUNCH(scan_segments, (unsigned)blocks, (unsigned)threads, 0,
               (const int *)d_in, n, d_out, (int)width, v == V_EXCLUSIVE);
        break;
    case V_BLOCK:
        LAUNCH(scan_blocks, (unsigned)blocks, (unsigned)threads, 0,
               (const int *)d_in, n, d_out, (int *)NULL);
        break;
    case V_COMPACT:
        LAUNCH(compact_scan, (unsigned)blocks, (unsigned)threads, 0,
               (const int *)d_in, n, d_out, d_counts);
        break;
    case V_BALLOT:
        LAUNCH(compact_ballot, (unsigned)blocks, (unsigned)threads, 0,
               (const int *)d_in, n, d_out, d_counts);
        break;
    case V_DEVICE:
        CUDA_CHECK(cudaMemcpy(d_out, d_in, (size_t)n * sizeof(int),
                              cudaMemcpyDeviceToDevice));
        device_scan(d_out, n, (int)threads, levels);
        break;
    default:
        lesson_fail(LESSON_USAGE, "there is no variant %d", v);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
    if (d_counts)
        CUDA_CHECK(cudaMemcpy(got_counts, d_counts, (size_t)blocks * sizeof(int),
                              cudaMemcpyDeviceToHost));

    wrong = compare("element", want, got, n, v == V_DEVICE ? 0 : threads);
    count = n;
    if (d_counts) {
        wrong += compare("count of block", want_counts, got_counts, blocks, 0);
        count += blocks;
    }

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    if (d_counts)
        CUDA_CHECK(cudaFree(d_counts));
    while (nlevels > 0)
        CUDA_CHECK(cudaFree(levels[--nlevels]));
    free(in);
    free(want);
    free(got);
    free(want_counts);
    free(got_counts);
    snprintf(what, sizeof what, "variant %lld, n=%lld", variant, n);
    return lesson_result(wrong == 0, "%s: %lld of %lld values wrong", what, wrong, count);
}
