/*
 * cg.cu - lesson 07 with Cooperative Groups: the scans of sync.cu written
 * with tiles, tile.shfl_up, cg::inclusive_scan and cg::exclusive_scan.
 * Built with harness.cu like legacy.cu and sync.cu, and held to the same
 * CPU reference by make check, on the GPU and on warpsim (whose
 * cooperative_groups.h builds each group call on the warp primitive the
 * GPU runs, with warpsim's checks).
 *
 * Build:  make                     (harness.cu + cg.cu -> build/cg)
 *         make emu                 (the same for warpsim -> build/emu/cg)
 * Run:    build/cg -k inclusive -w 16  tiled_partition<16> and tile.shfl_up
 *         build/cg -k exclusive -w 8   cg::exclusive_scan on 8-thread tiles
 *         build/cg -k block -n 1M      cg::inclusive_scan, block.sync()
 *
 * Why it is right: a tile names the threads of a collective in its type
 * (thread_block_tile<8> is 8 threads), so there is no mask to get wrong and
 * no width argument to forget: tile.shfl_up stays inside the tile, and
 * cg::inclusive_scan(tile, v) is a collective that every thread of the tile
 * calls. The functions below take the group they work on as a parameter:
 * one that takes a tile can only synchronize that tile, and the one that
 * holds block.sync() takes the thread_block, so a caller can see from the
 * signature which threads must reach the call.
 */
#include "lesson.h"
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

/* Inclusive scan over a tile of W threads by hand: Hillis-Steele with
 * tile.shfl_up, which returns the thread's own value where the source would
 * lie before the tile's first thread; the guard skips adding that. */
template <unsigned W>
__device__ int tile_scan(const cg::thread_block_tile<W> &tile, int v)
{
    unsigned offset;
    for (offset = 1; offset < W; offset *= 2) {
        int t = tile.shfl_up(v, offset);
        if (tile.thread_rank() >= offset)
            v += t;
    }
    return v;
}

/* Variants 1 and 2 on tiles of W threads: tile_scan above for the
 * inclusive scan, the library's cg::exclusive_scan for the exclusive one. */
template <unsigned W>
__device__ int segment_scan(int v, int exclusive)
{
    cg::thread_block_tile<W> tile = cg::tiled_partition<W>(cg::this_thread_block());
    return exclusive ? cg::exclusive_scan(tile, v) : tile_scan(tile, v);
}

/*
 * Inclusive scan of v over the block. Takes the block because it holds
 * block.sync(): every thread of the block must call it. totals: 32 ints of
 * shared memory, once per call.
 */
__device__ int block_scan(const cg::thread_block &block, int v, int *totals)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int x = cg::inclusive_scan(warp, v);
    int t;
    if (warp.thread_rank() == 31)
        totals[warp.meta_group_rank()] = x;
    block.sync();
    t = warp.thread_rank() < warp.meta_group_size() ? totals[warp.thread_rank()] : 0;
    t = cg::exclusive_scan(warp, t);        /* every warp scans the totals */
    return x + warp.shfl(t, warp.meta_group_rank());
}

/* ---- kernels (harness.cu launches them) ------------------------------ */

__global__ void scan_segments(const int *in, long long n, int *out, int width,
                              int exclusive)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int x;
    switch (width) {
    case 2: x = segment_scan<2>(v, exclusive); break;
    case 4: x = segment_scan<4>(v, exclusive); break;
    case 8: x = segment_scan<8>(v, exclusive); break;
    case 16: x = segment_scan<16>(v, exclusive); break;
    default: x = segment_scan<32>(v, exclusive); break;
    }
    if (i < n)
        out[i] = x;
}

__global__ void scan_blocks(const int *in, long long n, int *out, int *block_totals)
{
    __shared__ int totals[32];
    cg::thread_block block = cg::this_thread_block();
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int x = block_scan(block, v, totals);
    if (i < n)
        out[i] = x;
    if (block_totals && block.thread_rank() == blockDim.x - 1)
        block_totals[blockIdx.x] = x;
}

__global__ void add_block_offsets(int *out, long long n, const int *scanned_totals)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        out[i] += scanned_totals[blockIdx.x - 1];
}

/* Compaction: the slot is the exclusive scan of the flags over the block. */
__global__ void compact_scan(const int *in, long long n, int *out, int *counts)
{
    __shared__ int totals[32];
    cg::thread_block block = cg::this_thread_block();
    long long first = (long long)blockIdx.x * blockDim.x;
    long long i = first + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int keep = v > 0;
    int inc = block_scan(block, keep, totals);
    if (keep)
        out[first + inc - keep] = v;
    if (block.thread_rank() == blockDim.x - 1)
        counts[blockIdx.x] = inc;
}

/* Compaction with tile.ballot and __popc for the rank in the warp, the
 * warps' counts through a block scan of one value per warp. */
__global__ void compact_ballot(const int *in, long long n, int *out, int *counts)
{
    __shared__ int totals[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    long long first = (long long)blockIdx.x * blockDim.x;
    long long i = first + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int keep = v > 0;
    unsigned kept = warp.ballot(keep);
    int rank = __popc(kept & ((1u << warp.thread_rank()) - 1u));
    /* lane 31 carries the warp's count into the block scan; the others 0,
     * so the block scan's exclusive value in lane 0 is the warps before. */
    int mine = warp.thread_rank() == 31 ? __popc(kept) : 0;
    int before = block_scan(block, mine, totals) - mine;
    before = warp.shfl(before, 0);
    if (keep)
        out[first + before + rank] = v;
    if (block.thread_rank() == blockDim.x - 1)
        counts[blockIdx.x] = before + __popc(kept);
}
