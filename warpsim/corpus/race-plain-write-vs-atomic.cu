// expect: race
/*
 * race-plain-write-vs-atomic.cu
 *
 * Thread 0 stores to a counter with a plain write while the others add to
 * it atomically.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if (t == 0)
        out[0] = 5;
    else
        atomicAdd(&out[0], 1 + in[t]);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
