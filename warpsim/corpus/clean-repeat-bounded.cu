// expect: clean
/*
 * clean-repeat-bounded.cu
 *
 * A warp takes the same broadcast 10000 times, counting the rounds in a
 * register: every shuffle repeats the last one exactly and no memory
 * changes, yet the loop ends. A repeat is progress for a while (several
 * spin limits); only a loop that outlasts that is a livelock.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), v = in[0], acc = 0, i;
    for (i = 0; i < 10000; i++)
        acc += __shfl_sync(FULL, v, 0);
    out[lane] = acc;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
