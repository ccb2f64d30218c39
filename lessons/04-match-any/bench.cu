/*
 * bench.cu - lesson 04's benchmark (GPU only): how much slower the fallback
 * loops are than the __match_any_sync instruction, by key cardinality.
 *
 * Build:  make                 (build/bench)
 * Run:    make bench           runs bench.sh: CSV, plot and table under
 *                              docs/results/<gpu>/
 *         build/bench > x.csv  the CSV alone (progress on stderr)
 *
 * Every thread loads one key (random, C distinct values) and groups its warp
 * by key R times, with the key xor'ed by a different constant in each round:
 * the groups stay the same, but the compiler cannot reuse one round's answer
 * for the next. It stores the sum of its R group masks. R = 1 is a kernel
 * that also streams its input; R = 16 measures the grouping itself.
 *
 * Methods: native (__match_any_sync), per-lane (the fallback, one
 * __shfl_sync + __ballot_sync trip per lane) and per-group (one trip per
 * distinct key), the same code as sync.cu's variants 1, 2 and 3.
 *
 * Before anything is timed, every method's output is checked against the
 * CPU for every lane. Each time is the median of 20 runs after 3 warm-ups,
 * measured with CUDA events (include/bench.h).
 */
#include "bench.h"

#define METHODS 3
static const char *method_names[METHODS] = { "native", "per-lane", "per-group" };

__device__ __forceinline__ unsigned match_native(unsigned mask, unsigned key)
{
    return __match_any_sync(mask, key);
}

__device__ __forceinline__ unsigned match_per_lane(unsigned mask, unsigned key)
{
    unsigned group = 0;
    int j;
    for (j = 0; j < 32; j++) {
        if (mask & (1u << j)) {
            unsigned theirs = __shfl_sync(mask, key, j);
            unsigned same = __ballot_sync(mask, theirs == key);
            if (j == LANE())
                group = same;
        }
    }
    return group;
}

__device__ __forceinline__ unsigned match_per_group(unsigned mask, unsigned key)
{
    unsigned left = mask, group = 0;
    while (left != 0) {
        unsigned theirs = __shfl_sync(mask, key, __ffs(left) - 1);
        unsigned same = __ballot_sync(mask, theirs == key);
        if (theirs == key)
            group = same;
        left &= ~same;
    }
    return group;
}

#define GROUPING_KERNEL(name, match)                                          \
    __global__ void name(const unsigned *keys, long long n, int rounds,       \
                         unsigned *out)                                       \
    {                                                                         \
        long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;       \
        unsigned live = __ballot_sync(FULL_MASK, i < n);                      \
        unsigned key, sum = 0;                                                \
        int r;                                                                \
        if (i >= n)                                                           \
            return;                                                           \
        key = keys[i];                                                        \
        for (r = 0; r < rounds; r++)                                          \
            sum += match(live, key ^ (0x9e3779b9u * (unsigned)r));            \
        out[i] = sum;                                                         \
    }

GROUPING_KERNEL(group_native, match_native)
GROUPING_KERNEL(group_per_lane, match_per_lane)
GROUPING_KERNEL(group_per_group, match_per_group)

static void launch(int method, unsigned blocks, const unsigned *keys, long long n,
                   int rounds, unsigned *out)
{
    switch (method) {
    case 0: LAUNCH(group_native, blocks, 256, 0, keys, n, rounds, out); break;
    case 1: LAUNCH(group_per_lane, blocks, 256, 0, keys, n, rounds, out); break;
    case 2: LAUNCH(group_per_group, blocks, 256, 0, keys, n, rounds, out); break;
    default: lesson_fail(LESSON_USAGE, "no method %d", method);
    }
}

/* Each lane's group mask: what __match_any_sync must return. A lane's output
 * must be rounds times its mask (mod 2^32). */
static void cpu_groups(const unsigned *keys, long long n, unsigned *groups)
{
    long long w, i, j;
    for (w = 0; w < n; w += 32) {
        long long end = w + 32 < n ? w + 32 : n;
        for (i = w; i < end; i++) {
            unsigned g = 0;
            for (j = w; j < end; j++)
                if (keys[j] == keys[i])
                    g |= 1u << (j - w);
            groups[i] = g;
        }
    }
}

int main(int argc, char **argv)
{
    static const long long cardinalities[] = { 1, 2, 4, 8, 16, 32, 64, 1000, 1 << 20 };
    static const int round_counts[] = { 1, 16 };
    const int ncard = (int)(sizeof cardinalities / sizeof cardinalities[0]);
    const int nrounds = (int)(sizeof round_counts / sizeof round_counts[0]);
    long long n = 1 << 24, seed = 1, reps = 20, only = 0;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 32, 1LL << 28, "keys per run" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random keys" },
        { 'r', "reps", "R", &reps, 1, BENCH_MAX_REPS, "timed runs per point (median)" },
        { 'k', "method", "K", &only, 0, METHODS,
          "time native and method K only (0: every method)" },
    };
    lesson_program program = { "bench.cu",
        "Lesson 04 benchmark: time of the __shfl_sync + __ballot_sync fallbacks\n"
        "over __match_any_sync, by number of distinct keys. CSV on stdout,\n"
        "progress on stderr. Each output is checked against the CPU first.",
        method_names, METHODS, options, (int)(sizeof options / sizeof options[0]) };
    unsigned *keys, *groups, *got, *d_keys, *d_out;
    cudaDeviceProp prop;
    unsigned blocks;
    int c, ri, m, step = 0, total;
    size_t bytes;

    lesson_parse(argc, argv, &program);
    bytes = (size_t)n * sizeof(unsigned);
    blocks = (unsigned)((n + 255) / 256);
    total = ncard * nrounds * (only ? (only == 1 ? 1 : 2) : METHODS);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    d_keys = (unsigned *)lesson_device_alloc(bytes, "the keys");
    d_out = (unsigned *)lesson_device_alloc(bytes, "the output");
    keys = (unsigned *)lesson_host_alloc(bytes, "the keys");
    groups = (unsigned *)lesson_host_alloc(bytes, "the group masks");
    got = (unsigned *)lesson_host_alloc(bytes, "the output");

    printf("gpu,n,rounds,keys,method,ms,vs_native\n");
    for (c = 0; c < ncard; c++) {
        uint64_t state = (uint64_t)seed;
        long long i;
        for (i = 0; i < n; i++)
            keys[i] = (unsigned)(lesson_next_random(&state) % (uint64_t)cardinalities[c]);
        CUDA_CHECK(cudaMemcpy(d_keys, keys, bytes, cudaMemcpyHostToDevice));
        cpu_groups(keys, n, groups);
        for (ri = 0; ri < nrounds; ri++) {
            int rounds = round_counts[ri];
            float native_ms = 0;
            for (m = 0; m < METHODS; m++) {
                float ms;
                long long wrong = 0;
                if (only && m != 0 && m != only - 1)
                    continue;
                bench_progress(++step, total, "%lld keys, %d round%s, %s", cardinalities[c],
                               rounds, rounds == 1 ? "" : "s", method_names[m]);
                /* Right first: every lane's output against the CPU. */
                CUDA_CHECK(cudaMemset(d_out, 0, bytes));
                launch(m, blocks, d_keys, n, rounds, d_out);
                CUDA_CHECK(cudaDeviceSynchronize());
                CUDA_CHECK(cudaMemcpy(got, d_out, bytes, cudaMemcpyDeviceToHost));
                for (i = 0; i < n; i++)
                    if (got[i] != groups[i] * (unsigned)rounds && ++wrong <= 5)
                        fprintf(stderr, "  lane %lld: expected 0x%08x got 0x%08x\n",
                                i, groups[i] * (unsigned)rounds, got[i]);
                if (wrong)
                    lesson_fail(LESSON_WRONG, "%s, %lld keys, %d rounds: %lld of %lld "
                                "lanes wrong; nothing timed", method_names[m],
                                cardinalities[c], rounds, wrong, n);
                BENCH_MEDIAN_MS(ms, 3, (int)reps, launch(m, blocks, d_keys, n, rounds, d_out));
                if (m == 0)
                    native_ms = ms;
                printf("%s,%lld,%d,%lld,%s,%.4f,%.3f\n", prop.name, n, rounds,
                       cardinalities[c], method_names[m], ms, ms / native_ms);
                fflush(stdout);
            }
        }
    }

    CUDA_CHECK(cudaFree(d_keys));
    CUDA_CHECK(cudaFree(d_out));
    free(keys);
    free(groups);
    free(got);
    return 0;
}
