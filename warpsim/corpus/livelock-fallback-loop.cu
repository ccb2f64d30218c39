// expect: livelock
/*
 * livelock-fallback-loop.cu
 *
 * A __match_any_sync fallback loop whose lane set never shrinks: the bug
 * clears the wrong bits, so every round completes its shuffle and ballot and
 * the loop goes on forever.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int lane = LANE(), key = in[lane] + lane % 3;
    unsigned todo = FULL, peers = 0;
    while (todo) {
        int leader = __ffs(todo) - 1;
        int lk = __shfl_sync(todo, key, leader);
        unsigned same = __ballot_sync(todo, key == lk);
        if (key == lk)
            peers = same;
        todo &= ~(same & 0u);           /* the bug: should be todo &= ~same */
    }
    out[lane] = (int)peers;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
