// expect: missing
/*
 * missing-reduce-even-lanes.cu
 *
 * __reduce_add_sync with the full mask, called by the even lanes only.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    if ((lane & 1) == 0)
        out[lane] = (int)__reduce_add_sync(FULL, (unsigned)(lane + in[lane]));
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
