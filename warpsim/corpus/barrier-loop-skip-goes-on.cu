// expect: barrier
/*
 * barrier-loop-skip-goes-on.cu
 *
 * A loop whose trip count depends on the thread (i from t while i < 100,
 * step 64): threads 36-63 make one trip, threads 0-35 two, and the second
 * trip's __syncthreads waits for threads that have left the loop and write
 * out[] past it. The Programming Guide ("Synchronization Functions"):
 * __syncthreads in conditional code only "if the conditional evaluates
 * identically across the entire thread block"; the loop's condition is a
 * condition.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x, i, acc = 0;
    for (i = t; i < 100; i += 64) {
        s[t] = in[i];
        __syncthreads();
        acc += s[63 - t];
        __syncthreads();
    }
    out[t] = acc;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
