// expect: barrier
/*
 * barrier-skip-and-write.cu
 *
 * Threads 32-63 skip the __syncthreads and go on to write.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    s[t] = t + in[t];
    if (t < 32)
        __syncthreads();
    out[t] = s[t];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
