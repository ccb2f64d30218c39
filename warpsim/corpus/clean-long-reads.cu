// expect: clean
/*
 * clean-long-reads.cu
 *
 * Every thread reads 2000 elements, then writes once: a long loop that
 * is no hang.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int t = (int)threadIdx.x, i, sum = 0;
    for (i = 0; i < 2000; i++)
        sum += in[(t * 7 + i) % 2048];
    out[t] = sum;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
