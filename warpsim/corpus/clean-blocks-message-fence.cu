// expect: clean
/*
 * clean-blocks-message-fence.cu
 *
 * Block 0 passes a value to block 1 as the Programming Guide's
 * __threadfence() example does between blocks ("Memory Fence Functions"):
 * the data, __threadfence(), then a flag with atomicExch; block 1 waits
 * for the flag with atomicCAS, then __threadfence(), then reads the data.
 * The fence and the atomics order the two blocks' accesses. (Block 1 waits
 * for block 0; warpsim runs blocks in order, so block 0 has set the flag.)
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        out[10] = 42 + in[0];
        __threadfence();
        atomicExch(&out[20], 1);
    } else {
        while (atomicCAS(&out[20], 1, 1) != 1)
            ;
        __threadfence();
        out[0] = out[10];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 2, 32, out, in); }
