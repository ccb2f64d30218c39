// expect: clean
/*
 * clean-byte-disjoint.cu
 *
 * Each lane writes its own byte of a char array (four lanes share each
 * 4-byte word), then __syncwarp, then reads its neighbour's byte.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ char c[32];
    int lane = LANE();
    c[lane] = (char)(lane + in[lane]);
    __syncwarp();
    out[lane] = c[lane ^ 1];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
