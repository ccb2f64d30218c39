// expect: oob-global
/*
 * oob-null-pointer.cu
 *
 * Lane 5 writes through a null pointer.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int *p = LANE() == 5 ? (int *)0 : out;
    p[LANE()] = 1 + in[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
