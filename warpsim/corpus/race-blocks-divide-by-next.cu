// expect: race
// also: fpe
/*
 * race-blocks-divide-by-next.cu
 *
 * Each block writes its count, then divides by the count of the next
 * block, which that block may not have written yet: under warpsim, which
 * runs block 0 first, it reads the 0 that cudaMemset left there and
 * divides by zero. The division is a symptom; the race on out[b + 1] is
 * the cause, and warpsim reports it first (the lane stops at the division,
 * the launch runs on to find the race, then the division is reported).
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    int b = (int)blockIdx.x;
    if (threadIdx.x == 0) {
        out[b] = b + 1 + in[b];
        out[64 + b] = 1000 / out[b + 1];
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 4, 32, out, in); }
