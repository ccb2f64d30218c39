/*
 * legacy.cu - lesson 03, the legacy version: warp code that treats
 * __syncwarp() as a promise of lockstep, or leaves it out, the way the NVIDIA
 * blog "Using CUDA Warp-Level Primitives" shows it going wrong. Twin: sync.cu.
 *
 * Build:  make                  (nvcc -I../../include legacy.cu -o build/legacy)
 * Run:    build/legacy -k tree -j 200        Listing 7: __syncwarp() between
 *                                            statements that read and write
 *                                            the same slots
 *         build/legacy -k transpose -j 200   Listing 6 without its __syncwarp()
 *         build/legacy -k around -j 200      Listing 13: __syncwarp() around a
 *                                            mask-less shuffle in a divergent branch
 *         build/legacy -k converged -j 200   Listings 11 and 14: a warp assumed
 *                                            converged after __syncwarp()
 *         build/legacy -k hang               __syncwarp() in lanes 0-15 while
 *                                            lanes 16-31 spin: HANG detected, exit 3
 * Check:  make check
 *
 * Why it breaks: __syncwarp() is a barrier with a memory fence. It orders
 * what comes before it against what comes after it, and nothing else: two
 * lanes between the same pair of barriers run in any order, so a read and a
 * write of the same slot there race; once the lanes leave it they may part
 * again at once, so a primitive without a mask after it does not see the
 * whole warp; and every lane its mask names must reach it, so it deadlocks
 * against lanes that wait for the caller. On a current GPU the races usually
 * pass by luck: the lanes chosen by the demonstration sleep with __nanosleep
 * (-j) to show them every time.
 *
 * The mask-less __shfl() and __ballot() of old code are LEGACY_SHFL and
 * LEGACY_BALLOT (include/lesson.h): the real ones where the kernels are
 * built for compute capability below 7.0 (make pascal); from 7.0 on, where
 * __shfl() is gone, what they amount to, "whoever is active takes part":
 * __shfl_sync(__activemask(), v, src) and __ballot_sync(__activemask(), p).
 */
#include "lesson.h"

/* Demonstration 5: lanes 0-15 hand values to lanes 16-31. */
#define HALF 16
/* Demonstration 5 runs at most this many warps: each hung warp costs one
 * watchdog period, and these all fit on the GPU at once. */
#define HANG_MAX_WARPS 64
/* A few hundred million cycles: about 0.2 s at 1.7-2 GHz. */
#define DEFAULT_WATCHDOG 400000000LL
/* Demonstration 2: what every slot holds before its lane writes it. No
 * input is this value, so a read that comes too early shows. */
#define NOT_YET_WRITTEN (-1000000)

/* ---- CPU reference ------------------------------------------------- */

/* The element of lane `lane` of warp w; 0 past n, as in the kernels. */
static int element(const int *in, long long n, long long w, int lane)
{
    long long i = w * 32 + lane;
    return i < n ? in[i] : 0;
}

/* Demonstration 1: the sum of each warp's 32 elements. */
static void cpu_warp_sums(const int *in, long long n, int *sums, long long nwarps)
{
    long long w;
    int lane;
    for (w = 0; w < nwarps; w++) {
        sums[w] = 0;
        for (lane = 0; lane < 32; lane++)
            sums[w] += element(in, n, w, lane);
    }
}

/*
 * What lane i % 32 of every warp ends with, for i < n:
 *   2 (transpose): the 32 elements are a 4x8 matrix, row-major (lane 1 owns
 *     [0][1]); lane L ends with element [L % 4][L / 4], column-major;
 *   3 (around): the element of the next lane up, (L + 1) % 32;
 *   5 (hang): lanes 0-15 their own element, lane L >= 16 its own plus that
 *     of lane L - 16.
 */
static void cpu_lanes(int demo, const int *in, long long n, int *out)
{
    long long i;
    for (i = 0; i < n; i++) {
        long long w = i / 32;
        int lane = (int)(i % 32);
        if (demo == 2)
            out[i] = element(in, n, w, (lane % 4) * 8 + lane / 4);
        else if (demo == 3)
            out[i] = element(in, n, w, (lane + 1) % 32);
        else
            out[i] = in[i] + (lane >= HALF ? in[i - HALF] : 0);
    }
}

/* Demonstration 4: how many of each warp's elements are positive. */
static void cpu_positive_counts(const int *in, long long n, int *counts, long long nwarps)
{
    long long w;
    int lane;
    for (w = 0; w < nwarps; w++) {
        counts[w] = 0;
        for (lane = 0; lane < 32; lane++)
            counts[w] += element(in, n, w, lane) > 0;
    }
}

/* ==== the lesson ===================================================== */

/* Slots per warp in demonstration 1: its 32 elements, then 32 zeros, since
 * every lane of the tree reads s[lane + 16], up to s[47]. */
#define SLOTS 64

/*
 * 1. tree - the blog's Listing 7, "incorrect use of __syncwarp()". Each
 * step reads a partner's slot and writes the lane's own slot in one
 * statement, with the barrier only between statements. Within a step,
 * lane x reads s[x + d] while lane x + d writes it: if the writer goes
 * first, the reader adds a partial sum that already holds s[x + 2d], which
 * it counts again. Even lanes sleep before each step (-j), so at the last
 * step lane 1 writes s[1] before lane 0 reads it.
 */
__global__ void demo_tree(const int *in, long long n, int *sums, unsigned jitter)
{
    __shared__ int shmem[32 * SLOTS];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int *s = &shmem[WARP_IN_BLOCK() * SLOTS];
    int late = !(lane & 1);                 /* the readers of odd slots at the last step */
    s[lane] = i < n ? in[i] : 0;
    s[lane + 32] = 0;
    __syncwarp();
    jitter_sleep(jitter, late);
    s[lane] += s[lane + 16]; __syncwarp();  /* Listing 7: read and write, no barrier between */
    jitter_sleep(jitter, late);
    s[lane] += s[lane + 8]; __syncwarp();
    jitter_sleep(jitter, late);
    s[lane] += s[lane + 4]; __syncwarp();
    jitter_sleep(jitter, late);
    s[lane] += s[lane + 2]; __syncwarp();
    jitter_sleep(jitter, late);
    s[lane] += s[lane + 1]; __syncwarp();
    if (lane == 0 && i < n)
        sums[i / 32] = s[0];
}

/*
 * 2. transpose - the blog's Listing 6 with its __syncwarp() left out, as
 * implicit warp-synchronous code wrote it: "the warp stores, then the warp
 * loads". Lane L loads the slot that lane (L % 4) * 8 + L / 4 stores, with
 * nothing to make that store come first. Every slot holds NOT_YET_WRITTEN
 * until its lane stores (set up before, under __syncthreads); odd lanes
 * sleep before they store (-j), so lanes 4, 6, 12, 14, ... load their slot
 * too early.
 */
__global__ void demo_transpose(const int *in, long long n, int *out, unsigned jitter)
{
    __shared__ int smem[32][4][8];          /* Listing 6's smem[4][8], one per warp */
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int x1 = lane % 8, y1 = lane / 8;       /* row-major: lane 1 owns [0][1] */
    int x2 = lane / 4, y2 = lane % 4;       /* column-major: lane 1 owns [1][0] */
    int val = i < n ? in[i] : 0;            /* get_value() */
    smem[warp][y1][x1] = NOT_YET_WRITTEN;
    __syncthreads();
    jitter_sleep(jitter, lane & 1);
    smem[warp][y1][x1] = val;
    val = smem[warp][y2][x2];               /* the bug: no __syncwarp() before the load */
    if (i < n)
        out[i] = val;
}

/*
 * 3. around - the blog's Listing 13: __syncwarp() before and after a
 * mask-less shuffle, in both sides of a divergent branch, as if that made
 * it a __shfl_sync(FULL_MASK, ...). The barriers do bring the whole warp
 * together, but the lanes leave them divergent: the odd lanes' shuffle runs
 * without the even lanes and the even lanes' without the odd ones, and a
 * shuffle from a lane that is not taking part returns an undefined value.
 * Every lane takes the value of the next lane up, (lane + 1) % 32; the odd
 * lanes sleep after the first barrier (-j), so they shuffle last, from even
 * lanes that have already replaced their value.
 */
__global__ void demo_around(const int *in, long long n, int *out, unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int v = i < n ? in[i] : 0;              /* v = foo() */
    int src = (lane + 1) % 32;
    if (lane & 1) {
        __syncwarp();
        jitter_sleep(jitter, 1);
        v = LEGACY_SHFL(v, src);            /* Listing 13: whoever is active, the odd lanes */
        __syncwarp();
    } else {
        __syncwarp();
        v = LEGACY_SHFL(v, src);            /* ... and here the even lanes */
        __syncwarp();
    }
    if (i < n)
        out[i] = v;
}

/*
 * 4. converged - the blog's Listings 11 and 14: a ballot without a mask
 * right after __syncwarp(), assuming that lanes that were synchronized stay
 * together until the next branch. They need not: here lanes 16-31 are late
 * after the barrier (-j), __activemask() (Listing 14's assert) names lanes
 * 0-15 only, and the ballot counts the positive elements of half the warp.
 * The kernel records how many lanes saw __activemask() != FULL_MASK.
 */
__global__ void demo_converged(const int *in, long long n, int *counts,
                               unsigned long long *partial, unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int positive = i < n && in[i] > 0;
    unsigned active, b;
    __syncwarp();                           /* Listing 11 */
    jitter_sleep(jitter, lane >= HALF);
    active = __activemask();                /* Listing 14: assumed to be FULL_MASK */
    b = LEGACY_BALLOT(positive);            /* __ballot(positive): whoever is active */
    if (active != FULL_MASK && lane == __ffs(active) - 1)
        atomicAdd(partial, (unsigned long long)__popc(active));
    if (lane == 0 && i < n)
        counts[i / 32] = __popc(b);
}

/*
 * 5. hang - __syncwarp() with the default full mask where half the warp
 * never arrives. The producers (lanes 0-15) store their values for lanes
 * 16-31, call __syncwarp() to make the stores visible, then raise a flag;
 * lanes 16-31 spin on the flag. The barrier names lanes 16-31, which wait
 * for the flag that comes after the barrier: a deadlock, every time.
 * The spinning lanes give up after `cycles` clock cycles, record it, and
 * reach __syncwarp() themselves, which lets the producers finish; the host
 * reports the hang and exits 3.
 */
#define HANG_PRIMITIVE "__syncwarp(0xffffffff)"

__global__ void demo_hang(const int *in, long long n, int *out, unsigned *spun,
                          unsigned *waited, unsigned long long *spun_cycles,
                          long long cycles, unsigned jitter)
{
    __shared__ int box[1024];
    __shared__ volatile int ready[32];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int v = i < n ? in[i] : 0;
    if (lane == 0)
        ready[warp] = 0;
    __syncthreads();
    if (w * 32 >= n)
        return;                             /* a whole warp past the end */
    if (lane < HALF) {
        jitter_sleep(jitter, 1);
        box[threadIdx.x] = v;               /* for lane + 16 */
        __syncwarp();                       /* the bug: names lanes 16-31, which spin below */
        if (atomicOr(&spun[w], 0u) != 0)    /* released by the watchdog */
            atomicOr(&waited[w], 1u << lane);
        if (lane == 0)
            ready[warp] = 1;
        if (i < n)
            out[i] = v;
    } else {
        long long start = clock64();
        int gave_up = 0;
        while (!ready[warp]) {
            if (watchdog_expired(start, cycles)) {
                gave_up = 1;
                break;
            }
        }
        if (gave_up) {
            atomicOr(&spun[w], 1u << lane);
            atomicMax(spun_cycles, (unsigned long long)(clock64() - start));
            __syncwarp();                   /* let the producers finish */
        }
        __threadfence();
        if (i < n)
            out[i] = box[threadIdx.x - HALF] + v;
    }
}

#define THIS_FILE "legacy.cu"
#define ABOUT \
    "Lesson 03, legacy: warp code that treats __syncwarp() as a promise of\n" \
    "lockstep, or leaves it out, checked against the CPU. Choose a\n" \
    "demonstration with -k, by number or name. Usually right by luck without\n" \
    "-j; with -j the chosen lanes sleep with __nanosleep and the bug shows\n" \
    "every time. Demonstration 5 hangs; its watchdog ends it with\n" \
    "'HANG detected' (exit 3)."
static const char *variants[] = {
    "tree: Listing 7, __syncwarp() between statements that read and write a slot; even lanes sleep",
    "transpose: Listing 6 without __syncwarp(), a 4x8 transpose in shared memory; odd lanes sleep",
    "around: Listing 13, __syncwarp() around a mask-less shuffle in both branches; odd lanes sleep",
    "converged: Listings 11, 14, a mask-less ballot after __syncwarp(); lanes 16-31 sleep",
    "hang: __syncwarp() in lanes 0-15 while lanes 16-31 spin on a flag (watchdog -w)",
};

/* ==== end of the lesson ============================================== */

#define NDEMOS ((int)(sizeof variants / sizeof variants[0]))

/* ---- the runs: input, launch, validation, report -------------------- */

typedef struct {
    long long n, seed, jitter, threads, cycles, variant;
} demo_args;

static long long blocks_for(const demo_args *a)
{
    return (a->n + a->threads - 1) / a->threads;
}

static void print_shape(const demo_args *a)
{
    long long blocks = blocks_for(a);
    printf("n=%lld seed=%lld jitter=%lldns: %lld blocks of %lld threads, %lld warps\n",
           a->n, a->seed, a->jitter, blocks, a->threads, blocks * (a->threads / 32));
}

/* Prints the first ten differences as "  warp 3 lane 17: expected 12 got 7"
 * and returns how many lanes differ. */
static long long compare_lanes(const int *want, const int *got, long long n)
{
    long long i, wrong = 0;
    for (i = 0; i < n; i++) {
        if (want[i] == got[i])
            continue;
        if (++wrong <= 10)
            printf("  warp %lld lane %lld: expected %d got %d%s\n", i / 32, i % 32,
                   want[i], got[i], got[i] == NOT_YET_WRITTEN ? " (read before it was written)" : "");
    }
    if (wrong > 10)
        printf("  ... and %lld more\n", wrong - 10);
    return wrong;
}

/* Demonstrations 1 and 4: one number per warp. */
static int run_per_warp(const demo_args *a)
{
    long long n = a->n, nwarps = (n + 31) / 32, wrong;
    unsigned long long partial = 0, *d_partial = NULL;
    int *in, *want, *got, *d_in, *d_out;

    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc((size_t)nwarps * sizeof(int), "the warp results");
    d_partial = (unsigned long long *)lesson_device_alloc(sizeof partial, "a counter");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want = (int *)lesson_host_alloc((size_t)nwarps * sizeof(int), "the warp results");
    got = (int *)lesson_host_alloc((size_t)nwarps * sizeof(int), "the warp results");

    print_shape(a);
    lesson_random_ints(in, n, a->seed, 100);
    if (a->variant == 1)
        cpu_warp_sums(in, n, want, nwarps);
    else
        cpu_positive_counts(in, n, want, nwarps);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* Poison the results: one the kernel never writes cannot pass. */
    CUDA_CHECK(cudaMemset(d_out, 0xab, (size_t)nwarps * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_partial, 0, sizeof partial));
    if (a->variant == 1)
        LAUNCH(demo_tree, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, d_out, (unsigned)a->jitter);
    else
        LAUNCH(demo_converged, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, d_out, d_partial, (unsigned)a->jitter);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)nwarps * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&partial, d_partial, sizeof partial, cudaMemcpyDeviceToHost));

    wrong = lesson_compare_ints("warp", want, got, nwarps);
    if (a->variant == 4)
        printf("right after __syncwarp(), %llu of %lld lanes saw __activemask() != 0xffffffff "
               "(Listing 14's second assert fails in those)\n",
               partial, blocks_for(a) * a->threads);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_partial));
    free(in);
    free(want);
    free(got);
    return lesson_result(wrong == 0, "%lld of %lld warp %s wrong", wrong, nwarps,
                         a->variant == 1 ? "sums" : "counts");
}

/* Demonstrations 2, 3 and 5: a value per lane. Demonstration 5 may hang:
 * its report comes first. */
static int run_per_lane(demo_args *a)
{
    long long n, nwarps, w, hung = 0, wrong;
    int *in, *want, *got, *d_in, *d_out;
    unsigned *spun = NULL, *waited = NULL, *d_spun = NULL, *d_waited = NULL;
    unsigned long long cycles_spun = 0, *d_cycles = NULL;

    if (a->variant == 5 && a->n > HANG_MAX_WARPS * 32) {
        printf("the hang demonstration runs the first %d warps only (n=%lld -> %d): "
               "each hung warp costs one watchdog period\n",
               HANG_MAX_WARPS, a->n, HANG_MAX_WARPS * 32);
        a->n = HANG_MAX_WARPS * 32;
    }
    n = a->n;
    nwarps = (n + 31) / 32;
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the output");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the output");
    got = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the output");

    print_shape(a);
    lesson_random_ints(in, n, a->seed, 100);
    cpu_lanes((int)a->variant, in, n, want);
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0xab, (size_t)n * sizeof(int)));

    if (a->variant == 2) {
        LAUNCH(demo_transpose, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, d_out, (unsigned)a->jitter);
    } else if (a->variant == 3) {
        LAUNCH(demo_around, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, d_out, (unsigned)a->jitter);
    } else {
        printf("watchdog: spinning lanes give up after %lld cycles\n", a->cycles);
        d_spun = (unsigned *)lesson_device_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        d_waited = (unsigned *)lesson_device_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        d_cycles = (unsigned long long *)lesson_device_alloc(sizeof(unsigned long long), "the watchdog record");
        spun = (unsigned *)lesson_host_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        waited = (unsigned *)lesson_host_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        CUDA_CHECK(cudaMemset(d_spun, 0, (size_t)nwarps * sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(d_waited, 0, (size_t)nwarps * sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(d_cycles, 0, sizeof(unsigned long long)));
        LAUNCH(demo_hang, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, d_out, d_spun, d_waited, d_cycles, a->cycles, (unsigned)a->jitter);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
    wrong = compare_lanes(want, got, n);

    if (a->variant == 5) {
        unsigned all_spun = 0, all_waited = 0;
        char s1[128], s2[128];
        CUDA_CHECK(cudaMemcpy(spun, d_spun, (size_t)nwarps * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(waited, d_waited, (size_t)nwarps * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&cycles_spun, d_cycles, sizeof cycles_spun, cudaMemcpyDeviceToHost));
        for (w = 0; w < nwarps; w++) {
            if (spun[w] == 0)
                continue;
            hung++;
            all_spun |= spun[w];
            all_waited |= waited[w];
        }
        if (hung)
            printf("HANG detected: lanes %s spun %llu cycles on a flag while lanes %s "
                   "waited in %s for them (%lld of %lld warps); the watchdog made the "
                   "spinners give up and join the barrier (%lld of %lld lanes wrong)\n",
                   lesson_lanes_text(all_spun, s1, sizeof s1), cycles_spun,
                   lesson_lanes_text(all_waited, s2, sizeof s2), HANG_PRIMITIVE, hung, nwarps,
                   wrong, n);
        CUDA_CHECK(cudaFree(d_spun));
        CUDA_CHECK(cudaFree(d_waited));
        CUDA_CHECK(cudaFree(d_cycles));
        free(spun);
        free(waited);
    }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(in);
    free(want);
    free(got);
    if (hung)
        return LESSON_HANG;
    return lesson_result(wrong == 0, "%lld of %lld lanes wrong", wrong, n);
}

/* ---- main: the command line, then one demonstration ---------------- */

int main(int argc, char **argv)
{
    demo_args a = { 1 << 20, 1, 0, 256, DEFAULT_WATCHDOG, 1 };
    lesson_option options[] = {
        { 'n', "size", "N", &a.n, 1, 1LL << 36, "number of ints, one per lane" },
        { 's', "seed", "S", &a.seed, 0, LLONG_MAX, "seed of the random input" },
        { 'j', "jitter", "NS", &a.jitter, 0, 1000000,
          "the demonstration's chosen lanes sleep NS nanoseconds" },
        { 'b', "threads", "T", &a.threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &a.variant, 1, NDEMOS,
          "which demonstration, by number or name" },
        { 'w', "watchdog", "CYCLES", &a.cycles, 1000, 1LL << 40,
          "5: spinning lanes give up after CYCLES clock cycles" },
    };
    lesson_program program = { THIS_FILE, ABOUT, variants, NDEMOS,
        options, (int)(sizeof options / sizeof options[0]) };

    lesson_parse(argc, argv, &program);
    if (a.threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", a.threads);

    printf("%s demonstration %lld (%s)\n", THIS_FILE, a.variant, variants[a.variant - 1]);
    lesson_print_path();
    switch (a.variant) {
    case 1:
    case 4:
        return run_per_warp(&a);
    case 2:
    case 3:
    case 5:
        return run_per_lane(&a);
    default:
        lesson_fail(LESSON_USAGE, "no demonstration %lld (try --help)", a.variant);
    }
    return LESSON_USAGE;
}
