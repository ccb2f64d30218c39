// expect: clean
/*
 * clean-uniform-branch-barrier.cu
 *
 * __syncthreads inside a branch whose condition is the same for the whole
 * block (blockIdx): allowed by the Guide.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    s[t] = t + in[t];
    if (blockIdx.x == 1) {
        __syncthreads();
        out[64 * blockIdx.x + t] = s[63 - t];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 2, 64, out, in); }
