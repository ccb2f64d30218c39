// expect: clean
/*
 * clean-atomics-only.cu
 *
 * Every thread of four blocks updates two counters atomically: atomics do
 * not race with each other.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    atomicAdd(&out[0], 1 + in[0]);
    atomicMax(&out[1], (int)threadIdx.x);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 4, 64, out, in); }
