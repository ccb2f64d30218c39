/*
 * harness.cu - lesson 03's host side, shared by legacy.cu, sync.cu,
 * exercise.cu and your own copy (mine.cu). You never edit it: it reads the
 * command line, makes the input, computes the CPU reference, launches the
 * demonstration's kernel, and gives the verdict. mk/lesson.mk builds each
 * program from it and one lesson file:
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
 * `#include "lesson.h"`; external linkage, not static). One element per
 * thread, in[i] for i < n; blockDim.x is a multiple of 32 (32 to 1024);
 * "lane L" is threadIdx.x % 32 and warp w holds elements 32w..32w+31:
 *
 *   __global__ void demo_tree(const int *in, long long n, int *sums);
 *       1: sums[w] = the sum of warp w's 32 elements (0 past n), written
 *       for every warp that holds an element.
 *   __global__ void demo_transpose(const int *in, long long n, int *out);
 *       2: a warp's 32 elements are a 4x8 matrix, row-major (lane 1 holds
 *       [0][1]); out[i] for lane L = element [L % 4][L / 4] of its warp.
 *   __global__ void demo_around(const int *in, long long n, int *out);
 *       3: out[i] for lane L = the element of lane (L + 1) % 32.
 *   __global__ void demo_converged(const int *in, long long n, int *counts,
 *                                  unsigned long long *partial);
 *       4: counts[w] = how many of warp w's elements are positive;
 *       *partial += the lanes that saw __activemask() != 0xffffffff right
 *       after a __syncwarp() (printed, not judged).
 *   __global__ void demo_hang(const int *in, long long n, int *out,
 *                             unsigned *spun, unsigned *waited,
 *                             unsigned long long *spun_cycles, long long cycles);
 *       5: out[i] for lane L = its element, plus that of lane L - 16 for
 *       L >= 16. A kernel whose lanes spin-wait records, per warp, the
 *       lanes that gave up after `cycles` clock cycles in spun[w] and those
 *       that waited for them in waited[w], and the longest spin in
 *       *spun_cycles; the harness then reports a hang (exit 3).
 */
#include "lesson.h"

#if !defined(LESSON_VERIFY)
__global__ void demo_tree(const int *in, long long n, int *sums);
__global__ void demo_transpose(const int *in, long long n, int *out);
__global__ void demo_around(const int *in, long long n, int *out);
__global__ void demo_converged(const int *in, long long n, int *counts,
                               unsigned long long *partial);
__global__ void demo_hang(const int *in, long long n, int *out, unsigned *spun,
                          unsigned *waited, unsigned long long *spun_cycles,
                          long long cycles);
#endif

/* Demonstration 5: lanes 0-15 hand values to lanes 16-31. */
#define HALF 16
/* Demonstration 5 runs at most this many warps: each hung warp costs one
 * watchdog period, and these all fit on the GPU at once. */
#define HANG_MAX_WARPS 64
/* A few hundred million cycles: about 0.2 s at 1.7-2 GHz. */
#define DEFAULT_WATCHDOG 400000000LL
/* What legacy.cu's transpose puts in every slot before its lane writes it:
 * an element that shows it tells that a load came too early. */
#define NOT_YET_WRITTEN (-1000000)

enum { D_TREE = 1, D_TRANSPOSE, D_AROUND, D_CONVERGED, D_HANG };

static const char *variants[] = {
    "tree: a warp sum in shared memory, a __syncwarp() after each step (legacy: Listing 7; sync: Listing 8)",
    "transpose: a 4x8 transpose in shared memory (legacy: Listing 6 without __syncwarp(); sync: Listing 6)",
    "around: every lane takes the next lane's value in a divergent branch (legacy: Listing 13; sync: Listing 4)",
    "converged: a ballot right after __syncwarp() (legacy: Listings 11, 14; sync: Listing 12)",
    "hang: lanes 0-15 hand values to lanes 16-31 (legacy: a flag and __syncwarp(); sync: __syncwarp() on both sides)",
};

#define ABOUT \
    "Lesson 03: five demonstrations of __syncwarp() with the kernels of\n" \
    "{file}, checked against the CPU; choose one with -k, by number\n" \
    "or name. legacy.cu treats __syncwarp() as a promise of lockstep or\n" \
    "leaves it out: usually right by luck without delays; with -j 200 and\n" \
    "the right --sleepers (tree: even, transpose and around: odd, converged:\n" \
    "upper) the bug shows every time; its hang is ended by a watchdog (-w)\n" \
    "and reported as 'HANG detected' (exit 3). sync.cu is right under every\n" \
    "delay."

/* ---- CPU reference -------------------------------------------------- */

/* The element of lane `lane` of warp w; 0 past n, as in the kernels. */
static int element(const int *in, long long n, long long w, int lane)
{
    long long i = w * 32 + lane;
    return i < n ? in[i] : 0;
}

/* Demonstrations 1 and 4: one number per warp. */
static void cpu_per_warp(int demo, const int *in, long long n, int *want, long long nwarps)
{
    long long w;
    int lane;
    for (w = 0; w < nwarps; w++) {
        want[w] = 0;
        for (lane = 0; lane < 32; lane++) {
            int e = element(in, n, w, lane);
            want[w] += demo == D_TREE ? e : e > 0;
        }
    }
}

/* Demonstrations 2, 3 and 5: one number per lane. */
static void cpu_per_lane(int demo, const int *in, long long n, int *want)
{
    long long i;
    for (i = 0; i < n; i++) {
        long long w = i / 32;
        int lane = (int)(i % 32);
        if (demo == D_TRANSPOSE)
            want[i] = element(in, n, w, (lane % 4) * 8 + lane / 4);
        else if (demo == D_AROUND)
            want[i] = element(in, n, w, (lane + 1) % 32);
        else
            want[i] = in[i] + (lane >= HALF ? in[i - HALF] : 0);
    }
}

/* Prints the first ten differences, "  element 37: expected 12 got 7
 * (warp 1, lane 5)", and returns how many lanes differ. */
static long long compare_lanes(const int *want, const int *got, long long n)
{
    long long i, wrong = 0;
    for (i = 0; i < n; i++) {
        if (want[i] == got[i])
            continue;
        if (++wrong <= 10)
            printf("  element %lld: expected %d got %d (warp %lld, lane %lld)%s\n", i,
                   want[i], got[i], i / 32, i % 32,
                   got[i] == NOT_YET_WRITTEN ? ": read before it was written" : "");
    }
    if (wrong > 10)
        printf("  ... and %lld more\n", wrong - 10);
    return wrong;
}

/* The comparison, the closing line and the exit status. */
static int judge(int demo, const int *want, const int *got, long long count)
{
    long long wrong;
    if (demo == D_TREE || demo == D_CONVERGED) {
        wrong = lesson_compare_ints("warp", want, got, count);
        return lesson_result(wrong == 0, "%lld of %lld warp %s wrong", wrong, count,
                             demo == D_TREE ? "sums" : "counts");
    }
    wrong = compare_lanes(want, got, count);
    return lesson_result(wrong == 0, "%lld of %lld lanes wrong", wrong, count);
}

#if !defined(LESSON_VERIFY)
/*
 * Demonstration 5's record: HANG detected (and 1) when any warp's lanes
 * gave up spinning, else 0.
 */
static int report_hang(const unsigned *d_spun, const unsigned *d_waited,
                       const unsigned long long *d_cycles, long long nwarps)
{
    unsigned *spun, *waited, all_spun = 0, all_waited = 0;
    unsigned long long cycles = 0;
    long long w, hung = 0;
    char s1[128], s2[128];
    spun = (unsigned *)lesson_host_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
    waited = (unsigned *)lesson_host_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
    CUDA_CHECK(cudaMemcpy(spun, d_spun, (size_t)nwarps * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(waited, d_waited, (size_t)nwarps * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    for (w = 0; w < nwarps; w++) {
        if (spun[w] == 0)
            continue;
        hung++;
        all_spun |= spun[w];
        all_waited |= waited[w];
    }
    if (hung)
        printf("HANG detected: lanes %s spun %llu cycles on a flag while lanes %s "
               "waited in __syncwarp() for them (%lld of %lld warps); the watchdog made "
               "the spinners give up and join the barrier\n",
               lesson_lanes_text(all_spun, s1, sizeof s1), cycles,
               lesson_lanes_text(all_waited, s2, sizeof s2), hung, nwarps);
    lesson_host_free(spun);
    lesson_host_free(waited);
    return hung != 0;
}
#endif

int lesson_main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, variant = 1;
    long long cycles = DEFAULT_WATCHDOG;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 36, "number of ints, one per lane" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input (and of --sleepers random)" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "the --sleepers lanes sleep NS nanoseconds at each delay point" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]),
          "which demonstration, by number or name" },
        { 'w', "watchdog", "CYCLES", &cycles, 1000, 1LL << 40,
          "5: spinning lanes give up after CYCLES clock cycles" },
    };
    lesson_program program = { lesson_src_name, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks, nwarps, count;
    int demo, per_warp, *in, *want, *got;
#if defined(LESSON_VERIFY)
    int status, rc, args_argc;
    char **args_argv;
    FILE *dump = lesson_verify_start(argc, argv, &args_argc, &args_argv, &status);
#else
    int *d_in, *d_out, hung = 0;
    unsigned *d_spun = NULL, *d_waited = NULL;
    unsigned long long *d_counter = NULL, counter = 0;
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
#if !defined(LESSON_VERIFY)
        printf("the hang demonstration runs the first %d warps only (n=%lld -> %d): "
               "each hung warp costs one watchdog period\n", HANG_MAX_WARPS, n,
               HANG_MAX_WARPS * 32);
#endif
        n = HANG_MAX_WARPS * 32;
    }
    blocks = (n + threads - 1) / threads;
    nwarps = (n + 31) / 32;
    per_warp = demo == D_TREE || demo == D_CONVERGED;
    count = per_warp ? nwarps : n;

#if !defined(LESSON_VERIFY)
    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc((size_t)count * sizeof(int), "the output");
#endif
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want = (int *)lesson_host_alloc((size_t)count * sizeof(int), "the reference");
    got = (int *)lesson_host_alloc((size_t)count * sizeof(int), "the output");
    lesson_random_ints(in, n, seed, 100);
    if (per_warp)
        cpu_per_warp(demo, in, n, want, nwarps);
    else
        cpu_per_lane(demo, in, n, want);

#if defined(LESSON_VERIFY)
    if (lesson_dump_read_ints(dump, "out", got, count) != 0) {
        printf("result: WRONG (the results written are not those of these arguments)\n");
        return LESSON_WRONG;
    }
    fclose(dump);
    (void)blocks;
    rc = judge(demo, want, got, count);
    return status ? status : rc;
#else
    printf("%s demonstration %d (%s)\n", lesson_src_name, demo, variants[demo - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld jitter=%lldns%s%s%s: %lld blocks of %lld threads, %lld warps\n",
           n, seed, jitter, jitter ? " (" : "", jitter ? lesson_sleepers : "",
           jitter ? " lanes sleep)" : "", blocks, threads, blocks * (threads / 32));

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* Poison the output: a result the kernel never writes cannot pass. */
    CUDA_CHECK(cudaMemset(d_out, 0xab, (size_t)count * sizeof(int)));
    if (demo == D_CONVERGED || demo == D_HANG) {
        d_counter = (unsigned long long *)lesson_device_alloc(sizeof counter, "a counter");
        CUDA_CHECK(cudaMemset(d_counter, 0, sizeof counter));
    }
    if (demo == D_HANG) {
        d_spun = (unsigned *)lesson_device_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        d_waited = (unsigned *)lesson_device_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        CUDA_CHECK(cudaMemset(d_spun, 0, (size_t)nwarps * sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(d_waited, 0, (size_t)nwarps * sizeof(unsigned)));
        printf("watchdog: spinning lanes give up after %lld cycles\n", cycles);
    }
    lesson_delay_from_options(jitter, seed);
    switch (demo) {
    case D_TREE:
        lesson_launching("demo_tree", blocks, threads);
        LAUNCH(demo_tree, (unsigned)blocks, (unsigned)threads, 0, d_in, n, d_out);
        break;
    case D_TRANSPOSE:
        lesson_launching("demo_transpose", blocks, threads);
        LAUNCH(demo_transpose, (unsigned)blocks, (unsigned)threads, 0, d_in, n, d_out);
        break;
    case D_AROUND:
        lesson_launching("demo_around", blocks, threads);
        LAUNCH(demo_around, (unsigned)blocks, (unsigned)threads, 0, d_in, n, d_out);
        break;
    case D_CONVERGED:
        lesson_launching("demo_converged", blocks, threads);
        LAUNCH(demo_converged, (unsigned)blocks, (unsigned)threads, 0, d_in, n, d_out,
               d_counter);
        break;
    case D_HANG:
        lesson_launching("demo_hang", blocks, threads);
        LAUNCH(demo_hang, (unsigned)blocks, (unsigned)threads, 0, d_in, n, d_out,
               d_spun, d_waited, d_counter, cycles);
        break;
    default:
        lesson_fail(LESSON_USAGE, "no demonstration %d (try --help)", demo);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)count * sizeof(int), cudaMemcpyDeviceToHost));
    if (demo == D_CONVERGED) {
        CUDA_CHECK(cudaMemcpy(&counter, d_counter, sizeof counter, cudaMemcpyDeviceToHost));
        printf("right after __syncwarp(), %llu of %lld lanes saw __activemask() != 0xffffffff "
               "(Listing 14's second assert fails in those)\n",
               counter, blocks * threads);
    }
    if (demo == D_HANG)
        hung = report_hang(d_spun, d_waited, d_counter, nwarps);
    lesson_device_free(d_in);
    lesson_device_free(d_out);
    if (d_counter)
        lesson_device_free(d_counter);
    if (d_spun) {
        lesson_device_free(d_spun);
        lesson_device_free(d_waited);
    }
    if (hung)
        return LESSON_HANG;

    if (lesson_dump_path) {
        /* build/verify judges these. */
        FILE *f = lesson_dump_open(lesson_dump_path);
        lesson_dump_ints(f, "out", got, count);
        lesson_dump_close(f);
        return LESSON_OK;
    }
    return judge(demo, want, got, count);
#endif
}
