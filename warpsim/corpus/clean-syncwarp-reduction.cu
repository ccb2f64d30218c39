// expect: clean
/*
 * clean-syncwarp-reduction.cu
 *
 * The warp reduction done right: read into a register, __syncwarp, write,
 * __syncwarp, at every step.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int lane = LANE(), d;
    s[lane] = in[lane] + lane;
    s[lane + 32] = 0;
    __syncwarp();
    for (d = 16; d > 0; d /= 2) {
        int v = s[lane] + s[lane + d];
        __syncwarp();
        s[lane] = v;
        __syncwarp();
    }
    if (lane == 0)
        out[0] = s[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
