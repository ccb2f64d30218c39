// expect: clean
// expect-lockstep: hang
/*
 * clean-spinlock-intra-warp.cu
 *
 * An intra-warp spin lock (every lane atomicCASes one lock): correct since
 * Volta, the classic deadlock of older GPUs, so lockstep hangs on it.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    while (atomicCAS(&out[100], 0, 1) != 0)
        ;
    __threadfence();
    out[0] = out[0] + 1 + in[0];
    __threadfence();
    atomicExch(&out[100], 0);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
