// expect: livelock
/*
 * livelock-ping-pong.cu
 *
 * Two warps hand a token back and forth forever through a shared word with
 * atomics; each hand-off changes memory, so the block is never idle.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int token;
    int t = (int)threadIdx.x, n = 0;
    if (t == 0)
        token = 0;
    __syncthreads();
    if (t == 0 || t == 32) {
        int me = t / 32;
        while (in[5] == 0) {
            while (atomicAdd(&token, 0) != me)
                ;
            atomicExch(&token, 1 - me);
            n++;
        }
    }
    out[t] = n;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
