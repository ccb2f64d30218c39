// expect: race
/*
 * race-same-byte.cu
 *
 * Two threads write the same byte of a char array.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ char c[32];
    int lane = LANE();
    c[lane] = 0;
    __syncwarp();
    c[lane / 2] = (char)(lane + in[lane]);
    __syncwarp();
    out[lane] = c[lane];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
