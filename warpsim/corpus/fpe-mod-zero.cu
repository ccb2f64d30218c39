// expect: fpe
/*
 * fpe-mod-zero.cu
 *
 * Every lane takes an integer remainder by a zero read from memory.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    out[lane] = (lane + 7) % in[lane + 64];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
