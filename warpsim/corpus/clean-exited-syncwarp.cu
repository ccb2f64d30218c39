// expect: clean
/*
 * clean-exited-syncwarp.cu
 *
 * Lanes 16-31 return; the others then call __syncwarp() with the full mask.
 * The Guide: all non-exited threads named in mask must execute it, so
 * exited lanes need not.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    if (lane >= 16)
        return;
    s[lane] = lane + in[lane];
    __syncwarp();
    out[lane] = s[lane ^ 1];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
