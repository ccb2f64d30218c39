// expect: clean
/*
 * clean-loop-return-before-barrier.cu
 *
 * Threads return inside the loop, before its __syncthreads, once their
 * row runs past the data (threads 48-63 in the last trip); the others meet
 * at the barrier. A thread that returns has exited: it never reaches the
 * barrier's place, and an exited thread holds up no barrier (PTX ISA,
 * "exit": "If the exiting threads are holding up the barrier, the barrier
 * is released"), the rule clean-early-return-syncthreads.cu rests on too.
 * Compare barrier-loop-skip-exit.cu, whose threads go on past the barrier.
 */
#include "corpus.h"

#define THREADS 64
#define ROWS 16
#define SIZE (THREADS * ROWS - 16)

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[THREADS];
    int t = (int)threadIdx.x, b, acc = 0;
    for (b = 0; b < ROWS; b++) {
        int offset = THREADS * b + t;
        if (offset >= SIZE)
            return;
        s[t] = in[offset] + b;
        __syncthreads();
        acc += s[(t + 1) % 48];
        __syncthreads();
        out[t] = acc;
    }
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, THREADS, out, in); }
