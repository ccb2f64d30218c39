// expect: missing
/*
 * missing-shfl-skip-write.cu
 *
 * Lanes 16-31 skip a full-mask __shfl_xor_sync and go on to write.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), v = lane + in[lane];
    if (lane < 16)
        v = __shfl_xor_sync(FULL, v, 1);
    out[lane] = v;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
