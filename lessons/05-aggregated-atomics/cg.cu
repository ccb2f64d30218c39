/*
 * cg.cu - lesson 05 with Cooperative Groups: the aggregated increments of
 * sync.cu written with groups. Built with harness.cu like legacy.cu and
 * sync.cu (the same command line, the same verdict), and held to the same
 * expectations by make check, on the GPU and on warpsim (whose
 * cooperative_groups.h builds each group call on the warp primitive the
 * GPU runs, with warpsim's checks).
 *
 * Build:  make                     (harness.cu + cg.cu -> build/cg)
 *         make emu                 (the same for warpsim -> build/emu/cg)
 * Run:    build/cg -n 16M -j 200
 *         build/cg -k queues -q 4  one counter per queue: labeled_partition
 *         build/emu/cg -n 64K -j 200     on warpsim
 *
 * A group names the threads of a collective: g.num_threads() is its size
 * (the __popc of its mask), g.thread_rank() a thread's rank in it (the
 * __popc of the members below), g.shfl(v, r) a shuffle over exactly its
 * threads.
 *
 * Variant 1, broadcast: cg::binary_partition(warp, keep) splits the warp's
 *   tile of 32 by keep before the branch; every lane of the warp takes part
 *   in that call. This is sync.cu's ballot, in Cooperative Groups.
 * Variant 2, group: cg::coalesced_threads(), the threads here together,
 *   what __activemask() gives sync.cu: the opportunistic form. Correct code;
 *   on a GPU with CUDA 13.0 it can lose slots under delays, a ptxas bug
 *   (investigation/README.md).
 * Variant 3, queues: cg::labeled_partition(members, queue) splits the group
 *   of variant 1 by queue, as __match_any_sync does (compute capability 7.0
 *   and later).
 * Variant 4, plain: one atomicAdd per thread.
 */
#include "lesson.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* Adds 1 to *counter for each thread of g with one atomicAdd; returns a
 * slot of its own to each. Every thread of g calls it. */
__device__ unsigned agg_inc(unsigned *counter, const cg::coalesced_group &g)
{
    unsigned base = 0;
    if (g.thread_rank() == 0)
        base = atomicAdd(counter, g.num_threads());
    return g.shfl(base, 0) + g.thread_rank();
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
    unsigned queue = 0, slot;
    if (i < n) {
        keep = in[i] <= keep_max;
        queue = (unsigned)(in[i] % queues);
    }
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    cg::coalesced_group members = cg::binary_partition(warp, keep);  /* all 32 lanes */
    if (keep) {
        switch (variant) {
        case 2:
            slot = agg_inc(&counters[0], cg::coalesced_threads());
            break;
        case 3:
            slot = agg_inc(&counters[queue], cg::labeled_partition(members, queue));
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
