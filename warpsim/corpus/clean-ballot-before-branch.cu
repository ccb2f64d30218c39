// expect: clean
/*
 * clean-ballot-before-branch.cu
 *
 * The mask of the lanes that take a branch is computed with __ballot_sync
 * before the branch, and the shuffle inside it uses that mask.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), v = lane + in[lane];
    unsigned m = __ballot_sync(FULL, lane < 20);
    if (lane < 20)
        v = __shfl_sync(m, v, 0);
    out[lane] = v;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
