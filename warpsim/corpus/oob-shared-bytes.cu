// expect: oob-shared
/*
 * oob-shared-bytes.cu
 *
 * A char array of 30 bytes written by 32 lanes.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ char c[30];
    int lane = LANE();
    c[lane] = (char)(lane + in[lane]);
    __syncwarp();
    out[lane] = c[lane % 30];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
