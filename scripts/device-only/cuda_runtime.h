/*
 * cuda_runtime.h - what scripts/device-only.py reads in place of the CUDA
 * Toolkit's header: the CUDA C++ API that lesson files and include/lesson.h
 * use, declared for clang's CUDA mode (clang 14 reads no CUDA 12 or 13
 * headers, and a CPU-only grader has none). Declarations only: nothing here
 * is compiled into a program. A device function that a correct student
 * file may call and that is missing here is a bug of this file: add it.
 */
#ifndef DEVICE_ONLY_CUDA_RUNTIME_H
#define DEVICE_ONLY_CUDA_RUNTIME_H
#define __CUDA_RUNTIME_H__
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define CUDART_VERSION 13000
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#include <stddef.h>
#include <__clang_cuda_builtin_vars.h>

/* ---- host runtime (lesson.h's host side) ---- */
typedef enum cudaError {
    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3, cudaErrorLaunchFailure = 719,
    cudaErrorNoDevice = 100, cudaErrorInsufficientDriver = 35
} cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                      cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaLimit { cudaLimitStackSize, cudaLimitPrintfFifoSize, cudaLimitMallocHeapSize };
struct cudaDeviceProp { char name[256]; int major, minor, multiProcessorCount, warpSize;
                        size_t totalGlobalMem; int maxThreadsPerBlock; };
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
typedef struct int4 int4;
struct int2 { int x, y; };
struct uint2 { unsigned x, y; };
struct float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct uint4 { unsigned x, y, z, w; };
struct dim3 {
    unsigned x, y, z;
    __host__ __device__ dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
__host__ __device__ int4 make_int4(int, int, int, int);
__host__ __device__ int2 make_int2(int, int);
__host__ cudaError_t cudaMalloc(void **, size_t);
template <typename T> __host__ cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
__host__ cudaError_t cudaFree(void *);
__host__ cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
__host__ cudaError_t cudaMemset(void *, int, size_t);
__host__ cudaError_t cudaMemcpyToSymbol(const void *, const void *, size_t, size_t = 0,
                                        cudaMemcpyKind = cudaMemcpyHostToDevice);
template <typename T> __host__ cudaError_t cudaMemcpyToSymbol(const T &s, const void *p, size_t n,
    size_t o = 0, cudaMemcpyKind k = cudaMemcpyHostToDevice) { return cudaMemcpyToSymbol((const void *)&s, p, n, o, k); }
__host__ cudaError_t cudaMemcpyFromSymbol(void *, const void *, size_t, size_t = 0,
                                          cudaMemcpyKind = cudaMemcpyDeviceToHost);
__host__ cudaError_t cudaDeviceSynchronize(void);
__host__ cudaError_t cudaDeviceSetLimit(cudaLimit, size_t);
__host__ cudaError_t cudaGetLastError(void);
__host__ cudaError_t cudaPeekAtLastError(void);
__host__ const char *cudaGetErrorString(cudaError_t);
__host__ cudaError_t cudaGetDevice(int *);
__host__ cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int);
__host__ cudaError_t cudaDeviceGetAttribute(int *, int, int);
__host__ cudaError_t cudaEventCreate(cudaEvent_t *);
__host__ cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0);
__host__ cudaError_t cudaEventSynchronize(cudaEvent_t);
__host__ cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
__host__ cudaError_t cudaEventDestroy(cudaEvent_t);
/* what clang's <<<...>>> calls */
extern "C" __host__ int __cudaPushCallConfiguration(dim3, dim3, size_t = 0, cudaStream_t = 0);
extern "C" __host__ cudaError_t cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = 0);
extern "C" __host__ cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t);

/* ---- device functions: what a kernel may call ---- */
extern "C" __device__ int printf(const char *, ...);
extern "C" __device__ void *malloc(size_t);
extern "C" __device__ void free(void *);
extern "C" __device__ void *memcpy(void *, const void *, size_t);
extern "C" __device__ void *memset(void *, int, size_t);
extern "C" __device__ void __assertfail(const char *, const char *, unsigned, const char *, size_t);
extern "C" __device__ void __assert_fail(const char *, const char *, unsigned, const char *);
__device__ void __trap(void);
__device__ void __brkpt(void);
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ void __nanosleep(unsigned);
__device__ unsigned __activemask(void);
__device__ unsigned __ballot_sync(unsigned, int);
__device__ int __any_sync(unsigned, int);
__device__ int __all_sync(unsigned, int);
__device__ int __uni_sync(unsigned, int);
__device__ unsigned __ballot(int);
__device__ int __any(int);
__device__ int __all(int);
#define DEVICE_ONLY_SHFL(T) \
    __device__ T __shfl_sync(unsigned, T, int, int = 32); \
    __device__ T __shfl_up_sync(unsigned, T, unsigned, int = 32); \
    __device__ T __shfl_down_sync(unsigned, T, unsigned, int = 32); \
    __device__ T __shfl_xor_sync(unsigned, T, int, int = 32); \
    __device__ T __shfl(T, int, int = 32); \
    __device__ T __shfl_up(T, unsigned, int = 32); \
    __device__ T __shfl_down(T, unsigned, int = 32); \
    __device__ T __shfl_xor(T, int, int = 32); \
    __device__ unsigned __match_any_sync(unsigned, T); \
    __device__ unsigned __match_all_sync(unsigned, T, int *);
DEVICE_ONLY_SHFL(int)
DEVICE_ONLY_SHFL(unsigned)
DEVICE_ONLY_SHFL(long)
DEVICE_ONLY_SHFL(unsigned long)
DEVICE_ONLY_SHFL(long long)
DEVICE_ONLY_SHFL(unsigned long long)
DEVICE_ONLY_SHFL(float)
DEVICE_ONLY_SHFL(double)
#undef DEVICE_ONLY_SHFL
__device__ int __reduce_add_sync(unsigned, int);
__device__ unsigned __reduce_add_sync(unsigned, unsigned);
__device__ int __reduce_min_sync(unsigned, int);
__device__ unsigned __reduce_min_sync(unsigned, unsigned);
__device__ int __reduce_max_sync(unsigned, int);
__device__ unsigned __reduce_max_sync(unsigned, unsigned);
__device__ unsigned __reduce_and_sync(unsigned, unsigned);
__device__ unsigned __reduce_or_sync(unsigned, unsigned);
__device__ unsigned __reduce_xor_sync(unsigned, unsigned);
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ unsigned __brev(unsigned);
__device__ unsigned long long __brevll(unsigned long long);
__device__ unsigned __fns(unsigned, unsigned, int);
__device__ long long clock64(void);
__device__ long clock(void);
__device__ unsigned __lanemask_lt(void);
__device__ unsigned __lanemask_le(void);
__device__ unsigned __lanemask_eq(void);
__device__ unsigned __lanemask_gt(void);
__device__ unsigned __lanemask_ge(void);
#define DEVICE_ONLY_LOAD(T) \
    __device__ T __ldg(const T *); __device__ T __ldcg(const T *); __device__ T __ldca(const T *); \
    __device__ T __ldcs(const T *); __device__ T __ldlu(const T *); __device__ T __ldcv(const T *); \
    __device__ void __stcg(T *, T); __device__ void __stcs(T *, T); __device__ void __stwt(T *, T);
DEVICE_ONLY_LOAD(int)
DEVICE_ONLY_LOAD(unsigned)
DEVICE_ONLY_LOAD(long long)
DEVICE_ONLY_LOAD(unsigned long long)
DEVICE_ONLY_LOAD(float)
DEVICE_ONLY_LOAD(double)
DEVICE_ONLY_LOAD(int4)
#undef DEVICE_ONLY_LOAD
#define DEVICE_ONLY_ATOMIC(T) \
    __device__ T atomicAdd(T *, T); __device__ T atomicSub(T *, T); __device__ T atomicExch(T *, T); \
    __device__ T atomicMin(T *, T); __device__ T atomicMax(T *, T); __device__ T atomicAnd(T *, T); \
    __device__ T atomicOr(T *, T); __device__ T atomicXor(T *, T); __device__ T atomicCAS(T *, T, T); \
    __device__ T atomicAdd_block(T *, T); __device__ T atomicAdd_system(T *, T);
DEVICE_ONLY_ATOMIC(int)
DEVICE_ONLY_ATOMIC(unsigned)
DEVICE_ONLY_ATOMIC(unsigned long long)
DEVICE_ONLY_ATOMIC(long long)
#undef DEVICE_ONLY_ATOMIC
__device__ float atomicAdd(float *, float);
__device__ double atomicAdd(double *, double);
__device__ float atomicExch(float *, float);
__device__ unsigned atomicInc(unsigned *, unsigned);
__device__ unsigned atomicDec(unsigned *, unsigned);
/* CUDA's min() and max() and the math library's common forms */
#define DEVICE_ONLY_MINMAX(T) \
    __host__ __device__ T min(T, T); __host__ __device__ T max(T, T);
DEVICE_ONLY_MINMAX(int)
DEVICE_ONLY_MINMAX(unsigned)
DEVICE_ONLY_MINMAX(long)
DEVICE_ONLY_MINMAX(unsigned long)
DEVICE_ONLY_MINMAX(long long)
DEVICE_ONLY_MINMAX(unsigned long long)
DEVICE_ONLY_MINMAX(float)
DEVICE_ONLY_MINMAX(double)
#undef DEVICE_ONLY_MINMAX
__host__ __device__ unsigned min(int, unsigned);
__host__ __device__ unsigned min(unsigned, int);
__host__ __device__ unsigned max(int, unsigned);
__host__ __device__ unsigned max(unsigned, int);
__device__ int abs(int);
__device__ long long llabs(long long);
__device__ float fabsf(float);
__device__ double fabs(double);
__device__ float sqrtf(float);
__device__ double sqrt(double);
__device__ float fminf(float, float);
__device__ float fmaxf(float, float);
__device__ int __mul24(int, int);
__device__ int __mulhi(int, int);
__device__ unsigned __umulhi(unsigned, unsigned);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
#endif
