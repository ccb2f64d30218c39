// expect: mask
/*
 * mask-without-self.cu
 *
 * Lanes 16-31 pass 0x0000ffff, a mask that does not name themselves.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    out[LANE()] = (int)__ballot_sync(0x0000ffffu, in[LANE()] == 0);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
