// expect: oob-shared
/*
 * oob-shared-negative.cu
 *
 * Lane 0 reads s[-1] of a shared array.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = lane + in[lane];
    __syncwarp();
    out[lane] = s[lane - 1];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
