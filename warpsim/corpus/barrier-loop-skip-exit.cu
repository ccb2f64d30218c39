// expect: barrier
/*
 * barrier-loop-skip-exit.cu
 *
 * compute-sanitizer's synccheck sample, in shape: each thread sums its
 * column of 16 rows, with a __syncthreads in each trip, but the last row
 * is short: threads 48-63 skip the last trip's body, barrier included, and
 * run on to the kernel's end while threads 0-47 wait in it. The Programming
 * Guide ("Synchronization Functions") allows __syncthreads in conditional
 * code "only if the conditional evaluates identically across the entire
 * thread block"; here the condition (offset < SIZE) does not. That the
 * threads exit afterwards does not make it legal: they went past the
 * barrier's place in the code without waiting (compare
 * clean-loop-return-before-barrier.cu, whose threads return before it).
 */
#include "corpus.h"

#define THREADS 64
#define ROWS 16
#define SIZE (THREADS * ROWS - 16)

__global__ void kernel(int *out, int *in)
{
    __shared__ int sum[THREADS];
    int t = (int)threadIdx.x, b;
    sum[t] = 0;
    __syncthreads();
    for (b = 0; b < ROWS; b++) {
        int offset = THREADS * b + t;
        if (offset < SIZE) {
            sum[t] += in[offset];
            __syncthreads();
        }
    }
    if (t == 0)
        out[0] = sum[0] + sum[THREADS - 1];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, THREADS, out, in); }
