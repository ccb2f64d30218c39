/*
 * corpus.h - the host side every kernel of warpsim's corpus shares.
 *
 * Each corpus/NAME.cu is one small program: a kernel written from a rule
 * of the CUDA Programming Guide (or a bug class that breaks one), its
 * expected verdict in its first line (`// expect: race`), and CORPUS_RUN,
 * the launch. The same file builds two ways:
 *   - with nvcc, for a GPU (run-sanitizer.sh runs it under compute-sanitizer);
 *   - as C for warpsim (make -C warpsim corpus; run.sh runs it under every
 *     scheduling model), with WARPSIM defined.
 * The kernels get two zeroed device buffers of CORPUS_INTS ints, `out` and
 * `in`; what they compute is not checked (the verdict is what the tools
 * report), but the program prints out[0..3] so that nothing is dead code.
 *
 * Usage: NAME [--help]. Exit status 0 when the kernel ran, 1 when a CUDA
 * call failed (a kernel that faulted), 2 for a bad argument.
 */
#ifndef CORPUS_H
#define CORPUS_H

#if defined(WARPSIM)
#include "warpsim.h"
#else
#include <cuda_runtime.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FULL 0xffffffffu
#define LANE() ((int)(threadIdx.x % 32u))
#define CORPUS_INTS 4096

#if defined(WARPSIM)
#define CORPUS_LAUNCH(kernel, blocks, threads, ...) \
    WS_LAUNCH(kernel, blocks, threads, 0, __VA_ARGS__)
#else
#define CORPUS_LAUNCH(kernel, blocks, threads, ...) \
    kernel<<<(blocks), (threads)>>>(__VA_ARGS__)
#endif

static void corpus_check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return;
    fprintf(stderr, "corpus: %s failed: %s\n", what, cudaGetErrorString(e));
    exit(1);
}

/* The file's launches: CORPUS_RUN { CORPUS_LAUNCH(kernel, 1, 32, out, in); } */
static void corpus_run(int *out, int *in);
#define CORPUS_RUN static void corpus_run(int *out, int *in)

int main(int argc, char **argv)
{
    int *out = NULL, *in = NULL, h[4];
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: %s\n\nRuns one kernel of warpsim's corpus (its source says what it "
               "does and what a checker\nshould report). Exit status 0 when it ran, 1 when "
               "a CUDA call failed, 2 for bad usage.\n", name);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "%s: unknown argument '%s' (try --help)\n", name, argv[1]);
        return 2;
    }
    corpus_check(cudaMalloc((void **)&out, CORPUS_INTS * sizeof(int)), "cudaMalloc");
    corpus_check(cudaMalloc((void **)&in, CORPUS_INTS * sizeof(int)), "cudaMalloc");
    corpus_check(cudaMemset(out, 0, CORPUS_INTS * sizeof(int)), "cudaMemset");
    corpus_check(cudaMemset(in, 0, CORPUS_INTS * sizeof(int)), "cudaMemset");
    corpus_run(out, in);
    corpus_check(cudaGetLastError(), "the launch");
    corpus_check(cudaDeviceSynchronize(), "the kernel");
    corpus_check(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), "cudaMemcpy");
    printf("%s: out %d %d %d %d\n", name, h[0], h[1], h[2], h[3]);
    return 0;
}

#endif /* CORPUS_H */
