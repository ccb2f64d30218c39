// expect: uninit
/*
 * uninit-global-short-memset.cu
 *
 * compute-sanitizer's initcheck sample: cudaMemset is given a count of
 * elements instead of bytes (the `* sizeof(int)` is missing), so it clears
 * the first quarter of the buffer, and the kernel's v[t] += t reads the
 * rest uninitialized.
 */
#include "corpus.h"

__global__ void kernel(int *v)
{
    int t = (int)(threadIdx.x + blockDim.x * blockIdx.x);
    v[t] += t;
}
CORPUS_RUN
{
    int *v = NULL;
    (void)out;
    (void)in;
    corpus_check(cudaMalloc((void **)&v, 2 * 32 * sizeof(int)), "cudaMalloc");
    corpus_check(cudaMemset(v, 0, 2 * 32), "cudaMemset");
    CORPUS_LAUNCH(kernel, 2, 32, v);
}
