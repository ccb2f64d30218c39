// expect: uninit
/*
 * uninit-reduction-tail.cu
 *
 * A block reduction over 128 slots with only 96 threads loading: the last
 * 32 slots are read uninitialized.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[128];
    int t = (int)threadIdx.x, d;
    s[t] = in[t] + 1;
    __syncthreads();
    for (d = 64; d > 0; d /= 2) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 96, out, in); }
