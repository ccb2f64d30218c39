// expect: race
/*
 * race-atomic-vs-plain-read.cu
 *
 * Lane 0 reads a counter with a plain load while the others update it
 * with atomicAdd: an atomic and a plain access still conflict.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    if (threadIdx.x == 0)
        out[1] = out[0];
    else
        atomicAdd(&out[0], 1 + in[0]);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
