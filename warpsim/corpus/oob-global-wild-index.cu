// expect: oob-global
/*
 * oob-global-wild-index.cu
 *
 * An index computed in the wrong units: thread t of every block writes
 * out[(t + 1) << 30], gigabytes past the allocation, outside the device
 * memory warpsim emulates (where a GPU raises an illegal address).
 * warpsim never makes the write: the lane stops, the others run on, and
 * the program ends with the report, the summary and status 1, as a failed
 * launch ends a GPU program.
 */
#include "corpus.h"

__global__ void kernel(int *out, int *in)
{
    long long t = (long long)threadIdx.x;
    out[(t + 1) << 30] = (int)blockIdx.x + in[0];
}
CORPUS_RUN { CORPUS_LAUNCH(kernel, 2, 64, out, in); }
