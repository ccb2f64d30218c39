// expect: race
/*
 * race-blocks-message-no-fence.cu
 *
 * clean-blocks-message-fence.cu without the fences: atomics alone are
 * relaxed and order no other access, so block 1's read of the data races
 * with block 0's write although it waited for the flag.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        out[10] = 42 + in[0];
        atomicExch(&out[20], 1);
    } else {
        while (atomicCAS(&out[20], 1, 1) != 1)
            ;
        out[0] = out[10];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 2, 32, out, in); }
