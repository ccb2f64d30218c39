// expect: barrier
/*
 * barrier-skip-and-exit.cu
 *
 * Threads 32-63 skip the __syncthreads inside a branch and run on to the
 * kernel's end without touching memory: they did not exit before it. The
 * Programming Guide ("Synchronization Functions") allows __syncthreads in
 * conditional code "only if the conditional evaluates identically across
 * the entire thread block"; t < 32 does not. That they exit afterwards
 * makes it no better: they went past the barrier's place without waiting
 * (compare clean-early-return-syncthreads.cu, whose threads return before
 * it).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if (t < 32) {
        __syncthreads();
        out[t] = t + in[t];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
