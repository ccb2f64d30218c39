// expect: clean
/*
 * clean-message-fence.cu
 *
 * Message passing done right: data, __threadfence(), then the flag with
 * atomicExch; the reader waits on the flag with atomicCAS, __threadfence(),
 * then reads the data.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if (t == 0) {
        out[10] = 42 + in[0];
        __threadfence();
        atomicExch(&out[20], 1);
    } else if (t == 32) {
        while (atomicCAS(&out[20], 1, 1) != 1)
            ;
        __threadfence();
        out[0] = out[10];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
