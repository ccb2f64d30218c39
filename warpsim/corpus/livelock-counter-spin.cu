// expect: livelock
/*
 * livelock-counter-spin.cu
 *
 * Threads wait on a volatile flag that nothing sets, counting their
 * rounds in shared memory: every round writes memory, none ends the loop.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int rounds[32];
    volatile int *flag = in, *r = rounds;
    int lane = LANE();
    r[lane] = 0;
    while (flag[3] == 0)
        r[lane] = r[lane] + 1;
    out[lane] = r[lane];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
