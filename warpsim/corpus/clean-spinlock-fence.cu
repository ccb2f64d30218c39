// expect: clean
/*
 * clean-spinlock-fence.cu
 *
 * A spin lock between warps (lane 0 of each warp; one lane per warp, so it
 * does not deadlock even in lockstep): atomicCAS to take it, __threadfence,
 * a plain read-modify-write of the counter, __threadfence, atomicExch to
 * release. The lock orders the critical sections.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    __shared__ int lock, count;
    int t = (int)threadIdx.x;
    if (t == 0) {
        lock = 0;
        count = 0;
    }
    __syncthreads();
    if (t % 32 == 0) {
        while (atomicCAS(&lock, 0, 1) != 0)
            ;
        __threadfence();
        count = count + 1 + in[t];
        __threadfence();
        atomicExch(&lock, 0);
    }
    __syncthreads();
    if (t == 0)
        out[0] = count;
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 128, out, in); }
