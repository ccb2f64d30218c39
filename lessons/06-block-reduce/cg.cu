/*
 * cg.cu - lesson 06 with Cooperative Groups: the block sum of sync.cu
 * written with cg::reduce over 32-thread tiles. Runs on the GPU and on
 * warpsim (whose cooperative_groups.h builds each group call on the warp
 * primitive the GPU runs, with warpsim's checks).
 *
 * Build:  make                 (nvcc -I../../include cg.cu -o build/cg)
 *         make emu             (the same for warpsim -> build/emu/cg)
 * Run:    build/cg -n 16M            variant 1: block sums, two passes
 *         build/cg -k 2 -n 256M      variant 2: 16-byte loads, two passes
 *         build/cg -k 3 -b 96        variant 3: 8- and 16-thread tiles
 *         build/emu/cg -n 64K        on warpsim
 * Check:  make check           (holds it to the 64-bit CPU sum like sync.cu)
 *
 * Why it is right: cg::reduce(tile, v, cg::plus<int>()) is a collective of
 * the tile: every thread of the 32-thread tile must call it, and each gets
 * the tile's sum. It compiles to __reduce_add_sync on compute capability 8.0
 * and later and to shuffles before; the tile names its threads, so there is
 * no mask to get wrong. block.sync() is __syncthreads.
 *
 * Variant 1: each thread adds a grid-stride share one int at a time, as
 *   sync.cu's variant 1; one partial per block, then one block sums them.
 * Variant 2: each thread's share comes from sync.cu's thread_sum4 (16-byte
 *   loads, -u of them in flight), as sync.cu's variant 3; then the same
 *   block sum and second pass.
 * Variant 3: the same sum in tiles of 8 (the dynamic tiled_partition, a
 *   thread_group with sync() and no shfl) and 16 (tiled_partition<16>),
 *   through group_sum(g, ...), a helper whose group is in its signature.
 *
 * Included by bench.cu (which defines LESSON_AS_LIBRARY and includes sync.cu
 * and reduce.h itself): then only the kernels and cg_run below are compiled.
 */
#ifndef LESSON_AS_LIBRARY
#define LESSON_AS_LIBRARY
#define CG_MAIN
#define LESSON_CASES         /* --cases: several runs in one process */
#include "sync.cu"
#include "reduce.h"
#endif

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

/*
 * The sum of v over the block, in every thread of the first tile (the other
 * threads get their tile's sum). partial points at 32 ints of shared memory.
 * Every thread of the block must call it (it holds block.sync()).
 */
__device__ int cg_block_sum(cg::thread_block block, int v, int *partial)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0)
        partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<int>());
    }
    return v;
}

/* Variant 1, and the second pass of both: out[b] is the sum of block b's
 * grid-stride share of in[0..n), one int at a time. */
__global__ void cg_block_reduce(const int *in, long long n, int *out)
{
    __shared__ int partial[32];
    cg::thread_block block = cg::this_thread_block();
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int sum = 0;
    for (; i < n; i += stride)
        sum += in[i];
    sum = cg_block_sum(block, sum, partial);
    if (block.thread_rank() == 0)
        out[blockIdx.x] = sum;
}

/* Variant 2: out[b] is the sum of block b's share, read by thread_sum4. */
template <int UNROLL_BY>
__global__ void cg_device_reduce(const int *__restrict__ in, long long n, int *out)
{
    __shared__ int partial[32];
    cg::thread_block block = cg::this_thread_block();
    int sum = cg_block_sum(block, thread_sum4(in, n, UNROLL_BY, LOAD_NC), partial);
    if (block.thread_rank() == 0)
        out[blockIdx.x] = sum;
}

/* ---- variant 3: smaller tiles, and a sum that takes its group --------- */

/*
 * The sum of v over the group g, in every thread of g. scratch points at
 * g.size() ints of shared memory that only g uses; g.size() is a power of
 * two. The g.sync() inside is part of the contract, and the signature says
 * so: every thread of g must call group_sum, the way every thread of a
 * block must reach a __syncthreads hidden in a helper, except that here the
 * caller sees which threads that is. scratch is free again after the
 * caller's next g.sync().
 */
__device__ int group_sum(const cg::thread_group &g, int v, int *scratch)
{
    unsigned rank = g.thread_rank(), half;
    scratch[rank] = v;
    g.sync();
    for (half = g.size() / 2; half > 0; half /= 2) {
        if (rank < half)
            v += scratch[rank + half];
        g.sync();                       /* every read before any write */
        if (rank < half)
            scratch[rank] = v;
        g.sync();                       /* every write before the next read */
    }
    return scratch[0];
}

/*
 * Variant 3: out[b] is the sum of block b's grid-stride share, in three
 * group sizes. A tile of 8 threads from the dynamic cg::tiled_partition(block,
 * 8) (a thread_group: it can sync, it has no shfl) sums through shared
 * memory with group_sum; a tile of 16 from cg::tiled_partition<16>(block)
 * (a thread_block_tile<16>, which has shfl) adds its two halves' sums with
 * one tile.shfl_xor; the 16-thread tiles' sums meet in shared memory, and
 * after block.sync() thread 0 adds them.
 */
__global__ void cg_tiles_reduce(const int *in, long long n, int *out)
{
    __shared__ int scratch[1024];
    __shared__ int partial[1024 / 16];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile8 = cg::tiled_partition(block, 8);
    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned t;
    int sum = 0;
    for (; i < n; i += stride)
        sum += in[i];
    sum = group_sum(tile8, sum, &scratch[block.thread_rank() & ~7u]);
    sum += tile16.shfl_xor(sum, 8);     /* the other 8-thread half's sum */
    if (tile16.thread_rank() == 0)
        partial[tile16.meta_group_rank()] = sum;
    block.sync();
    if (block.thread_rank() == 0) {
        for (t = 1; t < tile16.meta_group_size(); t++)
            sum += partial[t];
        out[blockIdx.x] = sum;
    }
}

/*
 * Runs cg variant 1, 2 or 3 on in[0..n), leaving the sum in *out
 * (asynchronously); partials holds MAX_BLOCKS ints. Returns the number of
 * blocks of the first launch.
 */
static long long cg_run(int variant, const int *in, long long n, int *partials, int *out,
                        long long max_blocks, int threads, int unroll)
{
    long long blocks;
    if (variant == 3) {
        blocks = grid_for(n, threads, max_blocks);
        LAUNCH(cg_tiles_reduce, (unsigned)blocks, (unsigned)threads, 0, in, n, partials);
        LAUNCH(cg_tiles_reduce, 1u, (unsigned)threads, 0, (const int *)partials, blocks, out);
        return blocks;
    }
    if (variant == 1) {
        blocks = grid_for(n, threads, max_blocks);
        LAUNCH(cg_block_reduce, (unsigned)blocks, (unsigned)threads, 0, in, n, partials);
    } else {
        blocks = grid_for(n / 4, threads, max_blocks);
        switch (unroll) {
        case 1: LAUNCH(cg_device_reduce<1>, (unsigned)blocks, (unsigned)threads, 0, in, n, partials); break;
        case 2: LAUNCH(cg_device_reduce<2>, (unsigned)blocks, (unsigned)threads, 0, in, n, partials); break;
        case 4: LAUNCH(cg_device_reduce<4>, (unsigned)blocks, (unsigned)threads, 0, in, n, partials); break;
        case 8: LAUNCH(cg_device_reduce<8>, (unsigned)blocks, (unsigned)threads, 0, in, n, partials); break;
        default: lesson_fail(LESSON_USAGE, "--unroll must be 1, 2, 4 or 8 (got %d)", unroll);
        }
    }
    LAUNCH(cg_block_reduce, 1u, (unsigned)threads, 0, (const int *)partials, blocks, out);
    return blocks;
}

static const char *cg_variants[] = {
    "block: cg::reduce over 32-thread tiles, block.sync(), first tile sums the partials; second pass",
    "device: sync.cu's 16-byte loads (-u in flight), the same cg block sum; second pass",
    "tiles: group_sum over dynamic 8-thread tiles, tile.shfl_xor in 16-thread tiles; second pass",
};

#ifdef CG_MAIN
int lesson_main(int argc, char **argv)
{
    long long n = 1 << 24, seed = 1, threads = 256, variant = 1;
    long long max_blocks = 1024, unroll = 4, max_value = 100;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 36, "number of ints to sum" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'b', "threads", "T", &threads, 32, 1024, "threads per block, a multiple of 32" },
        { 'k', "variant", "K", &variant, 1, 3, "which reduction" },
        { 'g', "blocks", "G", &max_blocks, 1, MAX_BLOCKS,
          "blocks in the grid at most (fewer when n is small)" },
        { 'u', "unroll", "U", &unroll, 1, 8,
          "16-byte loads in flight per thread, 1, 2, 4 or 8 (variant 2)" },
        { 'm', "max", "M", &max_value, 1, 1 << 30, "input values are -M..-1 and 1..M" },
    };
    lesson_program program = { "cg.cu",
        "Lesson 06 with Cooperative Groups: sums n random ints (never 0) with\n"
        "cg::reduce block sums, and checks the sum against the 64-bit CPU sum\n"
        "(modulo 2^32: the GPU sums in int, which wraps around).",
        cg_variants, 3, options, (int)(sizeof options / sizeof options[0]) };
    long long want64, blocks;
    int *in, *d_in, *d_partials, *d_out, got;
    char what[64];

    lesson_parse(argc, argv, &program);
    if (threads % 32 != 0)
        lesson_fail(LESSON_USAGE, "--threads must be a multiple of 32 (got %lld)", threads);
    if (unroll != 1 && unroll != 2 && unroll != 4 && unroll != 8)
        lesson_fail(LESSON_USAGE, "--unroll must be 1, 2, 4 or 8 (got %lld)", unroll);

    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_partials = (int *)lesson_device_alloc(MAX_BLOCKS * sizeof(int), "the block partials");
    d_out = (int *)lesson_device_alloc(sizeof(int), "the sum");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");

    printf("cg.cu variant %lld (%s)\n", variant, cg_variants[variant - 1]);
    lesson_print_path();
    printf("n=%lld seed=%lld values=+-1..%lld threads=%lld blocks<=%lld unroll=%lld\n",
           n, seed, max_value, threads, max_blocks, unroll);
    lesson_random_ints(in, n, seed, (int)max_value);
    want64 = cpu_sum(in, n);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_partials, 0xab, MAX_BLOCKS * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_out, 0xab, sizeof(int)));
    blocks = cg_run((int)variant, d_in, n, d_partials, d_out, max_blocks, (int)threads,
                    (int)unroll);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    printf("ran %lld blocks of %lld threads\n", blocks, threads);

    lesson_device_free(d_in);
    lesson_device_free(d_partials);
    lesson_device_free(d_out);
    lesson_host_free(in);
    snprintf(what, sizeof what, "cg variant %lld, n=%lld", variant, n);
    return report_sum(got, want64, what);
}
#endif /* CG_MAIN */
