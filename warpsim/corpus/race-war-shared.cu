// expect: race
/*
 * race-war-shared.cu
 *
 * Warp 1 overwrites a slot that warp 0 is still reading (write after read,
 * no __syncthreads between).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    s[t] = in[t] + t;
    __syncthreads();
    out[t] = s[(t + 32) % 64];
    s[t] = 2 * t;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
