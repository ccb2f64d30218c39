/*
 * harness.cu - lesson 05's host side, shared by legacy.cu, sync.cu, cg.cu
 * and your own copy (mine.cu). You never edit it: it reads the command
 * line, makes the input, computes the CPU reference, launches the kernel,
 * and gives the verdict. mk/lesson.mk builds each program from it and one
 * lesson file:
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
 * What a lesson file must define (device code only, after
 * `#include "lesson.h"`; external linkage, not static):
 *
 *   __global__ void compact(const int *in, long long n, int keep_max,
 *                           int queues, int *out, unsigned *counters,
 *                           unsigned *overflow, int variant);
 *
 *     One element per thread, i = blockIdx.x * blockDim.x + threadIdx.x.
 *     Element i < n is kept when in[i] <= keep_max; it belongs to queue
 *     q = in[i] % queues. A kept element takes a slot s from counters[q]
 *     (each slot once: what atomicAdd(&counters[q], 1) would return) and
 *     writes i to out[q * n + s]; a slot s >= n is not written, and adds 1
 *     to *overflow instead. blockDim.x is a multiple of 32, at most 1024;
 *     variant (-k) is 1 to 4, the file's ways of taking the slot; variants
 *     1 and 2 get queues == 1.
 *
 * The verdict: every slot below each counter holds a kept element of its
 * queue, every kept element is in exactly one slot, no slot at or past a
 * counter is written, every counter equals its queue's count, and nothing
 * overflowed.
 */
#include "lesson.h"

#if !defined(LESSON_VERIFY)
__global__ void compact(const int *in, long long n, int keep_max, int queues,
                        int *out, unsigned *counters, unsigned *overflow, int variant);
#endif

#define ABOUT \
    "Lesson 05: stream compaction with warp-aggregated atomics, the kernels of\n" \
    "{file}. Keeps the elements <= P of n random ints in 1..100 and\n" \
    "appends each one's index to queue in[i] % Q at a slot taken from the\n" \
    "queue's counter, one atomicAdd per group of lanes; checks that every slot\n" \
    "is written exactly once and every kept element is in exactly one slot.\n" \
    "legacy.cu is right by luck without delays and wrong with -j 200\n" \
    "(variant 1 with --sleepers even, variant 2 with the default odd) on a GPU\n" \
    "with independent thread scheduling; sync.cu is right under every delay."

static const char *variants[] = {
    "broadcast: one counter; legacy.cu passes the base in shared memory, sync.cu with __shfl_sync",
    "group: one counter; legacy.cu counts a ballot, leads from __activemask(); sync.cu all from __activemask()",
    "queues: a counter per queue (-q up to 32), members grouped by __match_any_sync",
    "plain: one atomicAdd per lane, left to the compiler",
};
/* How many queues each variant can serve (-q). */
static const int variant_queues[] = { 1, 1, 32, 32 };

typedef struct {
    long long empty, twice, stray, missing, past;
} faults;

/* How many elements each queue must receive. */
static void cpu_counts(const int *in, long long n, int keep_max, int queues,
                       unsigned *counts)
{
    long long i;
    memset(counts, 0, (size_t)queues * sizeof(unsigned));
    for (i = 0; i < n; i++)
        if (in[i] <= keep_max)
            counts[in[i] % queues]++;
}

/* Prints one fault, the first ten only. */
static void fault_line(long long *printed, const char *fmt, ...)
{
    va_list ap;
    if (++*printed > 10)
        return;
    printf("  ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/*
 * Every slot below each queue's counter must hold a kept element of that
 * queue, every kept element must be in exactly one slot, and no slot at or
 * past the counter may be written. seen is scratch, n bytes.
 */
static faults check_queues(const int *in, long long n, int keep_max, int queues,
                           const int *out, const unsigned *got, unsigned char *seen)
{
    faults f = { 0, 0, 0, 0, 0 };
    long long printed = 0, s, i;
    int q;
    if (n > 0)      /* always (n >= 1); says so to the compiler's size check */
        memset(seen, 0, (size_t)n);
    for (q = 0; q < queues; q++) {
        const int *slots = out + (long long)q * n;
        long long limit = got[q] < (unsigned long long)n ? (long long)got[q] : n;
        for (s = 0; s < limit; s++) {
            int v = slots[s];
            if (v == -1) {
                f.empty++;
                fault_line(&printed, "slot %lld: expected a kept element of queue %d, "
                           "never written", s, q);
            } else if (v < 0 || v >= n || in[v] > keep_max || in[v] % queues != q) {
                f.stray++;
                fault_line(&printed, "slot %lld: expected a kept element of queue %d, "
                           "holds %d", s, q, v);
            } else if (seen[v]) {
                f.twice++;
                fault_line(&printed, "slot %lld: expected a new element of queue %d, "
                           "holds %d again", s, q, v);
            } else {
                seen[v] = 1;
            }
        }
        for (s = limit; s < n; s++)
            if (slots[s] != -1) {
                f.past++;
                fault_line(&printed, "slot %lld: expected nothing past queue %d's "
                           "counter (%u), holds %d", s, q, got[q], slots[s]);
            }
    }
    for (i = 0; i < n; i++)
        if (in[i] <= keep_max && !seen[i]) {
            f.missing++;
            fault_line(&printed, "element %lld: expected in one slot of queue %d, "
                       "in none", i, in[i] % queues);
        }
    if (printed > 10)
        printf("  ... and %lld more\n", printed - 10);
    return f;
}

/* The comparison, the closing line and the exit status. */
static int judge(const int *in, long long n, int keep_max, int queues,
                 const int *out, const unsigned *got, unsigned overflow,
                 unsigned char *seen)
{
    long long wrong_counts = 0, kept = 0;
    unsigned *want = (unsigned *)lesson_host_alloc((size_t)queues * sizeof(unsigned),
                                                   "the counters");
    faults f;
    int q;
    cpu_counts(in, n, keep_max, queues, want);
    for (q = 0; q < queues; q++) {
        kept += want[q];
        if (got[q] != want[q] && ++wrong_counts <= 10)
            printf("  queue %d: expected %u elements, the counter says %u\n",
                   q, want[q], got[q]);
    }
    f = check_queues(in, n, keep_max, queues, out, got, seen);
    if (overflow)
        printf("  %u slots asked for past the end of their queue (not written)\n", overflow);
    printf("kept %lld of %lld elements into %d queue%s\n", kept, n, queues,
           queues == 1 ? "" : "s");
    lesson_host_free(want);
    return lesson_result(wrong_counts == 0 && f.empty == 0 && f.twice == 0 &&
                         f.stray == 0 && f.missing == 0 && f.past == 0 && overflow == 0,
                         "%lld slots empty, %lld elements twice, %lld missing, "
                         "%lld stray, %lld of %d counters wrong",
                         f.empty, f.twice, f.missing, f.stray + f.past + overflow,
                         wrong_counts, queues);
}

int lesson_main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, variant = 1;
    long long keep_pct = 50, queues = 1;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 30, "number of input elements" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX,
          "seed of the random input (and of --sleepers random)" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "the --sleepers lanes sleep NS nanoseconds at each delay point" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which increment" },
        { 'p', "keep", "P", &keep_pct, 0, 100,
          "keep the elements <= P (input 1..100: about P%)" },
        { 'q', "queues", "Q", &queues, 1, 32,
          "output queues: element i goes to queue in[i] % Q (variants 3 and 4)" },
    };
    lesson_program program = { lesson_src_name, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks, i, nout;
    int *in, *out, *counters;
    unsigned *got, overflow = 0;
    unsigned char *seen;
    int q;
#if defined(LESSON_VERIFY)
    int status, rc, args_argc;
    char **args_argv;
    FILE *dump = lesson_verify_start(argc, argv, &args_argc, &args_argv, &status);
#else
    int *d_in, *d_out;
    unsigned *d_counters, *d_overflow;
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
    if (queues > variant_queues[variant - 1])
        lesson_fail(LESSON_USAGE, "variant %lld fills one queue only: use -q 1 (got %lld)",
                    variant, queues);
    if (queues * n > (1LL << 31) - 1)
        lesson_fail(LESSON_USAGE, "-q %lld -n %lld: more than 2^31 - 1 output slots",
                    queues, n);
    blocks = (n + threads - 1) / threads;
    nout = queues * n;

#if !defined(LESSON_VERIFY)
    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc((size_t)nout * sizeof(int), "the output queues");
    d_counters = (unsigned *)lesson_device_alloc((size_t)queues * sizeof(unsigned),
                                                 "the counters");
    d_overflow = (unsigned *)lesson_device_alloc(sizeof(unsigned), "a counter");
#endif
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    out = (int *)lesson_host_alloc((size_t)nout * sizeof(int), "the output queues");
    counters = (int *)lesson_host_alloc((size_t)queues * sizeof(int), "the counters");
    got = (unsigned *)lesson_host_alloc((size_t)queues * sizeof(unsigned), "the counters");
    seen = (unsigned char *)lesson_host_alloc((size_t)n, "the check");
    {
        uint64_t state = (uint64_t)seed;
        for (i = 0; i < n; i++)
            in[i] = 1 + (int)(lesson_next_random(&state) % 100u);
    }

#if defined(LESSON_VERIFY)
    {
        int ov = 0;
        if (lesson_dump_read_ints(dump, "out", out, nout) != 0 ||
            lesson_dump_read_ints(dump, "counters", counters, queues) != 0 ||
            lesson_dump_read_ints(dump, "overflow", &ov, 1) != 0) {
            printf("result: WRONG (the results written are not those of these arguments)\n");
            return LESSON_WRONG;
        }
        overflow = (unsigned)ov;
    }
    fclose(dump);
    (void)blocks;
    for (q = 0; q < queues; q++)
        got[q] = (unsigned)counters[q];
    rc = judge(in, n, (int)keep_pct, (int)queues, out, got, overflow, seen);
    return status ? status : rc;
#else
    printf("%s variant %lld (%s)\n", lesson_src_name, variant, variants[variant - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld keep<=%lld queues=%lld jitter=%lldns%s%s%s: "
           "%lld blocks of %lld threads\n",
           n, seed, keep_pct, queues, jitter, jitter ? " (" : "",
           jitter ? lesson_sleepers : "", jitter ? " lanes sleep)" : "", blocks, threads);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_counters, 0, (size_t)queues * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(d_overflow, 0, sizeof(unsigned)));
    /* Every slot starts at -1: a slot never written shows. */
    CUDA_CHECK(cudaMemset(d_out, 0xff, (size_t)nout * sizeof(int)));
    lesson_delay_from_options(jitter, seed);
    lesson_launching("compact", blocks, threads);
    LAUNCH(compact, (unsigned)blocks, (unsigned)threads, 0,
           d_in, n, (int)keep_pct, (int)queues, d_out, d_counters, d_overflow, (int)variant);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)nout * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got, d_counters, (size_t)queues * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&overflow, d_overflow, sizeof(unsigned), cudaMemcpyDeviceToHost));
    lesson_device_free(d_in);
    lesson_device_free(d_out);
    lesson_device_free(d_counters);
    lesson_device_free(d_overflow);

    if (lesson_dump_path) {
        /* build/verify judges these. */
        FILE *f = lesson_dump_open(lesson_dump_path);
        int ov = (int)overflow;
        for (q = 0; q < queues; q++)
            counters[q] = (int)got[q];
        lesson_dump_ints(f, "out", out, nout);
        lesson_dump_ints(f, "counters", counters, queues);
        lesson_dump_ints(f, "overflow", &ov, 1);
        lesson_dump_close(f);
        return LESSON_OK;
    }
    return judge(in, n, (int)keep_pct, (int)queues, out, got, overflow, seen);
#endif
}
