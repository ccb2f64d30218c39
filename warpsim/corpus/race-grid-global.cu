// expect: race
/*
 * race-grid-global.cu
 *
 * Thread 0 of every block writes out[0]: blocks of one grid are not ordered.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    if (threadIdx.x == 0)
        out[0] = (int)blockIdx.x + in[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 4, 32, out, in); }
