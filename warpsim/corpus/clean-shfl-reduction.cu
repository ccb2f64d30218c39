// expect: clean
/*
 * clean-shfl-reduction.cu
 *
 * A warp reduction with __shfl_down_sync: registers only.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), v = in[threadIdx.x] + lane, d;
    for (d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(FULL, v, d);
    if (lane == 0)
        out[blockIdx.x * 2 + threadIdx.x / 32] = v;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 2, 64, out, in); }
