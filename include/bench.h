/*
 * bench.h - timing for the lessons' benchmark programs (GPU only).
 *
 * Every benchmark follows the same rules: check the result before timing it,
 * warm up, time each run with CUDA events, report the median.
 *
 *   float ms;
 *   BENCH_MEDIAN_MS(ms, 3, 20, LAUNCH(kernel, blocks, threads, 0, args...));
 *
 * runs the statement 3 times untimed, then 20 times timed one by one, and
 * stores the median in ms. bench_progress() writes "[3/12] what" to stderr
 * so that a long benchmark shows where it is, while stdout stays CSV.
 * bench_gbps() turns bytes and milliseconds into GB/s (10^9 bytes/s).
 */
#ifndef BENCH_H
#define BENCH_H

#include "lesson.h"

#define BENCH_MAX_REPS 1000

static inline int bench_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The median of t[0..n), which it sorts. */
static inline float bench_median(float *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_cmp_float);
    return n % 2 ? t[n / 2] : 0.5f * (t[n / 2 - 1] + t[n / 2]);
}

#define BENCH_MEDIAN_MS(ms_out, warmup, reps, statement)                      \
    do {                                                                      \
        static float bench_t_[BENCH_MAX_REPS];                                \
        cudaEvent_t bench_a_, bench_b_;                                       \
        int bench_i_, bench_reps_ = (reps) < BENCH_MAX_REPS ? (reps) : BENCH_MAX_REPS; \
        CUDA_CHECK(cudaEventCreate(&bench_a_));                               \
        CUDA_CHECK(cudaEventCreate(&bench_b_));                               \
        for (bench_i_ = 0; bench_i_ < (warmup); bench_i_++) {                 \
            statement;                                                        \
        }                                                                     \
        CUDA_CHECK(cudaDeviceSynchronize());                                  \
        for (bench_i_ = 0; bench_i_ < bench_reps_; bench_i_++) {              \
            CUDA_CHECK(cudaEventRecord(bench_a_, 0));                         \
            statement;                                                        \
            CUDA_CHECK(cudaEventRecord(bench_b_, 0));                         \
            CUDA_CHECK(cudaEventSynchronize(bench_b_));                       \
            CUDA_CHECK(cudaEventElapsedTime(&bench_t_[bench_i_], bench_a_, bench_b_)); \
        }                                                                     \
        (ms_out) = bench_median(bench_t_, bench_reps_);                       \
        CUDA_CHECK(cudaEventDestroy(bench_a_));                               \
        CUDA_CHECK(cudaEventDestroy(bench_b_));                               \
    } while (0)

static inline void bench_progress(int done, int total, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "[%d/%d] ", done, total);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static inline double bench_gbps(double bytes, float ms)
{
    return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
}

#endif /* BENCH_H */
