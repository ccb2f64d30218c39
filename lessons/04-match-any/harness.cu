/*
 * harness.cu - lesson 04's host side, shared by legacy.cu, sync.cu and your
 * own copy (mine.cu). You never edit it: it reads the command line, makes
 * the keys, computes the CPU reference, launches the kernel, and gives the
 * verdict. mk/lesson.mk builds each program from it and one lesson file:
 *
 *   build/legacy        = harness.cu + legacy.cu   build/emu/legacy for warpsim
 *   build/sync          = harness.cu + sync.cu
 *   build/sync-fallback = harness.cu + sync.cu built with -DMATCH_FALLBACK=1
 *   build/mine          = harness.cu + SRC         (make check SRC=mine.cu)
 *   build/verify        = harness.cu alone, built by the C compiler with
 *                         LESSON_VERIFY: runs a program with --dump and judges
 *                         what it wrote, so that nothing the lesson file does
 *                         can print the verdict (the checker runs every
 *                         program this way)
 *
 * What a lesson file must define (device code only, after
 * `#include "lesson.h"`; external linkage, not static):
 *
 *   __global__ void count_keys(const unsigned *keys, const int *branch,
 *                              long long n, unsigned *groups,
 *                              unsigned *tickets, unsigned *counts,
 *                              int *impl, int variant);
 *
 *     One element per thread, i = blockIdx.x * blockDim.x + threadIdx.x.
 *     The lanes of a warp with an element (i < n) and the same branch[i]
 *     (0 or 1: which side of an if they take) group by keys[i]: groups[i]
 *     is the mask of those lanes that hold keys[i] (what __match_any_sync
 *     returns). counts[k] (zeroed) must end as the number of elements with
 *     key k, and tickets[i] must be a ticket of its own: the tickets of
 *     key k are 0..counts[k]-1, each given once (what each lane's own
 *     atomicAdd(&counts[k], 1) could have returned). Thread 0 writes to
 *     *impl 1 if variant 1 used the __match_any_sync instruction, 0 if it
 *     used a fallback loop, -1 if neither (the harness only prints it).
 *     blockDim.x is a multiple of 32, at most 1024; variant (-k) is 1 to 3.
 *
 * The verdict: every lane's group mask, every count and every ticket.
 */
#include "lesson.h"

#if !defined(LESSON_VERIFY)
__global__ void count_keys(const unsigned *keys, const int *branch, long long n,
                           unsigned *groups, unsigned *tickets, unsigned *counts,
                           int *impl, int variant);
#endif

#define ABOUT \
    "Lesson 04: groups the lanes of each warp by key with the kernels of\n" \
    "{file}; each group's leader counts the group with one atomicAdd\n" \
    "and hands out tickets. Checks every lane's group mask, every key's count\n" \
    "and every ticket against the CPU. legacy.cu: variant 1 is wrong whenever\n" \
    "a warp holds two keys; variant 2 is right by luck without delays and\n" \
    "wrong with -j 200 on a GPU with independent thread scheduling. sync.cu\n" \
    "is right under every delay, with the instruction or either fallback."

static const char *variants[] = {
    "match: legacy.cu __match_all_sync where __match_any_sync was meant; "
        "sync.cu match_any(), the instruction (the fallback below 7.0)",
    "lanes: legacy.cu keys through shared memory, no warp sync; "
        "sync.cu the fallback, one trip per lane",
    "groups: the fallback, one trip per group (the same in both files)",
};

/*
 * What __match_any_sync must return to each lane, and the count of each key.
 * The lanes that make one call are those of the same warp with an element
 * (i < n) in the same branch; groups[i] is the mask of those lanes that hold
 * keys[i]. Assumes warps of 32 consecutive elements (blocks are a multiple
 * of 32 threads).
 */
static void cpu_groups(const unsigned *keys, const int *branch, long long n,
                       unsigned *groups, unsigned *counts, long long nkeys)
{
    long long w, i;
    memset(counts, 0, (size_t)nkeys * sizeof(unsigned));
    for (i = 0; i < n; i++)
        counts[keys[i]]++;
    for (w = 0; w < n; w += 32) {
        long long end = w + 32 < n ? w + 32 : n;
        for (i = w; i < end; i++) {
            unsigned g = 0;
            long long j;
            for (j = w; j < end; j++)
                if (keys[j] == keys[i] && branch[j] == branch[i])
                    g |= 1u << (j - w);
            groups[i] = g;
        }
    }
}

/* The first ten lanes whose group differs, then how many differ. */
static long long compare_groups(const unsigned *want, const unsigned *got, long long n)
{
    long long i, wrong = 0;
    for (i = 0; i < n; i++) {
        if (want[i] == got[i])
            continue;
        if (++wrong <= 10)
            printf("  element %lld: expected group 0x%08x got 0x%08x (warp %lld, lane %lld)\n",
                   i, want[i], got[i], i / 32, i % 32);
    }
    if (wrong > 10)
        printf("  ... and %lld more lanes\n", wrong - 10);
    return wrong;
}

/* The counts that differ, the first ten printed. */
static long long compare_counts(const unsigned *want, const unsigned *got, long long nkeys)
{
    long long k, wrong = 0;
    for (k = 0; k < nkeys; k++) {
        if (want[k] == got[k])
            continue;
        if (++wrong <= 10)
            printf("  key %lld: expected count %u got %u\n", k, want[k], got[k]);
    }
    if (wrong > 10)
        printf("  ... and %lld more keys\n", wrong - 10);
    return wrong;
}

/*
 * The tickets of each key must be 0..count-1, each once. Returns how many
 * tickets are out of that range or repeated (the first ten printed).
 */
static long long check_tickets(const unsigned *keys, const unsigned *tickets, long long n,
                               const unsigned *counts, long long nkeys)
{
    long long i, k, bad = 0, at = 0;
    long long *first = (long long *)lesson_host_alloc((size_t)nkeys * sizeof(long long),
                                                      "the ticket check");
    unsigned char *slot = (unsigned char *)lesson_host_alloc((size_t)n, "the ticket check");
    for (k = 0; k < nkeys; k++) {
        first[k] = at;
        at += counts[k];
    }
    memset(slot, 0, (size_t)n);
    for (i = 0; i < n; i++) {
        unsigned t = tickets[i];
        const char *why = NULL;
        if (t >= counts[keys[i]])
            why = "out of range";
        else if (slot[first[keys[i]] + t])
            why = "given twice";
        else
            slot[first[keys[i]] + t] = 1;
        if (!why)
            continue;
        if (++bad <= 10)
            printf("  element %lld: expected a ticket of its own below %u (key %u), "
                   "got %u: %s\n", i, counts[keys[i]], keys[i], t, why);
    }
    if (bad > 10)
        printf("  ... and %lld more tickets\n", bad - 10);
    lesson_host_free(first);
    lesson_host_free(slot);
    return bad;
}

/* The comparison, the closing line and the exit status. */
static int judge(const unsigned *keys, const int *branch, long long n, long long nkeys,
                 const unsigned *got_groups, const unsigned *tickets,
                 const unsigned *got_counts)
{
    long long wrong_groups, wrong_counts, bad_tickets;
    unsigned *want_groups = (unsigned *)lesson_host_alloc((size_t)n * sizeof(unsigned),
                                                          "the group masks");
    unsigned *want_counts = (unsigned *)lesson_host_alloc((size_t)nkeys * sizeof(unsigned),
                                                          "the counters");
    cpu_groups(keys, branch, n, want_groups, want_counts, nkeys);
    wrong_groups = compare_groups(want_groups, got_groups, n);
    wrong_counts = compare_counts(want_counts, got_counts, nkeys);
    bad_tickets = check_tickets(keys, tickets, n, want_counts, nkeys);
    lesson_host_free(want_groups);
    lesson_host_free(want_counts);
    return lesson_result(wrong_groups == 0 && wrong_counts == 0 && bad_tickets == 0,
                         "%lld of %lld group masks wrong, %lld of %lld counts wrong, "
                         "%lld of %lld tickets wrong",
                         wrong_groups, n, wrong_counts, nkeys, bad_tickets, n);
}

int lesson_main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, variant = 1;
    long long nkeys = 4, divergent = 0;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 28, "number of elements (lanes)" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX,
          "seed of the random keys (and of --sleepers random)" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "the --sleepers lanes sleep NS nanoseconds at each delay point" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which grouping" },
        { 'c', "keys", "C", &nkeys, 1, 1LL << 24,
          "distinct keys: random keys in 0..C-1" },
        { 'd', "divergent", "D", &divergent, 0, 1,
          "1: a random half of the lanes takes another branch" },
    };
    lesson_program program = { lesson_src_name, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks, i;
    unsigned *keys, *groups, *tickets, *counts;
    int *branch;
    uint64_t state;
    size_t bytes;
#if defined(LESSON_VERIFY)
    int status, rc, args_argc;
    char **args_argv;
    FILE *dump = lesson_verify_start(argc, argv, &args_argc, &args_argv, &status);
#else
    unsigned *d_keys, *d_groups, *d_tickets, *d_counts;
    int *d_branch, *d_impl, impl;
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
    bytes = (size_t)n * sizeof(unsigned);

#if !defined(LESSON_VERIFY)
    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_keys = (unsigned *)lesson_device_alloc(bytes, "the keys");
    d_branch = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the branches");
    d_groups = (unsigned *)lesson_device_alloc(bytes, "the group masks");
    d_tickets = (unsigned *)lesson_device_alloc(bytes, "the tickets");
    d_counts = (unsigned *)lesson_device_alloc((size_t)nkeys * sizeof(unsigned), "the counters");
    d_impl = (int *)lesson_device_alloc(sizeof(int), "a flag");
#endif
    keys = (unsigned *)lesson_host_alloc(bytes, "the keys");
    branch = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the branches");
    groups = (unsigned *)lesson_host_alloc(bytes, "the group masks");
    tickets = (unsigned *)lesson_host_alloc(bytes, "the tickets");
    counts = (unsigned *)lesson_host_alloc((size_t)nkeys * sizeof(unsigned), "the counters");
    state = (uint64_t)seed;
    for (i = 0; i < n; i++) {
        uint64_t r = lesson_next_random(&state);
        keys[i] = (unsigned)(r % (uint64_t)nkeys);
        branch[i] = divergent ? (int)(r >> 63) : 0;
    }

#if defined(LESSON_VERIFY)
    if (lesson_dump_read_ints(dump, "groups", (int *)groups, n) != 0 ||
        lesson_dump_read_ints(dump, "tickets", (int *)tickets, n) != 0 ||
        lesson_dump_read_ints(dump, "counts", (int *)counts, nkeys) != 0) {
        printf("result: WRONG (the results written are not those of these arguments)\n");
        return LESSON_WRONG;
    }
    fclose(dump);
    (void)blocks;
    rc = judge(keys, branch, n, nkeys, groups, tickets, counts);
    return status ? status : rc;
#else
    printf("%s variant %lld (%s)\n", lesson_src_name, variant, variants[variant - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld keys=%lld divergent=%lld jitter=%lldns%s%s%s: "
           "%lld blocks of %lld threads, %lld warps%s\n",
           n, seed, nkeys, divergent, jitter, jitter ? " (" : "",
           jitter ? lesson_sleepers : "", jitter ? " lanes sleep)" : "",
           blocks, threads, (n + 31) / 32, n % 32 ? " (the last one partial)" : "");

    CUDA_CHECK(cudaMemcpy(d_keys, keys, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_branch, branch, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_counts, 0, (size_t)nkeys * sizeof(unsigned)));
    /* Poison the outputs: a mask or a ticket never written cannot pass. */
    CUDA_CHECK(cudaMemset(d_groups, 0, bytes));
    CUDA_CHECK(cudaMemset(d_tickets, 0xff, bytes));
    CUDA_CHECK(cudaMemset(d_impl, 0x7f, sizeof(int)));
    lesson_delay_from_options(jitter, seed);
    lesson_launching("count_keys", blocks, threads);
    LAUNCH(count_keys, (unsigned)blocks, (unsigned)threads, 0,
           d_keys, d_branch, n, d_groups, d_tickets, d_counts, d_impl, (int)variant);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(groups, d_groups, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(tickets, d_tickets, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(counts, d_counts, (size_t)nkeys * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&impl, d_impl, sizeof(int), cudaMemcpyDeviceToHost));
    lesson_device_free(d_keys);
    lesson_device_free(d_branch);
    lesson_device_free(d_groups);
    lesson_device_free(d_tickets);
    lesson_device_free(d_counts);
    lesson_device_free(d_impl);

    if (variant == 1 && (impl == 0 || impl == 1))
        printf("match_any() was built as %s\n", impl ? "the __match_any_sync instruction"
               : "the fallback loop (MATCH_FALLBACK=1, or compute capability < 7.0)");
    if (lesson_dump_path) {
        /* build/verify judges these. */
        FILE *f = lesson_dump_open(lesson_dump_path);
        lesson_dump_ints(f, "groups", (const int *)groups, n);
        lesson_dump_ints(f, "tickets", (const int *)tickets, n);
        lesson_dump_ints(f, "counts", (const int *)counts, nkeys);
        lesson_dump_close(f);
        return LESSON_OK;
    }
    return judge(keys, branch, n, nkeys, groups, tickets, counts);
#endif
}
