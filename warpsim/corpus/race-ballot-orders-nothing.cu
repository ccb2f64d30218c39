// expect: race
/*
 * race-ballot-orders-nothing.cu
 *
 * A __ballot_sync between the write and the read orders no memory either.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    unsigned b;
    s[lane] = 0;
    __syncwarp();
    s[lane] = lane + in[lane];
    b = __ballot_sync(FULL, lane & 1);
    out[lane] = s[lane ^ 1] + (int)(b & 1u);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
