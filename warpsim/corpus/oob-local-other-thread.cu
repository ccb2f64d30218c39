// expect: oob-global
/*
 * oob-local-other-thread.cu
 *
 * Thread 0 publishes the address of its local array in shared memory and
 * thread 1 writes through it. A thread's local memory is its own (PTX ISA,
 * "State Spaces": the local state space is "private memory for each
 * thread"); on a GPU the address means thread 1's own local memory, if
 * anything. warpsim stops thread 1 before the write.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int *where[1];
    int mine[4], t = (int)threadIdx.x, i;
    for (i = 0; i < 4; i++)
        mine[i] = in[i] + t;
    if (t == 0)
        where[0] = mine;
    __syncthreads();
    if (t == 1)
        where[0][2] = 7;
    __syncthreads();
    if (t == 0)
        out[0] = mine[2];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); }
