// expect: uninit
/*
 * uninit-shared-read.cu
 *
 * Lanes read shared slots that no thread of the block wrote.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int lane = LANE();
    if (lane < 16)
        s[lane] = lane + in[lane];
    __syncwarp();
    out[lane] = s[lane + 32];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
