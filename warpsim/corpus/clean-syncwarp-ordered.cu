// expect: clean
/*
 * clean-syncwarp-ordered.cu
 *
 * Write, __syncwarp, read a neighbour, __syncwarp, overwrite: every access
 * pair is ordered by a __syncwarp.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE(), v;
    s[lane] = lane + in[lane];
    __syncwarp();
    v = s[(lane + 1) % 32];
    __syncwarp();
    s[lane] = v;
    __syncwarp();
    out[lane] = s[(lane + 31) % 32];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
