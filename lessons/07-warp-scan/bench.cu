/*
 * bench.cu - lesson 07's benchmark: the lesson's block scan against
 * cub::BlockScan, and device-wide inclusive scans of int32 built from it
 * against cub::DeviceScan::InclusiveSum, on the same GPU in the same run.
 * GPU only. bench.sh runs it for `make bench` and turns its CSV into a
 * table and a plot.
 *
 * Build:  make                    (nvcc -I../../include bench.cu cub_scan.cu -o build/bench)
 * Run:    build/bench             sizes 2^24, 2^26, 2^28, 2^30 (8 GiB of GPU memory)
 *         build/bench -n 256M -l 1      2^28 only
 *         build/bench -V 1 -n 1M -l 1   check every kernel and setting, no timing
 *
 * What is timed (each result is checked against the CPU first, output
 * poisoned before; then warm-up runs and -r runs timed one by one with CUDA
 * events, the median reported; before each timed run a kernel reads a
 * buffer twice the size of the L2 cache, outside the timed interval, so that
 * no run finds its data in L2):
 *
 * table "block", the block scan alone and in a tile kernel:
 *   repeat-*   each block of -b threads scans one int per thread 32 times
 *              in a row (registers and shared memory only), then stores:
 *              the cost of the block scan itself. lesson: sync.cu's
 *              block_scan; cub-raking, cub-warpscans: cub::BlockScan's
 *              InclusiveSum with BLOCK_SCAN_RAKING (its default) and
 *              BLOCK_SCAN_WARP_SCANS. The temporary storage of all is
 *              double-buffered, so no extra barrier separates the scans.
 *              Not in the lesson: redux, the lesson's block_scan with the
 *              warps' totals summed by one __reduce_add_sync instead of a
 *              second warp scan (block_scan_redux below); raking and
 *              raking4, a raking scan (one warp adds up runs of values in
 *              shared memory and runs the lesson's warp_scan once per
 *              block; raking4 with 16-byte accesses), what
 *              BLOCK_SCAN_RAKING does.
 *   tile-*     each block loads a tile of threads x items ints (16-byte
 *              loads, items consecutive ints per thread), scans each thread's
 *              items, block-scans the threads' totals, and stores the tile's
 *              inclusive scan: independent tiles, memory bound (lesson,
 *              cub-*, and raking4 and redux as above; total-first, not in
 *              the lesson: block_scan_total_first below). A setting's
 *              kernels are timed in turn, one run of each per round.
 * table "device", one inclusive scan of all n:
 *   cub              cub::DeviceScan::InclusiveSum (single pass, decoupled
 *                    look-back), its temporary storage allocated once
 *   reduce-then-scan the lesson's three passes: tile sums (the tiles taken
 *                    last to first); one block scans the tile sums; each
 *                    tile scanned again with its prefix (reads the input
 *                    twice: 12 bytes moved per int)
 *   lookback         the lesson's single pass: tiles in the order of an
 *                    atomic ticket; each tile publishes its sum, then looks
 *                    back over its predecessors' published values with one
 *                    warp, 32 tiles at a time, until one of them holds an
 *                    inclusive prefix (Merrill and Garland's decoupled
 *                    look-back); 8 bytes moved per int, as CUB
 *   lookback-fast    the same single pass, made as fast as the memory
 *                    allows (scan_lookback_fast, whose comment lists the
 *                    changes): each tile's status word in a 128-byte line
 *                    of its own, the tile's sum published before the tile
 *                    is scanned, no memset between scans (status words
 *                    tagged with the scan's number), and a window of 32
 *                    tiles of which only those up to the nearest inclusive
 *                    prefix must have published; checked again after the
 *                    timed runs, since it carries state from scan to scan
 *   memcpy           cudaMemcpy of the 4n bytes, device to device: what
 *                    reading and writing each int once costs here
 * table "ablation", at the size nearest 2^28 (-S 0: none): CUB, the
 * lesson's lookback at 128 x 32 (its default setting), then lookback-fast
 * at 128 x 32 and variants of it with one change taken back
 * or one more made, each checked before and after timing: status-packed
 * and status-sector (16 and 4 status words a 128-byte line), window-64
 * and window-128 (64 or 128 tiles polled at once), window-128-packed,
 * publish-late (the sum published after the tile's scan, by the last
 * warp), memset (no epochs: a memset before each scan), sleep
 * (__nanosleep(32) between polls), st.cs (streaming stores), own-warp (the
 * look-back by a fifth warp that holds no data and polls while the loads
 * are in flight), no-look-back (each tile scanned on its own and checked
 * as such: what the tile loop costs without the look-back).
 * The lesson's device scans hold a tile in "warp rows" (struct
 * warp_rows): each warp owns a contiguous part of the tile and reads it
 * with 16-byte loads that cover 512 contiguous bytes each, all issued
 * before the first is used; each row is scanned with sync.cu's warp_scan,
 * and the warps' totals go through sync.cu's warps_before (one barrier).
 * GB/s counts 8 bytes per int (one read, one write), for every method.
 *
 * Output: CSV on stdout, one header line, then rows
 *   table,gpu,n,bytes,method,setting,threads,items,ms,gbps,pct_peak,
 *   ratio_cub,check,peak_gbps
 * ratio_cub is the CUB time over this time (above 1: faster than CUB): in
 * the block table against the faster of the two cub::BlockScan algorithms
 * of the same kind, in the device and ablation tables against DeviceScan.
 * setting is "default", "sweep" or "ablation": the block table sweeps
 * threads and items at the
 * size nearest 2^28, the device table at every size (-S 0: the default
 * setting only). Datasheet DRAM bandwidth from the GPU's name: H200
 * 4.8 TB/s, H100 SXM 3.35 TB/s (-P sets it). Progress goes to stderr.
 * Exit status: 0 every result right, 1 one was wrong, 2 bad usage, 77 no GPU.
 */
#include "bench.h"
#include "sync.cu"

#include <cub/block/block_scan.cuh>

/* cub_scan.cu: cub::DeviceScan::InclusiveSum, compiled apart. */
cudaError_t cub_inclusive_sum(void *tmp, size_t *bytes, const int *in, int *out, int n);

/* ---- the lesson's kernels -------------------------------------------- */

/* items consecutive ints from in[base..], with 16-byte loads where the whole
 * run lies before n; 0 past n. base is a multiple of 4. */
template <int ITEMS>
__device__ __forceinline__ void load_items(const int *in, long long base,
                                           long long n, int (&x)[ITEMS])
{
    if (base + ITEMS <= n) {
        const int4 *p = (const int4 *)(in + base);
#pragma unroll
        for (int q = 0; q < ITEMS / 4; q++) {
            int4 v = p[q];
            x[4 * q] = v.x; x[4 * q + 1] = v.y; x[4 * q + 2] = v.z; x[4 * q + 3] = v.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            x[j] = base + j < n ? in[base + j] : 0;
    }
}

template <int ITEMS>
__device__ __forceinline__ void store_items(int *out, long long base, long long n,
                                            const int (&x)[ITEMS])
{
    if (base + ITEMS <= n) {
        int4 *p = (int4 *)(out + base);
#pragma unroll
        for (int q = 0; q < ITEMS / 4; q++)
            p[q] = make_int4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]);
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if (base + j < n)
                out[base + j] = x[j];
    }
}

/* Inclusive scan of a thread's items, in place; returns their sum. */
template <int ITEMS>
__device__ __forceinline__ int thread_scan(int (&x)[ITEMS])
{
#pragma unroll
    for (int j = 1; j < ITEMS; j++)
        x[j] += x[j - 1];
    return x[ITEMS - 1];
}

/*
 * The lesson's block_scan with one change, measured here and not in the
 * lesson (the "redux" rows of the repeat form): in sync.cu's warps_before
 * each warp scans the warps' totals with five __shfl_up_sync steps and then
 * broadcasts its entry with a sixth shuffle; here each lane reads the total
 * of warp `lane` only if that warp comes before its own, and one
 * __reduce_add_sync (compute capability 8.0 and later; a __shfl_xor_sync
 * butterfly before) sums them in every lane. Same barrier, same result.
 */
__device__ __forceinline__ int warps_before_redux(const int *totals)
{
    int lane = LANE(), warp = WARP_IN_BLOCK();
    __syncthreads();
    int t = lane < warp ? totals[lane] : 0;
#if __CUDA_ARCH__ >= 800
    return (int)__reduce_add_sync(FULL_MASK, (unsigned)t);
#else
    for (int o = 16; o > 0; o /= 2)
        t += __shfl_xor_sync(FULL_MASK, t, o);
    return t;
#endif
}

__device__ __forceinline__ int block_scan_redux(int v, int *totals)
{
    int x = warp_scan(v, 32);
    if (LANE() == 31)
        totals[WARP_IN_BLOCK()] = x;
    return x + warps_before_redux(totals);
}

/*
 * A raking block scan with the lesson's warp_scan (the "raking" rows of the
 * repeat form; not in the lesson): every thread stores its value, one
 * barrier, and the first warp alone scans: lane l adds up the THREADS/32
 * values of threads l*R .. l*R+R-1 (R = THREADS/32), one warp_scan of those
 * sums, and lane l writes the running sums back over its values; a second
 * barrier, and each thread reads its own. Five shuffles per block scan
 * instead of eleven per warp: what cub::BlockScan's BLOCK_SCAN_RAKING does.
 * s holds THREADS + 32 ints: one int of padding after each run of R, so
 * that the lanes' runs start in different banks.
 */
template <int THREADS>
__device__ __forceinline__ int block_scan_raking(int v, int *s)
{
    enum { R = THREADS / 32 };
    int tid = threadIdx.x;
    s[tid + tid / R] = v;
    __syncthreads();
    if (tid < 32) {
        int *run = s + tid * (R + 1);
        int x[R], t = 0;
#pragma unroll
        for (int j = 0; j < R; j++) {
            x[j] = run[j];
            t += x[j];
        }
        int sum = warp_scan(t, 32) - t;     /* exclusive: the runs before */
#pragma unroll
        for (int j = 0; j < R; j++) {
            sum += x[j];
            run[j] = sum;
        }
    }
    __syncthreads();
    return s[tid + tid / R];
}

/*
 * The same raking scan with 16-byte shared-memory accesses (the "raking4"
 * rows; THREADS >= 128): no padding, lane l of the first warp reads and
 * writes its R values as R/4 int4, a quarter of the instructions (the
 * lanes' int4 are R * 4 bytes apart: no bank conflict at R = 4, 128
 * threads; two-way at R = 8, and more above).
 */
template <int THREADS>
__device__ __forceinline__ int block_scan_raking4(int v, int *s)
{
    enum { R = THREADS / 32, Q = R / 4 };
    int tid = threadIdx.x;
    s[tid] = v;
    __syncthreads();
    if (tid < 32) {
        int4 *run = (int4 *)(s + tid * R);
        int4 x[Q];
        int t = 0;
#pragma unroll
        for (int j = 0; j < Q; j++) {
            x[j] = run[j];
            t += x[j].x + x[j].y + x[j].z + x[j].w;
        }
        int sum = warp_scan(t, 32) - t;     /* exclusive: the runs before */
#pragma unroll
        for (int j = 0; j < Q; j++) {
            x[j].x += sum; x[j].y += x[j].x; x[j].z += x[j].y; x[j].w += x[j].z;
            sum = x[j].w;
            run[j] = x[j];
        }
    }
    __syncthreads();
    return s[tid];
}

/*
 * The block scan of the "total-first" rows of the tile form (not in the
 * lesson): each warp's total comes from one __reduce_add_sync (compute
 * capability 8.0 and later; a __shfl_xor_sync butterfly before) and is
 * stored before the warp's own scan, so that the barrier waits on that one
 * instruction rather than on five dependent shuffles; after the barrier
 * each thread adds up the totals of the warps before its own from shared
 * memory (THREADS/32 - 1 independent reads, as cub::BlockScan's
 * BLOCK_SCAN_WARP_SCANS does), where sync.cu's warps_before runs a second
 * five-step warp scan and a shuffle. The same barrier, the same result; a
 * shorter chain of dependent steps around the barrier, which is what counts
 * in a tile kernel whose blocks wait on memory (README, "How fast").
 */
template <int THREADS>
__device__ __forceinline__ int block_scan_total_first(int v, int *totals)
{
    int lane = LANE(), warp = WARP_IN_BLOCK(), x, before = 0, k;
#if __CUDA_ARCH__ >= 800
    int total = (int)__reduce_add_sync(FULL_MASK, (unsigned)v);
#else
    int total = v;
    for (k = 16; k > 0; k /= 2)
        total += __shfl_xor_sync(FULL_MASK, total, k);
#endif
    if (lane == 0)
        totals[warp] = total;
    x = warp_scan(v, 32);
    __syncthreads();
#pragma unroll
    for (k = 0; k < THREADS / 32 - 1; k++)
        before += k < warp ? totals[k] : 0;
    return x + before;
}

/* How each tile kernel gets the sum of the threads' totals before it. */
enum { BY_LESSON, BY_CUB_RAKING, BY_CUB_WARPSCANS, BY_REDUX, BY_RAKING, BY_RAKING4,
       BY_TOTAL_FIRST };

template <int THREADS, int HOW>
struct block_prefix {
    typedef cub::BlockScan<int, THREADS, HOW == BY_CUB_WARPSCANS ? cub::BLOCK_SCAN_WARP_SCANS
                                                                 : cub::BLOCK_SCAN_RAKING> cub_scan;
    union storage {
        int totals[32];
        int rake[HOW == BY_RAKING ? THREADS + 32 : 1];
        int4 rake4[HOW == BY_RAKING4 ? THREADS / 4 : 1];
        typename cub_scan::TempStorage cub;
    };
    /* The exclusive block scan of t (the sum of the threads before). */
    static __device__ __forceinline__ int exclusive(int t, storage &s)
    {
        if (HOW == BY_LESSON)
            return block_scan(t, s.totals) - t;
        if (HOW == BY_REDUX)
            return block_scan_redux(t, s.totals) - t;
        if (HOW == BY_RAKING)
            return block_scan_raking<THREADS>(t, s.rake) - t;
        if (HOW == BY_RAKING4)
            return block_scan_raking4<THREADS>(t, (int *)s.rake4) - t;
        if (HOW == BY_TOTAL_FIRST)
            return block_scan_total_first<THREADS>(t, s.totals) - t;
        int ex;
        cub_scan(s.cub).ExclusiveSum(t, ex);
        return ex;
    }
    static __device__ __forceinline__ int inclusive(int t, storage &s)
    {
        if (HOW == BY_LESSON)
            return block_scan(t, s.totals);
        if (HOW == BY_REDUX)
            return block_scan_redux(t, s.totals);
        if (HOW == BY_RAKING)
            return block_scan_raking<THREADS>(t, s.rake);
        if (HOW == BY_RAKING4)
            return block_scan_raking4<THREADS>(t, (int *)s.rake4);
        if (HOW == BY_TOTAL_FIRST)
            return block_scan_total_first<THREADS>(t, s.totals);
        int inc;
        cub_scan(s.cub).InclusiveSum(t, inc);
        return inc;
    }
};

/* repeat-*: 32 block scans in a row of one int per thread. The storage is
 * double-buffered: each scan holds a barrier, which orders the scan two
 * before it (same buffer) against this one. */
#define REPEATS 32
template <int THREADS, int HOW>
__global__ void __launch_bounds__(THREADS) repeat_scan(const int *in, int *out)
{
    typedef block_prefix<THREADS, HOW> P;
    __shared__ typename P::storage s[2];
    long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
    int v = in[i];
#pragma unroll 1
    for (int r = 0; r < REPEATS; r++)
        v = P::inclusive(v, s[r & 1]) & 0xffff;  /* keep the values small */
    out[i] = v;
}

/* tile-*: each tile's inclusive scan, tiles independent. */
template <int THREADS, int ITEMS, int HOW>
__global__ void __launch_bounds__(THREADS) tile_scan(const int *__restrict__ in, int *out,
                                                     long long n)
{
    typedef block_prefix<THREADS, HOW> P;
    __shared__ typename P::storage s;
    long long base = ((long long)blockIdx.x * THREADS + threadIdx.x) * ITEMS;
    int x[ITEMS];
    load_items<ITEMS>(in, base, n, x);
    int t = thread_scan<ITEMS>(x);
    int before = P::exclusive(t, s);
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        x[j] += before;
    store_items<ITEMS>(out, base, n, x);
}

/* ---- the device-wide scans: a tile in warp rows ---------------------- */

/* in[i..i+4) as one 16-byte load (i a multiple of 4), 0 past n. */
__device__ __forceinline__ int4 load4(const int *__restrict__ in, long long i, long long n)
{
    if (i + 4 <= n)
        return *(const int4 *)(in + i);
    return make_int4(i < n ? in[i] : 0, i + 1 < n ? in[i + 1] : 0,
                     i + 2 < n ? in[i + 2] : 0, i + 3 < n ? in[i + 3] : 0);
}

__device__ __forceinline__ void store4(int *out, long long i, long long n, int4 v)
{
    if (i + 4 <= n) {
        *(int4 *)(out + i) = v;
        return;
    }
    if (i < n) out[i] = v.x;
    if (i + 1 < n) out[i + 1] = v.y;
    if (i + 2 < n) out[i + 2] = v.z;
}

/*
 * A tile of THREADS x ITEMS ints held in "warp rows": warp w owns the w-th
 * run of 32 x ITEMS consecutive ints of the tile, as ITEMS/4 rows of 128;
 * in row q, lane l holds ints 4l..4l+3 in one int4. Each of the warp's
 * ITEMS/4 loads (and stores) is then one 16-byte access per lane over 512
 * contiguous bytes, fully coalesced, and all of them are in flight before
 * the first is used. (The block table's tile kernels give each thread
 * ITEMS consecutive ints instead: each of their loads spans 32 x ITEMS x 4
 * bytes and touches every sector twice.)
 */
template <int THREADS, int ITEMS>
struct warp_rows {
    enum { ROWS = ITEMS / 4 };
    int4 x[ROWS];
    long long first;    /* this lane's first int (row 0) */

    __device__ __forceinline__ void load(const int *__restrict__ in, long long tile, long long n)
    {
        first = tile * (THREADS * ITEMS) + (long long)WARP_IN_BLOCK() * (32 * ITEMS) + 4 * LANE();
        if (first + 128 * (ROWS - 1) + 4 <= n) {    /* all in range: no test per row */
#pragma unroll
            for (int q = 0; q < ROWS; q++)
                x[q] = *(const int4 *)(in + first + 128 * q);
        } else {
#pragma unroll
            for (int q = 0; q < ROWS; q++)
                x[q] = load4(in, first + 128 * q, n);
        }
    }
    __device__ __forceinline__ void store(int *out, long long n) const
    {
        if (first + 128 * (ROWS - 1) + 4 <= n) {
#pragma unroll
            for (int q = 0; q < ROWS; q++)
                *(int4 *)(out + first + 128 * q) = x[q];
        } else {
#pragma unroll
            for (int q = 0; q < ROWS; q++)
                store4(out, first + 128 * q, n, x[q]);
        }
    }
    /* The sum of this lane's ints. */
    __device__ __forceinline__ int sum() const
    {
        int t = 0;
#pragma unroll
        for (int q = 0; q < ROWS; q++)
            t += x[q].x + x[q].y + x[q].z + x[q].w;
        return t;
    }
    /* The inclusive scan of the warp's 32 x ITEMS ints, in place, with the
     * lesson's warp_scan on each row's four-int sums (the rows' scans are
     * independent: they overlap); returns the warp's total, in every lane. */
    __device__ __forceinline__ int scan_warp()
    {
        int carry = 0;
#pragma unroll
        for (int q = 0; q < ROWS; q++) {
            x[q].y += x[q].x;
            x[q].z += x[q].y;
            x[q].w += x[q].z;
            int inc = warp_scan(x[q].w, 32);
            int add = carry + inc - x[q].w;
            x[q].x += add; x[q].y += add; x[q].z += add; x[q].w += add;
            carry += __shfl_sync(FULL_MASK, inc, 31);
        }
        return carry;
    }
    __device__ __forceinline__ void add(int a)
    {
#pragma unroll
        for (int q = 0; q < ROWS; q++) {
            x[q].x += a; x[q].y += a; x[q].z += a; x[q].w += a;
        }
    }
};

/* The inclusive scan of a tile held in warp rows, in place: each warp
 * scans its rows, lane 31 publishes the warp's total, and sync.cu's
 * warps_before (one __syncthreads) gives each warp the totals of the warps
 * before it. Returns the tile's total (right in the last warp). */
template <int THREADS, int ITEMS>
__device__ __forceinline__ int tile_scan_rows(warp_rows<THREADS, ITEMS> &r, int *totals)
{
    int warp_total = r.scan_warp();
    if (LANE() == 31)
        totals[WARP_IN_BLOCK()] = warp_total;
    int before = warps_before(totals);
    r.add(before);
    return before + warp_total;
}

/* reduce-then-scan, pass 1: sums[b] is tile b's sum. The blocks take the
 * tiles from the last to the first, so that the tiles this pass reads last
 * are the ones pass 3 reads first, while they may still be in L2: at 2^24
 * ints (64 MiB, L2 50 MiB on an H100) a part of the second read, at 2^30
 * nothing noticeable. */
template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS) tile_sums(const int *__restrict__ in, long long n,
                                                     int *sums)
{
    __shared__ int totals[32];
    long long tile = (long long)gridDim.x - 1 - blockIdx.x;
    warp_rows<THREADS, ITEMS> r;
    r.load(in, tile, n);
    int t = block_scan(r.sum(), totals);
    if (threadIdx.x == THREADS - 1)
        sums[tile] = t;
}

/* Pass 2, one block of 1024 threads: sums[0..count) becomes its exclusive
 * scan, 16384 at a time (warp rows of 16 ints a lane), with the running
 * total carried between rounds (double-buffered, like the block scan's
 * storage). */
__global__ void __launch_bounds__(1024) scan_sums(int *sums, long long count)
{
    __shared__ int totals[2][32];
    __shared__ int carry[2];
    int c = 0, r = 0;
    for (long long round = 0; round * 16384 < count; round++, r ^= 1) {
        warp_rows<1024, 16> x;
        x.load(sums, round, count);
        warp_rows<1024, 16> v = x;
        int total = tile_scan_rows(x, totals[r]);
#pragma unroll
        for (int q = 0; q < 4; q++) {       /* exclusive, after the rounds before */
            x.x[q].x += c - v.x[q].x; x.x[q].y += c - v.x[q].y;
            x.x[q].z += c - v.x[q].z; x.x[q].w += c - v.x[q].w;
        }
        x.store(sums, count);
        if (threadIdx.x == 1023)
            carry[r] = c + total;
        __syncthreads();
        c = carry[r];
    }
}

/* Pass 3: each tile's inclusive scan plus prefixes[b], the sum of the tiles
 * before it. */
template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS) tile_scan_with(const int *__restrict__ in, int *out,
                                                          long long n, const int *prefixes)
{
    __shared__ int totals[32];
    warp_rows<THREADS, ITEMS> r;
    r.load(in, blockIdx.x, n);
    int prefix = prefixes[blockIdx.x];
    tile_scan_rows(r, totals);
    r.add(prefix);
    r.store(out, n);
}

/* lookback: a tile's status word, published with one 64-bit store so that
 * the flag and the value travel together (no fence between them needed).
 * status[0] is the ticket counter, status[1 + b] tile b's word, so that one
 * memset clears both before a scan. */
enum { ST_NONE = 0, ST_SUM = 1, ST_PREFIX = 2 };
__device__ __forceinline__ void publish(unsigned long long *status, long long tile,
                                        unsigned flag, int value)
{
    *(volatile unsigned long long *)&status[tile] =
        ((unsigned long long)flag << 32) | (unsigned)value;
}

/*
 * The look-back of tile `tile` (> 0), by one whole warp: lane l reads the
 * status of tile top - l, waits until all 32 have published something, and
 * adds the values up to the nearest one that holds an inclusive prefix; if
 * none does, the window moves 32 tiles further back. Returns the sum of
 * every tile before `tile`, in every lane.
 */
__device__ __forceinline__ int look_back(const unsigned long long *status, long long tile)
{
    int lane = LANE(), before = 0;
    long long top = tile - 1;
    for (;;) {
        long long p = top - lane;
        unsigned long long w;
        do {
            w = p >= 0 ? *(const volatile unsigned long long *)&status[p]
                       : (unsigned long long)ST_PREFIX << 32;
        } while (__any_sync(FULL_MASK, (unsigned)(w >> 32) == ST_NONE));
        unsigned done = __ballot_sync(FULL_MASK, (unsigned)(w >> 32) == ST_PREFIX);
        int last = done ? __ffs(done) - 1 : 31;
        int v = lane <= last ? (int)(unsigned)w : 0;
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_xor_sync(FULL_MASK, v, o);
        before += v;
        if (done)
            return before;
        top -= 32;
    }
}

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS) scan_lookback(const int *__restrict__ in, int *out,
                                                         long long n,
                                                         unsigned long long *status_and_ticket)
{
    __shared__ int totals[32];
    __shared__ int prefix;
    __shared__ unsigned my_tile;
    unsigned *ticket = (unsigned *)status_and_ticket;
    unsigned long long *status = status_and_ticket + 1;
    /* Tiles in the order blocks start: every tile a block waits on belongs
     * to a block that has already started, so the wait ends. */
    if (threadIdx.x == 0)
        my_tile = atomicAdd(ticket, 1u);
    __syncthreads();
    long long tile = my_tile;
    warp_rows<THREADS, ITEMS> r;
    r.load(in, tile, n);
    int sum = tile_scan_rows(r, totals);
    if (WARP_IN_BLOCK() == THREADS / 32 - 1) {
        /* The last warp holds the tile's sum in every lane and looks back. */
        int before = 0;
        if (LANE() == 0)
            publish(status, tile, tile == 0 ? ST_PREFIX : ST_SUM, sum);
        if (tile > 0) {
            before = look_back(status, tile);
            if (LANE() == 0)
                publish(status, tile, ST_PREFIX, before + sum);
        }
        if (LANE() == 0)
            prefix = before;
    }
    __syncthreads();
    r.add(prefix);
    r.store(out, n);
}

/* ---- lookback-fast: the single pass made as fast as the memory allows -- */

/*
 * lookback-fast is scan_lookback with four changes, each a bit of OPTS (the
 * ablation table of the benchmark takes them back one at a time):
 *   LB_LINE     each tile's status word in a 128-byte line of its own
 *               (LB_SECTOR: a 32-byte sector of its own; neither: packed,
 *               16 words a line, as scan_lookback and CUB have them), so
 *               that the warps polling a word and those publishing into
 *               the words beside it meet on different lines (the change
 *               that mattered: see the lesson's README);
 *   LB_EARLY    the tile's sum is published before the tile is scanned: each
 *               warp adds up its ints (one __reduce_add_sync), one barrier,
 *               and warp 0 publishes and looks back while the other warps
 *               scan their rows; a second barrier hands out the prefix;
 *   LB_EPOCH    no memset before a scan: each status word carries the number
 *               of the scan that wrote it (a word of an earlier scan reads as
 *               "nothing published"), and the ticket counter runs on from
 *               scan to scan, each scan counting its tiles from its own base;
 *   the look-back window (WINDOW x 32 tiles polled at once) and its wait:
 *               only the tiles up to the nearest inclusive prefix must have
 *               published, and only the lanes whose tile had not are polled
 *               again.
 * And two that did not pay, kept for the ablation table: LB_SLEEP
 * (__nanosleep between polls) and LB_STCS (stores with st.global.cs); plus
 * LB_NOLOOK, no look-back at all (each tile scanned on its own: what the
 * tile loop costs without it).
 */
enum {
    LB_LINE = 1, LB_SECTOR = 2, LB_EARLY = 4, LB_EPOCH = 8, LB_SLEEP = 16, LB_STCS = 32,
    LB_NOLOOK = 64
};

/* The sum of v over the warp, in every lane: one __reduce_add_sync from
 * compute capability 8.0 on, a __shfl_xor_sync butterfly before. */
__device__ __forceinline__ int warp_sum(int v)
{
#if __CUDA_ARCH__ >= 800
    return (int)__reduce_add_sync(FULL_MASK, (unsigned)v);
#else
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
#endif
}

/* The state of lookback-fast: word 0 the ticket counter, the tiles' status
 * words from word LB_STATUS0 on (a 128-byte line apart from the ticket). A
 * status word: bits 63..34 the epoch of the scan that wrote it (with
 * LB_EPOCH; else 0), 33..32 the flag, 31..0 the value. A word of another
 * epoch reads as ST_NONE. */
#define LB_STATUS0 16
#define LB_STRIDE 16    /* words per tile, at most (LB_LINE) */
#define LB_FLAG(w, epoch) ((unsigned)((w) >> 34) == (epoch) ? (unsigned)((w) >> 32) & 3u : ST_NONE)

template <int OPTS>
__device__ __forceinline__ unsigned long long *lb_word(unsigned long long *status, long long t)
{
    return status + ((OPTS & LB_LINE) ? 16 * t : (OPTS & LB_SECTOR) ? 4 * t : t);
}

template <int OPTS>
__device__ __forceinline__ void lb_publish(unsigned long long *status, long long t,
                                           unsigned epoch, unsigned flag, int value)
{
    *(volatile unsigned long long *)lb_word<OPTS>(status, t) =
        ((unsigned long long)epoch << 34) | ((unsigned long long)flag << 32) | (unsigned)value;
}

template <int OPTS>
__device__ __forceinline__ unsigned long long lb_poll(unsigned long long *status, long long p,
                                                      unsigned epoch)
{
    return p >= 0 ? *(const volatile unsigned long long *)lb_word<OPTS>(status, p)
                  : ((unsigned long long)epoch << 34) | ((unsigned long long)ST_PREFIX << 32);
}

/*
 * The look-back of tile `tile` (> 0) by one warp, WINDOW x 32 tiles at a
 * time: lane l polls tiles top - l - 32k (k < WINDOW), all loads issued
 * together. The window is ready when every tile up to the nearest one with
 * an inclusive prefix has published something; until then only the lanes
 * whose tile had published nothing poll again. Returns the sum of every
 * tile before `tile`, in every lane.
 */
template <int WINDOW, int OPTS>
__device__ __forceinline__ int look_back_fast(unsigned long long *status, long long tile,
                                              unsigned epoch)
{
    int lane = LANE(), before = 0;
    long long top = tile - 1;
    for (;;) {
        unsigned long long w[WINDOW];
        int stop_k, stop_l;     /* the nearest inclusive prefix; stop_k == WINDOW: none */
#pragma unroll
        for (int k = 0; k < WINDOW; k++)
            w[k] = lb_poll<OPTS>(status, top - lane - 32 * k, epoch);
        for (;;) {
            bool wait = false;
            stop_k = WINDOW;
            stop_l = 0;
#pragma unroll
            for (int k = 0; k < WINDOW; k++) {
                unsigned f = LB_FLAG(w[k], epoch);
                unsigned pre = __ballot_sync(FULL_MASK, f == ST_PREFIX);
                unsigned none = __ballot_sync(FULL_MASK, f == ST_NONE);
                if (stop_k == WINDOW) {
                    if (pre) {
                        stop_k = k;
                        stop_l = __ffs(pre) - 1;
                        none &= (2u << stop_l) - 1u;   /* only those up to it count */
                    }
                    wait = wait || none != 0;
                }
            }
            if (!wait)
                break;
            if (OPTS & LB_SLEEP)
                __nanosleep(32);
#pragma unroll
            for (int k = 0; k < WINDOW; k++)
                if (LB_FLAG(w[k], epoch) == ST_NONE)
                    w[k] = lb_poll<OPTS>(status, top - lane - 32 * k, epoch);
        }
        int v = 0;
#pragma unroll
        for (int k = 0; k < WINDOW; k++)
            if (k < stop_k || (k == stop_k && lane <= stop_l))
                v += (int)(unsigned)w[k];
        before += warp_sum(v);
        if (stop_k < WINDOW)
            return before;
        top -= 32 * WINDOW;
    }
}

/* The tile's stores, in warp rows (st.global.cs with LB_STCS). */
template <int THREADS, int ITEMS, int OPTS>
__device__ __forceinline__ void lb_store_rows(const warp_rows<THREADS, ITEMS> &r, int *out,
                                              long long n)
{
    if (!(OPTS & LB_STCS)) {
        r.store(out, n);
    } else if (r.first + 128 * (r.ROWS - 1) + 4 <= n) {
#pragma unroll
        for (int q = 0; q < r.ROWS; q++)
            __stcs((int4 *)(out + r.first + 128 * q), r.x[q]);
    } else {
#pragma unroll
        for (int q = 0; q < r.ROWS; q++)
            store4(out, r.first + 128 * q, n, r.x[q]);
    }
}

/* The tile's look-back by the calling warp: publishes the tile's sum, looks
 * back, publishes its inclusive prefix; returns the sum of the tiles before. */
template <int WINDOW, int OPTS>
__device__ __forceinline__ int lb_prefix(unsigned long long *status, long long tile,
                                         unsigned epoch, int sum)
{
    int lane = LANE(), before = 0;
    if (OPTS & LB_NOLOOK)
        return 0;
    if (lane == 0)
        lb_publish<OPTS>(status, tile, epoch, tile == 0 ? ST_PREFIX : ST_SUM, sum);
    if (tile > 0) {
        before = look_back_fast<WINDOW, OPTS>(status, tile, epoch);
        if (lane == 0)
            lb_publish<OPTS>(status, tile, epoch, ST_PREFIX, before + sum);
    }
    return before;
}

/*
 * lookback-fast. state: the ticket counter, then the status words (see
 * LB_STATUS0); base: the counter's value when this scan starts (0 after a
 * memset); epoch: this scan's number (with LB_EPOCH: never 0, and never the
 * same as a scan before it that used the same state: 30 bits, so a state
 * zeroed once serves 2^30 - 1 scans).
 */
template <int THREADS, int ITEMS, int WINDOW, int OPTS>
__global__ void __launch_bounds__(THREADS) scan_lookback_fast(const int *__restrict__ in, int *out,
                                                              long long n,
                                                              unsigned long long *state,
                                                              unsigned long long base,
                                                              unsigned epoch)
{
    __shared__ int totals[32];
    __shared__ int prefix;
    __shared__ unsigned long long my_tile;
    unsigned long long *status = state + LB_STATUS0;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    if (threadIdx.x == 0)
        my_tile = atomicAdd(state, 1ULL) - base;
    __syncthreads();
    long long tile = (long long)my_tile;
    warp_rows<THREADS, ITEMS> r;
    r.load(in, tile, n);
    if (OPTS & LB_EARLY) {
        int wsum = warp_sum(r.sum());
        if (lane == 0)
            totals[warp] = wsum;
        __syncthreads();
        int t = lane < THREADS / 32 ? totals[lane] : 0;
        int wbefore = warp_sum(lane < warp ? t : 0);
        if (warp == 0) {
            int before = lb_prefix<WINDOW, OPTS>(status, tile, epoch, warp_sum(t));
            if (lane == 0)
                prefix = before;
        }
        r.scan_warp();
        __syncthreads();
        r.add(prefix + wbefore);
    } else {
        int sum = tile_scan_rows(r, totals);
        if (warp == THREADS / 32 - 1) {
            int before = lb_prefix<WINDOW, OPTS>(status, tile, epoch, sum);
            if (lane == 0)
                prefix = before;
        }
        __syncthreads();
        r.add(prefix);
    }
    lb_store_rows<THREADS, ITEMS, OPTS>(r, out, n);
}

/*
 * For the ablation table, the look-back by a warp of its own, which holds no
 * data (lookback-fast's "own-warp" row): the block is THREADS data threads
 * plus that warp, which starts polling while the data warps' loads are in
 * flight. The data warps add up their ints (a named barrier among them);
 * warp 0 hands the tile's sum over in shared memory with a flag, which the
 * look-back warp checks between two polls: it publishes the sum when it
 * sees it, or, when its look-back has ended first, the inclusive prefix
 * straight away. One __syncthreads hands the prefix to the data warps.
 */
template <int WINDOW, int OPTS>
__device__ __forceinline__ int look_back_own(unsigned long long *status, long long tile,
                                             unsigned epoch, volatile int *ready,
                                             volatile int *tile_sum, bool &published)
{
    int lane = LANE(), before = 0;
    long long top = tile - 1;
    for (;;) {
        unsigned long long w[WINDOW];
        int stop_k, stop_l;
#pragma unroll
        for (int k = 0; k < WINDOW; k++)
            w[k] = lb_poll<OPTS>(status, top - lane - 32 * k, epoch);
        for (;;) {
            if (!published && __shfl_sync(FULL_MASK, *ready, 0)) {
                if (lane == 0)
                    lb_publish<OPTS>(status, tile, epoch, ST_SUM, *tile_sum);
                published = true;
            }
            bool wait = false;
            stop_k = WINDOW;
            stop_l = 0;
#pragma unroll
            for (int k = 0; k < WINDOW; k++) {
                unsigned f = LB_FLAG(w[k], epoch);
                unsigned pre = __ballot_sync(FULL_MASK, f == ST_PREFIX);
                unsigned none = __ballot_sync(FULL_MASK, f == ST_NONE);
                if (stop_k == WINDOW) {
                    if (pre) {
                        stop_k = k;
                        stop_l = __ffs(pre) - 1;
                        none &= (2u << stop_l) - 1u;
                    }
                    wait = wait || none != 0;
                }
            }
            if (!wait)
                break;
#pragma unroll
            for (int k = 0; k < WINDOW; k++)
                if (LB_FLAG(w[k], epoch) == ST_NONE)
                    w[k] = lb_poll<OPTS>(status, top - lane - 32 * k, epoch);
        }
        int v = 0;
#pragma unroll
        for (int k = 0; k < WINDOW; k++)
            if (k < stop_k || (k == stop_k && lane <= stop_l))
                v += (int)(unsigned)w[k];
        before += warp_sum(v);
        if (stop_k < WINDOW)
            return before;
        top -= 32 * WINDOW;
    }
}

template <int THREADS, int ITEMS, int WINDOW, int OPTS>
__global__ void __launch_bounds__(THREADS + 32)
scan_lookback_own(const int *__restrict__ in, int *out, long long n, unsigned long long *state,
                  unsigned long long base, unsigned epoch)
{
    __shared__ int totals[32];
    __shared__ int prefix;
    __shared__ unsigned long long my_tile;
    __shared__ volatile int ready, tile_sum;
    unsigned long long *status = state + LB_STATUS0;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    if (threadIdx.x == 0) {
        my_tile = atomicAdd(state, 1ULL) - base;
        ready = 0;
    }
    __syncthreads();
    long long tile = (long long)my_tile;
    if (warp < THREADS / 32) {
        warp_rows<THREADS, ITEMS> r;
        r.load(in, tile, n);
        int wsum = warp_sum(r.sum());
        if (lane == 0)
            totals[warp] = wsum;
        asm volatile("bar.sync 1, %0;" ::"r"(THREADS) : "memory");   /* the data warps only */
        int t = lane < THREADS / 32 ? totals[lane] : 0;
        int wbefore = warp_sum(lane < warp ? t : 0);
        int sum = warp_sum(t);
        if (warp == 0 && lane == 0) {
            tile_sum = sum;
            __threadfence_block();
            ready = 1;
        }
        r.scan_warp();
        __syncthreads();
        r.add(prefix + wbefore);
        r.store(out, n);
    } else {
        int before = 0;
        bool published = false;
        if (tile > 0)
            before = look_back_own<WINDOW, OPTS>(status, tile, epoch, &ready, &tile_sum, published);
        while (!__shfl_sync(FULL_MASK, ready, 0))
            ;
        if (lane == 0) {
            lb_publish<OPTS>(status, tile, epoch, ST_PREFIX, before + tile_sum);
            prefix = before;
        }
        __syncthreads();
    }
}

/* ---- settings: each (threads, items) pair is its own instantiation ---- */

typedef void (*tile_fn)(const int *, int *, long long);
typedef void (*sums_fn)(const int *, long long, int *);
typedef void (*with_fn)(const int *, int *, long long, const int *);
typedef void (*look_fn)(const int *, int *, long long, unsigned long long *);
typedef void (*repeat_fn)(const int *, int *);

/* The block table's tile kernels. */
#define NTILE_HOW 6
static const char *tile_how_name[NTILE_HOW] = { "lesson", "cub-raking", "cub-warpscans", "raking4",
                                                "redux", "total-first" };
struct setting {
    int threads, items;
    tile_fn tile[NTILE_HOW];
};
#define SETTING(T, I)                                                            \
    { T, I, { tile_scan<T, I, BY_LESSON>, tile_scan<T, I, BY_CUB_RAKING>,        \
              tile_scan<T, I, BY_CUB_WARPSCANS>, tile_scan<T, I, BY_RAKING4>,          \
              tile_scan<T, I, BY_REDUX>, tile_scan<T, I, BY_TOTAL_FIRST> } }
static const setting settings[] = {
    SETTING(256, 16),   /* the default: first */
    SETTING(128, 16), SETTING(512, 16), SETTING(128, 8), SETTING(256, 8),
    SETTING(512, 8), SETTING(1024, 8), SETTING(256, 4), SETTING(128, 4), SETTING(512, 4),
};
#define NSETTINGS ((int)(sizeof settings / sizeof settings[0]))

/* The device-wide scans (items a multiple of 4: warp rows of int4). */
struct scan_setting {
    int threads, items;
    sums_fn sums;
    with_fn with;
    look_fn look;
};
#define SCAN_SETTING(T, I) { T, I, tile_sums<T, I>, tile_scan_with<T, I>, scan_lookback<T, I> }
static const scan_setting scan_settings[] = {
    SCAN_SETTING(128, 32),   /* the default: first */
    SCAN_SETTING(128, 16), SCAN_SETTING(256, 16), SCAN_SETTING(512, 16),
    SCAN_SETTING(128, 24), SCAN_SETTING(256, 24), SCAN_SETTING(256, 32),
    SCAN_SETTING(256, 8),
};
#define NSCAN ((int)(sizeof scan_settings / sizeof scan_settings[0]))

/* lookback-fast: LB_LINE | LB_EARLY | LB_EPOCH with a window of 32 tiles,
 * at several tile shapes; and the ablation table's variants of it at 128 x
 * 32 (block: the threads launched; opts: the kernel's OPTS). */
typedef void (*fast_fn)(const int *, int *, long long, unsigned long long *, unsigned long long,
                        unsigned);
struct fast_setting {
    const char *name;
    int threads, items, block, opts;
    fast_fn fn;
};
#define FAST_OPTS (LB_LINE | LB_EARLY | LB_EPOCH)
#define FAST_SETTING(T, I) { "lookback-fast", T, I, T, FAST_OPTS, scan_lookback_fast<T, I, 1, FAST_OPTS> }
static const fast_setting fast_settings[] = {
    FAST_SETTING(128, 32),   /* the default: first */
    FAST_SETTING(128, 24), FAST_SETTING(128, 40), FAST_SETTING(128, 48), FAST_SETTING(256, 32),
    FAST_SETTING(256, 40),
};
#define NFAST ((int)(sizeof fast_settings / sizeof fast_settings[0]))
#define ABLATION(NAME, W, O) { NAME, 128, 32, 128, O, scan_lookback_fast<128, 32, W, O> }
static const fast_setting ablations[] = {
    ABLATION("lookback-fast", 1, FAST_OPTS),
    ABLATION("status-packed", 1, LB_EARLY | LB_EPOCH),
    ABLATION("status-sector", 1, LB_SECTOR | LB_EARLY | LB_EPOCH),
    ABLATION("window-64", 2, FAST_OPTS),
    ABLATION("window-128", 4, FAST_OPTS),
    ABLATION("window-128-packed", 4, LB_EARLY | LB_EPOCH),
    ABLATION("publish-late", 1, LB_LINE | LB_EPOCH),
    ABLATION("memset", 1, LB_LINE | LB_EARLY),
    ABLATION("sleep", 1, FAST_OPTS | LB_SLEEP),
    ABLATION("st.cs", 1, FAST_OPTS | LB_STCS),
    { "own-warp", 128, 32, 160, LB_LINE | LB_EPOCH, scan_lookback_own<128, 32, 1, LB_LINE | LB_EPOCH> },
    ABLATION("no-look-back", 1, FAST_OPTS | LB_NOLOOK),
};
#define NABLATION ((int)(sizeof ablations / sizeof ablations[0]))
#define MIN_FAST_TILE 2048  /* the smallest threads x items of lookback-fast */
#define MIN_SCAN_TILE 2048  /* the smallest threads x items above */

#define NHOW 6
struct repeat_setting { int threads; repeat_fn fn[NHOW]; };
#define REPEAT(T) { T, { repeat_scan<T, BY_LESSON>, repeat_scan<T, BY_CUB_RAKING>, \
                         repeat_scan<T, BY_CUB_WARPSCANS>, repeat_scan<T, BY_REDUX>, \
                         repeat_scan<T, BY_RAKING>, repeat_scan<T, BY_RAKING4> } }
static const repeat_setting repeats[] = { REPEAT(256), REPEAT(128), REPEAT(512), REPEAT(1024) };
static const char *how_name[NHOW] = { "lesson", "cub-raking", "cub-warpscans", "redux", "raking",
                                      "raking4" };

/* ---- host side --------------------------------------------------------- */

struct bufs {
    int *in, *out, *sums;
    unsigned long long *status;     /* [0]: the ticket; [1 + b]: tile b */
    unsigned long long *fstate;     /* lookback-fast: ticket, then status words */
    void *cub_tmp;
    size_t cub_bytes;
    int4 *scrub;
    long long scrub_n4;
    int *sink;
};

static double datasheet_gbps(const char *name)
{
    if (strstr(name, "H200"))
        return 4800;
    if (strstr(name, "H100")) {
        if (strstr(name, "PCIe"))
            return 2000;
        if (strstr(name, "NVL"))
            return 3900;
        if (strstr(name, "SXM") || strstr(name, "HBM3"))
            return 3350;
    }
    return 0;
}

/* Reads the scrub buffer (twice the L2), so that L2 holds none of the data. */
__global__ void scrub_l2(const int4 *buf, long long n4, int *sink)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    int x = 0;
    for (; i < n4; i += stride) {
        int4 v = buf[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x7fffffff)
        *sink = x;
}

enum { M_CUB, M_RTS, M_LOOK, M_FAST, M_COPY };
static const char *device_name[] = { "cub", "reduce-then-scan", "lookback", "lookback-fast",
                                     "memcpy" };


static long long tiles_of(long long n, int tile)
{
    return (n + tile - 1) / tile;
}

/* lookback-fast's scans so far: the epoch of the last, and the ticket
 * counter's value after it (the next scan's base). */
static unsigned fast_epoch = 0;
static unsigned long long fast_base = 0;

/* One lookback-fast scan of in[0..n) into out, with setting f. */
static void fast_run(const fast_setting *f, const bufs *b, long long n)
{
    long long tiles = tiles_of(n, f->threads * f->items);
    unsigned epoch = 0;
    unsigned long long base = 0;
    if (f->opts & LB_EPOCH) {
        epoch = ++fast_epoch;
        base = fast_base;
    } else {
        CUDA_CHECK(cudaMemsetAsync(b->fstate, 0, (size_t)(LB_STATUS0 + LB_STRIDE * tiles) *
                                                     sizeof *b->fstate));
    }
    f->fn<<<(unsigned)tiles, f->block>>>(b->in, b->out, n, b->fstate, base, epoch);
    fast_base = base + (unsigned long long)tiles;
}

/* One device-wide scan of b->in[0..n) into b->out by method m (setting s
 * for reduce-then-scan and lookback, fast_settings[fast_k] for
 * lookback-fast). */
static void device_run(int m, const scan_setting *s, int fast_k, const bufs *b, long long n)
{
    int tile = s->threads * s->items;
    long long tiles = tiles_of(n, tile);
    switch (m) {
    case M_CUB: {
        size_t bytes = b->cub_bytes;
        CUDA_CHECK(cub_inclusive_sum(b->cub_tmp, &bytes, b->in, b->out, (int)n));
        break;
    }
    case M_RTS:
        s->sums<<<(unsigned)tiles, s->threads>>>(b->in, n, b->sums);
        scan_sums<<<1, 1024>>>(b->sums, tiles);
        s->with<<<(unsigned)tiles, s->threads>>>(b->in, b->out, n, b->sums);
        break;
    case M_LOOK:
        CUDA_CHECK(cudaMemsetAsync(b->status, 0, (size_t)(tiles + 1) * sizeof *b->status));
        s->look<<<(unsigned)tiles, s->threads>>>(b->in, b->out, n, b->status);
        break;
    case M_FAST:
        fast_run(&fast_settings[fast_k], b, n);
        break;
    case M_COPY:
        CUDA_CHECK(cudaMemcpyAsync(b->out, b->in, (size_t)n * sizeof(int),
                                   cudaMemcpyDeviceToDevice));
        break;
    }
    CUDA_CHECK(cudaGetLastError());
}

/* The median times ms[0..m) of `reps` runs of each of run(0) .. run(m-1),
 * after `warm` untimed rounds: each round runs every one once, each timed
 * run after an L2 scrub, so that the GPU's drift over the seconds a table
 * takes falls on all of them alike (the tile kernels differ by tenths of a
 * percent). */
template <class F>
static void median_ms_rounds(const bufs *b, int reps, int warm, int m, float *ms, F run)
{
    static float t[NTILE_HOW][BENCH_MAX_REPS];
    cudaEvent_t e0, e1;
    int i, h;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    for (i = 0; i < warm; i++)
        for (h = 0; h < m; h++)
            run(h);
    for (i = 0; i < reps; i++)
        for (h = 0; h < m; h++) {
            scrub_l2<<<1024, 256>>>(b->scrub, b->scrub_n4, b->sink);
            CUDA_CHECK(cudaEventRecord(e0, 0));
            run(h);
            CUDA_CHECK(cudaEventRecord(e1, 0));
            CUDA_CHECK(cudaEventSynchronize(e1));
            CUDA_CHECK(cudaEventElapsedTime(&t[h][i], e0, e1));
        }
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    for (h = 0; h < m; h++)
        ms[h] = bench_median(t[h], reps);
}

/* The median time of `reps` runs of run(), each after an L2 scrub (three
 * untimed runs first). */
template <class F>
static float median_ms(const bufs *b, int reps, F run)
{
    float ms;
    median_ms_rounds(b, reps, 3, 1, &ms, [&](int) { run(); });
    return ms;
}

/* Compares out[0..n) with want; prints the first difference. */
static int same(const int *want, const bufs *b, int *got, long long n, const char *what)
{
    long long i;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, b->out, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
    for (i = 0; i < n; i++)
        if (want[i] != got[i]) {
            fprintf(stderr, "bench: %s n=%lld: WRONG at %lld: expected %d got %d\n", what, n,
                    i, want[i], got[i]);
            return 0;
        }
    return 1;
}

static const char *gpu_name = "";
static double peak = 0;

static void row(const char *table, long long n, const char *method, const char *set,
                int threads, int items, float ms, double cub_ms, int ok, int bandwidth)
{
    double gbps = bench_gbps(8.0 * (double)n, ms);
    char g[32] = "", pct[32] = "", ratio[32] = "", pk[32] = "";
    if (bandwidth) {
        snprintf(g, sizeof g, "%.1f", gbps);
        if (peak > 0)
            snprintf(pct, sizeof pct, "%.1f", 100.0 * gbps / peak);
    }
    if (cub_ms > 0)
        snprintf(ratio, sizeof ratio, "%.3f", cub_ms / ms);
    if (peak > 0)
        snprintf(pk, sizeof pk, "%.0f", peak);
    printf("%s,%s,%lld,%lld,%s,%s,%d,%d,%.4f,%s,%s,%s,%s,%s\n", table, gpu_name, n, 8 * n,
           method, set, threads, items, ms, g, pct, ratio, ok ? "ok" : "WRONG", pk);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    long long n = 1LL << 30, levels = 4, reps = 20, verify = 0, peak_opt = 0, sweep = 1;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 4096, 1LL << 30, "the largest size (ints)" },
        { 'l', "levels", "L", &levels, 1, 8, "sizes: N, N/4, N/16, ... (L of them)" },
        { 'r', "reps", "R", &reps, 1, BENCH_MAX_REPS, "timed runs per measurement" },
        { 'V', "verify", "V", &verify, 0, 1, "1: check every kernel and setting, time nothing" },
        { 'S', "sweep", "S", &sweep, 0, 1, "1: sweep threads and items (device scans: at every size)" },
        { 'P', "peak", "GBPS", &peak_opt, 0, 100000,
          "datasheet DRAM bandwidth in GB/s (0: from the GPU's name)" },
    };
    static const char *no_variants[] = { "all: every method, see the comment at the top of bench.cu" };
    lesson_program program = { "bench.cu",
        "Lesson 07's benchmark: the lesson's block scan against cub::BlockScan,\n"
        "and device-wide inclusive scans of int32 against\n"
        "cub::DeviceScan::InclusiveSum. CSV on stdout, progress on stderr.",
        no_variants, 1, options, (int)(sizeof options / sizeof options[0]) };
    struct cudaDeviceProp prop;
    bufs b;
    int *in, *want, *got, lv, ok = 1, m, k, h;
    long long sizes[8], i, sweep_n = 0;

    lesson_parse(argc, argv, &program);
    if ((n >> (2 * (levels - 1))) < 1024)
        lesson_fail(LESSON_USAGE, "-l %lld levels from -n %lld go below 1024 ints", levels, n);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major < 7)
        lesson_fail(LESSON_USAGE, "the benchmark needs compute capability 7.0 or newer");
    gpu_name = prop.name;
    peak = peak_opt > 0 ? (double)peak_opt : datasheet_gbps(prop.name);
    for (lv = 0; lv < levels; lv++)
        sizes[levels - 1 - lv] = n >> (2 * lv);
    for (lv = 0; lv < levels; lv++)
        if (sweep_n == 0 || llabs(sizes[lv] - (1LL << 28)) < llabs(sweep_n - (1LL << 28)))
            sweep_n = sizes[lv];

    b.in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    b.out = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the output");
    b.sums = (int *)lesson_device_alloc((size_t)tiles_of(n, MIN_SCAN_TILE) * sizeof(int),
                                        "the tile sums");
    b.status = (unsigned long long *)lesson_device_alloc(
        (size_t)(tiles_of(n, MIN_SCAN_TILE) + 1) * sizeof(unsigned long long), "the tile status");
    b.fstate = (unsigned long long *)lesson_device_alloc(
        (size_t)(LB_STATUS0 + LB_STRIDE * tiles_of(n, MIN_FAST_TILE)) * sizeof(unsigned long long),
        "the tile status of lookback-fast");
    CUDA_CHECK(cudaMemset(b.fstate, 0, (size_t)(LB_STATUS0 + LB_STRIDE * tiles_of(n, MIN_FAST_TILE)) *
                                           sizeof(unsigned long long)));
    b.sink = (int *)lesson_device_alloc(sizeof(int), "the sink");
    b.scrub_n4 = 2LL * prop.l2CacheSize / 16;
    b.scrub = (int4 *)lesson_device_alloc((size_t)b.scrub_n4 * 16, "the L2 scrub buffer");
    CUDA_CHECK(cudaMemset(b.scrub, 0, (size_t)b.scrub_n4 * 16));
    b.cub_tmp = NULL;
    b.cub_bytes = 0;
    CUDA_CHECK(cub_inclusive_sum(b.cub_tmp, &b.cub_bytes, b.in, b.out, (int)n));
    b.cub_tmp = lesson_device_alloc(b.cub_bytes, "CUB's temporary storage");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");
    want = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the reference");
    got = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the output");
    lesson_random_ints(in, n, 1, 100);
    CUDA_CHECK(cudaMemcpy(b.in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    if (peak > 0)
        fprintf(stderr, "bench: %s, %d SMs, L2 %d MiB; datasheet DRAM bandwidth %.0f GB/s\n",
                prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, peak);
    else
        fprintf(stderr, "bench: %s, %d SMs, L2 %d MiB; datasheet DRAM bandwidth unknown (-P sets it)\n",
                prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);

    printf("table,gpu,n,bytes,method,setting,threads,items,ms,gbps,pct_peak,ratio_cub,"
           "check,peak_gbps\n");

    /* ---- block table: repeat-* at 2^24 ints, tile-* at the sweep size -- */
    {
        long long rn = n < (1LL << 24) ? n : 1LL << 24;
        int nrep = (int)(sizeof repeats / sizeof repeats[0]);
        for (k = 0; k < nrep; k++) {
            const repeat_setting *r = &repeats[k];
            long long blocks = rn / r->threads, count = blocks * r->threads;
            float ms[NHOW];
            int right[NHOW];
            if (k > 0 && !sweep)
                break;
            /* CPU: 32 inclusive block scans, each result cut to 16 bits. */
            for (i = 0; i < count; i += r->threads) {
                long long j;
                int rep;
                for (j = 0; j < r->threads; j++)
                    want[i + j] = in[i + j];
                for (rep = 0; rep < REPEATS; rep++) {
                    unsigned s = 0;
                    for (j = 0; j < r->threads; j++) {
                        s += (unsigned)want[i + j];
                        want[i + j] = (int)(s & 0xffff);
                    }
                }
            }
            for (h = 0; h < NHOW; h++) {
                CUDA_CHECK(cudaMemset(b.out, 0xab, (size_t)count * sizeof(int)));
                r->fn[h]<<<(unsigned)blocks, r->threads>>>(b.in, b.out);
                CUDA_CHECK(cudaGetLastError());
                right[h] = same(want, &b, got, count, how_name[h]);
                ok &= right[h];
                ms[h] = verify ? 0 : median_ms(&b, (int)reps, [&] {
                    r->fn[h]<<<(unsigned)blocks, r->threads>>>(b.in, b.out);
                });
                if (verify)
                    continue;
                bench_progress(h + 1, NHOW, "repeat %s, %d threads", how_name[h], r->threads);
            }
            if (!verify) {
                double best = ms[1] < ms[2] ? ms[1] : ms[2];
                for (h = 0; h < NHOW; h++) {
                    char method[32];
                    snprintf(method, sizeof method, "repeat-%s", how_name[h]);
                    row("block", count, method, k == 0 ? "default" : "sweep", r->threads, 1,
                        ms[h], best, right[h], 0);
                }
            }
        }
        for (k = 0; k < NSETTINGS; k++) {
            const setting *s = &settings[k];
            int tile = s->threads * s->items;
            float ms[NTILE_HOW];
            int right[NTILE_HOW];
            if (k > 0 && !sweep)
                break;
            for (i = 0; i < sweep_n; i += tile) {
                unsigned sum = 0;
                long long j;
                for (j = i; j < i + tile && j < sweep_n; j++) {
                    sum += (unsigned)in[j];
                    want[j] = (int)sum;
                }
            }
            for (h = 0; h < NTILE_HOW; h++) {
                CUDA_CHECK(cudaMemset(b.out, 0xab, (size_t)sweep_n * sizeof(int)));
                s->tile[h]<<<(unsigned)tiles_of(sweep_n, tile), s->threads>>>(b.in, b.out, sweep_n);
                CUDA_CHECK(cudaGetLastError());
                right[h] = same(want, &b, got, sweep_n, tile_how_name[h]);
                ok &= right[h];
                ms[h] = 0;
            }
            if (!verify)
                median_ms_rounds(&b, (int)reps, 1, NTILE_HOW, ms, [&](int h) {
                    s->tile[h]<<<(unsigned)tiles_of(sweep_n, tile), s->threads>>>(b.in, b.out, sweep_n);
                });
            if (!verify) {
                double best = ms[1] < ms[2] ? ms[1] : ms[2];
                bench_progress(k + 1, NSETTINGS, "tile scans, %d threads x %d items",
                               s->threads, s->items);
                for (h = 0; h < NTILE_HOW; h++) {
                    char method[32];
                    snprintf(method, sizeof method, "tile-%s", tile_how_name[h]);
                    row("block", sweep_n, method, k == 0 ? "default" : "sweep", s->threads,
                        s->items, ms[h], best, right[h], 1);
                }
            }
        }
    }

    /* ---- device table ---------------------------------------------------- */
    for (lv = 0; lv < levels; lv++) {
        long long sn = sizes[lv];
        unsigned sum = 0;
        float cub_ms = 0;
        for (i = 0; i < sn; i++) {
            sum += (unsigned)in[i];
            want[i] = (int)sum;
        }
        for (m = M_CUB; m <= M_COPY; m++) {
            int fast = m == M_FAST, tiled = m == M_RTS || m == M_LOOK || fast;
            const fast_setting *fs = fast_settings;
            int nset = !sweep ? 1 : m == M_RTS || m == M_LOOK ? NSCAN : fast ? NFAST : 1;
            for (k = 0; k < nset; k++) {
                const scan_setting *s = &scan_settings[fast ? 0 : k];
                int threads = fast ? fs[k].threads : s->threads;
                int items = fast ? fs[k].items : s->items;
                int right = 1;
                float ms;
                CUDA_CHECK(cudaMemset(b.out, 0xab, (size_t)sn * sizeof(int)));
                device_run(m, s, k, &b, sn);
                if (m != M_COPY) {
                    right = same(want, &b, got, sn, device_name[m]);
                } else {
                    CUDA_CHECK(cudaDeviceSynchronize());
                }
                ok &= right;
                if (verify)
                    continue;
                ms = median_ms(&b, (int)reps, [&] { device_run(m, s, k, &b, sn); });
                /* lookback-fast carries state from scan to scan (epoch and
                 * ticket base): the last timed scan is checked too. */
                if (fast && right) {
                    right = same(want, &b, got, sn, "the last timed scan");
                    ok &= right;
                }
                if (m == M_CUB)
                    cub_ms = ms;
                row("device", sn, device_name[m], k == 0 ? "default" : "sweep",
                    tiled ? threads : 0, tiled ? items : 0, ms, cub_ms, right, 1);
            }
            if (!verify)
                bench_progress(m + 1, M_COPY + 1, "device scans, n=%lld: %s", sn, device_name[m]);
        }
    }
    /* ---- ablation table: lookback-fast with one change taken back -------- */
    if (sweep) {
        long long sn = sweep_n;
        unsigned sum = 0;
        float cub_ms = 0;
        for (i = 0; i < sn; i++) {
            sum += (unsigned)in[i];
            want[i] = (int)sum;
        }
        /* k = -2: CUB; -1: the lesson's lookback at 128 x 32; then ablations[] */
        for (k = -2; k < NABLATION; k++) {
            const fast_setting *f = k < 0 ? NULL : &ablations[k];
            const char *name = k == -2 ? "cub" : k == -1 ? "lookback" : f->name;
            int right, nolook = f && (f->opts & LB_NOLOOK);
            float ms;
            auto run = [&] {
                if (f)
                    fast_run(f, &b, sn);
                else
                    device_run(k == -2 ? M_CUB : M_LOOK, &scan_settings[0], 0, &b, sn);
                CUDA_CHECK(cudaGetLastError());
            };
            if (nolook) {    /* each tile scanned on its own */
                int tile = f->threads * f->items;
                for (i = 0; i < sn; i++) {
                    sum = i % tile == 0 ? 0 : sum;
                    sum += (unsigned)in[i];
                    want[i] = (int)sum;
                }
            }
            CUDA_CHECK(cudaMemset(b.out, 0xab, (size_t)sn * sizeof(int)));
            run();
            right = same(want, &b, got, sn, name);
            ok &= right;
            if (verify)
                continue;
            ms = median_ms(&b, (int)reps, run);
            if (f && right) {
                right = same(want, &b, got, sn, "the last timed scan");
                ok &= right;
            }
            if (k == -2)
                cub_ms = ms;
            row("ablation", sn, name, "ablation", f ? f->threads : k == -1 ? scan_settings[0].threads : 0,
                f ? f->items : k == -1 ? scan_settings[0].items : 0, ms, cub_ms, right, 1);
        }
        if (!verify)
            bench_progress(1, 1, "ablation of lookback-fast, n=%lld", sn);
    }
    if (verify)
        printf("result: %s (every kernel and setting checked against the CPU)\n",
               ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
