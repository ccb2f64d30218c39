/*
 * legacy.cu - lesson 05, the legacy version: warp-aggregated increments that
 * rely on the warp staying together. Twin: sync.cu.
 *
 * Build:  make           (build/legacy: this file's kernel and harness.cu)
 * Run:    build/legacy -n 16M                   right by luck on a current GPU
 *         build/legacy -k broadcast -n 16M -j 200 --sleepers leader
 *                                               lane 0 late: slots reused
 *         build/legacy -k group -n 16M -j 200   odd lanes late: slots empty
 * Check:  make check
 *
 * The job is sync.cu's (harness.cu): keep the elements in[i] <= P and
 * append the index of each to its queue at a slot taken from its counter.
 *
 * Variant 1, broadcast, hands the leader's base to the other lanes through
 *   shared memory with no synchronization, as code for GPUs without shuffles
 *   did: the leader writes the base it got from atomicAdd, and the others
 *   read it "in the same step". When the leader comes late (an order that
 *   independent thread scheduling allows), they read what the slot held
 *   before and take slots that belong to others: slots written many times
 *   over, others never written.
 * Variant 2, group, counts the ballot of the keeping lanes taken before the
 *   branch, but the leader is the first lane that is here (__activemask()).
 *   That is right only while every keeping lane reaches the atomicAdd
 *   together. When the odd lanes come late, each half of the warp reserves
 *   slots for all the keeping lanes and fills only its own: the counter runs
 *   to twice the count and half the slots stay empty. Neither racecheck nor
 *   synccheck can see this one.
 * Variants 3 (queues) and 4 (plain) are sync.cu's: the lesson is in 1 and 2.
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
 * atomicAdd, and returns to each lane a slot of its own. The leader passes
 * the base to the others through *published, a shared-memory slot of this
 * warp, and nothing makes them wait for it: the code assumes that the warp
 * executes the store and the loads in lockstep.
 */
__device__ unsigned agg_inc(unsigned *counter, unsigned members,
                            volatile unsigned *published)
{
    int lane = LANE(), leader = __ffs(members) - 1;
    if (lane == leader)
        *published = atomicAdd(counter, (unsigned)__popc(members));
    return *published + (unsigned)__popc(members & ((1u << lane) - 1u));
}

/*
 * Variant 2. The leader is the first lane here, but the count and the ranks
 * come from members, a ballot taken before the branch: assumes that every
 * member is here too.
 */
__device__ unsigned agg_inc_here(unsigned *counter, unsigned members)
{
    unsigned here = __activemask();              /* the lanes here together */
    int lane = LANE(), leader = __ffs(here) - 1;
    unsigned base = 0;
    if (lane == leader)
        base = atomicAdd(counter, (unsigned)__popc(members));
    base = __shfl_sync(here, base, leader);
    return base + (unsigned)__popc(members & ((1u << lane) - 1u));
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
    __shared__ unsigned published[32];          /* one slot per warp */
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int keep = 0;
    unsigned queue = 0, slot, members;
    if (i < n) {
        keep = in[i] <= keep_max;
        queue = (unsigned)(in[i] % queues);
    }
    members = __ballot_sync(FULL_MASK, keep);    /* all 32 lanes, before the branch */
    if (threadIdx.x < 32)
        published[threadIdx.x] = 0;
    __syncthreads();
    if (keep) {
        switch (variant) {
        case 2:
            slot = agg_inc_here(&counters[0], members);
            break;
        case 3:
            slot = agg_inc_at(counters, queue, members);
            break;
        case 4:
            slot = atomicAdd(&counters[queue], 1u);
            break;
        default:                                 /* 1; the harness allows 1..4 */
            slot = agg_inc(&counters[0], members, &published[WARP_IN_BLOCK()]);
            break;
        }
        if (slot < (unsigned long long)n)
            out[(long long)queue * n + slot] = (int)i;
        else
            atomicAdd(overflow, 1u);
    }
}
