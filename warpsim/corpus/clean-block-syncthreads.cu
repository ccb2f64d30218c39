// expect: clean
/*
 * clean-block-syncthreads.cu
 *
 * Warp 0 reads what warp 1 wrote, after __syncthreads().
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    s[t] = t + in[t];
    __syncthreads();
    out[t] = s[63 - t];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
