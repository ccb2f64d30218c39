/* wrong: the leader is __ffs(members), one lane above the lowest member: __ffs counts from 1 */
/*
 * sync.cu - lesson 05, the corrected version: warp-aggregated atomics. A
 * stream compaction (filter) where one lane per group of lanes does the
 * atomicAdd that reserves output slots for the whole group. Twin: legacy.cu;
 * the Cooperative Groups version is cg.cu.
 *
 * Build:  make           (build/sync: this file's kernel and harness.cu,
 *                        the host side: input, launch, CPU reference, verdict)
 * Run:    build/sync -n 16M -j 200         odd lanes sleep 200 ns at each read
 *                                          of threadIdx and each warp primitive
 *         build/sync -k broadcast --sleepers leader -j 200   lane 0 late
 *         build/sync -k queues -q 4        four output queues: per-key counters
 * Check:  make check
 *
 * The job (harness.cu): keep the elements in[i] <= P (about P% of them) and
 * append the index i of each to its queue, in[i] % Q, at a slot taken from
 * the queue's counter; every slot below a counter written exactly once.
 *
 * Variant 1, broadcast: the lanes that take part are named before the branch
 *   with __ballot_sync(FULL_MASK, keep), which all 32 lanes reach. Inside the
 *   branch the leader (the lowest member) reserves __popc(members) slots,
 *   hands the base to the others with __shfl_sync(members, ...), which waits
 *   for every member however late it comes, and each lane adds its rank
 *   among the members below it.
 * Variant 2, group: the opportunistic form (the NVIDIA blog's atomicAggInc
 *   for one counter; what cg::coalesced_threads() does): the group is
 *   whoever __activemask() finds here together, and the count, the ranks,
 *   the leader and the broadcast mask all come from that one mask. Whoever
 *   is here, the group reserves exactly its own slots: right under any
 *   schedule. (On a GPU with CUDA 13.0 it can lose slots under delays: a
 *   ptxas bug, see investigation/README.md.)
 * Variant 3, queues: one counter per queue; __match_any_sync splits the
 *   members by queue and each queue's leader adds for its lanes.
 * Variant 4, plain: one atomicAdd per lane, left to the compiler, which
 *   aggregates it itself where the address is the same for the whole warp.
 */
#include "lesson.h"

/*
 * The lanes of mask holding key. Below compute capability 7.0, which has no
 * match instruction, the loop of lesson 04. nvcc compiles this file twice,
 * once for the host and once per GPU architecture: __CUDA_ARCH__ is
 * undefined in the host pass only, and in each device pass it names the
 * architecture being compiled (600, 900, ...).
 */
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
 * Variant 1. Adds 1 to *counter for each lane of members with a single
 * atomicAdd, and returns to each lane a slot of its own (what its own
 * atomicAdd(counter, 1) might have returned). Every lane of members calls
 * it; members comes from a ballot taken before the branch.
 */
__device__ unsigned agg_inc(unsigned *counter, unsigned members)
{
    int lane = LANE(), leader = __ffs(members);
    unsigned base = 0;
    if (lane == leader)
        base = atomicAdd(counter, (unsigned)__popc(members));
    base = __shfl_sync(members, base, leader);   /* waits for the leader */
    return base + (unsigned)__popc(members & ((1u << lane) - 1u));
}

/*
 * Variant 2, the opportunistic form: the group is the lanes here together,
 * and everything comes from that one mask, so the group reserves exactly
 * the slots it fills, whoever is in it.
 */
__device__ unsigned agg_inc_here(unsigned *counter)
{
    unsigned here = __activemask();              /* the lanes here together */
    int lane = LANE(), leader = __ffs(here) - 1;
    unsigned base = 0;
    if (lane == leader)
        base = atomicAdd(counter, (unsigned)__popc(here));
    base = __shfl_sync(here, base, leader);
    return base + (unsigned)__popc(here & ((1u << lane) - 1u));
}

/* Variant 3: a counter per key, counters[key]; the members grouped by key. */
__device__ unsigned agg_inc_at(unsigned *counters, unsigned key, unsigned members)
{
    unsigned group = match_any(members, key);    /* the members with my key */
    int lane = LANE(), leader = __ffs(group) - 1;
    unsigned base = 0;
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
                        int *out, unsigned *counters, unsigned *overflow, int variant)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int keep = 0;
    unsigned queue = 0, slot, members;
    if (i < n) {
        keep = in[i] <= keep_max;
        queue = (unsigned)(in[i] % queues);
    }
    members = __ballot_sync(FULL_MASK, keep);    /* all 32 lanes, before the branch */
    if (keep) {
        switch (variant) {
        case 2:
            slot = agg_inc_here(&counters[0]);
            break;
        case 3:
            slot = agg_inc_at(counters, queue, members);
            break;
        case 4:
            slot = atomicAdd(&counters[queue], 1u);
            break;
        default:                                 /* 1; the harness allows 1..4 */
            slot = agg_inc(&counters[0], members);
            break;
        }
        if (slot < (unsigned long long)n)
            out[(long long)queue * n + slot] = (int)i;
        else
            atomicAdd(overflow, 1u);
    }
}
