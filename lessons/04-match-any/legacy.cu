/*
 * legacy.cu - lesson 04, the legacy version: two ways people got the
 * grouping of lanes by key wrong. Twin: sync.cu.
 *
 * Build:  make           (build/legacy: this file's kernels and harness.cu,
 *                        the host side: keys, launch, CPU reference, verdict)
 * Run:    build/legacy -k match -c 4        __match_all_sync: wrong, every run
 *         build/legacy -k lanes -c 4        the shared-memory match: right by luck
 *         build/legacy -k lanes -c 4 -j 200 odd lanes sleep 200 ns at each read
 *                                           of threadIdx and around each warp
 *                                           primitive, so they publish late
 * Check:  make check
 *
 * The job is sync.cu's: group the lanes of a warp by key, let each group's
 * leader count the group with one atomicAdd and hand out tickets.
 *
 * Variant 1, match, calls __match_all_sync where __match_any_sync was meant,
 *   as the first version of a well-known blog post did. __match_all_sync
 *   answers "do all the lanes of mask hold the same key?": it returns mask
 *   if so and 0 if not. In every warp whose keys differ the group is 0,
 *   there is no leader, nothing is counted and the tickets are garbage. No
 *   delay needed.
 * Variant 2, lanes, matches the old way, through shared memory: each lane
 *   writes its key to its slot and reads the slots of the other lanes with
 *   no __syncwarp in between, trusting the warp to run in lockstep. Usually
 *   right on a current GPU; when the odd lanes are late to write (an order
 *   that independent thread scheduling allows), the even lanes read slots
 *   that still hold the poison, leave the odd lanes out of their groups,
 *   and the counts and tickets go wrong. racecheck and warpsim report the
 *   race either way.
 * Variant 3, groups, is sync.cu's: the short fallback loop, right.
 */
#include "lesson.h"

#define POISON 0xffffffffu                       /* never a key (keys < 2^24) */

/*
 * The lanes of mask that hold key, meant. __match_all_sync returns mask when
 * every lane of mask holds the same key, else 0. (Below compute capability
 * 7.0, with no match instruction, the same answer from a shuffle and a vote.)
 */
__device__ unsigned match_all_meant_any(unsigned mask, unsigned key)
{
#if PRE_VOLTA
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
 * The fallback, one trip per group, as in sync.cu: the lowest lane not yet
 * grouped offers its key, the lanes holding that key vote, keep the vote as
 * their group and leave the lanes still to group.
 */
__device__ unsigned match_any_per_group(unsigned mask, unsigned key)
{
    unsigned left = mask, group = 0;
    while (left != 0) {
        int offerer = __ffs(left) - 1;
        unsigned theirs = __shfl_sync(mask, key, offerer);
        unsigned same = __ballot_sync(mask, theirs == key);
        if (theirs == key)
            group = same;
        left &= ~same;
    }
    return group;
}

/*
 * Called by exactly the lanes of mask: groups them by key, lets each group's
 * leader count the group with one atomicAdd, and gives every lane its ticket.
 * seen: this warp's 32 slots in shared memory, holding POISON.
 */
__device__ void count_by_key(unsigned mask, unsigned key, long long i,
                             unsigned *groups, unsigned *tickets, unsigned *counts,
                             int variant, volatile unsigned *seen)
{
    int lane = LANE(), leader;
    unsigned group, base = 0;
    switch (variant) {
    case 2:
        group = match_any_shared(mask, key, seen);
        break;
    case 3:
        group = match_any_per_group(mask, key);
        break;
    default:                                     /* 1; the harness allows 1..3 */
        group = match_all_meant_any(mask, key);
        break;
    }
    leader = __ffs(group) - 1;                   /* -1 when group is 0 */
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
 * another branch: the warp diverges, and each branch groups its own lanes.
 */
__global__ void count_keys(const unsigned *keys, const int *branch, long long n,
                           unsigned *groups, unsigned *tickets, unsigned *counts,
                           int *impl, int variant)
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
    if (side)
        count_by_key(side1, keys[i], i, groups, tickets, counts, variant, mine);
    else
        count_by_key(live & ~side1, keys[i], i, groups, tickets, counts, variant, mine);
}
