// expect: race
/*
 * race-shfl-orders-nothing.cu
 *
 * A __shfl_sync between the write and the read: shuffles exchange registers
 * but are not memory fences; nothing orders the shared accesses.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = 0;
    __syncwarp();
    s[lane] = lane + in[lane];
    out[64 + lane] = __shfl_sync(FULL, lane, 0);
    out[lane] = s[lane ^ 1];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
