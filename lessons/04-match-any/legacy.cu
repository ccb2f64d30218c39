/*
 * legacy.cu - lesson 04, the legacy version: two ways people got the
 * grouping of lanes by key wrong. Twin: sync.cu.
 *
 * Build:  make
 * Run:    build/legacy -k 1 -c 4          __match_all_sync: wrong, every run
 *         build/legacy -k 2 -c 4          the shared-memory match: right by luck
 *         build/legacy -k 2 -c 4 -j 200   odd lanes sleep before they publish
 * Check:  make check
 *
 * The job is sync.cu's: group the lanes of a warp by key, let each group's
 * leader count the group with one atomicAdd and hand out tickets.
 *
 * Variant 1 calls __match_all_sync where __match_any_sync was meant, as the
 *   first version of a well-known blog post did. __match_all_sync answers
 *   "do all the lanes of mask hold the same key?": it returns mask if so and
 *   0 if not. In every warp whose keys differ the group is 0, there is no
 *   leader, nothing is counted and the tickets are garbage. No jitter needed.
 * Variant 2 matches the old way, through shared memory: each lane writes its
 *   key to its slot and reads the slots of the other lanes with no __syncwarp
 *   in between, trusting the warp to run in lockstep. Usually right on a
 *   current GPU; when the odd lanes sleep before they write (an order that
 *   independent thread scheduling allows), the even lanes read slots that
 *   still hold the poison, leave the odd lanes out of their groups, and the
 *   counts and tickets go wrong. racecheck reports the hazard either way.
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

#define POISON 0xffffffffu                       /* never a key (keys < 2^24) */

/*
 * The lanes of mask that hold key, meant. __match_all_sync returns mask when
 * every lane of mask holds the same key, else 0. (Below compute capability
 * 7.0, with no match instruction, the same answer from a shuffle and a vote.)
 */
__device__ unsigned match_all_meant_any(unsigned mask, unsigned key)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700 && !defined(WARPSIM)
    unsigned first = __shfl_sync(mask, key, __ffs(mask) - 1);
    return __ballot_sync(mask, first == key) == mask ? mask : 0;
#else
    int all_same;
    return __match_all_sync(mask, key, &all_same);
#endif
}

/*
 * The match through shared memory: publish my key in my slot, then read the
 * slots of the lanes of mask. Nothing orders the other lanes' writes before
 * my reads: the code assumes the warp executes in lockstep.
 */
__device__ unsigned match_any_shared(unsigned mask, unsigned key, volatile unsigned *seen)
{
    unsigned group = 0;
    int j;
    seen[LANE()] = key;
    for (j = 0; j < 32; j++)
        if ((mask & (1u << j)) && seen[j] == key)
            group |= 1u << j;
    return group;
}

/*
 * Called by exactly the lanes of mask: groups them by key, lets each group's
 * leader count the group with one atomicAdd, and gives every lane its ticket.
 * seen: this warp's 32 slots in shared memory, holding POISON.
 */
__device__ void count_by_key(unsigned mask, unsigned key, long long i,
                             volatile unsigned *seen,
                             unsigned *groups, unsigned *tickets, unsigned *counts,
                             unsigned jitter, int variant)
{
    int lane = LANE(), leader;
    unsigned group, base = 0;
    jitter_sleep(jitter, lane & 1);              /* odd lanes arrive late */
    switch (variant) {
    case 2:
        group = match_any_shared(mask, key, seen);
        break;
    default:                                     /* 1; main allows 1..2 only */
        group = match_all_meant_any(mask, key);
        break;
    }
    leader = __ffs(group) - 1;                   /* -1 when group is 0 */
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
    __shared__ unsigned seen[1024];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int here = i < n;
    int side = here ? branch[i] : 0;
    /* Who makes which call: votes of all 32 lanes, before anything diverges. */
    unsigned live = __ballot_sync(FULL_MASK, here);
    unsigned side1 = __ballot_sync(FULL_MASK, side);
    volatile unsigned *mine = &seen[WARP_IN_BLOCK() * 32];
    seen[threadIdx.x] = POISON;
    __syncthreads();
    if (i == 0)
        *impl = -1;                              /* no match_any() here */
    if (!here)
        return;
    if (side) {
        jitter_sleep(jitter, 1);
        count_by_key(side1, keys[i], i, mine, groups, tickets, counts, jitter, variant);
    } else {
        count_by_key(live & ~side1, keys[i], i, mine, groups, tickets, counts, jitter, variant);
    }
}

#define THIS_FILE "legacy.cu"
#define ABOUT \
    "Lesson 04, legacy: groups the lanes of each warp by key the wrong way\n" \
    "(variant 1: __match_all_sync where __match_any_sync was meant; variant 2:\n" \
    "through shared memory with no warp sync); each group's leader counts the\n" \
    "group with one atomicAdd and hands out tickets. Checks every lane's group\n" \
    "mask, every key's count and every ticket against the CPU. Variant 1 is\n" \
    "wrong whenever a warp holds two keys; variant 2 is right by luck without\n" \
    "jitter and wrong with -j 200 on a GPU with independent thread scheduling."
static const char *variants[] = {
    "__match_all_sync where __match_any_sync was meant",
    "match through shared memory, no warp sync between the writes and the reads",
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
