// expect: clean
/*
 * clean-loop-barrier-guarded.cu
 *
 * barrier-loop-skip-goes-on.cu done right: every thread makes the same
 * number of trips (the bound is rounded up to a whole number of blocks),
 * and the guard is around the accesses, not around the __syncthreads, so
 * the barrier's condition is the same for the whole block, as the
 * Programming Guide asks ("Synchronization Functions").
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x, base, acc = 0;
    for (base = 0; base < 100; base += 64) {
        int i = base + t;
        s[t] = i < 100 ? in[i] : 0;
        __syncthreads();
        acc += s[63 - t];
        __syncthreads();
    }
    out[t] = acc;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
