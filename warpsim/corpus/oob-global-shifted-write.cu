// expect: oob-global
/*
 * oob-global-shifted-write.cu
 *
 * Thread t writes buf[t + 1] of a 64-int buffer instead of buf[t]: thread
 * 63 writes past the end, and buf[0], which nobody wrote, is read after
 * the barrier. The out-of-bounds write is the cause and the first report;
 * the uninitialized read it leads to is not reported after it (the launch
 * has failed).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *buf)
{
    int t = (int)threadIdx.x;
    buf[t + 1] = t;
    __syncthreads();
    out[t] = buf[t];
}
CORPUS_RUN
{
    int *buf = NULL;
    (void)in;
    corpus_check(cudaMalloc((void **)&buf, 64 * sizeof(int)), "cudaMalloc");
    CORPUS_LAUNCH(kernel, 1, 64, out, buf);
}
