// expect: clean
/*
 * clean-syncthreads-count.cu
 *
 * __syncthreads_count both synchronizes and counts.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x, n;
    s[t] = t + in[t];
    n = __syncthreads_count(t & 1);
    out[t] = s[63 - t] + n;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
