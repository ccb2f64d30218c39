// expect: mask
// also: shuffle
/*
 * mask-mismatch.cu
 *
 * One __shfl_sync, two masks: lanes 0-15 pass 0x0000ffff, lanes 16-31 the
 * full mask (lanes that meet in one call must pass the same mask).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    unsigned m = lane < 16 ? 0x0000ffffu : FULL;
    out[lane] = __shfl_sync(m, lane + in[lane], 0);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
