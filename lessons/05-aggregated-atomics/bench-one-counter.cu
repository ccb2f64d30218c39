/*
 * bench-one-counter.cu - lesson 05, benchmark (a) (GPU only): a filter into
 * one output array through ONE counter, the address the same for every lane.
 * Is hand aggregation any faster than a plain atomicAdd there?
 *
 * Build:  make                          (build/bench-one-counter)
 * Run:    make bench                    all three benchmarks, via bench.sh
 *         build/bench-one-counter > a.csv
 *
 * The input: n ints in 1..100; the elements <= 50 (about half) are kept, and
 * each writes its index to out[slot], the slot taken from the counter by:
 *   plain       out[atomicAdd(count, 1)] = i
 *   ballot      __ballot_sync of the keeping lanes before the branch, one
 *               atomicAdd by the lowest of them, __shfl_sync of the base
 *   activemask  __activemask() inside the branch (sync.cu, variant 2)
 *   match       __match_any_sync(__activemask(), count): the blog's
 *               atomicAggInc with every lane's pointer the same
 *   cg          cg::coalesced_threads() (cg.cu, variant 2)
 * The kernels are extern "C" so that `cuobjdump -sass` shows them by name:
 * bench.sh counts their atomic instructions (nvcc aggregates `plain` itself).
 *
 * Every method's output is checked before it is timed: the counter, and every
 * slot below it holding a kept element, each kept element once. A timed run
 * is the counter's reset (cudaMemset) and the kernel; the median of 20 runs
 * after 3 warm-ups, with CUDA events (include/bench.h).
 */
#include "bench.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define KEEP_MAX 50

extern "C" __global__ void filter_plain(const int *in, long long n, int *out, unsigned *count)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] <= KEEP_MAX)
        out[atomicAdd(count, 1u)] = (int)i;
}

extern "C" __global__ void filter_ballot(const int *in, long long n, int *out, unsigned *count)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int keep = i < n && in[i] <= KEEP_MAX;
    unsigned keepers = __ballot_sync(FULL_MASK, keep);
    if (keep) {
        int lane = LANE(), leader = __ffs(keepers) - 1;
        unsigned base = 0;
        if (lane == leader)
            base = atomicAdd(count, (unsigned)__popc(keepers));
        base = __shfl_sync(keepers, base, leader);
        out[base + (unsigned)__popc(keepers & ((1u << lane) - 1u))] = (int)i;
    }
}

extern "C" __global__ void filter_activemask(const int *in, long long n, int *out,
                                             unsigned *count)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] <= KEEP_MAX) {
        unsigned mask = __activemask();
        int lane = LANE(), leader = __ffs(mask) - 1;
        unsigned base = 0;
        if (lane == leader)
            base = atomicAdd(count, (unsigned)__popc(mask));
        base = __shfl_sync(mask, base, leader);
        out[base + (unsigned)__popc(mask & ((1u << lane) - 1u))] = (int)i;
    }
}

extern "C" __global__ void filter_match(const int *in, long long n, int *out, unsigned *count)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] <= KEEP_MAX) {
        unsigned mask = __activemask();
        unsigned group = __match_any_sync(mask, (unsigned long long)count);
        int lane = LANE(), leader = __ffs(group) - 1;
        unsigned base = 0;
        if (lane == leader)
            base = atomicAdd(count, (unsigned)__popc(group));
        base = __shfl_sync(mask, base, leader);
        out[base + (unsigned)__popc(group & ((1u << lane) - 1u))] = (int)i;
    }
}

extern "C" __global__ void filter_cg(const int *in, long long n, int *out, unsigned *count)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] <= KEEP_MAX) {
        cg::coalesced_group g = cg::coalesced_threads();
        unsigned base = 0;
        if (g.thread_rank() == 0)
            base = atomicAdd(count, g.num_threads());
        out[g.shfl(base, 0) + g.thread_rank()] = (int)i;
    }
}

#define METHODS 5
static const char *method_names[METHODS] = { "plain", "ballot", "activemask", "match", "cg" };

static void run(int method, const int *in, long long n, int *out, unsigned *count)
{
    unsigned blocks = (unsigned)((n + 255) / 256);
    CUDA_CHECK(cudaMemset(count, 0, sizeof(unsigned)));
    switch (method) {
    case 0: LAUNCH(filter_plain, blocks, 256, 0, in, n, out, count); break;
    case 1: LAUNCH(filter_ballot, blocks, 256, 0, in, n, out, count); break;
    case 2: LAUNCH(filter_activemask, blocks, 256, 0, in, n, out, count); break;
    case 3: LAUNCH(filter_match, blocks, 256, 0, in, n, out, count); break;
    case 4: LAUNCH(filter_cg, blocks, 256, 0, in, n, out, count); break;
    default: lesson_fail(LESSON_USAGE, "no method %d", method);
    }
}

int main(int argc, char **argv)
{
    long long n = 1 << 26, seed = 1, reps = 20, i;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 30, "input elements" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'r', "reps", "R", &reps, 1, BENCH_MAX_REPS, "timed runs per method (median)" },
    };
    lesson_program program = { "bench-one-counter.cu",
        "Lesson 05 benchmark (a): a filter through one counter, the same address\n"
        "for every lane: a plain atomicAdd against four hand aggregations. CSV on\n"
        "stdout, progress on stderr. Each output is checked first.",
        method_names, METHODS, options, (int)(sizeof options / sizeof options[0]) };
    int *in, *out, *d_in, *d_out, m;
    unsigned *d_count, count, expected = 0;
    unsigned char *seen;
    cudaDeviceProp prop;
    uint64_t state;
    float plain_ms = 0;

    lesson_parse(argc, argv, &program);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the output");
    d_count = (unsigned *)lesson_device_alloc(sizeof(unsigned), "the counter");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    out = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the output");
    seen = (unsigned char *)lesson_host_alloc((size_t)n, "the check");
    state = (uint64_t)seed;
    for (i = 0; i < n; i++) {
        in[i] = 1 + (int)(lesson_next_random(&state) % 100u);
        expected += in[i] <= KEEP_MAX;
    }
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));

    printf("gpu,n,kept,method,ms,gb_per_s,vs_plain\n");
    for (m = 0; m < METHODS; m++) {
        long long bad = 0;
        float ms;
        bench_progress(m + 1, METHODS, "one counter, %s", method_names[m]);
        /* Right first: the counter, and every slot once. */
        CUDA_CHECK(cudaMemset(d_out, 0xff, (size_t)n * sizeof(int)));
        run(m, d_in, n, d_out, d_count);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
        memset(seen, 0, (size_t)n);
        if (count != expected)
            lesson_fail(LESSON_WRONG, "%s: the counter says %u, expected %u; nothing timed",
                        method_names[m], count, expected);
        for (i = 0; i < (long long)count; i++) {
            int v = out[i];
            if (v < 0 || v >= n || in[v] > KEEP_MAX || seen[v])
                bad++;
            else
                seen[v] = 1;
        }
        if (bad)
            lesson_fail(LESSON_WRONG, "%s: %lld of %u slots wrong; nothing timed",
                        method_names[m], bad, count);
        BENCH_MEDIAN_MS(ms, 3, (int)reps, run(m, d_in, n, d_out, d_count));
        if (m == 0)
            plain_ms = ms;
        /* Bytes: the input read, the kept indices written. */
        printf("%s,%lld,%u,%s,%.4f,%.1f,%.3f\n", prop.name, n, expected, method_names[m], ms,
               bench_gbps((double)n * 4 + (double)expected * 4, ms), ms / plain_ms);
        fflush(stdout);
    }

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_count));
    free(in);
    free(out);
    free(seen);
    return 0;
}
