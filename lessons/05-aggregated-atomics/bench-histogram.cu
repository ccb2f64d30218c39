/*
 * bench-histogram.cu - lesson 05, benchmark (b) (GPU only): a histogram,
 * where the counter a lane adds to depends on its data, so the compiler
 * cannot aggregate the atomics. Plain global atomics against warp aggregation
 * with __match_any_sync and against a shared-memory copy per block, by number
 * of bins and by skew.
 *
 * Build:  make                          (build/bench-histogram)
 * Run:    make bench                    all three benchmarks, via bench.sh
 *         build/bench-histogram > b.csv
 *
 * The input: n keys in 0..bins-1, uniform, or Zipf-skewed (key k drawn with
 * weight 1/(k+1): key 0 the most frequent). Methods:
 *   plain         atomicAdd(&hist[key], 1) per element, in global memory
 *   match         __match_any_sync groups the lanes by key; each group's
 *                 leader adds the group's size: one atomic per key per warp
 *   shared        a histogram per block in shared memory, atomicAdd there,
 *                 then one global atomicAdd per bin and block
 *   shared+match  both: one shared atomic per key per warp
 * Every kernel loops over the input in whole warps (a grid-stride loop) with
 * as many blocks as fit on the GPU at once. keys/warp in the CSV is the mean
 * number of distinct keys among 32 consecutive elements: the key entropy a
 * warp sees.
 *
 * Every histogram is checked against the CPU before it is timed. A timed run
 * is the histogram's reset (cudaMemset) and the kernel: the median of 20 runs
 * after 3 warm-ups, with CUDA events (include/bench.h).
 */
#include "bench.h"

#define THREADS 256
#define MAX_SHARED_BINS 4096

/* The grid-stride loop, one warp-wide step at a time: every lane of a warp
 * makes the same trips, and `live` holds the lanes with an element. */
#define FOR_EACH_WARP_STEP(i, n)                                              \
    for (long long warp_base_ = (long long)blockIdx.x * blockDim.x +          \
                                (threadIdx.x & ~31u);                         \
         warp_base_ < (n);                                                    \
         warp_base_ += (long long)gridDim.x * blockDim.x)                     \
        for (long long i = warp_base_ + LANE(), once_ = 1; once_; once_ = 0)

extern "C" __global__ void hist_plain(const unsigned *keys, long long n, unsigned *hist, int bins)
{
    (void)bins;
    FOR_EACH_WARP_STEP(i, n) {
        if (i < n)
            atomicAdd(&hist[keys[i]], 1u);
    }
}

extern "C" __global__ void hist_match(const unsigned *keys, long long n, unsigned *hist, int bins)
{
    (void)bins;
    FOR_EACH_WARP_STEP(i, n) {
        unsigned live = __ballot_sync(FULL_MASK, i < n);
        if (i < n) {
            unsigned key = keys[i];
            unsigned group = __match_any_sync(live, key);
            if (LANE() == __ffs(group) - 1)
                atomicAdd(&hist[key], (unsigned)__popc(group));
        }
    }
}

extern "C" __global__ void hist_shared(const unsigned *keys, long long n, unsigned *hist, int bins)
{
    extern __shared__ unsigned priv[];
    int b;
    for (b = threadIdx.x; b < bins; b += blockDim.x)
        priv[b] = 0;
    __syncthreads();
    FOR_EACH_WARP_STEP(i, n) {
        if (i < n)
            atomicAdd(&priv[keys[i]], 1u);
    }
    __syncthreads();
    for (b = threadIdx.x; b < bins; b += blockDim.x)
        if (priv[b] != 0)
            atomicAdd(&hist[b], priv[b]);
}

extern "C" __global__ void hist_shared_match(const unsigned *keys, long long n, unsigned *hist,
                                             int bins)
{
    extern __shared__ unsigned priv[];
    int b;
    for (b = threadIdx.x; b < bins; b += blockDim.x)
        priv[b] = 0;
    __syncthreads();
    FOR_EACH_WARP_STEP(i, n) {
        unsigned live = __ballot_sync(FULL_MASK, i < n);
        if (i < n) {
            unsigned key = keys[i];
            unsigned group = __match_any_sync(live, key);
            if (LANE() == __ffs(group) - 1)
                atomicAdd(&priv[key], (unsigned)__popc(group));
        }
    }
    __syncthreads();
    for (b = threadIdx.x; b < bins; b += blockDim.x)
        if (priv[b] != 0)
            atomicAdd(&hist[b], priv[b]);
}

#define METHODS 4
static const char *method_names[METHODS] = { "plain", "match", "shared", "shared+match" };
typedef void (*hist_kernel)(const unsigned *, long long, unsigned *, int);
static const hist_kernel kernels[METHODS] = { hist_plain, hist_match, hist_shared,
                                              hist_shared_match };

/* As many blocks as fit on the GPU at once, no more than the input needs. */
static unsigned grid_for(int method, int bins, long long n, const cudaDeviceProp *prop)
{
    int per_sm = 0;
    size_t smem = method >= 2 ? (size_t)bins * sizeof(unsigned) : 0;
    long long need = (n + THREADS - 1) / THREADS, blocks;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[method],
                                                             THREADS, smem));
    blocks = (long long)(per_sm > 0 ? per_sm : 1) * prop->multiProcessorCount;
    return (unsigned)(blocks < need ? blocks : need);
}

static void run(int method, unsigned blocks, const unsigned *keys, long long n,
                unsigned *hist, int bins)
{
    size_t smem = method >= 2 ? (size_t)bins * sizeof(unsigned) : 0;
    CUDA_CHECK(cudaMemset(hist, 0, (size_t)bins * sizeof(unsigned)));
    LAUNCH(kernels[method], blocks, THREADS, smem, keys, n, hist, bins);
}

/* Keys in 0..bins-1: uniform (skew 0) or Zipf with exponent 1 (skew 1). */
static void make_keys(unsigned *keys, long long n, int bins, int skew, long long seed,
                      double *cdf)
{
    uint64_t state = (uint64_t)seed;
    long long i;
    int k;
    double total = 0;
    for (k = 0; k < bins; k++) {
        total += 1.0 / (k + 1);
        cdf[k] = total;
    }
    for (i = 0; i < n; i++) {
        uint64_t r = lesson_next_random(&state);
        if (!skew) {
            keys[i] = (unsigned)(r % (uint64_t)bins);
        } else {
            double u = (double)(r >> 11) * (1.0 / 9007199254740992.0) * total;
            int lo = 0, hi = bins - 1;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (cdf[mid] > u)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            keys[i] = (unsigned)lo;
        }
    }
}

/* The mean number of distinct keys among 32 consecutive keys (first 2^16 warps). */
static double keys_per_warp(const unsigned *keys, long long n)
{
    long long w, nwarps = n / 32 < 65536 ? n / 32 : 65536, sum = 0;
    int a, b;
    if (nwarps == 0)
        return 0;
    for (w = 0; w < nwarps; w++)
        for (a = 0; a < 32; a++) {
            for (b = 0; b < a && keys[w * 32 + b] != keys[w * 32 + a]; b++)
                ;
            sum += b == a;
        }
    return (double)sum / (double)nwarps;
}

int main(int argc, char **argv)
{
    static const int bin_counts[] = { 1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096, 65536 };
    static const char *skew_names[] = { "uniform", "zipf" };
    const int nbins = (int)(sizeof bin_counts / sizeof bin_counts[0]);
    long long n = 1 << 25, seed = 1, reps = 20, i;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 32, 1LL << 30, "keys per histogram" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random keys" },
        { 'r', "reps", "R", &reps, 1, BENCH_MAX_REPS, "timed runs per point (median)" },
    };
    lesson_program program = { "bench-histogram.cu",
        "Lesson 05 benchmark (b): a histogram with data-dependent counters: plain\n"
        "global atomics against __match_any_sync aggregation and shared-memory\n"
        "copies, by number of bins and skew. CSV on stdout, progress on stderr.\n"
        "Each histogram is checked against the CPU first.",
        method_names, METHODS, options, (int)(sizeof options / sizeof options[0]) };
    unsigned *keys, *want, *got, *d_keys, *d_hist;
    double *cdf, kpw;
    cudaDeviceProp prop;
    int b, skew, m, step = 0, k;

    lesson_parse(argc, argv, &program);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    d_keys = (unsigned *)lesson_device_alloc((size_t)n * sizeof(unsigned), "the keys");
    d_hist = (unsigned *)lesson_device_alloc(65536 * sizeof(unsigned), "the histogram");
    keys = (unsigned *)lesson_host_alloc((size_t)n * sizeof(unsigned), "the keys");
    want = (unsigned *)lesson_host_alloc(65536 * sizeof(unsigned), "the histogram");
    got = (unsigned *)lesson_host_alloc(65536 * sizeof(unsigned), "the histogram");
    cdf = (double *)lesson_host_alloc(65536 * sizeof(double), "the distribution");

    printf("gpu,n,bins,skew,keys_per_warp,method,ms,vs_plain,note\n");
    for (skew = 0; skew < 2; skew++) {
        for (b = 0; b < nbins; b++) {
            int bins = bin_counts[b];
            float plain_ms = 0;
            make_keys(keys, n, bins, skew, seed, cdf);
            kpw = keys_per_warp(keys, n);
            memset(want, 0, (size_t)bins * sizeof(unsigned));
            for (i = 0; i < n; i++)
                want[keys[i]]++;
            CUDA_CHECK(cudaMemcpy(d_keys, keys, (size_t)n * sizeof(unsigned),
                                  cudaMemcpyHostToDevice));
            for (m = 0; m < METHODS; m++) {
                unsigned blocks;
                long long wrong = 0;
                float ms;
                bench_progress(++step, 2 * nbins * METHODS, "%s, %d bins, %s",
                               skew_names[skew], bins, method_names[m]);
                if (m >= 2 && bins > MAX_SHARED_BINS) {
                    printf("%s,%lld,%d,%s,%.2f,%s,,,more bins than the shared copy holds (%d)\n",
                           prop.name, n, bins, skew_names[skew], kpw, method_names[m],
                           MAX_SHARED_BINS);
                    continue;
                }
                blocks = grid_for(m, bins, n, &prop);
                /* Right first: every bin against the CPU. */
                run(m, blocks, d_keys, n, d_hist, bins);
                CUDA_CHECK(cudaDeviceSynchronize());
                CUDA_CHECK(cudaMemcpy(got, d_hist, (size_t)bins * sizeof(unsigned),
                                      cudaMemcpyDeviceToHost));
                for (k = 0; k < bins; k++)
                    wrong += got[k] != want[k];
                if (wrong)
                    lesson_fail(LESSON_WRONG, "%s, %d bins, %s: %lld bins wrong; nothing timed",
                                method_names[m], bins, skew_names[skew], wrong);
                BENCH_MEDIAN_MS(ms, 3, (int)reps, run(m, blocks, d_keys, n, d_hist, bins));
                if (m == 0)
                    plain_ms = ms;
                printf("%s,%lld,%d,%s,%.2f,%s,%.4f,%.3f,\n", prop.name, n, bins,
                       skew_names[skew], kpw, method_names[m], ms, ms / plain_ms);
                fflush(stdout);
            }
        }
    }

    CUDA_CHECK(cudaFree(d_keys));
    CUDA_CHECK(cudaFree(d_hist));
    free(keys);
    free(want);
    free(got);
    free(cdf);
    return 0;
}
