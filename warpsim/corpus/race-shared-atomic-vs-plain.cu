// expect: race
/*
 * race-shared-atomic-vs-plain.cu
 *
 * A plain read of a shared word that was never written, then atomics on it
 * from other warps: the read races with the atomics (the atomic alone is not
 * what is wrong here).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int cnt;
    int t = (int)threadIdx.x;
    if (t == 0)
        cnt = 0;
    __syncthreads();
    if (t == 0)
        out[0] = cnt;
    if (t >= 32)
        atomicAdd(&cnt, 1 + in[t]);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
