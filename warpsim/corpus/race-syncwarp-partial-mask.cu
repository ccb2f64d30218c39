// expect: race
/*
 * race-syncwarp-partial-mask.cu
 *
 * Lanes 0-15 synchronize with __syncwarp(0x0000ffff) and then read lane 16's
 * slot: lane 16 is not in the mask, so nothing orders its write.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = 0;
    __syncwarp();
    s[lane] = lane + in[lane];
    if (lane < 16) {
        __syncwarp(0x0000ffffu);
        out[lane] = s[lane + 1];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
