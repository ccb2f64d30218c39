// expect: shuffle
/*
 * shuffle-idx-outside-mask.cu
 *
 * __shfl_sync with mask 0x000000ff where lanes 0-7 read lane 9.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    if (lane < 8)
        out[lane] = __shfl_sync(0x000000ffu, lane + in[lane], 9);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
