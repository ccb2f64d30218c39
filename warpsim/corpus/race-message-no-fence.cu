// expect: race
/*
 * race-message-no-fence.cu
 *
 * Message passing without a fence: warp 0 writes data, then sets a flag
 * with atomicExch; warp 1 waits for the flag and reads the data. Atomics are
 * relaxed: without __threadfence() nothing orders the data accesses.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if (t == 0) {
        out[10] = 42 + in[0];
        atomicExch(&out[20], 1);
    } else if (t == 32) {
        while (atomicAdd(&out[20], 0) == 0)
            ;
        out[0] = out[10];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
