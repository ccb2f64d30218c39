// expect: oob-global
/*
 * oob-global-past-end.cu
 *
 * Thread 0 writes 3 ints past the end of a 4096-int allocation.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    if (threadIdx.x == 0)
        out[CORPUS_INTS + 3] = in[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
