// expect: race
/*
 * race-blocks-write-same.cu
 *
 * Every block's last warp writes the same 32 slots of out: blocks of one
 * launch are not ordered, so the writes race (compare
 * clean-blocks-own-slices.cu, where each block writes its own).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x;
    if (t >= 32)
        out[t - 32] = (int)blockIdx.x + in[t];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 3, 64, out, in); }
