// expect: race
/*
 * race-block-shared.cu
 *
 * Warp 0 reads what warp 1 wrote to shared memory without __syncthreads.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    s[t] = 0;
    __syncthreads();
    s[t] = t + in[t];
    out[t] = s[63 - t];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
