// expect: clean
/*
 * clean-blocks-two-launches.cu
 *
 * race-blocks-read-next.cu done right: the first launch writes out[b], the
 * second reads out[b + 1]. A kernel's launch ends only when all its blocks
 * have finished, and the next launch on the stream starts after it, so
 * everything the first wrote is visible to the second (Programming Guide,
 * "Streams": operations of one stream run in order).
 */
#include "corpus.h"

__global__ void produce(int *out, int *in)
{
    int b = (int)blockIdx.x;
    if (threadIdx.x == 0)
        out[b] = b + 1 + in[b];
}

__global__ void consume(int *out, int *in)
{
    int b = (int)blockIdx.x;
    if (threadIdx.x == 0)
        out[64 + b] = 1000 / out[b + 1] + in[b];
}
CORPUS_RUN
{
    CORPUS_LAUNCH(produce, 5, 32, out, in);
    CORPUS_LAUNCH(consume, 4, 32, out, in);
}
