/*
 * cg.cu - lesson 05 with Cooperative Groups (GPU only: nvcc, C++): the
 * aggregated increments of sync.cu written with cg::coalesced_threads() and
 * cg::labeled_partition(). Same job, same checks, same command line.
 *
 * Build:  make                 (build/cg)
 * Run:    build/cg -n 16M -j 200
 *         build/cg -k 2 -q 4   one counter per queue: labeled_partition
 * Check:  make check           (runs build/cg beside sync and legacy)
 *
 * cg::coalesced_threads() is the group of the lanes here together, what
 * __activemask() gives sync.cu; thread_rank() is the rank among them (the
 * __popc of the lanes below), num_threads() the __popc of the mask, and
 * g.shfl() a __shfl_sync over exactly that group. cg::labeled_partition(g,
 * key) splits a group by key, the way __match_any_sync does (compute
 * capability 7.0 and later).
 *
 * Variants 1 and 2 are opportunistic (the group is whoever is here), and on
 * an H200 they lost slots once the group's leader was delayed, like
 * legacy.cu's variant 3; variant 3 names its group before the branch with
 * cg::binary_partition and is right under any delay. The checker expects
 * variants 1 and 2 to be right without jitter and reports what they do with
 * it; it expects variant 3 to be right always.
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

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

/* Adds 1 to *counter for each lane here with one atomicAdd; returns a slot. */
__device__ unsigned agg_inc(unsigned *counter, unsigned jitter)
{
    cg::coalesced_group g = cg::coalesced_threads();
    unsigned base = 0;
    jitter_sleep(jitter, g.thread_rank() == 0);  /* the leader comes late */
    if (g.thread_rank() == 0)
        base = atomicAdd(counter, g.num_threads());
    return g.shfl(base, 0) + g.thread_rank();
}

/* The same with a counter per key: the lanes here, split by key. */
__device__ unsigned agg_inc_at(unsigned *counters, unsigned key, unsigned jitter)
{
    cg::coalesced_group same = cg::labeled_partition(cg::coalesced_threads(), key);
    unsigned base = 0;
    jitter_sleep(jitter, same.thread_rank() == 0);
    if (same.thread_rank() == 0)
        base = atomicAdd(&counters[key], same.num_threads());
    return same.shfl(base, 0) + same.thread_rank();
}

/*
 * The same, with the group named before the branch: binary_partition splits
 * the warp's tile by keep, and every lane of the warp takes part in that
 * call. This is sync.cu's ballot, in Cooperative Groups.
 */
__device__ unsigned agg_inc_members(unsigned *counter, cg::coalesced_group members,
                                    unsigned jitter)
{
    unsigned base = 0;
    jitter_sleep(jitter, members.thread_rank() == 0);
    if (members.thread_rank() == 0)
        base = atomicAdd(counter, members.num_threads());
    return members.shfl(base, 0) + members.thread_rank();
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
    unsigned queue = 0, slot;
    if (i < n) {
        keep = in[i] <= keep_max;
        queue = (unsigned)(in[i] % queues);
    }
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    cg::coalesced_group members = cg::binary_partition(warp, keep);
    if (keep) {
        jitter_sleep(jitter, lane & 1);          /* odd lanes arrive late */
        if (variant == 2)
            slot = agg_inc_at(counters, queue, jitter);
        else if (variant == 3)
            slot = agg_inc_members(&counters[0], members, jitter);
        else
            slot = agg_inc(&counters[0], jitter);
        if (slot < (unsigned long long)n)
            out[(long long)queue * n + slot] = (int)i;
        else
            atomicAdd(overflow, 1u);
    }
}

#define THIS_FILE "cg.cu"
#define ABOUT \
    "Lesson 05 with Cooperative Groups: stream compaction with aggregated\n" \
    "increments over cg::coalesced_threads(). Keeps the elements <= P of n\n" \
    "random ints in 1..100 and appends each one's index to queue in[i] % Q;\n" \
    "checks that every slot is written exactly once and every kept element is\n" \
    "in one slot."
static const char *variants[] = {
    "one counter: cg::coalesced_threads(), one atomicAdd per group",
    "a counter per queue: cg::labeled_partition(coalesced_threads(), queue)",
    "one counter: cg::binary_partition(tile of 32, keep), taken before the branch",
};
/* How many queues each variant can serve (-q). */
static const int variant_queues[] = { 1, 32, 1 };

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
