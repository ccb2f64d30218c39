/*
 * device.cu - what warpsim says of CUDA C++ device code that fails, one
 * case per run (-k N; --help lists them): assert, __trap and __brkpt in a
 * kernel (the lane and file:line, then the summary and status 1), printf
 * and malloc at their bounds, the free of a pointer malloc did not return,
 * Cooperative Groups' collectives that not every lane of a tile reaches,
 * a race that a tile's missing sync leaves, a tile size Cooperative Groups
 * refuses, a division by zero, abort(), an assertion in host code, and a
 * missing-lanes bug in a kernel whose parameters take 4 KiB. The clean
 * cases (a __trap that never fires, the heap's limits) print what they
 * found. tests/warpsim.bats holds each case to its output.
 *
 * Run:  build/tests/device -k N     (under WARPSIM_MODEL=lockstep|its|random)
 */
#include "lesson.h"
#include <assert.h>
#include <fcntl.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

static const char *names[] = {
    "assert: lane 5 fails assert(v < 5)",
    "trap: lane 3 calls __trap()",
    "brkpt: lane 2 calls __brkpt()",
    "trap-never: a __trap() behind a test no lane passes (clean)",
    "printf-flood: every thread prints 20000 lines; the launch keeps 1 MB of them",
    "heap: every thread mallocs 1 KiB until malloc returns NULL (clean)",
    "heap-limit: the same after cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 KiB) (clean)",
    "bad-free: lane 0 frees a pointer into a cudaMalloc allocation",
    "tile-missing: lanes 8-15 of a 16-thread tile skip tile.shfl",
    "tile-race: a tile writes shared memory and reads a neighbour's with no tile.sync()",
    "tile-size: tiled_partition(block, 48)",
    "div-zero: lane 0 divides by zero (an error of its own kind, not a memory error)",
    "abort: lane 1 calls abort()",
    "host-assert: host code fails an assertion after a launch",
    "big-args: a kernel whose parameters take 4 KiB skips a shuffle in lanes 16-31",
    "tile-sync-missing: lanes 0-3 of an 8-thread tile skip tile.sync()",
    ("summary-fd: after a launch, whether WARPSIM_SUMMARY_FD is left in the environment and "
     "whether its descriptor (-k 17 N) closes on exec (clean)"),
};
#define NCASES ((int)(sizeof names / sizeof names[0]))

__global__ void k_assert(int *out)
{
    int v = (int)threadIdx.x;
    assert(v < 5 || v > 5);
    out[threadIdx.x] = v;
}

__global__ void k_trap(int *out, int when)
{
    if ((int)threadIdx.x == when)
        __trap();
    out[threadIdx.x] = 1;
}

__global__ void k_brkpt(int *out)
{
    if (threadIdx.x == 2)
        __brkpt();
    out[threadIdx.x] = 1;
}

__global__ void k_printf(int lines)
{
    for (int i = 0; i < lines; i++)
        printf("thread %d line %d\n", (int)threadIdx.x, i);
}

__global__ void k_heap(int *count, int bytes)
{
    int n = 0;
    while (void *p = malloc((size_t)bytes)) {
        static_cast<char *>(p)[0] = 1;
        n++;
    }
    atomicAdd(count, n);
}

__global__ void k_bad_free(int *out)
{
    if (threadIdx.x == 0)
        free(out + 4);
    out[threadIdx.x] = 1;
}

__global__ void k_tile_missing(int *out)
{
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    int v = (int)threadIdx.x;
    if (tile.thread_rank() < 8)
        v = tile.shfl(v, 0);
    out[threadIdx.x] = v;
}

__global__ void k_tile_race(int *out)
{
    __shared__ int s[32];
    auto tile = cg::tiled_partition<8>(cg::this_thread_block());
    s[threadIdx.x] = (int)threadIdx.x;
    out[threadIdx.x] = s[(threadIdx.x & ~7u) + (tile.thread_rank() + 1) % 8];
}

__global__ void k_tile_size(int *out)
{
    cg::thread_group g = cg::tiled_partition(cg::this_thread_block(), 48);
    out[threadIdx.x] = (int)g.size();
}

__global__ void k_div(int *out, int d)
{
    out[threadIdx.x] = 100 / (d + (int)threadIdx.x);
}

__global__ void k_abort(int *out)
{
    if (threadIdx.x == 1)
        abort();
    out[threadIdx.x] = 1;
}

struct big {
    int v[1024];
};

__global__ void k_big(big b, int *out)
{
    int v = b.v[threadIdx.x];
    if (threadIdx.x < 16)
        v += __shfl_xor_sync(FULL_MASK, v, 16);
    out[threadIdx.x] = v;
}

__global__ void k_tile_sync_missing(int *out)
{
    auto tile = cg::tiled_partition<8>(cg::this_thread_block());
    if (tile.thread_rank() >= 4)
        tile.sync();
    out[threadIdx.x] = 1;
}

static void usage(const char *prog)
{
    int k;
    printf("usage: %s -k N\n\nRuns one case of warpsim's device-code tests:\n", prog);
    for (k = 0; k < NCASES; k++)
        printf("  %2d  %s\n", k + 1, names[k]);
}

int main(int argc, char **argv)
{
    int k = 0, *out = nullptr, *count = nullptr, n = 0;
    static big b;
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(argv[0]);
        return 0;
    }
    if (argc < 3 || argc > 4 || strcmp(argv[1], "-k") != 0 || (k = atoi(argv[2])) < 1 ||
        k > NCASES) {
        fprintf(stderr, "device: give -k N, N from 1 to %d (try --help)\n", NCASES);
        return 2;
    }
    printf("case %d: %s\n", k, names[k - 1]);
    fflush(stdout);
    CUDA_CHECK(cudaMalloc(&out, 1024 * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&count, sizeof(int)));
    CUDA_CHECK(cudaMemset(out, 0, 1024 * sizeof(int)));
    CUDA_CHECK(cudaMemset(count, 0, sizeof(int)));
    switch (k) {
    case 1: LAUNCH(k_assert, 1, 32, 0, out); break;
    case 2: LAUNCH(k_trap, 1, 32, 0, out, 3); break;
    case 3: LAUNCH(k_brkpt, 1, 32, 0, out); break;
    case 4: LAUNCH(k_trap, 1, 32, 0, out, -1); break;
    case 5: LAUNCH(k_printf, 2, 32, 0, 20000); break;
    case 6:
    case 7:
        if (k == 7)
            CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 * 1024));
        LAUNCH(k_heap, 2, 32, 0, count, 1024);
        CUDA_CHECK(cudaMemcpy(&n, count, sizeof n, cudaMemcpyDeviceToHost));
        printf("malloc(1024) returned memory %d times\n", n);
        break;
    case 8: LAUNCH(k_bad_free, 1, 32, 0, out); break;
    case 9: LAUNCH(k_tile_missing, 1, 32, 0, out); break;
    case 10: LAUNCH(k_tile_race, 1, 32, 0, out); break;
    case 11: LAUNCH(k_tile_size, 1, 32, 0, out); break;
    case 12: LAUNCH(k_div, 1, 32, 0, out, 0); break;
    case 13: LAUNCH(k_abort, 1, 32, 0, out); break;
    case 14:
        LAUNCH(k_trap, 1, 32, 0, out, -1);
        assert(k == 0);
        break;
    case 15:
        for (n = 0; n < 1024; n++)
            b.v[n] = n;
        LAUNCH(k_big, 1, 32, 0, b, out);
        break;
    case 16: LAUNCH(k_tile_sync_missing, 1, 32, 0, out); break;
    default:
        LAUNCH(k_trap, 1, 32, 0, out, -1);
        n = argc == 4 ? atoi(argv[3]) : -1;
        printf("WARPSIM_SUMMARY_FD in the environment: %s; fd %d closes on exec: %s\n",
               getenv("WARPSIM_SUMMARY_FD") ? "yes" : "no", n,
               n >= 0 && (fcntl(n, F_GETFD) & FD_CLOEXEC) ? "yes" : "no");
        break;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("result: ok (case %d ran)\n", k);
    return 0;
}
