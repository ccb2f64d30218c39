// expect: race
/*
 * race-volatile-reduction.cu
 *
 * The legacy warp reduction on volatile shared memory with no __syncwarp:
 * it relies on lockstep, which Volta and later do not promise.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    volatile int *v = s;
    int lane = LANE();
    s[lane + 32] = 0;
    v[lane] = in[lane] + lane;
    __syncwarp();
    if (lane < 16) {
        v[lane] += v[lane + 16];
        v[lane] += v[lane + 8];
        v[lane] += v[lane + 4];
        v[lane] += v[lane + 2];
        v[lane] += v[lane + 1];
    }
    if (lane == 0)
        out[0] = v[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
