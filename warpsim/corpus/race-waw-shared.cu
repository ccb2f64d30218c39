// expect: race
/*
 * race-waw-shared.cu
 *
 * Every thread writes s[0] with nothing ordering the writes.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[1];
    int t = (int)threadIdx.x;
    if (t == 0)
        s[0] = 0;
    __syncthreads();
    s[0] = t + in[t];
    __syncthreads();
    out[t] = s[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
