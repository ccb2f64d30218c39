// expect: clean
/*
 * clean-early-return-syncthreads.cu
 *
 * Threads 40-63 return before the __syncthreads; the rest meet at it.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    if (t >= 40)
        return;
    s[t] = t + in[t];
    __syncthreads();
    out[t] = s[39 - t];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
