/*
 * repro.cu - the smallest program we found that shows the opportunistic
 * warp-aggregated increment (the blog's atomicAggInc: the group is whoever
 * __activemask() finds here, its first lane adds the group's count with one
 * atomicAdd and hands the old value round with __shfl_sync) losing slots.
 *
 * Every thread of every warp takes one slot from one global counter. Lanes of
 * the pattern -p sleep -j ns before taking a slot; the leader of each group
 * sleeps -l ns before its atomicAdd. Each lane records what it saw: its mask,
 * its leader, the base it received; each leader records the value its
 * atomicAdd returned. The host then checks that every slot 0..n-1 was taken
 * exactly once and, for each lane, whether (a) the members of its mask all
 * saw the same mask, and (b) it received its leader's atomicAdd result.
 *
 *   nvcc -O3 -arch=sm_90 repro.cu -o repro && ./repro -j 200 -l 200
 *
 * Exit status: 0 every slot taken once, 1 slots lost or doubled, 2 bad usage.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "repro: %s: %s\n", #x, cudaGetErrorString(e)); exit(2); } } while (0)

struct seen { unsigned mask, base, slot; int leader; };

#ifdef NAP_NOINLINE
__device__ __noinline__
#else
__device__ __forceinline__
#endif
void nap(unsigned ns)
{
#if __CUDA_ARCH__ >= 700
    if (ns) __nanosleep(ns);
#endif
}

__device__ unsigned agg_inc(unsigned *counter, unsigned leader_ns, seen *me,
                            unsigned *leader_got, int opaque)
{
    unsigned mask = __activemask();
    int lane = threadIdx.x % 32, leader = __ffs(mask) - 1;
    unsigned base = 0;
    if (lane == leader)             /* the leader comes late */
        nap(leader_ns);
    if (lane == leader) {
        if (opaque) {
            /* the same count, stored and read back through global memory
             * (-w 1): no longer visibly derived from the vote */
            volatile unsigned *count = &me->base;
            *count = (unsigned)__popc(mask);
            base = atomicAdd(counter, *count);
        } else {
            base = atomicAdd(counter, (unsigned)__popc(mask));
        }
        *leader_got = base;
    }
    base = __shfl_sync(mask, base, leader);
    me->mask = mask;
    me->leader = leader;
    me->base = base;
    return base + (unsigned)__popc(mask & ((1u << lane) - 1u));
}

/* Threads whose key[i] is non-zero take a slot; the others skip it. */
__global__ void take(const int *key, unsigned *counter, seen *log,
                     unsigned *leader_got, int pattern, unsigned late_ns,
                     unsigned leader_ns, int opaque)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int late = pattern == 1 ? (lane & 1) : pattern == 2 ? (lane >= 16) : 0;
    if (key[i]) {
        if (late)
            nap(late_ns);
        log[i].slot = agg_inc(counter, leader_ns, &log[i], &leader_got[i], opaque);
    }
}

int main(int argc, char **argv)
{
    int n = 1 << 20, pattern = 1, runs = 5, keep_pct = 100, opaque = 0, opt;
    unsigned late_ns = 200, leader_ns = 200;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            printf("usage: repro [-n THREADS] [-k PERCENT] [-p 0|1|2] [-j NS] [-l NS] [-r RUNS] [-w 0|1]\n"
                   "  -k share of threads that take a slot (default 100; random, seeded)\n"
                   "  -p late lanes: 0 none, 1 odd (default), 2 upper half\n"
                   "  -j how long the late lanes sleep (default 200 ns)\n"
                   "  -l how long each leader sleeps before its atomicAdd (default 200)\n"
                   "  -r how many runs (default 5)\n"
                   "  -w 1: the leader stores its count and reads it back (volatile) first\n");
            return 0;
        }
        if (a + 1 >= argc) { fprintf(stderr, "repro: %s needs a value\n", argv[a]); return 2; }
        opt = atoi(argv[a + 1]);
        if (opt < 0) { fprintf(stderr, "repro: %s must be >= 0\n", argv[a]); return 2; }
        if (!strcmp(argv[a], "-n")) n = opt;
        else if (!strcmp(argv[a], "-p")) pattern = opt;
        else if (!strcmp(argv[a], "-j")) late_ns = (unsigned)opt;
        else if (!strcmp(argv[a], "-l")) leader_ns = (unsigned)opt;
        else if (!strcmp(argv[a], "-r")) runs = opt;
        else if (!strcmp(argv[a], "-k")) keep_pct = opt;
        else if (!strcmp(argv[a], "-w")) opaque = opt;
        else { fprintf(stderr, "repro: unknown option %s\n", argv[a]); return 2; }
        a++;
    }
    if (n < 32 || n % 256) { fprintf(stderr, "repro: -n must be a multiple of 256\n"); return 2; }
    unsigned *d_counter, *d_got, *got = (unsigned *)malloc(n * sizeof(unsigned));
    seen *d_log, *log = (seen *)malloc(n * sizeof(seen));
    int *count = (int *)malloc(n * sizeof(int));
    CHECK(cudaMalloc(&d_counter, sizeof(unsigned)));
    CHECK(cudaMalloc(&d_got, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_log, n * sizeof(seen)));
    int *key = (int *)malloc(n * sizeof(int)), *d_key, kept = 0;
    srand(1);
    for (int i = 0; i < n; i++) { key[i] = rand() % 100 < keep_pct; kept += key[i]; }
    CHECK(cudaMalloc(&d_key, n * sizeof(int)));
    CHECK(cudaMemcpy(d_key, key, n * sizeof(int), cudaMemcpyHostToDevice));
    int bad_runs = 0;
    for (int r = 0; r < runs; r++) {
        CHECK(cudaMemset(d_counter, 0, sizeof(unsigned)));
        CHECK(cudaMemset(d_got, 0xff, n * sizeof(unsigned)));
        CHECK(cudaMemset(d_log, 0xff, n * sizeof(seen)));
        take<<<n / 256, 256>>>(d_key, d_counter, d_log, d_got, pattern, late_ns, leader_ns, opaque);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(log, d_log, n * sizeof(seen), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(got, d_got, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        memset(count, 0, n * sizeof(int));
        long lost = 0, doubled = 0, mask_disagree = 0, wrong_base = 0, groups = 0;
        for (int i = 0; i < n; i++)
            if (key[i] && log[i].slot < (unsigned)kept) count[log[i].slot]++;
        for (int i = 0; i < n; i++) {
            if (i < kept && count[i] == 0) lost++;
            if (count[i] > 1) doubled++;
            if (!key[i]) continue;
            int w = i / 32 * 32, lane = i % 32;
            unsigned m = log[i].mask;
            if (log[i].leader == lane) groups++;
            for (int k = 0; k < 32; k++)
                if ((m >> k & 1) && log[w + k].mask != m) { mask_disagree++; break; }
            (void)lane;
            if (log[i].leader >= 0 && log[i].leader < 32 &&
                log[i].base != got[w + log[i].leader]) wrong_base++;
        }
        /* Warps with two groups whose leaders' bases differ by the second
         * leader's own count (old + count x rank, as if both leaders had
         * added the same count) rather than by the first leader's. */
        long two = 0, signature = 0;
        unsigned final_count;
        CHECK(cudaMemcpy(&final_count, d_counter, sizeof final_count, cudaMemcpyDeviceToHost));
        for (int w = 0; w < n; w += 32) {
            int l1 = -1, l2 = -1;
            for (int k = 0; k < 32; k++)
                if (key[w + k] && log[w + k].leader == k) { if (l1 < 0) l1 = k; else if (l2 < 0) l2 = k; else l2 = 99; }
            if (l1 < 0 || l2 < 0 || l2 == 99) continue;
            unsigned a = __builtin_popcount(log[w + l1].mask), b = __builtin_popcount(log[w + l2].mask);
            if (a == b) continue;
            two++;
            if (got[w + l2] - got[w + l1] == b || got[w + l1] - got[w + l2] == a)
                signature++;
        }
        printf("run %d: counter ended at %u for %d kept; %ld of %ld warps with two groups of "
               "different sizes show bases one count apart as if both had added the same count\n",
               r + 1, final_count, kept, signature, two);
        printf("run %d: %ld slots lost, %ld taken twice; %ld groups; %ld lanes whose mask "
               "members saw another mask; %ld lanes that did not receive their leader's "
               "atomicAdd result\n", r + 1, lost, doubled, groups, mask_disagree, wrong_base);
        if (lost || doubled) {
            bad_runs++;
            for (int i = 0, shown = 0; i < n && shown < 3; i++)
                if (key[i] && log[i].leader >= 0 && log[i].leader < 32 &&
                    log[i].base != got[i / 32 * 32 + log[i].leader]) {
                    int w = i / 32 * 32;
                    printf("  thread %d (lane %d): mask 0x%08x, leader %d, got base %u, "
                           "leader's atomicAdd returned %u, leader's own mask 0x%08x\n",
                           i, i % 32, log[i].mask, log[i].leader, log[i].base,
                           got[w + log[i].leader], log[w + log[i].leader].mask);
                    shown++;
                }
        }
    }
    printf("result: %d of %d runs lost or doubled slots\n", bad_runs, runs);
    return bad_runs ? 1 : 0;
}
