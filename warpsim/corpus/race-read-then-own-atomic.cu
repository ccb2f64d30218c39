// expect: race
/*
 * race-read-then-own-atomic.cu
 *
 * Thread 0 reads the counter, then updates it atomically itself; the other
 * threads update it atomically too. Its own atomic orders nothing for the
 * others: the plain read races with their atomics in every interleaving.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if (t == 0)
        out[1] = out[0];
    atomicAdd(&out[0], 1 + in[t]);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
