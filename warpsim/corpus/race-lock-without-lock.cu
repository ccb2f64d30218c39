// expect: race
/*
 * race-lock-without-lock.cu
 *
 * Lane 0 of each warp updates a shared counter inside a spin lock, but
 * thread 33 updates it without taking the lock.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int lock, count;
    int t = (int)threadIdx.x;
    if (t == 0) {
        lock = 0;
        count = 0;
    }
    __syncthreads();
    if (t % 32 == 0) {
        while (atomicCAS(&lock, 0, 1) != 0)
            ;
        __threadfence();
        count = count + 1 + in[t];
        __threadfence();
        atomicExch(&lock, 0);
    }
    if (t == 33)
        count = count + 1;
    __syncthreads();
    if (t == 0)
        out[0] = count;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
