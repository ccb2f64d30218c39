/* wrong: the per-group fallback starts from all 32 lanes instead of the lanes of mask, so it asks lanes outside the mask for their key */
/*
 * sync.cu - lesson 04, the corrected version: grouping the lanes of a warp
 * by key with __match_any_sync, and the fallback for GPUs that lack the
 * instruction (compute capability below 7.0). Twin: legacy.cu.
 *
 * Build:  make          build/sync (this file and harness.cu, the host side:
 *                       keys, launch, CPU reference, verdict), and
 *                       build/sync-fallback: the same with MATCH_FALLBACK=1,
 *                       so that match_any() is the loop
 * Run:    build/sync -c 4 -d 1 -j 200   4 keys, divergent warps, odd lanes
 *                                       sleep at every warp primitive
 *         build/sync -k lanes -c 32     the fallback, one trip per lane
 *         build/sync-fallback -c 1000   variant 1 runs the fallback here too
 * Check:  make check
 *
 * The job: every element has a key. Each lane finds its group, the lanes of
 * its warp that hold the same key; the group's lowest lane, its leader, adds
 * the group's size to the key's counter with one atomicAdd and hands the old
 * value to the group with __shfl_sync; each lane's ticket is that value plus
 * its rank in the group. The tickets of a key come out as 0, 1, ..., count-1,
 * each once. The harness checks every lane's group mask, every counter and
 * every ticket against the CPU.
 *
 * Why it is right: every mask names exactly the lanes that make the call. The
 * masks are votes (__ballot_sync) of all 32 lanes taken before the branch,
 * so lanes past the end of the input and lanes in the other branch are left
 * out, and each collective waits for the lanes it names. The fallback builds
 * the same masks from __shfl_sync and __ballot_sync; the checker holds all
 * three variants to the CPU's masks, lane for lane, so fallback == native.
 *
 * Variant 1, match: match_any(), which is __match_any_sync where the GPU has
 *   it, and the short fallback of variant 3 below 7.0 or when built with
 *   MATCH_FALLBACK=1 (the program says which it ran).
 * Variant 2, lanes: the fallback, one trip per lane of the mask.
 * Variant 3, groups: the fallback, one trip per group: skips absent lanes
 *   and lanes already grouped.
 */
#include "lesson.h"

/*
 * MATCH_NATIVE is 1 where match_any() uses the instruction. The fallback is
 * chosen below compute capability 7.0, which has no match instruction (CUDA
 * 12 and older can build for it; CUDA 13 cannot), and everywhere with
 * -DMATCH_FALLBACK=1, so that it is tested on every GPU and in warpsim.
 */
#if defined(MATCH_FALLBACK) && (MATCH_FALLBACK + 0)
#define MATCH_NATIVE 0
#elif PRE_VOLTA
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
__device__ unsigned match_any_per_lane(unsigned mask, unsigned key)
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

/*
 * The fallback, one trip per group: the lowest lane not yet grouped offers
 * its key, the lanes holding that key vote, keep the vote as their group and
 * leave the lanes still to group. `left` is the same in every lane of mask
 * (it changes only by votes), so all of them make the same trips: as many as
 * there are distinct keys among them.
 */
__device__ unsigned match_any_per_group(unsigned mask, unsigned key)
{
    unsigned left = FULL_MASK, group = 0;
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

/* The lanes of mask that hold key: the instruction, or the fallback. */
__device__ unsigned match_any(unsigned mask, unsigned key)
{
#if MATCH_NATIVE
    return __match_any_sync(mask, key);
#else
    return match_any_per_group(mask, key);
#endif
}

/*
 * Called by exactly the lanes of mask: groups them by key, lets each group's
 * leader count the group with one atomicAdd, and gives every lane its ticket.
 */
__device__ void count_by_key(unsigned mask, unsigned key, long long i,
                             unsigned *groups, unsigned *tickets, unsigned *counts,
                             int variant)
{
    int lane = LANE(), leader;
    unsigned group, base = 0;
    switch (variant) {
    case 2:
        group = match_any_per_lane(mask, key);
        break;
    case 3:
        group = match_any_per_group(mask, key);
        break;
    default:                                     /* 1; the harness allows 1..3 */
        group = match_any(mask, key);
        break;
    }
    leader = __ffs(group) - 1;
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
    if (side)
        count_by_key(side1, keys[i], i, groups, tickets, counts, variant);
    else
        count_by_key(live & ~side1, keys[i], i, groups, tickets, counts, variant);
}
