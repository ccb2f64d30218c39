// expect: clean
/*
 * clean-early-return-syncthreads.cu
 *
 * Threads 40-63 return before the __syncthreads; the rest meet at it.
 * An exited thread holds up no barrier: the PTX ISA's exit says "If the
 * exiting threads are holding up the barrier, the barrier is released",
 * and its barrier waits only for "non-exited threads". They never reach
 * the barrier's place, so they skip nothing. warpsim holds threads that
 * run on past the barrier to the Programming Guide's rule ("Synchronization
 * Functions": __syncthreads in conditional code only "if the conditional
 * evaluates identically across the entire thread block"), whether they
 * exit later or not: barrier-skip-and-exit.cu, barrier-loop-skip-exit.cu.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    if (t >= 40)
        return;
    s[t] = t + in[t];
    __syncthreads();
    out[t] = s[39 - t];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 64, out, in); }
