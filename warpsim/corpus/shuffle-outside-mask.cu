// expect: shuffle
/*
 * shuffle-outside-mask.cu
 *
 * __shfl_down_sync(0x0000ffff, v, 8): lanes 8-15 read lanes 16-23, which
 * are outside the mask ("if the target thread is inactive, the retrieved
 * value is undefined").
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    if (lane < 16)
        out[lane] = __shfl_down_sync(0x0000ffffu, lane + in[lane], 8);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
