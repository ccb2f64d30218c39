// expect: clean
/*
 * clean-byte-disjoint-global.cu
 *
 * Lanes of different warps write their own bytes of the same global words.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    unsigned char *b = (unsigned char *)out;
    int t = (int)threadIdx.x;
    b[t] = (unsigned char)(t + in[t]);
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
