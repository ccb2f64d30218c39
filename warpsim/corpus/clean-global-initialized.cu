// expect: clean
/*
 * clean-global-initialized.cu
 *
 * Every way device memory gets its values, each read back by a kernel:
 * a cudaMemset of part of a buffer (only that part is read), a cudaMemcpy
 * from the host, a device-to-device cudaMemcpy of written memory, and a
 * kernel's writes read by the next launch. cudaMalloc's memory itself is
 * never read.
 */
#include "corpus.h"

__global__ void fill(int *buf)
{
    int t = (int)threadIdx.x;
    buf[64 + t] = 3 * t;
}

__global__ void read_all(int *out, int *set, int *copied, int *buf)
{
    int t = (int)threadIdx.x;
    out[t] = set[t % 16] + copied[t] + buf[64 + t] + buf[t];
}
CORPUS_RUN
{
    int h[64], *set = NULL, *copied = NULL, *buf = NULL, i;
    (void)in;
    for (i = 0; i < 64; i++)
        h[i] = i;
    corpus_check(cudaMalloc((void **)&set, 64 * sizeof(int)), "cudaMalloc");
    corpus_check(cudaMalloc((void **)&copied, 64 * sizeof(int)), "cudaMalloc");
    corpus_check(cudaMalloc((void **)&buf, 128 * sizeof(int)), "cudaMalloc");
    corpus_check(cudaMemset(set, 0, 16 * sizeof(int)), "cudaMemset");
    corpus_check(cudaMemcpy(buf, h, sizeof h, cudaMemcpyHostToDevice), "cudaMemcpy");
    corpus_check(cudaMemcpy(copied, buf, sizeof h, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    CORPUS_LAUNCH(fill, 1, 64, buf);
    CORPUS_LAUNCH(read_all, 1, 64, out, set, copied, buf);
}
