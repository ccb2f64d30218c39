// expect: race
/*
 * race-warp-global.cu
 *
 * The lane-neighbour exchange on global memory.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE();
    out[lane] = lane + in[lane];
    out[64 + lane] = out[(lane + 1) % 32];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
