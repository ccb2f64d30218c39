/*
 * cub_ref.cu - lesson 06's yardstick: cub::DeviceReduce::Sum, the sum the
 * CUDA Toolkit ships (CUB, part of CCCL), on the same input as sync.cu.
 * GPU only (C++).
 *
 * Build:  make                     (nvcc -I../../include cub_ref.cu cub_sum.cu -o build/cub_ref)
 * Run:    build/cub_ref -n 256M
 * Check:  make check               (holds it to the 64-bit CPU sum like sync.cu)
 *
 * How CUB is called: once with no temporary storage, to learn how many bytes
 * it needs; then with that storage. The number of items is passed as an int
 * when it fits (CUB then uses 32-bit offsets, its fastest path), else as a
 * long long. CUB sums ints in int, which wraps like the lesson's kernels.
 *
 * Included by bench.cu (which defines LESSON_AS_LIBRARY and includes sync.cu
 * and reduce.h itself): then only cub_temp_bytes and cub_sum below are compiled.
 */
#ifndef LESSON_AS_LIBRARY
#define LESSON_AS_LIBRARY
#define CUB_MAIN
#define LESSON_CASES         /* --cases: several runs in one process */
#include "sync.cu"
#include "reduce.h"
#endif

/* cub_sum.cu: cub::DeviceReduce::Sum, compiled apart and linked in. */
cudaError_t cub_reduce_sum(void *temp, size_t *bytes, const int *in, int *out, long long n);

/* Bytes of temporary storage cub_sum needs for n items. */
static size_t cub_temp_bytes(long long n)
{
    size_t bytes = 0;
    CUDA_CHECK(cub_reduce_sum(NULL, &bytes, NULL, NULL, n));
    return bytes;
}

/* *out = the sum of in[0..n), asynchronously; temp holds cub_temp_bytes(n). */
static void cub_sum(const int *in, long long n, int *out, void *temp, size_t temp_bytes)
{
    CUDA_CHECK(cub_reduce_sum(temp, &temp_bytes, in, out, n));
}

#ifdef CUB_MAIN
int lesson_main(int argc, char **argv)
{
    long long n = 1 << 24, seed = 1, max_value = 100;
    lesson_option options[] = {
        { 'n', "size", "N", &n, 1, 1LL << 36, "number of ints to sum" },
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'm', "max", "M", &max_value, 1, 1 << 30, "input values are -M..-1 and 1..M" },
    };
    static const char *variants_cub[] = { "cub::DeviceReduce::Sum" };
    lesson_program program = { "cub_ref.cu",
        "Lesson 06's yardstick: sums n random ints (never 0) with\n"
        "cub::DeviceReduce::Sum and checks the sum against the 64-bit CPU sum\n"
        "(modulo 2^32: CUB sums ints in int, which wraps around). GPU only.",
        variants_cub, 1, options, (int)(sizeof options / sizeof options[0]) };
    long long want64;
    int *in, *d_in, *d_out, got;
    void *d_temp;
    size_t temp_bytes;
    char what[64];

    lesson_parse(argc, argv, &program);
    d_in = (int *)lesson_device_alloc((size_t)n * sizeof(int), "the input");
    d_out = (int *)lesson_device_alloc(sizeof(int), "the sum");
    temp_bytes = cub_temp_bytes(n);
    d_temp = lesson_device_alloc(temp_bytes, "CUB's temporary storage");
    in = (int *)lesson_host_alloc((size_t)n * sizeof(int), "the input");

    printf("cub_ref.cu (cub::DeviceReduce::Sum, %zu bytes of temporary storage)\n",
           temp_bytes);
    lesson_print_path();
    printf("n=%lld seed=%lld values=+-1..%lld\n", n, seed, max_value);
    lesson_random_ints(in, n, seed, (int)max_value);
    want64 = cpu_sum(in, n);

    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0xab, sizeof(int)));
    cub_sum(d_in, n, d_out, d_temp, temp_bytes);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost));

    lesson_device_free(d_in);
    lesson_device_free(d_out);
    lesson_device_free(d_temp);
    lesson_host_free(in);
    snprintf(what, sizeof what, "cub, n=%lld", n);
    return report_sum(got, want64, what);
}
#endif /* CUB_MAIN */
