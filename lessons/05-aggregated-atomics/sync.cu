/*
 * sync.cu - lesson 05, the corrected version: warp-aggregated atomics. A
 * stream compaction (filter) where one lane per group of lanes does the
 * atomicAdd that reserves output slots for the whole group. Twin: legacy.cu;
 * the Cooperative Groups version is cg.cu.
 *
 * Build:  make
 * Run:    build/sync -n 16M -j 200       odd lanes and leaders sleep 200 ns
 *         build/sync -k 2 -q 4           four output queues: per-key counters
 *         build/sync -k 3                one plain atomicAdd per lane
 * Check:  make check
 *
 * The job: keep the elements in[i] <= P (in[] holds 1..100, so about P% are
 * kept) and append the index i of each to its queue, in[i] % Q, at a slot
 * taken from the queue's counter. The checker wants every slot below each
 * counter written exactly once, by an element that belongs there, and every
 * kept element in exactly one slot.
 *
 * Why it is right: the lanes that take part are named before the branch,
 * with __ballot_sync(FULL_MASK, keep), which all 32 lanes reach. Inside the
 * branch the leader (the lowest member) reserves __popc(members) slots, hands
 * the base to the others with __shfl_sync(members, ...), which waits for every
 * member however late it comes, and each lane adds its rank among the members
 * below it. Nothing depends on which lanes happen to run together.
 *
 * Why not __activemask() here, as the opportunistic form in the NVIDIA blog
 * does: with the leader delayed, that form lost slots on an H200 (nvcc 13.0,
 * sm_90), and so did cg::coalesced_threads(); legacy.cu keeps it as variant
 * 3, and the lesson text has the measurements.
 *
 * Variant 1: one counter, aggregated over the members (-q 1 only).
 * Variant 2: one counter per queue: __match_any_sync splits the members by
 *   queue, one atomicAdd per queue present.
 * Variant 3: one plain atomicAdd per lane, left to the compiler (which
 *   aggregates it itself where the address is the same for the whole warp:
 *   see the README and the benchmark).
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

/* The lanes of mask holding key. Below compute capability 7.0, which has no
 * match instruction, the loop of lesson 04 (variant 3). */
__device__ unsigned match_any(unsigned mask, unsigned key)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700 && !defined(WARPSIM)
    unsigned left = mask, group = 0;
    while (left != 0) {
        unsigned theirs = __shfl_sync(mask, key, __ffs(left) - 1);
        unsigned same = __ballot_sync(mask, theirs == key);
        if (theirs == key)
            group = same;
        left &= ~same;
    }
    return group;
#else
    return __match_any_sync(mask, key);
#endif
}

/*
 * Adds 1 to *counter for each lane of members, the lanes that take part,
 * with a single atomicAdd, and returns to each lane the value its own
 * atomicAdd(counter, 1) might have returned: a slot of its own. Every lane
 * of members calls it; members comes from a ballot taken before the branch.
 */
__device__ unsigned agg_inc(unsigned *counter, unsigned members, unsigned jitter)
{
    int lane = LANE(), leader = __ffs(members) - 1;
    unsigned base = 0;
    jitter_sleep(jitter, lane == leader);        /* the leader comes late */
    if (lane == leader)
        base = atomicAdd(counter, (unsigned)__popc(members));
    base = __shfl_sync(members, base, leader);   /* waits for the leader */
    return base + (unsigned)__popc(members & ((1u << lane) - 1u));
}

/* The same with a counter per key: counters[key], the members grouped by
 * key with __match_any_sync. */
__device__ unsigned agg_inc_at(unsigned *counters, unsigned key, unsigned members,
                               unsigned jitter)
{
    unsigned group = match_any(members, key);    /* the members with my key */
    int lane = LANE(), leader = __ffs(group) - 1;
    unsigned base = 0;
    jitter_sleep(jitter, lane == leader);
    if (lane == leader)
        base = atomicAdd(&counters[key], (unsigned)__popc(group));
    base = __shfl_sync(members, base, leader);   /* each lane reads its leader */
    return base + (unsigned)__popc(group & ((1u << lane) - 1u));
}

/*
 * One element per thread: a kept element gets a slot in its queue and writes
 * its index there. out holds queues * n slots, queue q at out[q * n].
 */
__global__ void compact(const int *in, long long n, int keep_max, int queues,
                        int *out, unsigned *counters, unsigned *overflow,
                        unsigned jitter, int variant)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE(), keep = 0;
    unsigned queue = 0, slot, members;
    if (i < n) {
        keep = in[i] <= keep_max;
        queue = (unsigned)(in[i] % queues);
    }
    members = __ballot_sync(FULL_MASK, keep);    /* all 32 lanes, before the branch */
    if (keep) {
        jitter_sleep(jitter, lane & 1);          /* odd lanes arrive late */
        switch (variant) {
        case 2:
            slot = agg_inc_at(counters, queue, members, jitter);
            break;
        case 3:
            slot = atomicAdd(&counters[queue], 1u);
            break;
        default:                                 /* 1 (-q 1); main allows 1..3 */
            slot = agg_inc(&counters[0], members, jitter);
            break;
        }
        if (slot < (unsigned long long)n)
            out[(long long)queue * n + slot] = (int)i;
        else
            atomicAdd(overflow, 1u);
    }
}

#define THIS_FILE "sync.cu"
#define ABOUT \
    "Lesson 05, corrected: stream compaction with warp-aggregated atomics.\n" \
    "Keeps the elements <= P of n random ints in 1..100 and appends each one's\n" \
    "index to queue in[i] % Q, one atomicAdd per group of lanes; checks that\n" \
    "every slot is written exactly once and every kept element is in one slot."
static const char *variants[] = {
    "one counter: a ballot before the branch + __popc + the lanes below, one atomicAdd per warp",
    "a counter per queue: __match_any_sync groups the members by queue",
    "one plain atomicAdd per lane (the compiler may aggregate it)",
};
/* How many queues each variant can serve (-q). */
static const int variant_queues[] = { 1, 32, 32 };

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
