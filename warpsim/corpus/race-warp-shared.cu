// expect: race
/*
 * race-warp-shared.cu
 *
 * Lane l reads the slot lane l+1 wrote, with nothing in between: threads of
 * one warp are not promised to run in lockstep (Independent Thread Scheduling).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = 0;
    __syncwarp();
    s[lane] = lane + in[lane];
    out[lane] = s[(lane + 1) % 32];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
