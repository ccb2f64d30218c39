// expect: barrier
// also: race uninit
/*
 * barrier-one-thread-skips.cu
 *
 * Only thread 5 skips the barrier; the rest of the block waits at it.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    s[t] = t + in[t];
    if (t != 5)
        __syncthreads();
    out[t] = s[63 - t];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
