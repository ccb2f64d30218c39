// expect: uninit
/*
 * uninit-global-copied-tail.cu
 *
 * The host copies 40 ints into a buffer of 64 and the kernel reads all 64:
 * the last 24 hold nothing a cudaMemcpy, cudaMemset or kernel wrote. A
 * device-to-device copy of that buffer carries the holes along.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *buf)
{
    int t = (int)threadIdx.x;
    out[t] = buf[t];
}
CORPUS_RUN
{
    int h[40], *buf = NULL, *copy = NULL, i;
    (void)in;
    for (i = 0; i < 40; i++)
        h[i] = i;
    corpus_check(cudaMalloc((void **)&buf, 64 * sizeof(int)), "cudaMalloc");
    corpus_check(cudaMalloc((void **)&copy, 64 * sizeof(int)), "cudaMalloc");
    corpus_check(cudaMemcpy(buf, h, sizeof h, cudaMemcpyHostToDevice), "cudaMemcpy");
    corpus_check(cudaMemcpy(copy, buf, 64 * sizeof(int), cudaMemcpyDeviceToDevice),
                 "cudaMemcpy");
    CORPUS_LAUNCH(kernel, 1, 64, out, copy);
}
