// expect: oob-global
/*
 * oob-global-before-start.cu
 *
 * Lane 0 reads in[-1], before the start of its allocation.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    out[lane] = in[lane - 1];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
