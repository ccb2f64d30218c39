/*
 * cub_scan.cu - part of lesson 07's benchmark (bench.cu): CUB's device-wide
 * inclusive sum, in a file of its own. CUB's device scan is the longest
 * thing in the benchmark to compile; apart, it compiles at the same time as
 * bench.cu (make builds the two side by side), and the two are linked into
 * build/bench. GPU only.
 */
#include <cub/device/device_scan.cuh>

/* cub::DeviceScan::InclusiveSum over n ints: with tmp NULL, sets *bytes to
 * the temporary storage it needs and scans nothing. */
cudaError_t cub_inclusive_sum(void *tmp, size_t *bytes, const int *in, int *out, int n)
{
    return cub::DeviceScan::InclusiveSum(tmp, *bytes, in, out, n);
}
