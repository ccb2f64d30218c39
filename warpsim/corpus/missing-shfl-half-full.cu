// expect: missing
/*
 * missing-shfl-half-full.cu
 *
 * Lanes 0-15 read lanes 16-31 with a full-mask __shfl_sync that lanes
 * 16-31 skip: the mask names lanes that never call it.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), v = lane + in[lane];
    if (lane < 16)
        out[lane] = __shfl_sync(FULL, v, lane + 16);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
