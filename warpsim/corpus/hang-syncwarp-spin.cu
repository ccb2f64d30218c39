// expect: hang
/*
 * hang-syncwarp-spin.cu
 *
 * Half the warp waits in __syncwarp for the other half, which spins on a
 * flag the first half sets only after the __syncwarp.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ volatile int flag;
    int lane = LANE();
    if (lane == 0)
        flag = in[0];
    __syncthreads();
    if (lane < 16) {
        __syncwarp();
        flag = 1;
    } else {
        while (flag == 0)
            ;
    }
    out[lane] = lane;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
