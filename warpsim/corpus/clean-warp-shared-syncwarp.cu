// expect: clean
/*
 * clean-warp-shared-syncwarp.cu
 *
 * The same exchange with __syncwarp() between the write and the read: the
 * Guide says __syncwarp orders memory among the participating threads.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = lane + in[lane];
    __syncwarp();
    out[lane] = s[(lane + 1) % 32];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
