// expect: clean
/*
 * clean-shared-atomic-counter.cu
 *
 * A shared counter set to 0, then atomics from every thread, then read
 * after __syncthreads.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int cnt;
    int t = (int)threadIdx.x;
    if (t == 0)
        cnt = 0;
    __syncthreads();
    atomicAdd(&cnt, 1 + in[t]);
    __syncthreads();
    if (t == 0)
        out[0] = cnt;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 128, out, in); }
