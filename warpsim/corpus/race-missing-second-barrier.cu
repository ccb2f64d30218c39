// expect: race
/*
 * race-missing-second-barrier.cu
 *
 * A loop that reuses a shared tile with only one __syncthreads per step:
 * the next step overwrites what others still read.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int tile[64];
    int t = (int)threadIdx.x, i, sum = 0;
    for (i = 0; i < 4; i++) {
        tile[t] = in[i * 64 + t] + i;
        __syncthreads();
        sum += tile[63 - t];
    }
    out[t] = sum;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
