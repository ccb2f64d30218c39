// expect: hang
/*
 * hang-syncwarp-two-masks.cu
 *
 * Lanes 0-15 wait in __syncwarp(0xffffffff), lanes 16-31 in a different
 * __syncwarp(0xffffffff) after a spin on a value the first half writes later.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ volatile int ready;
    int lane = LANE();
    if (lane == 0)
        ready = in[0];
    __syncwarp();
    if (lane < 16) {
        __syncwarp();
        ready = 1;
    } else {
        while (!ready)
            ;
        __syncwarp();
    }
    out[lane] = lane;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
