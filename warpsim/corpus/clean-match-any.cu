// expect: clean
/*
 * clean-match-any.cu
 *
 * __match_any_sync groups lanes by key; each group's leader adds its count.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), key = lane % 4 + in[lane];
    unsigned peers = __match_any_sync(FULL, key);
    if (lane == __ffs(peers) - 1)
        atomicAdd(&out[key], __popc(peers));
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
