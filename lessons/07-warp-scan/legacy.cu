/*
 * legacy.cu - lesson 07, the legacy version: prefix sums (scans) of a warp,
 * of 2- to 32-lane segments and of a block, on a volatile shared-memory
 * array with no warp synchronization, the way warp-synchronous scans were
 * written before CUDA 9; and stream compaction built on them. Twin: sync.cu.
 *
 * Build:  make                        (harness.cu + legacy.cu -> build/legacy)
 * Run:    build/legacy -k block -n 1M         usually right on a GPU: luck
 *         build/legacy -k block -n 1M -j 200  chosen lanes sleep 200 ns
 * Check:  make check
 *
 * Why it breaks: each step reads the slot of the lane `offset` below and
 * writes the lane's own slot, and the code assumes all 32 lanes do the read
 * before any does the write, as lanes in lockstep do. `volatile` only makes
 * every access go to memory; it orders nothing between lanes. Under
 * independent thread scheduling (Volta and later) a lane that runs ahead
 * reads a partner's slot before the partner has written this step's value,
 * or after it has already added the next one: wrong prefixes.
 *
 * This file holds only device code; harness.cu (which you never edit) holds
 * the command line, the input, the CPU reference and the verdict, and says
 * which kernels a lesson file must define.
 */
#include "lesson.h"

/*
 * Inclusive scan of v over segments of `width` lanes (2, 4, 8, 16 or 32),
 * through s[0..31], this warp's slots in shared memory: lane L gets the sum
 * of v over lanes from the start of its segment to L.
 *
 * Hillis-Steele: after the step with offset d every lane holds the sum of
 * up to 2d values ending at itself; five steps cover 32 lanes. In each step
 * every lane adds the running sum of the lane d below it, read from that
 * lane's slot. A lane whose position in the segment is below d has no such
 * partner and keeps its value. Lockstep is what makes the read come before
 * the partner's write of the same step.
 */
__device__ int warp_scan(volatile int *s, int v, int width)
{
    int lane = LANE(), i = lane % width;    /* position in the segment */
    int offset;
    s[lane] = v;
    for (offset = 1; offset < width; offset *= 2) {
        if (i >= offset)
            s[lane] += s[lane - offset];
    }
    return s[lane];
}

/*
 * Exclusive scan, from the inclusive one: lane L gets the sum over the lanes
 * of its segment before L, which is the inclusive sum in lane L-1's slot;
 * the segment's first lane gets 0.
 */
__device__ int warp_exclusive_scan(volatile int *s, int v, int width)
{
    warp_scan(s, v, width);
    return LANE() % width == 0 ? 0 : s[LANE() - 1];
}

/*
 * The sum of the warps' totals over the warps before this one. Lane 31 of
 * each warp has stored its warp's total in totals[warp] (32 ints of shared
 * memory). One __syncthreads makes every total visible; then every warp
 * scans the (at most 32) totals itself in its own slots s, so no second
 * barrier is needed, and takes the exclusive prefix at its own index.
 * Every thread of the block must call it, once per use of totals.
 */
__device__ int warps_before(volatile int *s, int *totals)
{
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int nwarps = (int)(blockDim.x / 32);
    int t;
    __syncthreads();
    t = lane < nwarps ? totals[lane] : 0;
    warp_scan(s, t, 32);
    return warp == 0 ? 0 : s[warp - 1];
}

/*
 * Inclusive scan of v over the block (blockDim.x a multiple of 32): warp
 * scans, lane 31 publishes its warp's total, and each thread adds the
 * totals of the warps before its own. s: 32 slots per warp.
 */
__device__ int block_scan(volatile int *s, int v, int *totals)
{
    int x = warp_scan(s, v, 32);
    if (LANE() == 31)
        totals[WARP_IN_BLOCK()] = x;
    return x + warps_before(s, totals);
}

/* ---- kernels (harness.cu launches them) ------------------------------ */

/* Variants 1 and 2: out[i] is the inclusive (or exclusive) scan of in over
 * the segment of `width` elements that holds i. */
__global__ void scan_segments(const int *in, long long n, int *out, int width,
                              int exclusive)
{
    __shared__ int s[1024];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    volatile int *mine = &s[WARP_IN_BLOCK() * 32];
    int v = i < n ? in[i] : 0;
    int x = exclusive ? warp_exclusive_scan(mine, v, width) : warp_scan(mine, v, width);
    if (i < n)
        out[i] = x;
}

/* Variant 3, and the first two passes of variant 6: out[i] is the inclusive
 * scan of in over i's block; block_totals[b] (when not NULL) is block b's
 * total. in and out may be the same array. */
__global__ void scan_blocks(const int *in, long long n, int *out, int *block_totals)
{
    __shared__ int s[1024];
    __shared__ int totals[32];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int x = block_scan(&s[WARP_IN_BLOCK() * 32], v, totals);
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
    __shared__ int s[1024];
    __shared__ int totals[32];
    long long first = (long long)blockIdx.x * blockDim.x;
    long long i = first + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int keep = v > 0;
    int inc = block_scan(&s[WARP_IN_BLOCK() * 32], keep, totals);
    if (keep)
        out[first + inc - keep] = v;
    if (threadIdx.x == blockDim.x - 1)
        counts[blockIdx.x] = inc;
}

/*
 * Variant 5, the same compaction with lesson 05's rank, as CUDA 8 wrote it:
 * the mask-less ballot (LEGACY_BALLOT, lesson.h: __ballot below compute
 * capability 7.0, __ballot_sync(__activemask(), ...) from 7.0 on) gives
 * every lane the flags of whoever is active; a lane's rank in its warp is
 * the number of flags set below it. The warps' counts then go through
 * warps_before as in the block scan. Same output as variant 4.
 */
__global__ void compact_ballot(const int *in, long long n, int *out, int *counts)
{
    __shared__ int s[1024];
    __shared__ int totals[32];
    long long first = (long long)blockIdx.x * blockDim.x;
    long long i = first + threadIdx.x;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int v = i < n ? in[i] : 0;
    int keep = v > 0;
    unsigned kept = LEGACY_BALLOT(keep);
    int rank = __popc(kept & ((1u << lane) - 1u));
    int before;
    if (lane == 31)
        totals[warp] = __popc(kept);
    before = warps_before(&s[warp * 32], totals);
    if (keep)
        out[first + before + rank] = v;
    if (threadIdx.x == blockDim.x - 1)
        counts[blockIdx.x] = before + __popc(kept);
}
