// expect: barrier
/*
 * barrier-data-dependent.cu
 *
 * The branch around __syncthreads depends on data that differs per thread.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if ((in[t] + t) % 3 == 0)
        __syncthreads();
    out[t] = t;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
