/*
 * bench.cu - lesson 06's benchmark: every reduction of sync.cu and cg.cu
 * against cub::DeviceReduce::Sum, on the same GPU in the same run. GPU only.
 * bench.sh runs it for `make bench` and turns its CSV into a table and a plot.
 *
 * Build:  make                       (nvcc -I../../include bench.cu -o build/bench)
 * Run:    build/bench                sizes 2^24, 2^26, 2^28, 2^30 (4 GiB of GPU memory)
 *         build/bench -n 256M -l 2   sizes 2^26 and 2^28 only
 *         build/bench -k 5 -b 512 -u 8 -p 2 -t 0    one variant, one setting
 *
 * For each size: CUB first, then every method, then CUB again (the two CUB
 * times show the run-to-run noise). Each method is first checked against the
 * 64-bit CPU sum (output poisoned before), then timed: warm-up runs, then
 * -r runs each timed with CUDA events, and the median is reported (bench.h).
 * The timed runs rotate over disjoint slices of the -n ints, so that a size
 * smaller than the L2 cache is not served from it; after timing, the last
 * result is checked against its slice's sum. GB/s counts the bytes read
 * once: 4n / time. Datasheet DRAM bandwidth, from the GPU's name: H200 4.8
 * TB/s, H100 SXM 3.35, H100 NVL 3.9, H100 PCIe 2.0 TB/s; others: none (-P
 * sets it).
 *
 * The launch setting of the lesson's kernels: -b threads, -u loads in flight,
 * -p blocks per SM (0: as many as fit at once, from the occupancy API). With
 * -t 1 (the default) a sweep first tries the device-wide variants with
 * threads 128..1024, unroll 1..8 and half, one and two waves of blocks at
 * the size nearest 2^28, and the main table adds a "best-of-sweep" row for
 * each with its best setting there.
 *
 * Output: CSV on stdout, one header line, then rows
 *   table,gpu,n,bytes,method,setting,threads,blocks,unroll,ms,gbps,pct_peak,
 *   ratio_cub,check,peak_gbps
 * table is "sweep" or "result"; ratio_cub is CUB's time over this time (above
 * 1: faster than CUB); check is "ok" or "WRONG"; peak_gbps is the datasheet
 * bandwidth (empty: unknown); unroll is empty where it does not apply.
 * Progress goes to stderr.
 * Exit status: 0 every check passed, 1 one failed, 2 bad usage, 77 no GPU.
 */
#define LESSON_AS_LIBRARY
#include "sync.cu"
#include "cg.cu"
#include "cub_ref.cu"
#include "bench.h"

enum {
    M_BLOCK = 1, M_REDUX, M_PARTIAL, M_ATOMIC, M_LAST, /* sync.cu's variants 1-5 */
    M_CG_BLOCK, M_CG_DEVICE,                          /* cg.cu's variants 1-2 */
    M_CUB,
    M_COUNT
};
static const char *method_name[M_COUNT] = {
    "", "1-block-shfl", "2-block-redux", "3-device-2pass", "4-device-atomic",
    "5-device-lastblock", "cg-block", "cg-device", "cub",
};

typedef struct {
    int threads, unroll;
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

/* The kernel that does most of the work of method m with this unroll, for
 * the occupancy API. */
static const void *main_kernel(int m, int unroll)
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
        return unroll == 1 ? (const void *)device_reduce_u1 :
               unroll == 2 ? (const void *)device_reduce_u2 :
               unroll == 4 ? (const void *)device_reduce_u4 :
                             (const void *)device_reduce_u8;
    }
}

/* Blocks for method m: SMs x per_sm, where per_sm 0 means as many blocks as
 * fit on an SM at once (one wave); waves scales that. */
static long long blocks_for(int m, int threads, int unroll, int per_sm, double waves,
                            int sms)
{
    int fit = 0;
    long long blocks;
    if (per_sm == 0) {
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &fit, main_kernel(m, unroll), threads, 0));
        per_sm = fit > 0 ? fit : 1;
    }
    blocks = (long long)(sms * per_sm * waves + 0.5);
    if (blocks < 1)
        blocks = 1;
    return blocks > MAX_BLOCKS ? MAX_BLOCKS : blocks;
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
    default:
        reduce_run(m, in, n, b->partials, b->count, b->out, s->blocks, s->threads,
                   s->unroll, 0);
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

/* Runs method m once on slice `slice` of size n, with the output poisoned
 * first; returns whether the sum is right (and says so on stderr if not). */
static int check_method(int m, const input *in, long long n, long long slice,
                        const setting *s, const buffers *b)
{
    int got, want = int32_of(slice_sum(in, n, slice));
    CUDA_CHECK(cudaMemset(b->partials, 0xab, MAX_BLOCKS * sizeof(int)));
    CUDA_CHECK(cudaMemset(b->out, 0xab, sizeof(int)));
    run_method(m, in->d_in + slice * n, n, s, b);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, b->out, sizeof(int), cudaMemcpyDeviceToHost));
    if (got != want)
        fprintf(stderr, "bench: %s n=%lld slice %lld: WRONG sum: expected %d got %d\n",
                method_name[m], n, slice, want, got);
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

typedef struct {
    char gpu[256];
    double peak;
    int warmup, reps;
    long long failures;
} run_info;

/*
 * Checks, times and prints one row for method m at size n. cub_ms is CUB's
 * time at this size (0: this is CUB's own first run). Returns the median
 * time in ms, or -1 if the check failed.
 */
static float measure(run_info *r, const char *table, const char *label, int m,
                     const input *in, long long n, const setting *s,
                     const buffers *b, float cub_ms)
{
    long long nslices = in->n_all / n, rot = 0, last;
    int ok, got;
    float ms = 0;
    double gbps;
    char pct[32] = "", ratio[32] = "", peak[32] = "", conf[64];

    ok = check_method(m, in, n, 0, s, b);
    if (ok) {
        BENCH_MEDIAN_MS(ms, r->warmup, r->reps,
                        run_method(m, in->d_in + (rot++ % nslices) * n, n, s, b));
        /* The last timed run's sum, against its slice. */
        last = (rot - 1) % nslices;
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
    if (!ok) {
        r->failures++;
        printf("%s,%s,%lld,%lld,%s,%s,%s,,,,,WRONG,%s\n", table, r->gpu, n, n * 4,
               method_name[m], label, conf, peak);
        fflush(stdout);
        return -1;
    }
    gbps = bench_gbps(4.0 * (double)n, ms);
    if (r->peak > 0)
        snprintf(pct, sizeof pct, "%.1f", 100.0 * gbps / r->peak);
    snprintf(ratio, sizeof ratio, "%.3f", cub_ms > 0 ? cub_ms / ms : 1.0);
    printf("%s,%s,%lld,%lld,%s,%s,%s,%.4f,%.1f,%s,%s,ok,%s\n", table, r->gpu, n, n * 4,
           method_name[m], label, conf, ms, gbps, pct, ratio, peak);
    fflush(stdout);
    return ms;
}

int main(int argc, char **argv)
{
    long long n_all = 1LL << 30, nsizes = 4, threads = 256, unroll = 4, per_sm = 0;
    long long reps = 100, warmup = 10, seed = 1, max_value = 100, only = 0, sweep = 1;
    long long peak = 0;
    lesson_option options[] = {
        { 'n', "size", "N", &n_all, 4, 1LL << 34,
          "largest size in ints (the input: 4N bytes of GPU memory)" },
        { 'l', "sizes", "L", &nsizes, 1, 8, "how many sizes: N, N/4, N/16, ..." },
        { 'k', "method", "K", &only, 0, M_COUNT - 1,
          "only this method (0: all; 1-5 sync.cu, 6-7 cg.cu, 8 CUB); CUB is always timed" },
        { 'b', "threads", "T", &threads, 32, 1024, "threads per block, a multiple of 32" },
        { 'u', "unroll", "U", &unroll, 1, 8, "16-byte loads in flight per thread: 1, 2, 4 or 8" },
        { 'p', "per-sm", "P", &per_sm, 0, 64,
          "blocks per SM (0: as many as fit at once, one wave)" },
        { 't', "sweep", "0|1", &sweep, 0, 1, "sweep the launch settings first (1) or not (0)" },
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
        "5-device-lastblock  sync.cu variant 5", "cg-block            cg.cu variant 1",
        "cg-device           cg.cu variant 2", "cub                 cub::DeviceReduce::Sum",
    };
    lesson_program program = { "bench.cu",
        "Lesson 06's benchmark: times every reduction of sync.cu and cg.cu and\n"
        "cub::DeviceReduce::Sum on sizes N, N/4, ... (default 2^30 down to 2^24),\n"
        "each checked against the 64-bit CPU sum first; median of CUDA-event\n"
        "timings; CSV on stdout. GPU only.",
        methods_help, M_COUNT - 1, options, (int)(sizeof options / sizeof options[0]) };
    static const int sweep_threads[] = { 128, 256, 512, 1024 };
    static const int sweep_unroll[] = { 1, 2, 4, 8 };
    static const double sweep_waves[] = { 0.5, 1.0, 2.0 };
    static const int swept[] = { M_PARTIAL, M_ATOMIC, M_LAST };
    long long sizes[8], smallest, c, nchunks, max_cub = 0, total, done = 0;
    int *h_in, *d_in, m, k, i, j, w, q;
    float cub_ms, best_ms[M_COUNT];
    setting best[M_COUNT], dflt;
    struct cudaDeviceProp prop;
    buffers b;
    input in;
    run_info r;
    char *p;

    lesson_parse(argc, argv, &program);
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    if (unroll != 1 && unroll != 2 && unroll != 4 && unroll != 8)
        lesson_fail(LESSON_USAGE, "--unroll must be 1, 2, 4 or 8 (got %lld)", unroll);
    smallest = n_all >> (2 * (nsizes - 1));
    if (smallest < 4 || smallest % 4 != 0 || smallest << (2 * (nsizes - 1)) != n_all)
        lesson_fail(LESSON_USAGE, "--size must be a multiple of 4 x 4^(L-1) = %lld "
                    "to split into %lld sizes (got %lld)",
                    4LL << (2 * (nsizes - 1)), nsizes, n_all);
    for (k = 0; k < nsizes; k++)
        sizes[k] = smallest << (2 * k);

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
    r.failures = 0;
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

    fprintf(stderr, "bench: %s, %d SMs, L2 %d MiB; datasheet DRAM bandwidth %s\n",
            prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
            r.peak > 0 ? "known" : "unknown (no % column; -P sets it)");
    fprintf(stderr, "bench: filling %lld random ints on the host...\n", n_all);
    h_in = (int *)lesson_host_alloc((size_t)n_all * sizeof(int), "the input");
    lesson_random_ints(h_in, n_all, seed, (int)max_value);
    nchunks = n_all / smallest;
    in.d_in = d_in;
    in.n_all = n_all;
    in.chunk = smallest;
    in.chunk_sums = (long long *)lesson_host_alloc((size_t)nchunks * sizeof(long long),
                                                   "the chunk sums");
    for (c = 0; c < nchunks; c++)
        in.chunk_sums[c] = cpu_sum(h_in + c * smallest, smallest);
    CUDA_CHECK(cudaMemcpy(d_in, h_in, (size_t)n_all * sizeof(int), cudaMemcpyHostToDevice));
    free(h_in);

    printf("table,gpu,n,bytes,method,setting,threads,blocks,unroll,ms,gbps,pct_peak,"
           "ratio_cub,check,peak_gbps\n");

    /* ---- the sweep, at the size nearest 2^28 ---------------------------- */
    for (m = 0; m < M_COUNT; m++)
        best_ms[m] = -1;
    if (sweep && (only == 0 || only == M_PARTIAL || only == M_ATOMIC || only == M_LAST)) {
        long long n = sizes[0];
        int nswept = 0;
        for (k = 0; k < nsizes; k++)
            if (llabs(sizes[k] - (1LL << 28)) < llabs(n - (1LL << 28)))
                n = sizes[k];
        for (q = 0; q < 3; q++)
            nswept += only == 0 || only == swept[q];
        total = (long long)nswept * 4 * 4 * 3 + 1;
        dflt.threads = 0;
        dflt.unroll = 0;
        dflt.blocks = 0;
        bench_progress((int)++done, (int)total, "sweep n=%lld: cub", n);
        cub_ms = measure(&r, "sweep", "cub", M_CUB, &in, n, &dflt, &b, 0);
        for (q = 0; q < 3; q++) {
            m = swept[q];
            if (only != 0 && only != m)
                continue;
            for (i = 0; i < 4; i++)
                for (j = 0; j < 4; j++)
                    for (w = 0; w < 3; w++) {
                        setting s;
                        float ms;
                        char label[32];
                        s.threads = sweep_threads[i];
                        s.unroll = sweep_unroll[j];
                        s.blocks = blocks_for(m, s.threads, s.unroll, 0, sweep_waves[w],
                                              b.sms);
                        snprintf(label, sizeof label, "waves=%.1f", sweep_waves[w]);
                        bench_progress((int)++done, (int)total,
                                       "sweep n=%lld: %s threads=%d unroll=%d blocks=%lld",
                                       n, method_name[m], s.threads, s.unroll, s.blocks);
                        ms = measure(&r, "sweep", label, m, &in, n, &s, &b, cub_ms);
                        if (ms > 0 && (best_ms[m] < 0 || ms < best_ms[m])) {
                            best_ms[m] = ms;
                            best[m] = s;
                        }
                    }
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
        setting none;
        none.threads = 0;
        none.unroll = 0;
        none.blocks = 0;
        bench_progress((int)++done, (int)total, "n=%lld: cub", n);
        cub_ms = measure(&r, "result", "library", M_CUB, &in, n, &none, &b, 0);
        for (m = 1; m < M_COUNT; m++) {
            setting s;
            if (m == M_CUB || (only != 0 && only != m))
                continue;
            s.threads = (int)threads;
            s.unroll = (int)unroll;
            s.blocks = blocks_for(m, s.threads, s.unroll, (int)per_sm, 1.0, b.sms);
            bench_progress((int)++done, (int)total, "n=%lld: %s", n, method_name[m]);
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

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(b.partials));
    CUDA_CHECK(cudaFree(b.out));
    CUDA_CHECK(cudaFree(b.count));
    CUDA_CHECK(cudaFree(b.cub_temp));
    free(in.chunk_sums);
    if (r.failures > 0) {
        fprintf(stderr, "bench: %lld measurements failed their check\n", r.failures);
        return LESSON_WRONG;
    }
    return LESSON_OK;
}
