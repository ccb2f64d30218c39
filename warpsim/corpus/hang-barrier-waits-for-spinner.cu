// expect: hang
// also: barrier
/*
 * hang-barrier-waits-for-spinner.cu
 *
 * Warp 0 waits at __syncthreads; warp 1 spins on a flag that warp 0 would
 * set after the barrier.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ volatile int flag;
    int t = (int)threadIdx.x;
    if (t == 0)
        flag = in[0];
    __syncthreads();
    if (t < 32) {
        __syncthreads();
        flag = 1;
    } else {
        while (flag == 0)
            ;
    }
    out[t] = t;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
