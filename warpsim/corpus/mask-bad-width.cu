// expect: mask
/*
 * mask-bad-width.cu
 *
 * __shfl_sync with width 12, which is not a power of two.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    out[LANE()] = __shfl_sync(FULL, LANE() + in[LANE()], 0, 12);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
