// expect: barrier
/*
 * barrier-two-sites.cu
 *
 * Warp 0 and warp 1 wait at two different __syncthreads: the Guide allows
 * __syncthreads in conditional code only if the condition is the same for
 * the whole block.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if (t < 32)
        __syncthreads();
    else
        __syncthreads();
    out[t] = t + in[t];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
