// expect: clean
/*
 * clean-blocks-own-slices.cu
 *
 * Each block writes its own slice of out and reads its neighbour's slice
 * of in, which nobody writes: blocks share data only where it is read.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    out[i] = in[i] + in[(i + 64) % 256];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 4, 64, out, in); }
