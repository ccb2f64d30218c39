/*
 * sync.cu - lesson 03, the corrected version: __syncwarp() used as what it
 * is, a barrier between the writes and the reads of a warp, and _sync
 * primitives wherever lanes exchange values. Twin: legacy.cu.
 *
 * Build:  make                  (nvcc -I../../include sync.cu -o build/sync)
 * Run:    build/sync -k tree -j 200        Listing 8: reads into registers,
 *                                          __syncwarp() between every read
 *                                          and write
 *         build/sync -k transpose -j 200   Listing 6: one __syncwarp()
 *         build/sync -k around -j 200      Listing 4: __shfl_sync(FULL_MASK)
 *                                          in both sides of the branch
 *         build/sync -k converged -j 200   Listing 12: __ballot_sync(FULL_MASK)
 *         build/sync -k hang               __syncwarp() in both sides of the
 *                                          branch instead of a flag
 * Check:  make check
 *
 * Why it is right: every shared slot that one lane writes and another reads
 * has a __syncwarp() between the write and the read, and between the read
 * and the next write (__syncwarp() orders memory among the lanes it
 * synchronizes); every exchange of values goes through a _sync primitive
 * whose mask names the lanes that execute it. Lanes that sleep (-j) then
 * make the others wait; they cannot make them read too early or too late.
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
 * 1. tree - the blog's Listing 8, the fix for Listing 7: each lane reads
 * its partner's slot into a register, all lanes meet at __syncwarp(), then
 * each writes its own slot, and all meet again before the next read. No
 * slot is read and written between the same two barriers.
 * Listing 8 as printed starts from v = 0, which drops each lane's own
 * element; v starts from s[lane] here.
 */
__global__ void demo_tree(const int *in, long long n, int *sums, unsigned jitter)
{
    __shared__ int shmem[32 * SLOTS];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int *s = &shmem[WARP_IN_BLOCK() * SLOTS];
    int late = !(lane & 1);                 /* the same sleepers as legacy.cu */
    int v;
    s[lane] = i < n ? in[i] : 0;
    s[lane + 32] = 0;
    __syncwarp();
    v = s[lane];
    jitter_sleep(jitter, late);
    v += s[lane + 16]; __syncwarp();        /* Listing 8 */
    s[lane] = v;       __syncwarp();
    jitter_sleep(jitter, late);
    v += s[lane + 8];  __syncwarp();
    s[lane] = v;       __syncwarp();
    jitter_sleep(jitter, late);
    v += s[lane + 4];  __syncwarp();
    s[lane] = v;       __syncwarp();
    jitter_sleep(jitter, late);
    v += s[lane + 2];  __syncwarp();
    s[lane] = v;       __syncwarp();
    jitter_sleep(jitter, late);
    v += s[lane + 1];  __syncwarp();
    s[lane] = v;
    if (lane == 0 && i < n)
        sums[i / 32] = v;
}

/*
 * 2. transpose - the blog's Listing 6: every lane stores its element, one
 * __syncwarp(), then every lane loads its element of the transpose. The
 * barrier makes each store come before every load, whoever sleeps (-j).
 * One barrier is enough because the tile is used once; a loop that reused
 * it would need a second __syncwarp() before the next stores.
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
    __syncwarp();                           /* Listing 6 */
    val = smem[warp][y2][x2];
    if (i < n)
        out[i] = val;
}

/*
 * 3. around - the blog's Listing 4: a _sync shuffle may stand in both sides
 * of a divergent branch. Since Volta, the lanes named in FULL_MASK meet
 * inside __shfl_sync() wherever they call it from, and each gets the value
 * its source lane passed: no barrier around it is needed, and none would
 * have been enough.
 */
__global__ void demo_around(const int *in, long long n, int *out, unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int v = i < n ? in[i] : 0;              /* v = foo() */
    int src = (lane + 1) % 32;
    if (lane & 1) {
        jitter_sleep(jitter, 1);
        v = __shfl_sync(FULL_MASK, v, src); /* Listing 4 */
    } else {
        v = __shfl_sync(FULL_MASK, v, src);
    }
    if (i < n)
        out[i] = v;
}

/*
 * 4. converged - the blog's Listing 12: __ballot_sync(FULL_MASK, ...) names
 * the whole warp and waits for it, converged or not. The __syncwarp() and
 * the __activemask() record stay only so that the numbers printed compare
 * with legacy.cu's: the lanes are no more together here than there.
 */
__global__ void demo_converged(const int *in, long long n, int *counts,
                               unsigned long long *partial, unsigned jitter)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int positive = i < n && in[i] > 0;
    unsigned active, b;
    __syncwarp();                           /* not needed; see above */
    jitter_sleep(jitter, lane >= HALF);
    active = __activemask();                /* recorded, not used as a mask */
    b = __ballot_sync(FULL_MASK, positive); /* Listing 12 */
    if (active != FULL_MASK && lane == __ffs(active) - 1)
        atomicAdd(partial, (unsigned long long)__popc(active));
    if (lane == 0 && i < n)
        counts[i / 32] = __popc(b);
}

/*
 * 5. hang - the producers and the consumers meet at __syncwarp() from both
 * sides of the branch. Since Volta, a __syncwarp() in one branch and one in
 * the other are the same barrier for the lanes they name, and the barrier
 * orders the producers' stores before the consumers' loads: the flag, the
 * spinning and the watchdog are no longer needed.
 */
#define HANG_PRIMITIVE "__syncwarp()"

__global__ void demo_hang(const int *in, long long n, int *out, unsigned *spun,
                          unsigned *waited, unsigned long long *spun_cycles,
                          long long cycles, unsigned jitter)
{
    __shared__ int box[1024];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    (void)spun;                             /* no spinning, nothing to record */
    (void)waited;
    (void)spun_cycles;
    (void)cycles;
    if (w * 32 >= n)
        return;                             /* a whole warp past the end */
    if (lane < HALF) {
        jitter_sleep(jitter, 1);
        box[threadIdx.x] = v;               /* for lane + 16 */
        __syncwarp();                       /* the producers' side of the barrier */
        if (i < n)
            out[i] = v;
    } else {
        __syncwarp();                       /* the consumers' side of the same barrier */
        if (i < n)
            out[i] = box[threadIdx.x - HALF] + v;
    }
}

#define THIS_FILE "sync.cu"
#define ABOUT \
    "Lesson 03, corrected: __syncwarp() between every write and read of a\n" \
    "warp's shared slots, and _sync primitives for every exchange of values,\n" \
    "checked against the CPU. Choose a demonstration with -k, by number or\n" \
    "name. Right with any -j: the chosen lanes sleep with __nanosleep, and\n" \
    "the others wait for them."
static const char *variants[] = {
    "tree: Listing 8, reads into registers, __syncwarp() between every read and write; even lanes sleep",
    "transpose: Listing 6, a 4x8 transpose in shared memory with one __syncwarp(); odd lanes sleep",
    "around: Listing 4, __shfl_sync(FULL_MASK) in both sides of the branch; odd lanes sleep",
    "converged: Listing 12, __ballot_sync(FULL_MASK) after __syncwarp(); lanes 16-31 sleep",
    "hang: __syncwarp() in both sides of the branch instead of a flag (watchdog -w unused)",
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
