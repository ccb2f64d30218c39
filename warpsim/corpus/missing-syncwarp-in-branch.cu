// expect: missing
/*
 * missing-syncwarp-in-branch.cu
 *
 * A full-mask __syncwarp() inside a branch of lanes 0-7.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = lane + in[lane];
    if (lane < 8) {
        __syncwarp();
        out[lane] = s[lane ^ 1];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
