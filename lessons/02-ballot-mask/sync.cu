/*
 * sync.cu - lesson 02, the corrected version: every mask names exactly the
 * lanes that execute the primitive, computed from the program's logic before
 * the branch. Twin: legacy.cu.
 *
 * Build:  make                  (nvcc -I../../include sync.cu -o build/sync)
 * Run:    build/sync -k activemask -c 32 -j 200   Listing 3: the mask from
 *                                                __ballot_sync before the branch
 *         build/sync -k partners                 every lane takes part with
 *                                                FULL_MASK; non-members add 0
 *         build/sync -k reconverge -j 200        Listing 12: __ballot_sync(FULL_MASK)
 *         build/sync -k hang                     the shuffle's mask names lanes 0-15
 *         build/sync -k exited                   the same, for lanes that return
 * Check:  make check
 *
 * Why it is right: a _sync primitive waits for the lanes named in its mask
 * and exchanges data among them only, so the mask must be worked out from
 * the program logic: __ballot_sync(FULL_MASK, predicate) executed by the
 * whole warp before the branch gives the lanes that will take it. Lanes
 * that sleep (-j) then make the others wait inside the primitive; they can
 * no longer drop out of it. A tree of __shfl_down_sync must also ignore
 * partners outside the mask, whose values are undefined (demonstration 1
 * guards them; demonstration 2 lets the whole warp take part instead).
 */
#include "lesson.h"

/* Demonstrations 1-2: lanes 0..k-1 of warp w take part, k from -c. */
#define COUNT_OF_WARP(count, w) ((count) != 0 ? (int)(count) : (int)((w) % 32) + 1)

/* Demonstration 3: the threshold of warp w's vote. Warps cycle through "all
 * lanes vote yes" (-1000), "all vote no" (1000), "mixed" (0) and "most vote
 * yes" (-90); the inputs lie in -100..100. */
#define THRESHOLD_OF_WARP(w) ((w) % 4 == 0 ? -1000 : (w) % 4 == 1 ? 1000 : (w) % 4 == 2 ? 0 : -90)
/* Odd lanes test v > t, even lanes v >= t: two different paths. */
#define VOTE_OF_LANE(lane, v, t) ((lane) & 1 ? (v) > (t) : (v) >= (t))

/* Demonstrations 4-5: lanes 0-15 are the producers, lanes 16-31 the others. */
#define HALF 16
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
static void cpu_votes(const int *in, long long n, unsigned *ballots, int *votes)
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
            ballots[w * 32 + lane] = b;
            votes[w * 32 + lane] = any | all << 1 | uni << 2;
        }
    }
}

/* Demonstrations 4-5: lanes 0..writers-1 of every warp hold the value of
 * their warp's lane 0; the others must be left as the poison the host
 * wrote (0xab bytes). */
static void cpu_leader(const int *in, long long n, int writers, int *out)
{
    long long i;
    memset(out, 0xab, (size_t)n * sizeof(int));
    for (i = 0; i < n; i++)
        if (i % 32 < writers)
            out[i] = in[i - i % 32];
}

/* ==== the lesson ===================================================== */

/*
 * 1. activemask - the blog's Listing 3, the fix for Listing 5. The whole
 * warp computes the mask with __ballot_sync(FULL_MASK, takes_part) before
 * the branch, so it names every lane that will take the branch whether or
 * not they arrive together. The shuffles wait for all of them.
 * Listing 3 itself still reads partners at lane + offset outside the mask
 * when k < 32 (see 2). Here a lane whose partner is outside the mask (the
 * mask is lanes 0..k-1) shuffles from itself, with offset 0, and adds
 * nothing: every lane still executes every shuffle, and every value read
 * comes from a lane in the mask. Lane x then ends with the sum of lanes x,
 * x + 2d, ... below k, and lane 0 with the sum of all k, for every k from 1
 * to 32.
 */
__global__ void demo_activemask(const int *in, long long n, int count,
                                int *sums, unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int k = COUNT_OF_WARP(count, w);
    int v = i < n ? in[i] : 0;
    int offset;
    int takes_part = lane < k && i < n;
    unsigned mask = __ballot_sync(FULL_MASK, takes_part);    /* Listing 3 */
    if (takes_part) {
        int members = __popc(mask);                  /* the mask is lanes 0..members-1 */
        jitter_sleep(jitter, lane & 1);
        for (offset = 16; offset > 0; offset /= 2) {
            int inside = lane + offset < members;    /* is the partner in the mask? */
            int partner;
            jitter_sleep(jitter, lane & 1);
            partner = __shfl_down_sync(mask, v, inside ? offset : 0);
            if (inside)
                v += partner;
        }
        if (lane == 0)
            sums[w] = v;
    }
}

/*
 * 2. partners - the other way out of Listing 3's trap: let every lane take
 * part. The lanes that have nothing to add contribute 0 and the whole warp
 * runs the tree with FULL_MASK, so every partner is in the mask and no
 * branch is left to get wrong. Right for every k; usually the simplest fix.
 */
__global__ void demo_partners(const int *in, long long n, int count,
                              int *sums, unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int k = COUNT_OF_WARP(count, w);
    int v = lane < k && i < n ? in[i] : 0;           /* non-members add 0 */
    int offset;
    for (offset = 16; offset > 0; offset /= 2) {
        jitter_sleep(jitter, lane & 1);
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    if (lane == 0 && i < n)
        sums[w] = v;
}

/* __uni_sync: non-zero when the predicate is the same in every lane of the
 * mask. The blog lists it with the votes and CUDA 13 declares it
 * (sm_30_intrinsics.h); warpsim may lack it, so it gets a fallback there. */
__device__ int vote_uni(unsigned mask, int p)
{
#if defined(WARPSIM)
    int all = __all_sync(mask, p);
    int any = __any_sync(mask, p);
    return all || !any;
#else
    return __uni_sync(mask, p);
#endif
}

/*
 * 3. reconverge - the blog's Listing 12: the votes name the whole warp,
 * __ballot_sync(FULL_MASK, result), so every lane waits for the others
 * inside the vote, wherever their paths took them. The if/else is the
 * same as in legacy.cu; only the masks differ.
 */
__global__ void demo_reconverge(const int *in, long long n, unsigned *ballots,
                                int *votes, unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    int t = THRESHOLD_OF_WARP(w);
    int result, any, all, uni;
    unsigned b;
    if (lane & 1) {
        result = v > t;                              /* foo() */
        jitter_sleep(jitter, 1);
    } else {
        result = v >= t;                             /* bar() */
    }
    b = __ballot_sync(FULL_MASK, result);            /* Listing 12 */
    any = __any_sync(FULL_MASK, result);
    all = __all_sync(FULL_MASK, result);
    uni = vote_uni(FULL_MASK, result);
    if (i < n) {
        ballots[i] = b;
        votes[i] = any | all << 1 | uni << 2;
    }
}

/*
 * 4. hang - the same hand-over with a mask that names only the lanes that
 * execute the shuffle: the producers, computed by the whole warp before it
 * splits. The producers no longer wait for lanes 16-31, lane 0 raises the
 * flag, and the spinning lanes see it. The hand-over itself, in both
 * versions, reads and writes the value and the flag only with atomics, and
 * __threadfence() orders the value before the flag. The watchdog stays as a
 * guard; it does not fire here.
 */
#define HANG_PRIMITIVE "__shfl_sync(producers, v, 0)"

__global__ void demo_hang(const int *in, long long n, int *out, int *box,
                          int *flags, unsigned *spun, unsigned *waited,
                          unsigned long long *spun_cycles, long long cycles,
                          unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    unsigned producers;
    if (w * 32 >= n)
        return;                                      /* a whole warp past the end */
    producers = __ballot_sync(FULL_MASK, lane < HALF);   /* 0x0000ffff */
    if (lane < HALF) {
        int lead;
        jitter_sleep(jitter, 1);
        lead = __shfl_sync(producers, v, 0);
        if (atomicOr(&spun[w], 0u) != 0)             /* only if the watchdog fired */
            atomicOr(&waited[w], 1u << lane);
        if (i < n)
            out[i] = lead;
        if (lane == 0) {                             /* hand lead over */
            atomicExch(&box[w], lead);
            __threadfence();
            atomicExch(&flags[w], 1);
        }
    } else {
        long long start = clock64();
        int gave_up = 0;
        while (atomicAdd(&flags[w], 0) == 0) {
            if (watchdog_expired(start, cycles)) {
                gave_up = 1;
                break;
            }
        }
        if (gave_up) {
            atomicOr(&spun[w], 1u << lane);
            atomicMax(spun_cycles, (unsigned long long)(clock64() - start));
        } else {
            __threadfence();
            if (i < n)
                out[i] = atomicAdd(&box[w], 0);
        }
    }
}

/*
 * 5. exited - the mask names the lanes that stay, computed before the
 * others return. Nothing then depends on whether lanes 16-31 have exited
 * by the time lanes 0-15 reach the shuffle.
 */
__global__ void demo_exited(const int *in, long long n, int *out, unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    int lead;
    unsigned stay = __ballot_sync(FULL_MASK, lane < HALF);   /* 0x0000ffff */
    if (lane >= HALF)
        return;                                      /* nothing to do here */
    jitter_sleep(jitter, lane & 1);
    lead = __shfl_sync(stay, v, 0);
    if (i < n)
        out[i] = lead;
}

#define THIS_FILE "sync.cu"
#define ABOUT \
    "Lesson 02, corrected: every mask names exactly the lanes that execute the\n" \
    "primitive, worked out with __ballot_sync before the branch; checked against\n" \
    "the CPU. Choose a demonstration with -k, by number or name. Right with any\n" \
    "-j: the chosen lanes sleep with __nanosleep, and the others wait for them."
static const char *variants[] = {
    "activemask: Listing 3, the mask from __ballot_sync before the branch; odd lanes sleep",
    "partners: the whole warp takes part with FULL_MASK, non-members add 0 (-c 0 or < 32)",
    "reconverge: Listing 12, __ballot_sync(FULL_MASK) after an if/else; odd lanes sleep",
    "hang: __shfl_sync(producers) in lanes 0-15 while lanes 16-31 spin (watchdog -w)",
    "exited: __shfl_sync(lanes that stay) in lanes 0-15 after lanes 16-31 returned",
};

/* ==== end of the lesson ============================================== */

#define NDEMOS ((int)(sizeof variants / sizeof variants[0]))

/* ---- the runs: input, launch, validation, report -------------------- */

typedef struct {
    long long n, seed, jitter, threads, count, cycles, variant;
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
            printf("  warp %lld lane %lld: expected %d got %d\n",
                   i / 32, i % 32, want[i], got[i]);
    }
    if (wrong > 10)
        printf("  ... and %lld more\n", wrong - 10);
    return wrong;
}

/* Demonstrations 1 and 2: one sum per warp. */
static int run_sums(const demo_args *a)
{
    long long n = a->n, nwarps = (n + 31) / 32, wrong;
    int *in, *want, *got, *d_in, *d_sums;

    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_sums = (int *)lesson_device_alloc((size_t)nwarps * sizeof(int), "the warp sums");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want = (int *)lesson_host_alloc((size_t)nwarps * sizeof(int), "the warp sums");
    got = (int *)lesson_host_alloc((size_t)nwarps * sizeof(int), "the warp sums");

    print_shape(a);
    if (a->count == 0)
        printf("count: every count, warp w sums its first (w %% 32) + 1 lanes\n");
    else
        printf("count: every warp sums its first %lld lanes\n", a->count);
    lesson_random_ints(in, n, a->seed, 100);
    cpu_count_sums(in, n, a->count, want, nwarps);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* Poison the sums: a sum the kernel never writes cannot pass. */
    CUDA_CHECK(cudaMemset(d_sums, 0xab, (size_t)nwarps * sizeof(int)));
    if (a->variant == 1)
        LAUNCH(demo_activemask, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, (int)a->count, d_sums, (unsigned)a->jitter);
    else
        LAUNCH(demo_partners, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, (int)a->count, d_sums, (unsigned)a->jitter);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, d_sums, (size_t)nwarps * sizeof(int), cudaMemcpyDeviceToHost));

    wrong = lesson_compare_ints("warp", want, got, nwarps);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_sums));
    free(in);
    free(want);
    free(got);
    return lesson_result(wrong == 0, "%lld of %lld warp sums wrong", wrong, nwarps);
}

/* Demonstration 3: every lane's view of its warp's vote. */
static int run_votes(const demo_args *a)
{
    long long n = a->n, i, wrong = 0, wrong_warps = 0, last_warp = -1;
    unsigned *want_b, *got_b, *d_b;
    int *in, *want_v, *got_v, *d_in, *d_v;

    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_b = (unsigned *)lesson_device_alloc((size_t)n * sizeof(unsigned), "the ballots");
    d_v = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the votes");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want_b = (unsigned *)lesson_host_alloc((size_t)n * sizeof(unsigned), "the ballots");
    got_b = (unsigned *)lesson_host_alloc((size_t)n * sizeof(unsigned), "the ballots");
    want_v = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the votes");
    got_v = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the votes");

    print_shape(a);
    printf("votes: odd lanes vote v > t, even lanes v >= t; t cycles through "
           "-1000, 1000, 0, -90 from warp to warp\n");
    lesson_random_ints(in, n, a->seed, 100);
    cpu_votes(in, n, want_b, want_v);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_b, 0xab, (size_t)n * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(d_v, 0xab, (size_t)n * sizeof(int)));
    LAUNCH(demo_reconverge, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
           d_in, n, d_b, d_v, (unsigned)a->jitter);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got_b, d_b, (size_t)n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got_v, d_v, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));

    for (i = 0; i < n; i++) {
        if (want_b[i] == got_b[i] && want_v[i] == got_v[i])
            continue;
        if (++wrong <= 10)
            printf("  warp %lld lane %lld: ballot expected 0x%08x got 0x%08x, "
                   "any/all/uni expected %d/%d/%d got %d/%d/%d\n",
                   i / 32, i % 32, want_b[i], got_b[i],
                   want_v[i] & 1, want_v[i] >> 1 & 1, want_v[i] >> 2 & 1,
                   got_v[i] & 1, got_v[i] >> 1 & 1, got_v[i] >> 2 & 1);
        if (i / 32 != last_warp) {
            wrong_warps++;
            last_warp = i / 32;
        }
    }
    if (wrong > 10)
        printf("  ... and %lld more\n", wrong - 10);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_v));
    free(in);
    free(want_b);
    free(got_b);
    free(want_v);
    free(got_v);
    return lesson_result(wrong == 0, "%lld of %lld lanes saw a wrong vote, in %lld of %lld warps",
                         wrong, n, wrong_warps, (n + 31) / 32);
}

/* Demonstrations 4 and 5: every lane that has work ends with the value of
 * its warp's lane 0. Demonstration 4 may hang: its report comes first. */
static int run_leader(demo_args *a)
{
    long long n, nwarps, w, hung = 0, wrong;
    int writers = a->variant == 4 ? 32 : HALF;
    int *in, *want, *got, *d_in, *d_out, *d_box = NULL, *d_flags = NULL;
    unsigned *spun = NULL, *waited = NULL, *d_spun = NULL, *d_waited = NULL;
    unsigned long long cycles_spun = 0, *d_cycles = NULL;

    if (a->variant == 4 && a->n > HANG_MAX_WARPS * 32) {
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
    cpu_leader(in, n, writers, want);
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0xab, (size_t)n * sizeof(int)));

    if (a->variant == 4) {
        printf("watchdog: spinning lanes give up after %lld cycles\n", a->cycles);
        d_box = (int *)lesson_device_alloc((size_t)nwarps * sizeof(int), "the mailboxes");
        d_flags = (int *)lesson_device_alloc((size_t)nwarps * sizeof(int), "the flags");
        d_spun = (unsigned *)lesson_device_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        d_waited = (unsigned *)lesson_device_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        d_cycles = (unsigned long long *)lesson_device_alloc(sizeof(unsigned long long), "the watchdog record");
        spun = (unsigned *)lesson_host_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        waited = (unsigned *)lesson_host_alloc((size_t)nwarps * sizeof(unsigned), "the watchdog record");
        CUDA_CHECK(cudaMemset(d_box, 0, (size_t)nwarps * sizeof(int)));
        CUDA_CHECK(cudaMemset(d_flags, 0, (size_t)nwarps * sizeof(int)));
        CUDA_CHECK(cudaMemset(d_spun, 0, (size_t)nwarps * sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(d_waited, 0, (size_t)nwarps * sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(d_cycles, 0, sizeof(unsigned long long)));
        LAUNCH(demo_hang, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, d_out, d_box, d_flags, d_spun, d_waited, d_cycles,
               a->cycles, (unsigned)a->jitter);
    } else {
        LAUNCH(demo_exited, (unsigned)blocks_for(a), (unsigned)a->threads, 0,
               d_in, n, d_out, (unsigned)a->jitter);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
    wrong = compare_lanes(want, got, n);

    if (a->variant == 4) {
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
        if (hung) {
            printf("%lld of %lld lanes wrong: the spinning lanes gave up before they got the value\n",
                   wrong, n);
            printf("HANG detected: lanes %s spun %llu cycles on a flag while lanes %s "
                   "waited in %s for them (%lld of %lld warps); the watchdog made the "
                   "spinners give up and join the shuffle\n",
                   lesson_lanes_text(all_spun, s1, sizeof s1), cycles_spun,
                   lesson_lanes_text(all_waited, s2, sizeof s2), HANG_PRIMITIVE, hung, nwarps);
        }
        CUDA_CHECK(cudaFree(d_box));
        CUDA_CHECK(cudaFree(d_flags));
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
    return lesson_result(wrong == 0, "%lld of %lld lanes wrong, %d of 32 lanes per warp have work",
                         wrong, n, writers);
}

/* ---- main: the command line, then one demonstration ---------------- */

int main(int argc, char **argv)
{
    demo_args a = { 1 << 20, 1, 0, 256, 0, DEFAULT_WATCHDOG, 1 };
    lesson_option options[] = {
        { 'n', "size", "N", &a.n, 1, 1LL << 36, "number of ints, one per lane" },
        { 's', "seed", "S", &a.seed, 0, LLONG_MAX, "seed of the random input" },
        { 'j', "jitter", "NS", &a.jitter, 0, 1000000,
          "the demonstration's chosen lanes sleep NS nanoseconds" },
        { 'b', "threads", "T", &a.threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &a.variant, 1, NDEMOS,
          "which demonstration, by number or name" },
        { 'c', "count", "C", &a.count, 0, 32,
          "1-2: lanes 0..C-1 of each warp take part; 0: warp w uses (w % 32) + 1" },
        { 'w', "watchdog", "CYCLES", &a.cycles, 1000, 1LL << 40,
          "4: spinning lanes give up after CYCLES clock cycles" },
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
    case 2:
        return run_sums(&a);
    case 3:
        return run_votes(&a);
    case 4:
    case 5:
        return run_leader(&a);
    default:
        lesson_fail(LESSON_USAGE, "no demonstration %lld (try --help)", a.variant);
    }
    return LESSON_USAGE;
}
