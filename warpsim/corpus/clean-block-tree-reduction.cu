// expect: clean
/*
 * clean-block-tree-reduction.cu
 *
 * The classic block reduction in shared memory with __syncthreads at every
 * step.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[128];
    int t = (int)threadIdx.x, d;
    s[t] = in[t] + t;
    __syncthreads();
    for (d = 64; d > 0; d /= 2) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 128, out, in); }
