// expect: clean
/*
 * clean-reduce-add.cu
 *
 * __reduce_add_sync (compute capability 8.0) over the full warp.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    unsigned v = __reduce_add_sync(FULL, (unsigned)(LANE() + in[threadIdx.x]));
    if (LANE() == 0)
        out[0] = (int)v;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
