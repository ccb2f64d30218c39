/*
 * bench.cu - warpsim's throughput benchmark: every thread makes -r rounds
 * of shared and global memory accesses (a read and a write of each per
 * round, __syncthreads every 8 rounds), over -n blocks of 256 threads.
 * Run under WARPSIM_STATS=1 it lets warpsim print its memory accesses per
 * second (bench.sh does, for each model).
 */
#include "lesson.h"

__global__ void churn(int *g, int rounds)
{
    __shared__ int s[256];
    int t = (int)threadIdx.x, i;
    long long base = (long long)blockIdx.x * blockDim.x;
    s[t] = t;
    __syncthreads();
    for (i = 0; i < rounds; i++) {
        g[base + t] += s[(t + i) % 256];
        if (i % 8 == 7)
            __syncthreads();
        s[t] = g[base + t] & 0xff;
        if (i % 8 == 7)
            __syncthreads();
    }
}

int main(int argc, char **argv)
{
    long long blocks = 8, rounds = 64;
    lesson_option options[] = {
        { 'n', "blocks", "B", &blocks, 1, 1 << 20, "blocks of 256 threads" },
        { 'r', "rounds", "R", &rounds, 1, 1 << 20, "rounds of accesses per thread" },
    };
    lesson_program program = { "bench.cu",
        "warpsim's throughput benchmark (run it with WARPSIM_STATS=1).", NULL, 0,
        options, 2 };
    int *d;
    lesson_parse(argc, argv, &program);
    d = (int *)lesson_device_alloc((size_t)blocks * 256 * sizeof(int), "the array");
    CUDA_CHECK(cudaMemset(d, 0, (size_t)blocks * 256 * sizeof(int)));
    LAUNCH(churn, (unsigned)blocks, 256, 0, d, (int)rounds);
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("%lld blocks x 256 threads x %lld rounds\n", blocks, rounds);
    return lesson_result(1, "benchmark ran");
}
