// expect: clean
/*
 * clean-halfword-disjoint.cu
 *
 * Each lane writes its own half-word of a short array in global and shared
 * memory; no two lanes touch the same bytes.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ short h[32];
    short *g = (short *)out;
    int lane = LANE();
    h[lane] = (short)(lane + in[lane]);
    g[lane] = (short)lane;
    __syncwarp();
    out[64 + lane] = h[lane ^ 1];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
