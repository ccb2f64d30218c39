// expect: clean
/*
 * clean-volatile-flag-barrier.cu
 *
 * Warp 0 sets a volatile shared flag, __syncthreads, warp 1 reads it.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ volatile int flag;
    int t = (int)threadIdx.x;
    if (t == 0)
        flag = 1 + in[0];
    __syncthreads();
    if (t == 32)
        out[0] = flag;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
