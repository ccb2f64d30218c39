/*
 * bigshared.cu - a kernel with 64 KiB of static shared memory, more than
 * the 48 KiB a block may have: warpsim must refuse the launch with one line
 * and exit status 2 (tests/warpsim.bats).
 */
#include "lesson.h"

__global__ void big(int *out)
{
    __shared__ int s[16384];
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x];
}

int main(void)
{
    int *d = (int *)lesson_device_alloc(32 * sizeof(int), "out");
    LAUNCH(big, 1, 32, 0, d);
    CUDA_CHECK(cudaDeviceSynchronize());
    return lesson_result(1, "the launch ran");
}
