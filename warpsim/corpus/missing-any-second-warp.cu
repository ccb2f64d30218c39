// expect: missing
/*
 * missing-any-second-warp.cu
 *
 * In the second warp only, lanes 0-3 call a full-mask __any_sync.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if (t < 32 || LANE() < 4)
        out[t] = __any_sync(FULL, in[t] != 0);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
