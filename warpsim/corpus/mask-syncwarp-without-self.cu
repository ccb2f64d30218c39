// expect: mask
/*
 * mask-syncwarp-without-self.cu
 *
 * Lanes 0-15 call __syncwarp(0xffff0000), a mask without themselves.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = lane + in[lane];
    if (lane < 16)
        __syncwarp(0xffff0000u);
    else
        __syncwarp(0xffff0000u);
    out[lane] = s[lane];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
