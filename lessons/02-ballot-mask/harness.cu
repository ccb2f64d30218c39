/*
 * harness.cu - lesson 02's host side, shared by legacy.cu, sync.cu and your
 * own copy (mine.cu). You never edit it: it reads the command line, makes
 * the input, computes the CPU reference, launches the kernel of the chosen
 * demonstration, and gives the verdict. mk/lesson.mk builds each program
 * from it and one lesson file:
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
 * `#include "lesson.h"` and `#include "demos.h"`; external linkage, not
 * static). blockDim.x is a multiple of 32, at most 1024; i is the global
 * thread index, w = i / 32 its warp, elements past n count as 0.
 *
 *   __global__ void demo_activemask(const int *in, long long n, int count, int *sums);
 *   __global__ void demo_partners(const int *in, long long n, int count, int *sums);
 *       sums[w] = the sum of in[i] over lanes 0..k-1 of warp w with i < n,
 *       k = COUNT_OF_WARP(count, w). Demonstration 1 lets only those lanes
 *       into the branch that sums; demonstration 2 is free to do otherwise.
 *   __global__ void demo_reconverge(const int *in, long long n,
 *                                   unsigned *ballots, int *votes);
 *       each lane i < n: ballots[i] = the ballot of its warp of
 *       VOTE_OF_LANE(lane, v, THRESHOLD_OF_WARP(w)) (lanes past n vote with
 *       v = 0), votes[i] = any | all << 1 | uni << 2 of the same votes.
 *   __global__ void demo_hang(const int *in, long long n, int *out, int *box,
 *                             int *flags, hang_watch *watch,
 *                             unsigned long long *spun_cycles, long long cycles);
 *       out[i] = in[w * 32] for every i < n: lanes 0-15 (HALF) agree on it
 *       with a shuffle, lane 0 hands it over through box[w] and flags[w]
 *       (zeroed), lanes 16-31 wait for the flag. A spinning lane gives up
 *       after `cycles` clock cycles (watchdog_expired) and records it in
 *       watch[w] (demos.h) and spun_cycles: the harness reports a hang.
 *   __global__ void demo_exited(const int *in, long long n, int *out);
 *       lanes 0-15: out[i] = in[w * 32]; lanes 16-31 return at once and
 *       leave out[i] as it was (the harness fills it with 0xab bytes).
 *   __global__ void demo_detective(const int *in, long long n, int *bins);
 *       bins[BIN_OF(i)] += in[i] for every i < n (bins zeroed).
 */
#include "lesson.h"
#include "demos.h"

#if !defined(LESSON_VERIFY)
__global__ void demo_activemask(const int *in, long long n, int count, int *sums);
__global__ void demo_partners(const int *in, long long n, int count, int *sums);
__global__ void demo_reconverge(const int *in, long long n, unsigned *ballots, int *votes);
__global__ void demo_hang(const int *in, long long n, int *out, int *box, int *flags,
                          hang_watch *watch, unsigned long long *spun_cycles,
                          long long cycles);
__global__ void demo_exited(const int *in, long long n, int *out);
__global__ void demo_detective(const int *in, long long n, int *bins);
#endif

enum { D_ACTIVEMASK = 1, D_PARTNERS, D_RECONVERGE, D_HANG, D_EXITED, D_DETECTIVE };

#define ABOUT \
    "Lesson 02: what to pass as the mask. Runs one demonstration (-k, by number\n" \
    "or name) with the kernels of {file} and checks it against the\n" \
    "CPU. legacy.cu passes masks that name the wrong lanes: demonstrations 1\n" \
    "and 3 are usually right by luck without -j and wrong with -j 200 on a GPU\n" \
    "with independent thread scheduling; 2 reads lanes outside its mask\n" \
    "(undefined: warpsim reports it); 4 hangs, and its watchdog ends it with\n" \
    "'HANG detected' (exit 3). sync.cu works each mask out with __ballot_sync\n" \
    "before the branch and is right under every delay. 6 is right in both."

static const char *variants[] = {
    "activemask: Listing 5, __activemask() inside the branch (legacy); Listing 3, the mask from __ballot_sync before it (sync)",
    "partners: Listing 3 as printed, partners outside the mask (legacy); the whole warp, non-members add 0 (sync); -c 0 or < 32",
    "reconverge: Listing 10, votes of whoever is active after an if/else (legacy); Listing 12, FULL_MASK (sync)",
    "hang: lanes 0-15 shuffle with FULL_MASK while lanes 16-31 spin (legacy); with the producers' mask (sync); watchdog -w",
    "exited: lanes 0-15 shuffle with FULL_MASK after lanes 16-31 returned (legacy); with the mask of the lanes that stay (sync)",
    "detective: __match_all_sync finds out whether the warp shares one bin; the sum is the same either way (both files)",
};
#define NDEMOS ((int)(sizeof variants / sizeof variants[0]))

/* Demonstration 4 runs at most this many warps: each hung warp costs one
 * watchdog period, and these all fit on the GPU at once. */
#define HANG_MAX_WARPS 64
/* A few hundred million cycles: about 0.2 s at 1.7-2 GHz. */
#define DEFAULT_WATCHDOG 400000000LL

/* ---- CPU reference ------------------------------------------------- */

/* Demonstrations 1-2: sums[w] is the sum of the elements of lanes
 * 0..k-1 of warp w that exist (index < n). */
static void cpu_count_sums(const int *in, long long n, long long count,
                           int *sums, long long nwarps)
{
    long long w, i;
    for (w = 0; w < nwarps; w++) {
        int k = COUNT_OF_WARP(count, w);
        sums[w] = 0;
        for (i = w * 32; i < w * 32 + k && i < n; i++)
            sums[w] += in[i];
    }
}

/* Demonstration 3: what every lane i < n must see: the ballot of its warp,
 * and any | all << 1 | uni << 2. Lanes past n vote with the value 0. */
static void cpu_votes(const int *in, long long n, int *ballots, int *votes)
{
    long long w, nwarps = (n + 31) / 32;
    int lane;
    for (w = 0; w < nwarps; w++) {
        int t = THRESHOLD_OF_WARP(w);
        unsigned b = 0;
        int any, all, uni;
        for (lane = 0; lane < 32; lane++) {
            long long i = w * 32 + lane;
            int v = i < n ? in[i] : 0;
            if (VOTE_OF_LANE(lane, v, t))
                b |= 1u << lane;
        }
        any = b != 0;
        all = b == FULL_MASK;
        uni = b == 0 || b == FULL_MASK;
        for (lane = 0; lane < 32 && w * 32 + lane < n; lane++) {
            ballots[w * 32 + lane] = (int)b;
            votes[w * 32 + lane] = any | all << 1 | uni << 2;
        }
    }
}

/* Demonstrations 4-5: lanes 0..writers-1 of every warp hold the value of
 * their warp's lane 0; the others keep the poison the harness wrote. */
static void cpu_leader(const int *in, long long n, int writers, int *out)
{
    long long i;
    memset(out, 0xab, (size_t)n * sizeof(int));
    for (i = 0; i < n; i++)
        if (i % 32 < writers)
            out[i] = in[i - i % 32];
}

/* Demonstration 6: the sum of each bin. */
static void cpu_bins(const int *in, long long n, int *bins)
{
    long long i;
    memset(bins, 0, NBINS * sizeof(int));
    for (i = 0; i < n; i++)
        bins[BIN_OF(i)] += in[i];
}

/* ---- the verdict ----------------------------------------------------- */

/* The demonstration's results: one or two arrays of ints. */
typedef struct {
    const char *name[2];
    long long count[2];
    int *want[2], *got[2];
    int arrays;
} results;

/* Compares got with want, prints the first mismatches (by warp and lane
 * where the array has one element per lane) and the closing line; returns
 * the exit status. */
static int judge(int demo, const results *r, long long n)
{
    long long i, wrong = 0, wrong_warps = 0, last_warp = -1;
    if (demo == D_ACTIVEMASK || demo == D_PARTNERS) {
        wrong = lesson_compare_ints("warp", r->want[0], r->got[0], r->count[0]);
        return lesson_result(wrong == 0, "%lld of %lld warp sums wrong", wrong, r->count[0]);
    }
    if (demo == D_DETECTIVE) {
        wrong = lesson_compare_ints("bin", r->want[0], r->got[0], r->count[0]);
        return lesson_result(wrong == 0, "%lld of %d bin sums wrong", wrong, NBINS);
    }
    for (i = 0; i < n; i++) {
        int bad = r->want[0][i] != r->got[0][i] ||
                  (r->arrays == 2 && r->want[1][i] != r->got[1][i]);
        if (!bad)
            continue;
        if (++wrong <= 10) {
            if (demo == D_RECONVERGE)
                printf("  lane %lld: expected ballot 0x%08x, any/all/uni %d/%d/%d; "
                       "got 0x%08x, %d/%d/%d (warp %lld, lane %lld of it)\n",
                       i, (unsigned)r->want[0][i],
                       r->want[1][i] & 1, r->want[1][i] >> 1 & 1, r->want[1][i] >> 2 & 1,
                       (unsigned)r->got[0][i],
                       r->got[1][i] & 1, r->got[1][i] >> 1 & 1, r->got[1][i] >> 2 & 1,
                       i / 32, i % 32);
            else
                printf("  lane %lld: expected %d got %d (warp %lld, lane %lld of it)\n",
                       i, r->want[0][i], r->got[0][i], i / 32, i % 32);
        }
        if (i / 32 != last_warp) {
            wrong_warps++;
            last_warp = i / 32;
        }
    }
    if (wrong > 10)
        printf("  ... and %lld more\n", wrong - 10);
    if (demo == D_RECONVERGE)
        return lesson_result(wrong == 0, "%lld of %lld lanes saw a wrong vote, in %lld of %lld warps",
                             wrong, n, wrong_warps, (n + 31) / 32);
    return lesson_result(wrong == 0, "%lld of %lld lanes wrong, %d of 32 lanes per warp have work",
                         wrong, n, demo == D_HANG ? 32 : HALF);
}

/* Fills r with the arrays of demonstration demo and their reference. */
static void reference(int demo, const int *in, long long n, long long count, results *r)
{
    long long nwarps = (n + 31) / 32;
    int a;
    memset(r, 0, sizeof *r);
    switch (demo) {
    case D_ACTIVEMASK:
    case D_PARTNERS:
        r->arrays = 1; r->name[0] = "sums"; r->count[0] = nwarps;
        break;
    case D_RECONVERGE:
        r->arrays = 2; r->name[0] = "ballots"; r->count[0] = n;
        r->name[1] = "votes"; r->count[1] = n;
        break;
    case D_HANG:
    case D_EXITED:
        r->arrays = 1; r->name[0] = "out"; r->count[0] = n;
        break;
    case D_DETECTIVE:
        r->arrays = 1; r->name[0] = "bins"; r->count[0] = NBINS;
        break;
    default:
        lesson_fail(LESSON_USAGE, "no demonstration %d (try --help)", demo);
    }
    for (a = 0; a < r->arrays; a++) {
        r->want[a] = (int *)lesson_host_alloc((size_t)r->count[a] * sizeof(int), "the results");
        r->got[a] = (int *)lesson_host_alloc((size_t)r->count[a] * sizeof(int), "the results");
    }
    switch (demo) {
    case D_ACTIVEMASK:
    case D_PARTNERS: cpu_count_sums(in, n, count, r->want[0], nwarps); break;
    case D_RECONVERGE: cpu_votes(in, n, r->want[0], r->want[1]); break;
    case D_HANG: cpu_leader(in, n, 32, r->want[0]); break;
    case D_EXITED: cpu_leader(in, n, HALF, r->want[0]); break;
    default: cpu_bins(in, n, r->want[0]); break;
    }
}

#if !defined(LESSON_VERIFY)
/* ---- the runs --------------------------------------------------------- */

/* Demonstration 4's report when the watchdog fired; returns how many warps
 * hung. */
static long long report_hang(const hang_watch *watch, long long nwarps,
                             unsigned long long cycles_spun)
{
    long long w, hung = 0;
    unsigned spun = 0, waited = 0;
    char s1[128], s2[128];
    for (w = 0; w < nwarps; w++) {
        if (watch[w].spun == 0)
            continue;
        hung++;
        spun |= watch[w].spun;
        waited |= watch[w].waited;
    }
    if (!hung)
        return 0;
    if (waited)
        printf("HANG detected: lanes %s spun %llu cycles on a flag while lanes %s waited "
               "in their shuffle for them (%lld of %lld warps); the watchdog made the "
               "spinners give up\n", lesson_lanes_text(spun, s1, sizeof s1), cycles_spun,
               lesson_lanes_text(waited, s2, sizeof s2), hung, nwarps);
    else
        printf("HANG detected: lanes %s spun %llu cycles on a flag while lanes 0-%d had "
               "not run at all (%lld of %lld warps): the warp ran the spinning side of the "
               "branch, and without independent thread scheduling (pre-Volta) it cannot "
               "switch to the other side until that one ends; the watchdog made the "
               "spinners give up\n", lesson_lanes_text(spun, s1, sizeof s1), cycles_spun,
               HALF - 1, hung, nwarps);
    return hung;
}

/* Runs demonstration demo on the GPU (or warpsim) and reads its results
 * into r->got. Returns LESSON_HANG when the watchdog fired, else 0. */
static int run_demo(int demo, const int *in, long long n, long long threads,
                    long long count, long long cycles, results *r)
{
    long long blocks = (n + threads - 1) / threads, nwarps = (n + 31) / 32;
    int *d_in, *d_a, *d_b = NULL, *d_box = NULL, *d_flags = NULL, status = 0;
    hang_watch *d_watch = NULL, *watch;
    unsigned long long *d_cycles = NULL, cycles_spun = 0;

    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_a = (int *)lesson_device_alloc((size_t)r->count[0] * sizeof(int), "the results");
    if (r->arrays == 2)
        d_b = (int *)lesson_device_alloc((size_t)r->count[1] * sizeof(int), "the results");
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* Poison the results: a value the kernel never writes cannot pass.
     * The bins start at 0: the kernel adds to them. */
    CUDA_CHECK(cudaMemset(d_a, demo == D_DETECTIVE ? 0 : 0xab, (size_t)r->count[0] * sizeof(int)));
    if (d_b)
        CUDA_CHECK(cudaMemset(d_b, 0xab, (size_t)r->count[1] * sizeof(int)));

    switch (demo) {
    case D_ACTIVEMASK:
        lesson_launching("demo_activemask", blocks, threads);
        LAUNCH(demo_activemask, (unsigned)blocks, (unsigned)threads, 0, d_in, n, (int)count, d_a);
        break;
    case D_PARTNERS:
        lesson_launching("demo_partners", blocks, threads);
        LAUNCH(demo_partners, (unsigned)blocks, (unsigned)threads, 0, d_in, n, (int)count, d_a);
        break;
    case D_RECONVERGE:
        lesson_launching("demo_reconverge", blocks, threads);
        LAUNCH(demo_reconverge, (unsigned)blocks, (unsigned)threads, 0,
               d_in, n, (unsigned *)d_a, d_b);
        break;
    case D_HANG:
        printf("watchdog: spinning lanes give up after %lld cycles\n", cycles);
        d_box = (int *)lesson_device_alloc((size_t)nwarps * sizeof(int), "the mailboxes");
        d_flags = (int *)lesson_device_alloc((size_t)nwarps * sizeof(int), "the flags");
        d_watch = (hang_watch *)lesson_device_alloc((size_t)nwarps * sizeof(hang_watch),
                                                    "the watchdog record");
        d_cycles = (unsigned long long *)lesson_device_alloc(sizeof(unsigned long long),
                                                             "the watchdog record");
        CUDA_CHECK(cudaMemset(d_box, 0, (size_t)nwarps * sizeof(int)));
        CUDA_CHECK(cudaMemset(d_flags, 0, (size_t)nwarps * sizeof(int)));
        CUDA_CHECK(cudaMemset(d_watch, 0, (size_t)nwarps * sizeof(hang_watch)));
        CUDA_CHECK(cudaMemset(d_cycles, 0, sizeof(unsigned long long)));
        lesson_launching("demo_hang", blocks, threads);
        LAUNCH(demo_hang, (unsigned)blocks, (unsigned)threads, 0,
               d_in, n, d_a, d_box, d_flags, d_watch, d_cycles, cycles);
        break;
    case D_EXITED:
        lesson_launching("demo_exited", blocks, threads);
        LAUNCH(demo_exited, (unsigned)blocks, (unsigned)threads, 0, d_in, n, d_a);
        break;
    default:
        lesson_launching("demo_detective", blocks, threads);
        LAUNCH(demo_detective, (unsigned)blocks, (unsigned)threads, 0, d_in, n, d_a);
        break;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->got[0], d_a, (size_t)r->count[0] * sizeof(int), cudaMemcpyDeviceToHost));
    if (d_b)
        CUDA_CHECK(cudaMemcpy(r->got[1], d_b, (size_t)r->count[1] * sizeof(int), cudaMemcpyDeviceToHost));

    if (demo == D_HANG) {
        watch = (hang_watch *)lesson_host_alloc((size_t)nwarps * sizeof(hang_watch),
                                                "the watchdog record");
        CUDA_CHECK(cudaMemcpy(watch, d_watch, (size_t)nwarps * sizeof(hang_watch),
                              cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&cycles_spun, d_cycles, sizeof cycles_spun, cudaMemcpyDeviceToHost));
        if (report_hang(watch, nwarps, cycles_spun))
            status = LESSON_HANG;
        lesson_host_free(watch);
        lesson_device_free(d_box);
        lesson_device_free(d_flags);
        lesson_device_free(d_watch);
        lesson_device_free(d_cycles);
    }
    lesson_device_free(d_in);
    lesson_device_free(d_a);
    if (d_b)
        lesson_device_free(d_b);
    return status;
}
#endif

int lesson_main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, count = 0;
    long long cycles = DEFAULT_WATCHDOG, variant = 1;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 36, "number of ints, one per lane" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input (and of --sleepers random)" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "the --sleepers lanes sleep NS nanoseconds at each delay point" },
        { 'b', "threads", "T", &threads, 32, 1024, "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1, NDEMOS, "which demonstration, by number or name" },
        { 'c', "count", "C", &count, 0, 32,
          "1-2: lanes 0..C-1 of each warp take part; 0: warp w uses (w % 32) + 1" },
        { 'w', "watchdog", "CYCLES", &cycles, 1000, 1LL << 40,
          "4: spinning lanes give up after CYCLES clock cycles" },
    };
    lesson_program program = { lesson_src_name, ABOUT, variants, NDEMOS,
        options, (int)(sizeof options / sizeof options[0]) };
    results r;
    int *in, demo, a;
#if defined(LESSON_VERIFY)
    int status, rc, args_argc;
    char **args_argv;
    FILE *dump = lesson_verify_start(argc, argv, &args_argc, &args_argv, &status);
#else
    int status;
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
    demo = (int)variant;
    if (demo == D_HANG && n > HANG_MAX_WARPS * 32) {
        printf("the hang demonstration runs the first %d warps only (n=%lld -> %d): "
               "each hung warp costs one watchdog period\n", HANG_MAX_WARPS, n,
               HANG_MAX_WARPS * 32);
        n = HANG_MAX_WARPS * 32;
    }
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    lesson_random_ints(in, n, seed, 100);

#if defined(LESSON_VERIFY)
    reference(demo, in, n, count, &r);
    for (a = 0; a < r.arrays; a++)
        if (lesson_dump_read_ints(dump, r.name[a], r.got[a], r.count[a]) != 0) {
            printf("result: WRONG (the results written are not those of these arguments)\n");
            return LESSON_WRONG;
        }
    fclose(dump);
    rc = judge(demo, &r, n);
    return status ? status : rc;
#else
    printf("%s demonstration %d (%s)\n", lesson_src_name, demo, variants[demo - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld jitter=%lldns%s%s%s: %lld blocks of %lld threads, %lld warps\n",
           n, seed, jitter, jitter ? " (" : "", jitter ? lesson_sleepers : "",
           jitter ? " lanes sleep)" : "", (n + threads - 1) / threads, threads,
           (n + threads - 1) / threads * (threads / 32));
    if (demo == D_ACTIVEMASK || demo == D_PARTNERS) {
        if (count == 0)
            printf("count: every count, warp w sums its first (w %% 32) + 1 lanes\n");
        else
            printf("count: every warp sums its first %lld lanes\n", count);
    } else if (demo == D_RECONVERGE) {
        printf("votes: odd lanes vote v > t, even lanes v >= t; t cycles through "
               "-1000, 1000, 0, -90 from warp to warp\n");
    }
    reference(demo, in, n, count, &r);
    lesson_delay_from_options(jitter, seed);
    status = run_demo(demo, in, n, threads, count, cycles, &r);
    if (status == LESSON_HANG)
        return LESSON_HANG;      /* the report is printed; nothing to judge */
    if (lesson_dump_path) {
        /* build/verify judges these. */
        FILE *f = lesson_dump_open(lesson_dump_path);
        for (a = 0; a < r.arrays; a++)
            lesson_dump_ints(f, r.name[a], r.got[a], r.count[a]);
        lesson_dump_close(f);
        return LESSON_OK;
    }
    return judge(demo, &r, n);
#endif
}
