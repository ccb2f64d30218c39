// expect: fpe
/*
 * fpe-div-zero.cu
 *
 * Lane 3 divides an integer by zero (the divisor comes from memory).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    out[lane] = 1000 / (lane - 3 + in[lane]);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
