// expect: clean
/*
 * clean-exited-ballot-late.cu
 *
 * Lanes 24-31 return after a memory access; the rest vote with the full
 * mask. Exited lanes need not arrive, wherever they returned.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    unsigned b;
    out[64 + lane] = lane + in[lane];
    if (lane >= 24)
        return;
    b = __ballot_sync(FULL, lane & 1);
    out[lane] = (int)b;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
