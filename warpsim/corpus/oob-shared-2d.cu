// expect: oob-shared
/*
 * oob-shared-2d.cu
 *
 * A 16x16 shared tile indexed [row][col] with row up to 16.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int tile[16][16];
    int t = (int)threadIdx.x;
    tile[t / 16][t % 16] = t + in[t];
    __syncthreads();
    out[t] = tile[t / 16 + 1][t % 16];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 256, out, in); }
