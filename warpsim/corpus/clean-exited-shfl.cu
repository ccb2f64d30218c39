// expect: clean
/*
 * clean-exited-shfl.cu
 *
 * Lanes 16-31 return first; lanes 0-15 shuffle with the full mask but read
 * only each other (xor 8 stays in 0-15).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), v;
    if (lane >= 16)
        return;
    v = lane + in[lane];
    v += __shfl_xor_sync(FULL, v, 8);
    out[lane] = v;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
