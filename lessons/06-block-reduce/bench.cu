/*
 * bench.cu - lesson 06's benchmark: every reduction of sync.cu and cg.cu
 * against cub::DeviceReduce::Sum, on the same GPU in the same run. GPU only.
 * bench.sh runs it for `make bench` and turns its CSV into a table and a plot.
 *
 * Build:  make                       (nvcc -I../../include bench.cu cub_sum.cu -o build/bench)
 * Run:    build/bench                sizes 2^24, 2^26, 2^28, 2^30 (4 GiB of GPU memory)
 *         build/bench -n 256M -l 2   sizes 2^26 and 2^28 only
 *         build/bench -k 5 -b 512 -u 8 -p 2 -t 0    one variant, one setting
 *         build/bench -n 256M -l 1 -t 2             the wide sweep at 2^28
 *         build/bench -V 1 -n 16M -l 1              check every setting, no timing
 *
 * For each size: CUB first, then every method, then CUB again (the two CUB
 * times show the run-to-run noise). Each method is first checked against the
 * 64-bit CPU sum (output poisoned before), then timed: warm-up runs, then
 * -r runs each timed with CUDA events, and the median is reported. The timed
 * runs rotate over disjoint slices of the -n ints, and with -F 1 (the
 * default) a kernel reads a buffer twice the size of the L2 cache before
 * each timed run, so that no run finds its input in L2, whatever cache hints
 * the previous runs left there. After timing, the last result is checked
 * against its slice's sum. GB/s counts the bytes read once: 4n / time.
 * Datasheet DRAM bandwidth, from the GPU's name: H200 4.8 TB/s, H100 SXM
 * 3.35, H100 NVL 3.9, H100 PCIe 2.0 TB/s; others: none (-P sets it).
 *
 * What a time includes (-T):
 *   0  each timed run starts on an idle GPU: the time from the first event
 *      to the last includes the host's work of launching the run (about as
 *      a program that calls the reduction once sees it);
 *   1  a short kernel holds the stream while the host queues the events and
 *      the run, so the GPU goes from one to the next without waiting for the
 *      host: the time is the GPU's (launch gaps between the run's own
 *      kernels and memsets included), as NVBench's blocking kernel measures.
 *      If the hold (50 us to start with) ends before the run is queued,
 *      that run is timed again with a hold twice as long (up to 0.8 ms, 3
 *      times at most; a run kept after that can only have been timed long).
 *
 * The launch setting of the lesson's device-wide kernels: -b threads, -u
 * loads in flight (1, 2, 4, 8, 16), -p blocks per SM (0: as many as fit at
 * once, from the occupancy API), -L how they load (sync.cu's LOAD_ kinds).
 * Sweeps (-t), at the size nearest 2^28, before the main table:
 *   1  (default) sync.cu's variants 3 to 6 with threads 128..1024, unroll
 *      1..8 and half, one and two waves of blocks, with -L and -T;
 *   2  the wide sweep: (A) every load kind, for variants 3 to 6, at two
 *      settings, under -T 0 and -T 1; (B) threads 256..1024, unroll 2..16,
 *      one or two waves, and grids that split the input into whole rounds
 *      of loads (even<=W: the most blocks up to W waves for which every
 *      thread does the same number of full rounds), with LOAD_NC; (C) the
 *      same with the load kind that did best in (A), if not LOAD_NC;
 *      (D) the two best settings of each variant and timing mode timed again
 *      in 3 rounds, each round after CUB; a setting's confirmed time is the
 *      median of its rounds.
 * The main table adds a "best-of-sweep" row for each swept variant with its
 * best setting under -T (after (D): the best confirmed).
 *
 * Output: CSV on stdout, one header line, then rows
 *   table,gpu,n,bytes,method,setting,threads,blocks,unroll,ms,gbps,pct_peak,
 *   ratio_cub,check,peak_gbps,load,timing
 * table is "sweep", "confirm" or "result"; setting names the row (the sweep
 * part and grid for sweep rows); ratio_cub is CUB's time over this time
 * (above 1: faster than CUB), CUB timed the same way (-T); check is "ok" or
 * "WRONG"; peak_gbps is the datasheet bandwidth (empty: unknown); unroll
 * and load are empty where they do not apply; timing is the -T of the row.
 * Progress goes to stderr.
 *
 * -V 1 times nothing: it runs every device-wide variant with every load
 * kind and unroll on awkward sizes up to N (1, 3, 5, 31, 4099, 2^24 + 3...),
 * several block sizes and grids, each against the 64-bit CPU sum with the
 * output poisoned first, and ends with a `result:` line like the lesson's
 * programs.
 *
 * Exit status: 0 every check passed, 1 one failed, 2 bad usage, 77 no GPU.
 */
#define LESSON_AS_LIBRARY
#include "sync.cu"
#include "reduce.h"
#include "cg.cu"
#include "cub_ref.cu"
#include "bench.h"

/* sync.cu's device-wide kernels for every load kind but LOAD_NC (which
 * sync.cu defines), and the table of them all: device_kernels[load][k] has
 * 1 << k loads in flight. */
DEVICE_REDUCE_KERNELS(plain, LOAD_PLAIN)
DEVICE_REDUCE_KERNELS(ldcg, LOAD_CG)
DEVICE_REDUCE_KERNELS(ldcs, LOAD_CS)
DEVICE_REDUCE_KERNELS(ldlu, LOAD_LU)
DEVICE_REDUCE_KERNELS(na, LOAD_NA)
DEVICE_REDUCE_KERNELS(na256, LOAD_NA_256B)
DEVICE_REDUCE_KERNELS(nc256, LOAD_NC_256B)
DEVICE_REDUCE_KERNELS(cs256, LOAD_CS_256B)
DEVICE_REDUCE_KERNELS(ef256, LOAD_EF_256B)

#define DEVICE_REDUCE_ROW(name)                                               \
    { device_reduce_u1_##name, device_reduce_u2_##name, device_reduce_u4_##name, \
      device_reduce_u8_##name, device_reduce_u16_##name }
#define UNROLLS 5
static const device_kernel device_kernels[LOAD_KINDS][UNROLLS] = {
    DEVICE_REDUCE_ROW(nc), DEVICE_REDUCE_ROW(plain), DEVICE_REDUCE_ROW(ldcg),
    DEVICE_REDUCE_ROW(ldcs), DEVICE_REDUCE_ROW(ldlu), DEVICE_REDUCE_ROW(na),
    DEVICE_REDUCE_ROW(na256), DEVICE_REDUCE_ROW(nc256), DEVICE_REDUCE_ROW(cs256),
    DEVICE_REDUCE_ROW(ef256),
};
static const char *load_names[LOAD_KINDS] = {
    "nc", "plain", "cg", "cs", "lu", "na", "na-256B", "nc-256B", "cs-256B", "ef-256B",
};

/* k for an unroll of 1 << k; -1 if unroll is not 1, 2, 4, 8 or 16. */
static int unroll_slot(long long unroll)
{
    int k;
    for (k = 0; k < UNROLLS; k++)
        if (unroll == 1LL << k)
            return k;
    return -1;
}

enum {
    M_BLOCK = 1, M_REDUX, M_PARTIAL, M_ATOMIC, M_LAST, M_PACKED, /* sync.cu's 1-6 */
    M_CG_BLOCK, M_CG_DEVICE,                                     /* cg.cu's 1-2 */
    M_CUB,
    M_COUNT
};
static const char *method_name[M_COUNT] = {
    "", "1-block-shfl", "2-block-redux", "3-device-2pass", "4-device-atomic",
    "5-device-lastblock", "6-device-packed", "cg-block", "cg-device", "cub",
};

/* Whether method m is one of sync.cu's device-wide variants (3 to 6). */
static int is_device(int m)
{
    return m >= M_PARTIAL && m <= M_PACKED;
}

typedef struct {
    int threads, unroll, load;
    long long blocks;
} setting;

/* Everything a run needs besides its input and size. */
typedef struct {
    int *partials, *out;
    unsigned *count;
    void *cub_temp;
    size_t cub_bytes;
    int sms;
} buffers;

/* The kernel that does most of the work of method m with this unroll and
 * load kind, for the occupancy API. */
static const void *main_kernel(int m, int unroll, int load)
{
    switch (m) {
    case M_BLOCK: case M_REDUX: return (const void *)block_reduce;
    case M_CG_BLOCK: return (const void *)cg_block_reduce;
    case M_CG_DEVICE:
        return unroll == 1 ? (const void *)cg_device_reduce<1> :
               unroll == 2 ? (const void *)cg_device_reduce<2> :
               unroll == 4 ? (const void *)cg_device_reduce<4> :
                             (const void *)cg_device_reduce<8>;
    default:
        return (const void *)device_kernels[load][unroll_slot(unroll)];
    }
}

/* How many blocks of method m with this setting fit on one SM at once; 0
 * when not even one does (too many registers for that many threads). */
static int blocks_that_fit(int m, int threads, int unroll, int load)
{
    int fit = 0;
    struct cudaFuncAttributes attr;
    const void *k = main_kernel(m, unroll, load);
    CUDA_CHECK(cudaFuncGetAttributes(&attr, k));
    if (attr.maxThreadsPerBlock < threads)
        return 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, threads, 0));
    return fit;
}

/* Blocks for method m: SMs x per_sm, where per_sm 0 means as many blocks as
 * fit on an SM at once (one wave); waves scales that. 0 when no block fits. */
static long long blocks_for(int m, int threads, int unroll, int load, int per_sm,
                            double waves, int sms)
{
    long long blocks;
    if (per_sm == 0) {
        per_sm = blocks_that_fit(m, threads, unroll, load);
        if (per_sm == 0)
            return 0;
    }
    blocks = (long long)(sms * per_sm * waves + 0.5);
    if (blocks < 1)
        blocks = 1;
    return blocks > MAX_BLOCKS ? MAX_BLOCKS : blocks;
}

/* The most blocks, at most `most` and more than most / 2, for which the
 * n / 4 vectors split into whole rounds of threads x unroll loads for every
 * thread (no thread does a round more than another); 0 if there is none. */
static long long even_blocks(long long n, int threads, int unroll, long long most)
{
    long long blocks, round = (long long)threads * unroll;
    for (blocks = most; blocks > most / 2; blocks--)
        if ((n / 4) % (blocks * round) == 0)
            return blocks;
    return 0;
}

/* Runs method m on in[0..n) with setting s; the sum lands in b->out. */
static void run_method(int m, const int *in, long long n, const setting *s,
                       const buffers *b)
{
    switch (m) {
    case M_CUB:
        cub_sum(in, n, b->out, b->cub_temp, b->cub_bytes);
        CUDA_CHECK(cudaGetLastError());
        break;
    case M_CG_BLOCK:
    case M_CG_DEVICE:
        cg_run(m - M_CG_BLOCK + 1, in, n, b->partials, b->out, s->blocks, s->threads,
               s->unroll);
        break;
    case M_PARTIAL:
    case M_ATOMIC:
    case M_LAST:
    case M_PACKED:
        device_reduce_run(device_kernels[s->load][unroll_slot(s->unroll)], m, in, n,
                          b->partials, b->count, b->out,
                          grid_for(n / 4, s->threads, s->blocks), s->threads);
        break;
    default:
        reduce_run(m, in, n, b->partials, b->count, b->out, s->blocks, s->threads,
                   s->unroll);
    }
}

/* The input: n_all ints, and the sum of each chunk of `chunk` ints, from
 * which the sum of any slice made of whole chunks follows. */
typedef struct {
    const int *d_in;
    long long n_all, chunk;
    long long *chunk_sums;
} input;

static long long slice_sum(const input *in, long long n, long long slice)
{
    long long c, first = slice * (n / in->chunk), sum = 0;
    for (c = first; c < first + n / in->chunk; c++)
        sum += in->chunk_sums[c];
    return sum;
}

/* Runs method m once on in[0..n) with the output poisoned first; returns
 * whether the sum is want (and says on stderr what went wrong if not). */
static int check_run(int m, const int *in, long long n, int want, const setting *s,
                     const buffers *b)
{
    int got;
    CUDA_CHECK(cudaMemset(b->partials, 0xab, MAX_BLOCKS * sizeof(int)));
    CUDA_CHECK(cudaMemset(b->out, 0xab, sizeof(int)));
    run_method(m, in, n, s, b);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, b->out, sizeof(int), cudaMemcpyDeviceToHost));
    if (got != want)
        fprintf(stderr, "bench: %s n=%lld threads=%d blocks<=%lld unroll=%d load=%s: "
                "WRONG sum: expected %d got %d\n", method_name[m], n, s->threads,
                s->blocks, s->unroll, is_device(m) ? load_names[s->load] : "-", want, got);
    return got == want;
}

/* The datasheet DRAM bandwidth in GB/s of the GPU called name; 0 if unknown. */
static double datasheet_gbps(const char *name)
{
    if (strstr(name, "H200"))
        return 4800;
    if (strstr(name, "H100")) {
        if (strstr(name, "PCIe"))
            return 2000;
        if (strstr(name, "NVL"))
            return 3900;
        if (strstr(name, "SXM") || strstr(name, "HBM3"))
            return 3350;
    }
    return 0;
}

/* ---- timing ------------------------------------------------------------ */

/* Reads buf[0..n4) and keeps the loads (the sum is never written: buf holds
 * zeros), so that the L2 cache ends up full of buf's lines. */
__global__ void scrub_l2(const int4 *buf, long long n4, int *sink)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    int x = 0;
    for (; i < n4; i += stride) {
        int4 v = buf[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x7fffffff)
        *sink = x;
}

static __device__ inline unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Keeps one thread busy for ns nanoseconds of GPU time: what the stream
 * queues behind it waits until then. */
__global__ void hold_stream(long long ns)
{
    unsigned long long start = global_ns();
    while (global_ns() - start < (unsigned long long)ns)
        __nanosleep(1000);
}

typedef struct {
    char gpu[256];
    double peak;
    int warmup, reps, timing, flush;
    long long failures;
    int4 *scrub;            /* twice the L2 cache, zeros */
    long long scrub_n4;
    int *sink;
    long long hold_ns;      /* how long hold_stream holds (-T 1) */
    long long retimed;      /* runs timed again because the hold was too short */
    long long unheld;       /* runs kept although the hold was too short */
    cudaEvent_t start, stop, held;
} run_info;

/* Whether the GPU is still running the hold launched before event held
 * (so that what was queued after it did not wait for the host). */
static int still_held(cudaEvent_t held)
{
    cudaError_t e = cudaEventQuery(held);
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return 1;
    }
    CUDA_CHECK(e);
    return 0;
}

/* Times r->reps runs of method m (after r->warmup untimed ones) the way
 * r->timing and r->flush say, each run on the next slice of size n (*rot
 * counts the runs); returns the median in ms. */
static float time_method(run_info *r, int m, const input *in, long long n,
                         const setting *s, const buffers *b, long long *rot)
{
    static float t[BENCH_MAX_REPS];
    long long nslices = in->n_all / n;
    int i, tries;
    for (i = 0; i < r->warmup; i++)
        run_method(m, in->d_in + ((*rot)++ % nslices) * n, n, s, b);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (i = 0; i < r->reps; i++) {
        const int *slice = in->d_in + ((*rot)++ % nslices) * n;
        for (tries = 0;; tries++) {
            if (r->flush)
                LAUNCH(scrub_l2, (unsigned)(b->sms * 4), 256u, 0,
                       (const int4 *)r->scrub, r->scrub_n4, r->sink);
            if (r->timing == 0) {
                /* The GPU idles until the host has launched the run. */
                CUDA_CHECK(cudaDeviceSynchronize());
                CUDA_CHECK(cudaEventRecord(r->start, 0));
                run_method(m, slice, n, s, b);
                CUDA_CHECK(cudaEventRecord(r->stop, 0));
                break;
            }
            LAUNCH(hold_stream, 1u, 1u, 0, r->hold_ns);
            CUDA_CHECK(cudaEventRecord(r->held, 0));
            CUDA_CHECK(cudaEventRecord(r->start, 0));
            run_method(m, slice, n, s, b);
            CUDA_CHECK(cudaEventRecord(r->stop, 0));
            if (still_held(r->held))
                break;
            /* The hold ended before the run was queued: the GPU may have
             * waited for the host inside the timed span, which can only make
             * the time longer. Again with a longer hold; after 4 tries keep
             * the time (and count it). */
            if (tries == 3) {
                r->unheld++;
                break;
            }
            CUDA_CHECK(cudaEventSynchronize(r->stop));
            r->retimed++;
            if (r->hold_ns < 800000)        /* at most 0.8 ms a run */
                r->hold_ns *= 2;
        }
        CUDA_CHECK(cudaEventSynchronize(r->stop));
        CUDA_CHECK(cudaEventElapsedTime(&t[i], r->start, r->stop));
    }
    return bench_median(t, r->reps);
}

/*
 * Checks, times and prints one row for method m at size n. cub_ms is CUB's
 * time at this size under the same timing (0: this is CUB's own first run).
 * Returns the median time in ms, or -1 if the check failed.
 */
static float measure(run_info *r, const char *table, const char *label, int m,
                     const input *in, long long n, const setting *s,
                     const buffers *b, float cub_ms)
{
    long long rot = 0, last;
    int ok, got;
    float ms = 0;
    double gbps;
    char pct[32] = "", ratio[32] = "", peak[32] = "", conf[64], load[32] = "";

    ok = check_run(m, in->d_in, n, int32_of(slice_sum(in, n, 0)), s, b);
    if (ok) {
        ms = time_method(r, m, in, n, s, b, &rot);
        /* The last timed run's sum, against its slice. */
        last = (rot - 1) % (in->n_all / n);
        CUDA_CHECK(cudaMemcpy(&got, b->out, sizeof(int), cudaMemcpyDeviceToHost));
        if (got != int32_of(slice_sum(in, n, last))) {
            fprintf(stderr, "bench: %s n=%lld: WRONG sum after timing (slice %lld): "
                    "expected %d got %d\n", method_name[m], n, last,
                    int32_of(slice_sum(in, n, last)), got);
            ok = 0;
        }
    }
    if (r->peak > 0)
        snprintf(peak, sizeof peak, "%.0f", r->peak);
    if (m == M_CUB)
        snprintf(conf, sizeof conf, ",,");
    else if (m == M_BLOCK || m == M_REDUX || m == M_CG_BLOCK)
        snprintf(conf, sizeof conf, "%d,%lld,", s->threads, s->blocks);
    else
        snprintf(conf, sizeof conf, "%d,%lld,%d", s->threads, s->blocks, s->unroll);
    if (is_device(m))
        snprintf(load, sizeof load, "%s", load_names[s->load]);
    if (!ok) {
        r->failures++;
        printf("%s,%s,%lld,%lld,%s,%s,%s,,,,,WRONG,%s,%s,%d\n", table, r->gpu, n, n * 4,
               method_name[m], label, conf, peak, load, r->timing);
        fflush(stdout);
        return -1;
    }
    gbps = bench_gbps(4.0 * (double)n, ms);
    if (r->peak > 0)
        snprintf(pct, sizeof pct, "%.1f", 100.0 * gbps / r->peak);
    snprintf(ratio, sizeof ratio, "%.3f", cub_ms > 0 ? cub_ms / ms : 1.0);
    printf("%s,%s,%lld,%lld,%s,%s,%s,%.4f,%.1f,%s,%s,ok,%s,%s,%d\n", table, r->gpu, n,
           n * 4, method_name[m], label, conf, ms, gbps, pct, ratio, peak, load, r->timing);
    fflush(stdout);
    return ms;
}

/* ---- sweeps ------------------------------------------------------------- */

/* One timed setting of a sweep. */
typedef struct {
    int m, timing;
    setting s;
    float ms;
    char label[40];
} trial;

#define MAX_TRIALS 4096

typedef struct {
    run_info *r;
    const input *in;
    const buffers *b;
    long long n;
    float cub_ms[2];        /* CUB's time under -T 0 and -T 1 */
    trial trials[MAX_TRIALS];
    int ntrials;
    int done, total;
} sweep_state;

/* Times method m with setting s under `timing` as one sweep row; keeps it
 * among the trials when it passed its check. */
static void sweep_one(sweep_state *w, const char *table, const char *label, int m,
                      const setting *s, int timing)
{
    float ms;
    int saved = w->r->timing;
    w->r->timing = timing;
    if (w->done + 1 > w->total)
        w->total = w->done + 1;
    bench_progress(++w->done, w->total, "%s n=%lld T%d: %s %s threads=%d unroll=%d "
                   "blocks=%lld load=%s", table, w->n, timing, method_name[m], label,
                   s->threads, s->unroll, s->blocks, load_names[s->load]);
    ms = measure(w->r, table, label, m, w->in, w->n, s, w->b, w->cub_ms[timing]);
    w->r->timing = saved;
    if (ms > 0 && w->ntrials < MAX_TRIALS) {
        trial *t = &w->trials[w->ntrials++];
        t->m = m;
        t->timing = timing;
        t->s = *s;
        t->ms = ms;
        snprintf(t->label, sizeof t->label, "%s", label);
    }
}

/* Times CUB under `timing` as a sweep row; returns its time. */
static float sweep_cub(sweep_state *w, const char *table, const char *label, int timing)
{
    setting none = { 0, 0, 0, 0 };
    float ms;
    int saved = w->r->timing;
    w->r->timing = timing;
    if (w->done + 1 > w->total)
        w->total = w->done + 1;
    bench_progress(++w->done, w->total, "%s n=%lld T%d: cub", table, w->n, timing);
    ms = measure(w->r, table, label, M_CUB, w->in, w->n, &none, w->b, 0);
    w->r->timing = saved;
    return ms;
}

/* A setting: threads, unroll, load kind and blocks. */
static setting make_setting(int threads, int unroll, int load, long long blocks)
{
    setting s;
    s.threads = threads;
    s.unroll = unroll;
    s.load = load;
    s.blocks = blocks;
    return s;
}

/* The -t 1 sweep: threads x unroll x waves for each swept method. */
static void sweep_launch(sweep_state *w, const int *methods, int nmethods, int load,
                         int timing)
{
    static const int threads[] = { 128, 256, 512, 1024 };
    static const int unroll[] = { 1, 2, 4, 8 };
    static const double waves[] = { 0.5, 1.0, 2.0 };
    int q, i, j, k;
    w->total = w->done + nmethods * 4 * 4 * 3;
    for (q = 0; q < nmethods; q++)
        for (i = 0; i < 4; i++)
            for (j = 0; j < 4; j++)
                for (k = 0; k < 3; k++) {
                    int m = methods[q];
                    char label[40];
                    setting s = make_setting(threads[i], unroll[j], load,
                                             blocks_for(m, threads[i], unroll[j], load, 0,
                                                        waves[k], w->b->sms));
                    if (s.blocks == 0)
                        continue;
                    snprintf(label, sizeof label, "waves=%.1f", waves[k]);
                    sweep_one(w, "sweep", label, m, &s, timing);
                }
}

/* Part (B) or (C) of the wide sweep: the grids of method m with `threads`,
 * `unroll` and `load` under `timing`: one and two waves, and the even grids
 * up to them. */
static void sweep_grids(sweep_state *w, const char *part, int m, int threads, int unroll,
                        int load, int timing)
{
    static const double waves[] = { 1.0, 2.0 };
    int k, even;
    for (k = 0; k < 2; k++) {
        long long wave = blocks_for(m, threads, unroll, load, 0, waves[k], w->b->sms);
        if (wave == 0)
            return;
        for (even = 0; even < 2; even++) {
            char label[40];
            setting s = make_setting(threads, unroll, load, wave);
            if (even) {
                s.blocks = even_blocks(w->n, threads, unroll, wave);
                if (s.blocks == 0 || s.blocks == wave)
                    continue;       /* none, or the same grid as the waves row */
            }
            snprintf(label, sizeof label, "%s/%s%.1f", part, even ? "even<=" : "waves=",
                     waves[k]);
            sweep_one(w, "sweep", label, m, &s, timing);
        }
    }
}

/* Index of the fastest trial of method m under timing among trials
 * [from, to) not in `taken` (n of them); -1 if none. */
static int fastest(const sweep_state *w, int from, int to, int m, int timing,
                   const int *taken, int ntaken)
{
    int i, j, best = -1;
    for (i = from; i < to; i++) {
        const trial *t = &w->trials[i];
        int skip = t->m != m || t->timing != timing;
        for (j = 0; j < ntaken && !skip; j++) {
            const trial *u = &w->trials[taken[j]];
            skip = u->m == t->m && u->timing == t->timing && u->s.threads == t->s.threads &&
                   u->s.unroll == t->s.unroll && u->s.blocks == t->s.blocks &&
                   u->s.load == t->s.load;
        }
        if (!skip && (best < 0 || t->ms < w->trials[best].ms))
            best = i;
    }
    return best;
}

/*
 * The wide sweep (-t 2), parts (A) to (D) (see the head of this file).
 * Leaves in best[m] / best_ms[m] the best confirmed setting of each swept
 * method under `timing` (the main table's).
 */
static void sweep_wide(sweep_state *w, const int *methods, int nmethods, int timing,
                       setting *best, float *best_ms)
{
    static const int threads[] = { 256, 512, 1024 };
    static const int unroll[] = { 2, 4, 8, 16 };
    /* (A)'s two settings: the best of the first H200 sweep, and the default. */
    static const int geo_threads[] = { 1024, 256 };
    static const double geo_waves[] = { 2.0, 1.0 };
    int t, q, g, l, i, j, k, round;
    int best_load[2] = { LOAD_NC, LOAD_NC };

    /* (A) the load kinds. */
    for (t = 0; t < 2; t++) {
        double score[LOAD_KINDS];
        int counted[LOAD_KINDS];
        int first = w->ntrials;
        w->total = w->done + 2 * nmethods * LOAD_KINDS;
        for (l = 0; l < LOAD_KINDS; l++) {
            score[l] = 0;
            counted[l] = 0;
        }
        for (g = 0; g < 2; g++)
            for (q = 0; q < nmethods; q++)
                for (l = 0; l < LOAD_KINDS; l++) {
                    int m = methods[q];
                    char label[40];
                    setting s = make_setting(geo_threads[g], 4, l,
                                             blocks_for(m, geo_threads[g], 4, l, 0,
                                                        geo_waves[g], w->b->sms));
                    if (s.blocks == 0)
                        continue;
                    snprintf(label, sizeof label, "load/waves=%.1f", geo_waves[g]);
                    sweep_one(w, "sweep", label, m, &s, t);
                }
        /* The load kind with the least total time over (A)'s rows. */
        for (i = first; i < w->ntrials; i++) {
            score[w->trials[i].s.load] += w->trials[i].ms;
            counted[w->trials[i].s.load]++;
        }
        for (l = 0; l < LOAD_KINDS; l++)
            if (counted[l] == counted[LOAD_NC] && score[l] < score[best_load[t]])
                best_load[t] = l;
        fprintf(stderr, "bench: sweep (A), -T %d: load kind with the least total time: %s\n",
                t, load_names[best_load[t]]);
    }

    /* (B) the grids with LOAD_NC, then (C) with (A)'s best kind. */
    for (k = 0; k < 2; k++)
        for (t = 0; t < 2; t++) {
            int load = k == 0 ? LOAD_NC : best_load[t];
            if (k == 1 && load == LOAD_NC)
                continue;
            w->total = w->done + nmethods * 3 * 4 * 4;
            for (q = 0; q < nmethods; q++)
                for (i = 0; i < 3; i++)
                    for (j = 0; j < 4; j++)
                        sweep_grids(w, k == 0 ? "grid" : "grid+load", methods[q],
                                    threads[i], unroll[j], load, t);
        }

    /* (D) the two best settings of each method and timing, 3 rounds. */
    {
        int cand[64], ncand = 0, swept = w->ntrials, c;
        float times[64][3];
        for (t = 0; t < 2; t++)
            for (q = 0; q < nmethods; q++)
                for (i = 0; i < 2 && ncand < 64; i++) {
                    int f = fastest(w, 0, swept, methods[q], t, cand, ncand);
                    if (f >= 0)
                        cand[ncand++] = f;
                }
        w->total = w->done + 3 * (ncand + 2);
        for (round = 0; round < 3; round++) {
            char label[40];
            snprintf(label, sizeof label, "confirm/round=%d", round + 1);
            for (t = 0; t < 2; t++) {
                w->cub_ms[t] = sweep_cub(w, "confirm", label, t);
                for (c = 0; c < ncand; c++) {
                    const trial *p = &w->trials[cand[c]];
                    int before = w->ntrials;
                    if (p->timing != t)
                        continue;
                    sweep_one(w, "confirm", label, p->m, &p->s, t);
                    times[c][round] = w->ntrials > before ? w->trials[w->ntrials - 1].ms : -1;
                    if (w->ntrials > before)
                        w->ntrials--;       /* not a candidate for later picks */
                }
            }
        }
        for (c = 0; c < ncand; c++) {
            const trial *p = &w->trials[cand[c]];
            float med = bench_median(times[c], 3);
            int bad = times[c][0] < 0 || times[c][1] < 0 || times[c][2] < 0;
            fprintf(stderr, "bench: confirmed %s T%d %s threads=%d unroll=%d blocks=%lld "
                    "load=%s: %.4f ms (sweep %.4f)\n", method_name[p->m], p->timing,
                    p->label, p->s.threads, p->s.unroll, p->s.blocks,
                    load_names[p->s.load], bad ? -1.0 : med, p->ms);
            if (!bad && p->timing == timing &&
                (best_ms[p->m] < 0 || med < best_ms[p->m])) {
                best_ms[p->m] = med;
                best[p->m] = p->s;
            }
        }
    }
}

/* ---- -V: every setting against the CPU, no timing ------------------------ */

/* Runs every device-wide method (or only `only`) with every load kind and
 * unroll on awkward sizes up to n_all of h_in, and with small and large
 * grids; returns the exit status (lesson_result). */
static int verify_all(const int *h_in, const int *d_in, long long n_all, int only,
                      const buffers *b)
{
    static const long long sizes[] = { 1, 3, 4, 5, 31, 32, 33, 1000, 4099, 65537,
                                       1000003, 3000017, 16777219 };
    static const int grid_threads[] = { 32, 96, 1024 };
    static const long long grid_blocks[] = { 1, 7, MAX_BLOCKS };
    long long want[sizeof sizes / sizeof sizes[0]], sum = 0, i, runs = 0, wrong = 0, mid = 0;
    int nsizes = 0, m, l, k, z, g, h;
    for (z = 0; z < (int)(sizeof sizes / sizeof sizes[0]) && sizes[z] <= n_all; z++) {
        for (i = z > 0 ? sizes[z - 1] : 0; i < sizes[z]; i++)
            sum += h_in[i];
        want[z] = sum;
        nsizes = z + 1;
        if (sizes[z] <= 1000003)
            mid = z;
    }
    for (m = M_PARTIAL; m <= M_PACKED; m++) {
        if (only != 0 && only != m)
            continue;
        for (l = 0; l < LOAD_KINDS; l++) {
            for (k = 0; k < UNROLLS; k++)
                for (z = 0; z < nsizes; z++) {
                    setting s = make_setting(256, 1 << k, l, 0);
                    s.blocks = blocks_for(m, 256, 1 << k, l, 0, 1.0, b->sms);
                    if (s.blocks == 0)
                        continue;
                    runs++;
                    wrong += !check_run(m, d_in, sizes[z], int32_of(want[z]), &s, b);
                }
            for (g = 0; g < 3; g++)
                for (h = 0; h < 3; h++)
                    for (k = 2; k < UNROLLS; k += 2) {     /* unroll 4 and 16 */
                        /* The most blocks need the largest size to be used. */
                        int z = h == 2 ? nsizes - 1 : mid;
                        setting s = make_setting(grid_threads[g], 1 << k, l, grid_blocks[h]);
                        if (blocks_that_fit(m, s.threads, s.unroll, l) == 0)
                            continue;
                        runs++;
                        wrong += !check_run(m, d_in, sizes[z], int32_of(want[z]), &s, b);
                    }
        }
    }
    return lesson_result(wrong == 0 && runs > 0,
                         "%lld of %lld runs match the CPU: variants %s, %d load kinds, "
                         "unroll 1 to 16, %d sizes from 1 to %lld, threads 32 to 1024, "
                         "1 to %d blocks", runs - wrong, runs,
                         only ? method_name[only] : "3 to 6", LOAD_KINDS, nsizes,
                         sizes[nsizes - 1], MAX_BLOCKS);
}

int main(int argc, char **argv)
{
    long long n_all = 1LL << 30, nsizes = 4, threads = 256, unroll = 4, per_sm = 0;
    long long reps = 100, warmup = 10, seed = 1, max_value = 100, only = 0, sweep = 1;
    long long peak = 0, load = LOAD_NC, timing = 0, flush = 1, verify = 0;
    lesson_option options[] = {
        { 'n', "size", "N", &n_all, 4, 1LL << 34,
          "largest size in ints (the input: 4N bytes of GPU memory)" },
        { 'l', "sizes", "L", &nsizes, 1, 8, "how many sizes: N, N/4, N/16, ..." },
        { 'k', "method", "K", &only, 0, M_COUNT - 1,
          "only this method (0: all; 1-6 sync.cu, 7-8 cg.cu, 9 CUB); CUB is always timed" },
        { 'b', "threads", "T", &threads, 32, 1024, "threads per block, a multiple of 32" },
        { 'u', "unroll", "U", &unroll, 1, 16,
          "16-byte loads in flight per thread: 1, 2, 4, 8 or 16 (cg.cu: up to 8)" },
        { 'p', "per-sm", "P", &per_sm, 0, 64,
          "blocks per SM (0: as many as fit at once, one wave)" },
        { 'L', "load", "K", &load, 0, LOAD_KINDS - 1,
          "how the device-wide kernels load: 0 nc, 1 plain, 2 cg, 3 cs, 4 lu, 5 na, "
          "6 na-256B, 7 nc-256B, 8 cs-256B, 9 ef-256B (sync.cu's LOAD_ kinds)" },
        { 'T', "timing", "0|1", &timing, 0, 1,
          "0: each timed run starts on an idle GPU (host launch time included); "
          "1: the stream is held while the run is queued (GPU time only)" },
        { 'F', "flush", "0|1", &flush, 0, 1,
          "read a buffer twice the L2's size before each timed run (1) or not (0)" },
        { 't', "sweep", "0|1|2", &sweep, 0, 2,
          "sweep the launch settings first: 0 no, 1 threads/unroll/waves, 2 the wide sweep" },
        { 'V', "verify", "0|1", &verify, 0, 1,
          "check every device-wide setting on awkward sizes up to N, time nothing" },
        { 'r', "reps", "R", &reps, 1, BENCH_MAX_REPS, "timed runs per measurement (median)" },
        { 'w', "warmup", "W", &warmup, 0, 1000, "untimed runs before timing" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'm', "max", "M", &max_value, 1, 1 << 30, "input values are -M..-1 and 1..M" },
        { 'P', "peak", "GBPS", &peak, 0, 100000,
          "datasheet DRAM bandwidth in GB/s (0: from the GPU's name)" },
    };
    static const char *methods_help[] = {
        "1-block-shfl        sync.cu variant 1", "2-block-redux       sync.cu variant 2",
        "3-device-2pass      sync.cu variant 3", "4-device-atomic     sync.cu variant 4",
        "5-device-lastblock  sync.cu variant 5", "6-device-packed     sync.cu variant 6",
        "cg-block            cg.cu variant 1", "cg-device           cg.cu variant 2",
        "cub                 cub::DeviceReduce::Sum",
    };
    lesson_program program = { "bench.cu",
        "Lesson 06's benchmark: times every reduction of sync.cu and cg.cu and\n"
        "cub::DeviceReduce::Sum on sizes N, N/4, ... (default 2^30 down to 2^24),\n"
        "each checked against the 64-bit CPU sum first; median of CUDA-event\n"
        "timings; CSV on stdout. -V 1 checks every setting instead. GPU only.",
        methods_help, M_COUNT - 1, options, (int)(sizeof options / sizeof options[0]) };
    static const int swept_all[] = { M_PARTIAL, M_ATOMIC, M_LAST, M_PACKED };
    long long sizes[8], smallest, c, nchunks, max_cub = 0, total, done = 0;
    int *h_in, *d_in, m, k, q, swept[4], nswept = 0;
    float cub_ms, best_ms[M_COUNT];
    setting best[M_COUNT];
    struct cudaDeviceProp prop;
    buffers b;
    input in;
    static run_info r;
    static sweep_state w;
    char *p;

    lesson_parse(argc, argv, &program);
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    if (unroll_slot(unroll) < 0)
        lesson_fail(LESSON_USAGE, "--unroll must be 1, 2, 4, 8 or 16 (got %lld)", unroll);
    smallest = n_all >> (2 * (nsizes - 1));
    if (smallest < 4 || smallest % 4 != 0 || smallest << (2 * (nsizes - 1)) != n_all)
        lesson_fail(LESSON_USAGE, "--size must be a multiple of 4 x 4^(L-1) = %lld "
                    "to split into %lld sizes (got %lld)",
                    4LL << (2 * (nsizes - 1)), nsizes, n_all);
    for (k = 0; k < nsizes; k++)
        sizes[k] = smallest << (2 * k);
    for (q = 0; q < 4; q++)
        if (only == 0 || only == swept_all[q])
            swept[nswept++] = swept_all[q];

    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n_all * sizeof(int), "the input");
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    snprintf(r.gpu, sizeof r.gpu, "%s", prop.name);
    for (p = r.gpu; *p; p++)
        if (*p == ',')
            *p = ' ';
    r.peak = peak > 0 ? (double)peak : datasheet_gbps(prop.name);
    r.warmup = (int)warmup;
    r.reps = (int)reps;
    r.timing = (int)timing;
    r.flush = (int)flush;
    r.failures = 0;
    r.hold_ns = 50000;
    r.retimed = 0;
    r.unheld = 0;
    b.sms = prop.multiProcessorCount;
    b.partials = (int *)lesson_device_alloc(MAX_BLOCKS * sizeof(int), "the block partials");
    b.out = (int *)lesson_device_alloc(sizeof(int), "the sum");
    b.count = (unsigned *)lesson_device_alloc(sizeof(unsigned), "the block counter");
    CUDA_CHECK(cudaMemset(b.count, 0, sizeof(unsigned)));
    for (k = 0; k < nsizes; k++)
        if (cub_temp_bytes(sizes[k]) > (size_t)max_cub)
            max_cub = (long long)cub_temp_bytes(sizes[k]);
    b.cub_bytes = (size_t)max_cub;
    b.cub_temp = lesson_device_alloc(b.cub_bytes, "CUB's temporary storage");
    r.scrub_n4 = 2LL * prop.l2CacheSize / 16 + 1;
    r.scrub = (int4 *)lesson_device_alloc((size_t)r.scrub_n4 * 16, "the L2 scrub buffer");
    r.sink = (int *)lesson_device_alloc(sizeof(int), "the scrub's sink");
    CUDA_CHECK(cudaMemset(r.scrub, 0, (size_t)r.scrub_n4 * 16));
    CUDA_CHECK(cudaEventCreate(&r.start));
    CUDA_CHECK(cudaEventCreate(&r.stop));
    CUDA_CHECK(cudaEventCreate(&r.held));

    fprintf(stderr, "bench: %s, %d SMs, L2 %d MiB; datasheet DRAM bandwidth %s\n",
            prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
            r.peak > 0 ? "known" : "unknown (no % column; -P sets it)");
    fprintf(stderr, "bench: filling %lld random ints on the host...\n", n_all);
    h_in = (int *)lesson_host_alloc((size_t)n_all * sizeof(int), "the input");
    lesson_random_ints(h_in, n_all, seed, (int)max_value);
    CUDA_CHECK(cudaMemcpy(d_in, h_in, (size_t)n_all * sizeof(int), cudaMemcpyHostToDevice));
    if (verify) {
        int status = verify_all(h_in, d_in, n_all, (int)only, &b);
        free(h_in);
        return status;
    }
    nchunks = n_all / smallest;
    in.d_in = d_in;
    in.n_all = n_all;
    in.chunk = smallest;
    in.chunk_sums = (long long *)lesson_host_alloc((size_t)nchunks * sizeof(long long),
                                                   "the chunk sums");
    for (c = 0; c < nchunks; c++)
        in.chunk_sums[c] = cpu_sum(h_in + c * smallest, smallest);
    free(h_in);

    printf("table,gpu,n,bytes,method,setting,threads,blocks,unroll,ms,gbps,pct_peak,"
           "ratio_cub,check,peak_gbps,load,timing\n");

    /* ---- the sweep, at the size nearest 2^28 ---------------------------- */
    for (m = 0; m < M_COUNT; m++)
        best_ms[m] = -1;
    if (sweep && nswept > 0) {
        w.r = &r;
        w.in = &in;
        w.b = &b;
        w.n = sizes[0];
        for (k = 0; k < nsizes; k++)
            if (llabs(sizes[k] - (1LL << 28)) < llabs(w.n - (1LL << 28)))
                w.n = sizes[k];
        if (sweep == 1) {
            w.cub_ms[timing] = sweep_cub(&w, "sweep", "cub", (int)timing);
            sweep_launch(&w, swept, nswept, (int)load, (int)timing);
            for (k = 0; k < w.ntrials; k++) {
                const trial *t = &w.trials[k];
                if (best_ms[t->m] < 0 || t->ms < best_ms[t->m]) {
                    best_ms[t->m] = t->ms;
                    best[t->m] = t->s;
                }
            }
        } else {
            w.cub_ms[0] = sweep_cub(&w, "sweep", "cub", 0);
            w.cub_ms[1] = sweep_cub(&w, "sweep", "cub", 1);
            sweep_wide(&w, swept, nswept, (int)timing, best, best_ms);
        }
    }

    /* ---- every method at every size -------------------------------------- */
    total = 0;
    for (m = 1; m < M_COUNT; m++)
        if (m != M_CUB && (only == 0 || only == m))
            total += 1 + (best_ms[m] > 0);
    total = (total + 2) * nsizes;
    done = 0;
    for (k = 0; k < nsizes; k++) {
        long long n = sizes[k];
        setting none = { 0, 0, 0, 0 };
        bench_progress((int)++done, (int)total, "n=%lld: cub", n);
        cub_ms = measure(&r, "result", "library", M_CUB, &in, n, &none, &b, 0);
        for (m = 1; m < M_COUNT; m++) {
            setting s;
            if (m == M_CUB || (only != 0 && only != m))
                continue;
            s = make_setting((int)threads, (int)unroll, is_device(m) ? (int)load : 0, 0);
            if (m != M_CG_DEVICE || unroll <= 8)
                s.blocks = blocks_for(m, s.threads, s.unroll, s.load, (int)per_sm, 1.0,
                                      b.sms);
            bench_progress((int)++done, (int)total, "n=%lld: %s", n, method_name[m]);
            if (s.blocks == 0)
                fprintf(stderr, "bench: %s: no block of %d threads with unroll %d "
                        "(%s): skipped\n", method_name[m], s.threads, s.unroll,
                        m == M_CG_DEVICE ? "cg.cu goes up to 8" : "too many registers");
            else
                measure(&r, "result", "default", m, &in, n, &s, &b, cub_ms);
            if (best_ms[m] > 0) {
                bench_progress((int)++done, (int)total, "n=%lld: %s, best of sweep", n,
                               method_name[m]);
                measure(&r, "result", "best-of-sweep", m, &in, n, &best[m], &b, cub_ms);
            }
        }
        bench_progress((int)++done, (int)total, "n=%lld: cub again", n);
        measure(&r, "result", "library-again", M_CUB, &in, n, &none, &b, cub_ms);
    }
    if (r.retimed > 0)
        fprintf(stderr, "bench: -T 1: %lld runs timed again with a longer hold (now %lld us); "
                "%lld kept with a hold too short (their times include host time)\n",
                r.retimed, r.hold_ns / 1000, r.unheld);

    CUDA_CHECK(cudaEventDestroy(r.start));
    CUDA_CHECK(cudaEventDestroy(r.stop));
    CUDA_CHECK(cudaEventDestroy(r.held));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(b.partials));
    CUDA_CHECK(cudaFree(b.out));
    CUDA_CHECK(cudaFree(b.count));
    CUDA_CHECK(cudaFree(b.cub_temp));
    CUDA_CHECK(cudaFree(r.scrub));
    CUDA_CHECK(cudaFree(r.sink));
    free(in.chunk_sums);
    if (r.failures > 0) {
        fprintf(stderr, "bench: %lld measurements failed their check\n", r.failures);
        return LESSON_WRONG;
    }
    return LESSON_OK;
}
