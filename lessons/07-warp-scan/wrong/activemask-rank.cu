/* wrong: the compaction rank counts the lanes below in __activemask(), taken inside the branch of the kept lanes */
/*
 * sync.cu - lesson 07, the corrected version: prefix sums (scans) of a
 * warp, of 2- to 32-lane segments and of a block with __shfl_up_sync, and
 * stream compaction that places each kept element at its exclusive-scan
 * rank. Twin: legacy.cu (diff legacy.cu sync.cu shows the lesson).
 *
 * Build:  make                        (harness.cu + sync.cu -> build/sync)
 * Run:    build/sync -k inclusive -w 8    scans of 8-lane segments
 *         build/sync -k block -n 1M       a scan of every block
 *         build/sync -k device -n 16M     one scan of all n (three passes)
 * Check:  make check
 *
 * Why it is right: inside a warp a value moves only through
 * __shfl_up_sync(FULL_MASK, ...), which every lane of the warp executes
 * together, so no lane can read a partner's running sum before the partner
 * has computed it, or after the partner has already moved on. Between
 * warps the totals go through shared memory with one __syncthreads.
 *
 * This file holds only device code; harness.cu (which you never edit) holds
 * the command line, the input, the CPU reference and the verdict, and says
 * which kernels a lesson file must define.
 */
#include "lesson.h"

/*
 * Inclusive scan of v over segments of `width` lanes (2, 4, 8, 16 or 32):
 * lane L gets the sum of v over lanes from the start of its segment to L.
 *
 * Hillis-Steele: after the step with offset d every lane holds the sum of
 * up to 2d values ending at itself; five steps cover 32 lanes. In each step
 * every lane takes the running sum of the lane d below it. A lane whose
 * position in the segment is below d has no such partner: __shfl_up_sync
 * then returns the lane's own value (the source would lie before the
 * segment), so the guard `i >= offset` must keep it from adding it twice.
 * The width argument makes the shuffle treat each segment as a warp of its
 * own; the guard counts from the segment's first lane for the same reason.
 */
__device__ int warp_scan(int v, int width)
{
    int i = LANE() % width;                 /* position in the segment */
    int offset;
    for (offset = 1; offset < width; offset *= 2) {
        int t = __shfl_up_sync(FULL_MASK, v, offset, width);
        if (i >= offset)
            v += t;
    }
    return v;
}

/*
 * Exclusive scan, from the inclusive one: lane L gets the sum over the lanes
 * of its segment before L, which is the inclusive sum of lane L-1; the
 * segment's first lane gets 0.
 */
__device__ int warp_exclusive_scan(int v, int width)
{
    int inc = warp_scan(v, width);
    int ex = __shfl_up_sync(FULL_MASK, inc, 1, width);
    return LANE() % width == 0 ? 0 : ex;
}

/*
 * The sum of the warps' totals over the warps before this one. Lane 31 of
 * each warp has stored its warp's total in totals[warp] (32 ints of shared
 * memory). One __syncthreads makes every total visible; then every warp
 * scans the (at most 32) totals itself, so no second barrier is needed, and
 * takes the exclusive prefix at its own index. Every thread of the block
 * must call it, once per use of totals.
 */
__device__ int warps_before(int *totals)
{
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    int t;
    __syncthreads();
    t = lane < nwarps ? totals[lane] : 0;
    t = warp_scan(t, 32) - t;               /* exclusive: the warps before lane */
    return __shfl_sync(FULL_MASK, t, warp);
}

/*
 * Inclusive scan of v over the block (blockDim.x a multiple of 32): warp
 * scans, lane 31 publishes its warp's total, and each thread adds the
 * totals of the warps before its own.
 */
__device__ int block_scan(int v, int *totals)
{
    int x = warp_scan(v, 32);
    if (LANE() == 31)
        totals[WARP_IN_BLOCK()] = x;
    return x + warps_before(totals);
}

/* ---- kernels (harness.cu launches them) ------------------------------ */

/* Variants 1 and 2: out[i] is the inclusive (or exclusive) scan of in over
 * the segment of `width` elements that holds i. Lanes past n take part
 * with 0: a full-mask shuffle needs every lane of the warp. */
__global__ void scan_segments(const int *in, long long n, int *out, int width,
                              int exclusive)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int x = exclusive ? warp_exclusive_scan(v, width) : warp_scan(v, width);
    if (i < n)
        out[i] = x;
}

/* Variant 3, and the first two passes of variant 6: out[i] is the inclusive
 * scan of in over i's block; block_totals[b] (when not NULL) is block b's
 * total. in and out may be the same array. */
__global__ void scan_blocks(const int *in, long long n, int *out, int *block_totals)
{
    __shared__ int totals[32];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int x = block_scan(v, totals);
    if (i < n)
        out[i] = x;
    if (block_totals && threadIdx.x == blockDim.x - 1)
        block_totals[blockIdx.x] = x;
}

/* Variant 6, the last pass: adds to each block the scanned totals of the
 * blocks before it, which turns block scans into one scan of all n. */
__global__ void add_block_offsets(int *out, long long n, const int *scanned_totals)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        out[i] += scanned_totals[blockIdx.x - 1];
}

/*
 * Variant 4, stream compaction: keeps the positive elements of each block,
 * in order, at the start of the block's part of out; counts[b] is how many
 * block b kept. A kept element's slot is the number of kept elements before
 * it: the exclusive scan of the 0/1 flags, here inclusive minus own flag.
 */
__global__ void compact_scan(const int *in, long long n, int *out, int *counts)
{
    __shared__ int totals[32];
    long long first = (long long)blockIdx.x * blockDim.x;
    long long i = first + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int keep = v > 0;
    int inc = block_scan(keep, totals);
    if (keep)
        out[first + inc - keep] = v;
    if (threadIdx.x == blockDim.x - 1)
        counts[blockIdx.x] = inc;
}

/*
 * Variant 5, the same compaction with lesson 05's rank: one __ballot_sync
 * (before any branch, with the full mask) gives every lane the warp's flags;
 * a lane's rank in its warp is the number of flags set below it, __popc of
 * the ballot masked to the lower lanes. The warps' counts then go through
 * warps_before as in the block scan. Same output as variant 4.
 */
__global__ void compact_ballot(const int *in, long long n, int *out, int *counts)
{
    __shared__ int totals[32];
    long long first = (long long)blockIdx.x * blockDim.x;
    long long i = first + threadIdx.x;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int v = i < n ? in[i] : 0;
    int keep = v > 0;
    unsigned kept = __ballot_sync(FULL_MASK, keep);
    int rank = __popc(kept & ((1u << lane) - 1u));
    int before;
    if (lane == 31)
        totals[warp] = __popc(kept);
    before = warps_before(totals);
    if (keep)
        out[first + before + __popc(__activemask() & ((1u << lane) - 1u))] = v;
    if (threadIdx.x == blockDim.x - 1)
        counts[blockIdx.x] = before + __popc(kept);
}
