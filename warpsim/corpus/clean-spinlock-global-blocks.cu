// expect: clean
/*
 * clean-spinlock-global-blocks.cu
 *
 * A global spin lock taken by thread 0 of each of four blocks; the critical
 * section updates a plain global counter.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(&out[100], 0, 1) != 0)
            ;
        __threadfence();
        out[0] = out[0] + 1 + in[0];
        __threadfence();
        atomicExch(&out[100], 0);
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 4, 32, out, in); }
