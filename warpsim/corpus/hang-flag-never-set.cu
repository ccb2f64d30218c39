// expect: hang
/*
 * hang-flag-never-set.cu
 *
 * Every thread spins on a volatile flag that nothing sets.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    volatile int *flag = in;
    while (flag[7] == 0)
        ;
    out[threadIdx.x] = 1;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
