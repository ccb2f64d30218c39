// expect: clean
/*
 * clean-device-variable.cu
 *
 * What a kernel may touch besides device allocations and shared memory: a
 * __device__ variable of the program (read, written by one thread, updated
 * atomically by all), and the thread's own local array, passed by pointer
 * to a device function.
 */
#include "corpus.h"

__device__ int total;
__device__ int scale;

__device__ void square_all(int *a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        a[i] = a[i] * a[i];
}

__global__ void kernel(int *out, int *in)
{
    int mine[4], t = (int)threadIdx.x, i, s = 0;
    if (t == 0)
        scale = 3;
    __syncthreads();
    for (i = 0; i < 4; i++)
        mine[i] = in[i] + t + scale;
    square_all(mine, 4);
    for (i = 0; i < 4; i++)
        s += mine[i];
    atomicAdd(&total, s);
    out[t] = s;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
