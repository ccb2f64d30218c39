// expect: clean
/*
 * clean-atomic-slot.cu
 *
 * atomicAdd hands out slots; each thread writes only the slot it got.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int slot = atomicAdd(&out[0], 1);
    out[1 + slot] = (int)threadIdx.x + in[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 2, 64, out, in); }
