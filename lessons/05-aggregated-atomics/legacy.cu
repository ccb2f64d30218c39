/*
 * legacy.cu - lesson 05, the legacy version: warp-aggregated increments that
 * rely on the warp staying together. Twin: sync.cu.
 *
 * Build:  make
 * Run:    build/legacy -n 16M             right by luck on a current GPU
 *         build/legacy -n 16M -j 200      the leader comes late: slots reused
 *         build/legacy -k 2 -n 16M -j 200 the odd lanes come late: slots empty
 *         build/legacy -k 3 -n 16M -j 200 __activemask() groups, leader late
 * Check:  make check
 *
 * The job is sync.cu's: keep the elements in[i] <= P and append the index of
 * each to the output at a slot taken from one counter.
 *
 * Variant 1 hands the leader's result to the other lanes through shared
 *   memory with no synchronization, as code for GPUs without shuffles did: the
 *   leader writes the base it got from atomicAdd, and the others read it "in
 *   the same step". When the leader comes late (a 200 ns sleep, an order that
 *   independent thread scheduling allows), they read what the slot held before
 *   and take slots that belong to others: elements written twice over one
 *   another, other slots never written.
 * Variant 2 takes the ballot of the keeping lanes before the branch, and uses
 *   it for the count and the ranks, while the leader is the first lane that
 *   is here (__activemask()). That is right only while every keeping lane
 *   reaches the atomicAdd together. When the odd lanes come late, each half
 *   of the warp reserves slots for all the keeping lanes and fills only its
 *   own: the counter runs to twice the count and half the slots stay empty.
 *   Neither racecheck nor synccheck can see this one.
 * Variant 3 is the opportunistic form of the NVIDIA blog's atomicAggInc: the
 *   group is whoever __activemask() finds here together, and the mask, the
 *   count, the ranks and the broadcast all come from it. By the letter of the
 *   programming model this is allowed. On an H200 (nvcc 13.0, sm_90), with
 *   the odd lanes late and each group's leader delayed before its atomicAdd,
 *   it lost slots in most runs; __syncwarp(mask) before the broadcast did not
 *   help, cg::coalesced_threads() failed the same way, and the ballot taken
 *   before the branch (sync.cu) never did. The lesson text has the runs.
 */
#include "lesson.h"

/* ---- CPU reference ------------------------------------------------- */

/* How many elements each queue must receive: those with in[i] <= keep_max,
 * into queue in[i] % queues. */
static void cpu_counts(const int *in, long long n, int keep_max, int queues,
                       unsigned *counts)
{
    long long i;
    memset(counts, 0, (size_t)queues * sizeof(unsigned));
    for (i = 0; i < n; i++)
        if (in[i] <= keep_max)
            counts[in[i] % queues]++;
}

/* ==== the lesson ===================================================== */

/*
 * Adds 1 to *counter for each calling lane with a single atomicAdd. The
 * leader passes the base to the others through *published, a shared-memory
 * slot of this warp, and nothing makes them wait for it: the code assumes
 * the warp executes the store and the loads in lockstep.
 */
__device__ unsigned agg_inc_shared(unsigned *counter, volatile unsigned *published,
                                   unsigned jitter)
{
    unsigned mask = __activemask();
    int lane = LANE(), leader = __ffs(mask) - 1;
    jitter_sleep(jitter, lane == leader);        /* the leader comes late */
    if (lane == leader)
        *published = atomicAdd(counter, (unsigned)__popc(mask));
    return *published + (unsigned)__popc(mask & ((1u << lane) - 1u));
}

/*
 * Adds 1 to *counter for each lane of keepers, a ballot taken before the
 * branch, with a single atomicAdd by the first lane that is here: assumes
 * that every lane of keepers is here too.
 */
__device__ unsigned agg_inc_counted(unsigned *counter, unsigned keepers, unsigned jitter)
{
    unsigned here = __activemask();
    int lane = LANE(), leader = __ffs(here) - 1;
    unsigned base = 0;
    jitter_sleep(jitter, lane == leader);
    if (lane == leader)
        base = atomicAdd(counter, (unsigned)__popc(keepers));
    base = __shfl_sync(here, base, leader);
    return base + (unsigned)__popc(keepers & ((1u << lane) - 1u));
}

/*
 * The opportunistic form (the NVIDIA blog's atomicAggInc, and what
 * cg::coalesced_threads() builds on): the group is whoever __activemask()
 * finds here together. The programming model allows it, and it is right when
 * nothing delays the leader; on an H200 (nvcc 13.0, sm_90) it lost slots once
 * the leader slept between the mask and the broadcast (see the lesson text).
 */
__device__ unsigned agg_inc_active(unsigned *counter, unsigned jitter)
{
    unsigned mask = __activemask();              /* the lanes here together */
    int lane = LANE(), leader = __ffs(mask) - 1;
    unsigned base = 0;
    jitter_sleep(jitter, lane == leader);        /* the leader comes late */
    if (lane == leader)
        base = atomicAdd(counter, (unsigned)__popc(mask));
    base = __shfl_sync(mask, base, leader);      /* waits for the leader */
    return base + (unsigned)__popc(mask & ((1u << lane) - 1u));
}

/*
 * One element per thread: a kept element gets a slot and writes its index
 * there. out holds queues * n slots (legacy uses one queue).
 */
__global__ void compact(const int *in, long long n, int keep_max, int queues,
                        int *out, unsigned *counters, unsigned *overflow,
                        unsigned jitter, int variant)
{
    __shared__ unsigned published[32];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE(), keep = 0;
    unsigned queue = 0, slot, keepers;
    if (i < n) {
        keep = in[i] <= keep_max;
        queue = (unsigned)(in[i] % queues);
    }
    keepers = __ballot_sync(FULL_MASK, keep);    /* all 32 lanes, before the branch */
    if (threadIdx.x < 32)
        published[threadIdx.x] = 0;
    __syncthreads();
    if (keep) {
        jitter_sleep(jitter, lane & 1);          /* odd lanes arrive late */
        switch (variant) {
        case 2:
            slot = agg_inc_counted(&counters[0], keepers, jitter);
            break;
        case 3:
            slot = agg_inc_active(&counters[0], jitter);
            break;
        default:                                 /* 1; main allows 1..3 */
            slot = agg_inc_shared(&counters[0], &published[WARP_IN_BLOCK()], jitter);
            break;
        }
        if (slot < (unsigned long long)n)
            out[(long long)queue * n + slot] = (int)i;
        else
            atomicAdd(overflow, 1u);
    }
}

#define THIS_FILE "legacy.cu"
#define ABOUT \
    "Lesson 05, legacy: stream compaction with warp-aggregated increments that\n" \
    "assume a converged warp. Keeps the elements <= P of n random ints in\n" \
    "1..100 and appends each one's index to the output; checks that every slot\n" \
    "is written exactly once and every kept element is in one slot. Right by\n" \
    "luck without jitter; wrong with -j 200 on a GPU with independent thread\n" \
    "scheduling."
static const char *variants[] = {
    "the leader's base handed over through shared memory, no warp sync",
    "count and ranks from a ballot taken before the branch, leader from __activemask()",
    "the opportunistic form: the group is whoever __activemask() finds here",
};
/* How many queues each variant can serve (-q). */
static const int variant_queues[] = { 1, 1, 1 };

/* ==== end of the lesson ============================================== */

/* ---- main: reference, run, validate, report ------------------------ */

typedef struct {
    long long empty, twice, stray, missing, past;
} faults;

/* Prints one fault, the first ten only. */
static void fault_line(long long *printed, const char *fmt, ...)
{
    va_list ap;
    if (++*printed > 10)
        return;
    printf("  ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/*
 * Every slot below each queue's counter must hold a kept element of that
 * queue, every kept element must be in exactly one slot, and no slot at or
 * past the counter may be written. seen is scratch, n bytes.
 */
static faults check_queues(const int *in, long long n, int keep_max, int queues,
                           const int *out, const unsigned *got, unsigned char *seen)
{
    faults f = { 0, 0, 0, 0, 0 };
    long long printed = 0, s, i;
    int q;
    memset(seen, 0, (size_t)n);
    for (q = 0; q < queues; q++) {
        const int *slots = out + (long long)q * n;
        long long limit = got[q] < (unsigned long long)n ? (long long)got[q] : n;
        for (s = 0; s < limit; s++) {
            int v = slots[s];
            if (v == -1) {
                f.empty++;
                fault_line(&printed, "queue %d slot %lld: never written", q, s);
            } else if (v < 0 || v >= n || in[v] > keep_max || in[v] % queues != q) {
                f.stray++;
                fault_line(&printed, "queue %d slot %lld: holds %d, which does not "
                           "belong there", q, s, v);
            } else if (seen[v]) {
                f.twice++;
                fault_line(&printed, "queue %d slot %lld: element %d again", q, s, v);
            } else {
                seen[v] = 1;
            }
        }
        for (s = limit; s < n; s++)
            if (slots[s] != -1) {
                f.past++;
                fault_line(&printed, "queue %d slot %lld: written, but the counter "
                           "stops at %u", q, s, got[q]);
            }
    }
    for (i = 0; i < n; i++)
        if (in[i] <= keep_max && !seen[i]) {
            f.missing++;
            fault_line(&printed, "element %lld (queue %d) is in no slot", i,
                       in[i] % queues);
        }
    if (printed > 10)
        printf("  ... and %lld more\n", printed - 10);
    return f;
}

int main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, variant = 1;
    long long keep_pct = 50, queues = 1;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 30, "number of input elements" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "odd lanes and group leaders sleep NS nanoseconds" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which increment" },
        { 'p', "keep", "P", &keep_pct, 0, 100,
          "keep the elements <= P (input 1..100: about P%)" },
        { 'q', "queues", "Q", &queues, 1, 32,
          "output queues: element i goes to queue in[i] % Q" },
    };
    lesson_program program = { THIS_FILE, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks, i, wrong_counts = 0, kept = 0;
    int *in, *out, *d_in, *d_out, q;
    unsigned *want, *got, *d_counters, *d_overflow, overflow;
    unsigned char *seen;
    uint64_t state;
    size_t out_bytes;
    faults f;

    lesson_parse(argc, argv, &program);
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    if (queues > variant_queues[variant - 1])
        lesson_fail(LESSON_USAGE, "variant %lld fills one queue only: use -q 1 (got %lld)",
                    variant, queues);
    blocks = (n + threads - 1) / threads;
    out_bytes = (size_t)queues * (size_t)n * sizeof(int);

    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc(out_bytes, "the output queues");
    d_counters = (unsigned *)lesson_device_alloc((size_t)queues * sizeof(unsigned),
                                                 "the counters");
    d_overflow = (unsigned *)lesson_device_alloc(sizeof(unsigned), "a counter");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    out = (int *)lesson_host_alloc(out_bytes, "the output queues");
    want = (unsigned *)lesson_host_alloc((size_t)queues * sizeof(unsigned), "the counters");
    got = (unsigned *)lesson_host_alloc((size_t)queues * sizeof(unsigned), "the counters");
    seen = (unsigned char *)lesson_host_alloc((size_t)n, "the check");

    printf("%s variant %lld (%s)\n", THIS_FILE, variant, variants[variant - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld keep<=%lld queues=%lld jitter=%lldns: "
           "%lld blocks of %lld threads\n",
           n, seed, keep_pct, queues, jitter, blocks, threads);
    state = (uint64_t)seed;
    for (i = 0; i < n; i++)
        in[i] = 1 + (int)(lesson_next_random(&state) % 100u);
    cpu_counts(in, n, (int)keep_pct, (int)queues, want);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_counters, 0, (size_t)queues * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(d_overflow, 0, sizeof(unsigned)));
    /* Every slot starts at -1: a slot never written shows. */
    CUDA_CHECK(cudaMemset(d_out, 0xff, out_bytes));
    LAUNCH(compact, (unsigned)blocks, (unsigned)threads, 0,
           d_in, n, (int)keep_pct, (int)queues, d_out, d_counters, d_overflow,
           (unsigned)jitter, (int)variant);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out, d_out, out_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got, d_counters, (size_t)queues * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&overflow, d_overflow, sizeof(unsigned), cudaMemcpyDeviceToHost));

    for (q = 0; q < queues; q++) {
        kept += want[q];
        if (got[q] != want[q] && ++wrong_counts <= 10)
            printf("  queue %d: expected %u elements, the counter says %u\n",
                   q, want[q], got[q]);
    }
    f = check_queues(in, n, (int)keep_pct, (int)queues, out, got, seen);
    if (overflow)
        printf("  %u slots asked for past the end of their queue (not written)\n", overflow);
    printf("kept %lld of %lld elements into %lld queue%s\n", kept, n, queues,
           queues == 1 ? "" : "s");

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_counters));
    CUDA_CHECK(cudaFree(d_overflow));
    free(in);
    free(out);
    free(want);
    free(got);
    free(seen);
    return lesson_result(wrong_counts == 0 && f.empty == 0 && f.twice == 0 &&
                         f.stray == 0 && f.missing == 0 && f.past == 0 && overflow == 0,
                         "%lld slots empty, %lld elements twice, %lld missing, "
                         "%lld stray, %lld of %lld counters wrong",
                         f.empty, f.twice, f.missing, f.stray + f.past + overflow,
                         wrong_counts, queues);
}
