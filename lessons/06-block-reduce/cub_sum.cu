/*
 * cub_sum.cu - part of lesson 06's cub_ref and bench programs:
 * cub::DeviceReduce::Sum, in a file of its own. CUB's device reduce is the
 * longest thing in either program to compile; apart, it compiles once for
 * both of them, at the same time as their own files, and is linked into
 * each. GPU only.
 */
#include <climits>
#include <cub/device/device_reduce.cuh>

/* cub::DeviceReduce::Sum over n ints (an int count where n fits one, else
 * a 64-bit count): with temp NULL, sets *bytes to the temporary storage it
 * needs and sums nothing. */
cudaError_t cub_reduce_sum(void *temp, size_t *bytes, const int *in, int *out, long long n)
{
    if (n <= INT_MAX)
        return cub::DeviceReduce::Sum(temp, *bytes, in, out, (int)n);
    return cub::DeviceReduce::Sum(temp, *bytes, in, out, n);
}
