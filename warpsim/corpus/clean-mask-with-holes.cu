// expect: clean
/*
 * clean-mask-with-holes.cu
 *
 * Odd and even lanes each __syncwarp on their own mask, and read only lanes
 * of their own group.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    unsigned m = (lane & 1) ? 0xaaaaaaaau : 0x55555555u;
    s[lane] = lane + in[lane];
    __syncwarp(m);
    out[lane] = s[lane ^ 2];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
