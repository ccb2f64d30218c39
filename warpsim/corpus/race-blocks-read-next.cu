// expect: race
/*
 * race-blocks-read-next.cu
 *
 * Thread 0 of block b reads out[b + 1], which thread 0 of block b + 1
 * writes, and nothing orders the two: blocks of one launch may run in any
 * order and at the same time (Programming Guide, "Thread Hierarchy": blocks
 * are "required to execute independently ... in any order, in parallel or
 * in series"). warpsim runs block b first, so the read comes before the
 * write; the race is found at the write.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int b = (int)blockIdx.x;
    if (threadIdx.x == 0) {
        int next = out[b + 1];
        out[b] = next + in[b] + 1;
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 4, 32, out, in); }
