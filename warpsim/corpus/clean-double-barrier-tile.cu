// expect: clean
/*
 * clean-double-barrier-tile.cu
 *
 * The tile loop with a second __syncthreads after the reads.
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
        __syncthreads();
    }
    out[t] = sum;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
