// expect: shuffle
/*
 * shuffle-exited-lane.cu
 *
 * Lanes 16-31 return; lanes 0-15 then read them with __shfl_down_sync(full,
 * v, 16): the exit is allowed, reading an exited lane is not.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    if (lane >= 16)
        return;
    out[lane] = __shfl_down_sync(FULL, lane + in[lane], 16);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
