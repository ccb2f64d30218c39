// expect: hang
/*
 * hang-shfl-vs-barrier.cu
 *
 * Lanes 0-15 wait in a full-mask shuffle for lanes that wait at a
 * __syncthreads: nobody can go on.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), v = lane + in[lane];
    if (lane < 16)
        v = __shfl_sync(FULL, v, 0);
    __syncthreads();
    out[threadIdx.x] = v;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
