// expect: clean
/*
 * clean-grid-stride.cu
 *
 * A grid-stride loop: each thread touches only its own elements.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int i;
    for (i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < 1024;
         i += (int)(gridDim.x * blockDim.x))
        out[i] = 2 * in[i] + i;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 4, 64, out, in); }
