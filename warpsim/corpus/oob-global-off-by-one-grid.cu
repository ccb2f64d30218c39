// expect: oob-global
/*
 * oob-global-off-by-one-grid.cu
 *
 * The grid has one thread more than there are elements, and no bounds check.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    out[i] = in[i % 64] + 1;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, CORPUS_INTS / 64 + 1, 64, out, in); }
