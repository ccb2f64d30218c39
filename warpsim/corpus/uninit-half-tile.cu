// expect: uninit
/*
 * uninit-half-tile.cu
 *
 * Only half a tile is loaded before __syncthreads; every thread reads the
 * whole tile.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int tile[128];
    int t = (int)threadIdx.x, i, sum = 0;
    tile[t] = in[t];
    __syncthreads();
    for (i = 0; i < 128; i += 32)
        sum += tile[(t + i) % 128];
    out[t] = sum;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
