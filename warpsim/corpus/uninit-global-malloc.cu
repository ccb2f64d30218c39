// expect: uninit
/*
 * uninit-global-malloc.cu
 *
 * The kernel reads a buffer that cudaMalloc returned and nothing wrote:
 * cudaMalloc does not clear the memory it allocates (CUDA Runtime API,
 * cudaMalloc: "The memory is not cleared"), so the sums are of whatever it
 * held. compute-sanitizer's initcheck reports such a read.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *buf)
{
    int t = (int)threadIdx.x;
    out[t] = buf[t] + buf[63 - t];
}
CORPUS_RUN
{
    int *buf = NULL;
    (void)in;
    corpus_check(cudaMalloc((void **)&buf, 64 * sizeof(int)), "cudaMalloc");
    CORPUS_LAUNCH(kernel, 1, 64, out, buf);
}
