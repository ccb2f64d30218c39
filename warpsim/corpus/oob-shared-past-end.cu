// expect: oob-shared
/*
 * oob-shared-past-end.cu
 *
 * Lane 31 writes s[32] of a 32-int shared array.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane + 1] = lane + in[lane];
    __syncwarp();
    out[lane] = s[lane];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
