// expect: missing
/*
 * missing-ballot-in-branch.cu
 *
 * A full-mask __ballot_sync moved inside a branch that lanes 16-31 skip;
 * they run on to the end of the kernel without calling it.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    if (lane < 16)
        out[lane] = (int)__ballot_sync(FULL, in[lane] == 0);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
