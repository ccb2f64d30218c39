/*
 * sync.cu - lesson 04, the corrected version: grouping the lanes of a warp
 * by key with __match_any_sync, and the fallback for GPUs that lack the
 * instruction (compute capability below 7.0). Twin: legacy.cu.
 *
 * Build:  make          build/sync, and build/sync-fallback: the same file
 *                       with MATCH_FALLBACK=1, so match_any() is the loop
 * Run:    build/sync -c 4 -d 1 -j 200   4 keys, divergent warps, odd lanes late
 *         build/sync -k 2 -c 32         the fallback loop, one trip per lane
 *         build/sync-fallback -c 1000   variant 1 runs the fallback here too
 * Check:  make check
 *
 * The job: every element has a key. Each lane finds its group, the lanes of
 * its warp that hold the same key; the group's lowest lane, its leader, adds
 * the group's size to the key's counter with one atomicAdd and hands the old
 * value to the group with __shfl_sync; each lane's ticket is that value plus
 * its rank in the group. The tickets of a key come out as 0, 1, ..., count-1,
 * each once. The program checks every lane's group mask, every counter and
 * every ticket against the CPU.
 *
 * Why it is right: every mask names exactly the lanes that make the call. The
 * masks are votes (__ballot_sync) of all 32 lanes taken before the branch,
 * so lanes past the end of the input and lanes in the other branch are left
 * out, and each collective waits for the lanes it names. The fallback builds
 * the same masks from __shfl_sync and __ballot_sync; the checker holds all
 * three variants to the CPU's masks, lane for lane, so fallback == native.
 *
 * Variant 1: match_any(), which is __match_any_sync where the GPU has it and
 *   the short fallback of variant 3 below 7.0 or when built with
 *   MATCH_FALLBACK=1 (the program says which it ran).
 * Variant 2: the fallback, one trip per lane of the mask.
 * Variant 3: the fallback, one trip per group: skips absent lanes and lanes
 *   already grouped.
 */
#include "lesson.h"

/* ---- CPU reference ------------------------------------------------- */

/*
 * What __match_any_sync must return to each lane, and the count of each key.
 * The lanes that make one call are those of the same warp with an element
 * (i < n) in the same branch; groups[i] is the mask of those lanes that hold
 * keys[i]. Assumes warps of 32 consecutive elements (blocks are a multiple
 * of 32 threads).
 */
static void cpu_groups(const unsigned *keys, const int *branch, long long n,
                       unsigned *groups, unsigned *counts, long long nkeys)
{
    long long w, i;
    memset(counts, 0, (size_t)nkeys * sizeof(unsigned));
    for (i = 0; i < n; i++)
        counts[keys[i]]++;
    for (w = 0; w < n; w += 32) {
        long long end = w + 32 < n ? w + 32 : n;
        for (i = w; i < end; i++) {
            unsigned g = 0;
            long long j;
            for (j = w; j < end; j++)
                if (keys[j] == keys[i] && branch[j] == branch[i])
                    g |= 1u << (j - w);
            groups[i] = g;
        }
    }
}

/* ==== the lesson ===================================================== */

/*
 * MATCH_NATIVE is 1 where match_any() uses the instruction. The fallback is
 * chosen below compute capability 7.0, which has no match instruction (CUDA
 * 12 and older can build for it; CUDA 13 cannot), and everywhere with
 * -DMATCH_FALLBACK=1, so that it is tested on every GPU and in warpsim.
 */
#if defined(MATCH_FALLBACK) && (MATCH_FALLBACK + 0)
#define MATCH_NATIVE 0
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700 && !defined(WARPSIM)
#define MATCH_NATIVE 0
#else
#define MATCH_NATIVE 1
#endif

/*
 * The fallback, one trip per lane of mask: in the trip of lane j, every lane
 * of mask gets lane j's key with __shfl_sync and votes with __ballot_sync
 * whether it holds the same key; lane j keeps the vote as its group. Only
 * lanes of mask are asked for their key: a lane outside the mask gives an
 * undefined value. The caller must be in mask, and so must every lane that
 * runs this call with it.
 */
__device__ unsigned match_any_per_lane(unsigned mask, unsigned key, unsigned jitter)
{
    unsigned group = 0;
    int j;
    for (j = 0; j < 32; j++) {
        if (mask & (1u << j)) {
            unsigned theirs, same;
            jitter_sleep(jitter, LANE() & 1);
            theirs = __shfl_sync(mask, key, j);
            same = __ballot_sync(mask, theirs == key);
            if (j == LANE())
                group = same;
        }
    }
    return group;
}

/*
 * The fallback, one trip per group: the lowest lane not yet grouped offers
 * its key, the lanes holding that key vote, keep the vote as their group and
 * leave the lanes still to group. `left` is the same in every lane of mask
 * (it changes only by votes), so all of them make the same trips: as many as
 * there are distinct keys among them.
 */
__device__ unsigned match_any_per_group(unsigned mask, unsigned key, unsigned jitter)
{
    unsigned left = mask, group = 0;
    while (left != 0) {
        int offerer = __ffs(left) - 1;
        unsigned theirs, same;
        jitter_sleep(jitter, LANE() & 1);
        theirs = __shfl_sync(mask, key, offerer);
        same = __ballot_sync(mask, theirs == key);
        if (theirs == key)
            group = same;
        left &= ~same;
    }
    return group;
}

/* The lanes of mask that hold key: the instruction, or the fallback. */
__device__ unsigned match_any(unsigned mask, unsigned key, unsigned jitter)
{
#if MATCH_NATIVE
    (void)jitter;
    return __match_any_sync(mask, key);
#else
    return match_any_per_group(mask, key, jitter);
#endif
}

/*
 * Called by exactly the lanes of mask: groups them by key, lets each group's
 * leader count the group with one atomicAdd, and gives every lane its ticket.
 */
__device__ void count_by_key(unsigned mask, unsigned key, long long i,
                             unsigned *groups, unsigned *tickets, unsigned *counts,
                             unsigned jitter, int variant)
{
    int lane = LANE(), leader;
    unsigned group, base = 0;
    jitter_sleep(jitter, lane & 1);              /* odd lanes arrive late */
    switch (variant) {
    case 2:
        group = match_any_per_lane(mask, key, jitter);
        break;
    case 3:
        group = match_any_per_group(mask, key, jitter);
        break;
    default:                                     /* 1; main allows 1..3 only */
        group = match_any(mask, key, jitter);
        break;
    }
    leader = __ffs(group) - 1;
    jitter_sleep(jitter, lane == leader);        /* the leader comes late */
    if (lane == leader)
        base = atomicAdd(&counts[key], (unsigned)__popc(group));
    /* Every lane of the call takes part, each reading its own leader: the
       mask of a collective is the same in all the lanes that make it. */
    base = __shfl_sync(mask, base, leader);
    groups[i] = group;
    tickets[i] = base + (unsigned)__popc(group & ((1u << lane) - 1u));
}

/*
 * One element per thread. With -d 1 the elements with branch[i] = 1 take
 * another branch (and sleep there first under jitter): the warp diverges, and
 * each branch groups its own lanes.
 */
__global__ void count_keys(const unsigned *keys, const int *branch, long long n,
                           unsigned *groups, unsigned *tickets, unsigned *counts,
                           int *impl, unsigned jitter, int variant)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int here = i < n;
    int side = here ? branch[i] : 0;
    /* Who makes which call: votes of all 32 lanes, before anything diverges. */
    unsigned live = __ballot_sync(FULL_MASK, here);
    unsigned side1 = __ballot_sync(FULL_MASK, side);
    if (i == 0)
        *impl = MATCH_NATIVE;
    if (!here)
        return;
    if (side) {
        jitter_sleep(jitter, 1);
        count_by_key(side1, keys[i], i, groups, tickets, counts, jitter, variant);
    } else {
        count_by_key(live & ~side1, keys[i], i, groups, tickets, counts, jitter, variant);
    }
}

#define THIS_FILE "sync.cu"
#define ABOUT \
    "Lesson 04, corrected: groups the lanes of each warp by key with\n" \
    "__match_any_sync or its __shfl_sync + __ballot_sync fallback; each group's\n" \
    "leader counts the group with one atomicAdd and hands out tickets. Checks\n" \
    "every lane's group mask, every key's count and every ticket against the CPU."
static const char *variants[] = {
    "match_any(): __match_any_sync (the variant 3 loop below compute capability "
    "7.0 or with MATCH_FALLBACK=1)",
    "fallback, one trip per lane: __shfl_sync its key, __ballot_sync who holds it",
    "fallback, one trip per group: skips absent lanes and lanes already grouped",
};

/* ==== end of the lesson ============================================== */

/* ---- main: reference, run, validate, report ------------------------ */

/* The first ten lanes whose group differs, then how many differ. */
static long long compare_groups(const unsigned *want, const unsigned *got, long long n)
{
    long long i, wrong = 0;
    for (i = 0; i < n; i++) {
        if (want[i] == got[i])
            continue;
        if (++wrong <= 10)
            printf("  warp %lld lane %lld: expected group 0x%08x got 0x%08x\n",
                   i / 32, i % 32, want[i], got[i]);
    }
    if (wrong > 10)
        printf("  ... and %lld more lanes\n", wrong - 10);
    return wrong;
}

/* The counts that differ, the first ten printed. */
static long long compare_counts(const unsigned *want, const unsigned *got, long long nkeys)
{
    long long k, wrong = 0;
    for (k = 0; k < nkeys; k++) {
        if (want[k] == got[k])
            continue;
        if (++wrong <= 10)
            printf("  key %lld: expected count %u got %u\n", k, want[k], got[k]);
    }
    if (wrong > 10)
        printf("  ... and %lld more keys\n", wrong - 10);
    return wrong;
}

/*
 * The tickets of each key must be 0..count-1, each once. Returns how many
 * tickets are out of that range or repeated (the first ten printed); slot is
 * scratch, n bytes.
 */
static long long check_tickets(const unsigned *keys, const unsigned *tickets, long long n,
                               const unsigned *counts, long long nkeys,
                               long long *first, unsigned char *slot)
{
    long long i, k, bad = 0, at = 0;
    for (k = 0; k < nkeys; k++) {
        first[k] = at;
        at += counts[k];
    }
    memset(slot, 0, (size_t)n);
    for (i = 0; i < n; i++) {
        unsigned t = tickets[i];
        const char *why = NULL;
        if (t >= counts[keys[i]])
            why = "out of range";
        else if (slot[first[keys[i]] + t])
            why = "given twice";
        else
            slot[first[keys[i]] + t] = 1;
        if (!why)
            continue;
        if (++bad <= 10)
            printf("  element %lld (key %u): ticket %u %s (the key has %u)\n",
                   i, keys[i], t, why, counts[keys[i]]);
    }
    if (bad > 10)
        printf("  ... and %lld more tickets\n", bad - 10);
    return bad;
}

int main(int argc, char **argv)
{
    long long n = 1 << 20, seed = 1, jitter = 0, threads = 256, variant = 1;
    long long nkeys = 4, divergent = 0;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 28, "number of elements (lanes)" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random keys" },
        { 'j', "jitter", "NS", &jitter, 0, 1000000,
          "odd lanes, group leaders and branch 1 sleep NS nanoseconds" },
        { 'b', "threads", "T", &threads, 32, 1024,
          "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1,
          (long long)(sizeof variants / sizeof variants[0]), "which grouping" },
        { 'c', "keys", "C", &nkeys, 1, 1LL << 24,
          "distinct keys: random keys in 0..C-1" },
        { 'd', "divergent", "D", &divergent, 0, 1,
          "1: a random half of the lanes takes another branch" },
    };
    lesson_program program = { THIS_FILE, ABOUT, variants,
        (int)(sizeof variants / sizeof variants[0]),
        options, (int)(sizeof options / sizeof options[0]) };
    long long blocks, i, wrong_groups, wrong_counts, bad_tickets, *first;
    unsigned *keys, *want_groups, *got_groups, *tickets, *want_counts, *got_counts;
    unsigned *d_keys, *d_groups, *d_tickets, *d_counts;
    int *branch, *d_branch, *d_impl, impl;
    unsigned char *slot;
    uint64_t state;
    size_t bytes;

    lesson_parse(argc, argv, &program);
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    blocks = (n + threads - 1) / threads;
    bytes = (size_t)n * sizeof(unsigned);

    /* The GPU first: a size it cannot hold fails before the host fills it. */
    d_keys = (unsigned *)lesson_device_alloc(bytes, "the keys");
    d_branch = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the branches");
    d_groups = (unsigned *)lesson_device_alloc(bytes, "the group masks");
    d_tickets = (unsigned *)lesson_device_alloc(bytes, "the tickets");
    d_counts = (unsigned *)lesson_device_alloc((size_t)nkeys * sizeof(unsigned), "the counters");
    d_impl = (int *)lesson_device_alloc(sizeof(int), "a flag");
    keys = (unsigned *)lesson_host_alloc(bytes, "the keys");
    branch = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the branches");
    want_groups = (unsigned *)lesson_host_alloc(bytes, "the group masks");
    got_groups = (unsigned *)lesson_host_alloc(bytes, "the group masks");
    tickets = (unsigned *)lesson_host_alloc(bytes, "the tickets");
    want_counts = (unsigned *)lesson_host_alloc((size_t)nkeys * sizeof(unsigned), "the counters");
    got_counts = (unsigned *)lesson_host_alloc((size_t)nkeys * sizeof(unsigned), "the counters");
    first = (long long *)lesson_host_alloc((size_t)nkeys * sizeof(long long), "the counters");
    slot = (unsigned char *)lesson_host_alloc((size_t)n, "the ticket check");

    printf("%s variant %lld (%s)\n", THIS_FILE, variant, variants[variant - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld keys=%lld divergent=%lld jitter=%lldns: "
           "%lld blocks of %lld threads, %lld warps%s\n",
           n, seed, nkeys, divergent, jitter, blocks, threads, (n + 31) / 32,
           n % 32 ? " (the last one partial)" : "");
    state = (uint64_t)seed;
    for (i = 0; i < n; i++) {
        uint64_t r = lesson_next_random(&state);
        keys[i] = (unsigned)(r % (uint64_t)nkeys);
        branch[i] = divergent ? (int)(r >> 63) : 0;
    }
    cpu_groups(keys, branch, n, want_groups, want_counts, nkeys);

    CUDA_CHECK(cudaMemcpy(d_keys, keys, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_branch, branch, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_counts, 0, (size_t)nkeys * sizeof(unsigned)));
    /* Poison the outputs: a mask or a ticket never written cannot pass. */
    CUDA_CHECK(cudaMemset(d_groups, 0, bytes));
    CUDA_CHECK(cudaMemset(d_tickets, 0xff, bytes));
    CUDA_CHECK(cudaMemset(d_impl, 0xff, sizeof(int)));
    LAUNCH(count_keys, (unsigned)blocks, (unsigned)threads, 0,
           d_keys, d_branch, n, d_groups, d_tickets, d_counts, d_impl,
           (unsigned)jitter, (int)variant);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got_groups, d_groups, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(tickets, d_tickets, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got_counts, d_counts, (size_t)nkeys * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&impl, d_impl, sizeof(int), cudaMemcpyDeviceToHost));

    if (impl >= 0)
        printf("match_any() was built as %s\n", impl ? "the __match_any_sync instruction"
               : "the fallback loop (MATCH_FALLBACK=1, or compute capability < 7.0)");
    wrong_groups = compare_groups(want_groups, got_groups, n);
    wrong_counts = compare_counts(want_counts, got_counts, nkeys);
    bad_tickets = check_tickets(keys, tickets, n, want_counts, nkeys, first, slot);

    CUDA_CHECK(cudaFree(d_keys));
    CUDA_CHECK(cudaFree(d_branch));
    CUDA_CHECK(cudaFree(d_groups));
    CUDA_CHECK(cudaFree(d_tickets));
    CUDA_CHECK(cudaFree(d_counts));
    CUDA_CHECK(cudaFree(d_impl));
    free(keys);
    free(branch);
    free(want_groups);
    free(got_groups);
    free(tickets);
    free(want_counts);
    free(got_counts);
    free(first);
    free(slot);
    return lesson_result(wrong_groups == 0 && wrong_counts == 0 && bad_tickets == 0,
                         "%lld of %lld group masks wrong, %lld of %lld counts wrong, "
                         "%lld of %lld tickets wrong",
                         wrong_groups, n, wrong_counts, nkeys, bad_tickets, n);
}
