/*
 * warpsim.h - the CUDA names a lesson source needs, for warpsim.
 *
 * warpsim runs a lesson's files (legacy.cu, sync.cu, cg.cu, a student's
 * mine.cu) on the CPU: g++ or clang++ compiles them as C++17 (gnu++17) at
 * -O0 with WARPSIM defined and with -fsanitize=thread, whose
 * instrumentation reports every memory access to warpsim (src/tsan.c), and
 * links them with libwarpsim.a instead of libtsan (mk/warpsim.mk). Each
 * thread of a block is a coroutine; a scheduling model decides which lane
 * runs at each memory access or primitive (src/sched.c), and detectors
 * watch the run. warpsim's own sources are C11 and include this header for
 * its types and the functions below marked "the library's"; the device API
 * is C++ only.
 *
 * What this header gives a lesson file, as CUDA C++ declares it (the
 * toolkit's sm_30_intrinsics.h, sm_70_rt.h, sm_80_rt.h,
 * device_atomic_functions.h, crt/math_functions.h, device_functions.h):
 *   __global__, __device__, ...      qualifiers, nothing on the CPU
 *   __shared__                       a static that mk/warpsim.mk moves into
 *                                    the section ws_shared, which warpsim
 *                                    poisons at every block start
 *   threadIdx, blockIdx, blockDim, gridDim, warpSize, dim3, uint3, the
 *   vector types (int2, float4, ...) and their make_ functions
 *   __shfl_sync, __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync for int,
 *     unsigned, long, unsigned long, long long, unsigned long long, float,
 *     double; __ballot_sync, __any_sync, __all_sync, __uni_sync,
 *     __activemask; __match_any_sync, __match_all_sync (the same eight
 *     types); __reduce_{add,min,max}_sync (int, unsigned),
 *     __reduce_{and,or,xor}_sync (unsigned); __syncwarp
 *   __syncthreads, __syncthreads_count/_and/_or, __threadfence,
 *     __threadfence_block, __threadfence_system, __nanosleep, clock64,
 *     clock
 *   atomicAdd, atomicSub, atomicExch, atomicMin, atomicMax, atomicInc,
 *     atomicDec, atomicAnd, atomicOr, atomicXor, atomicCAS for the types
 *     CUDA has them, and their _block and _system forms
 *   min, max (every overload CUDA has), umin, umax, llmin, llmax, ullmin,
 *     ullmax; __popc, __popcll, __clz, __clzll, __ffs, __ffsll, __fns,
 *     __brev, __brevll, __byte_perm, __funnelshift_l/lc/r/rc, __mul24,
 *     __umul24, __mulhi, __umulhi, __mul64hi, __umul64hi, __sad, __usad,
 *     __hadd, __uhadd, __rhadd, __urhadd, __dp4a; the rounding intrinsics
 *     (__fadd_rn ..., __float2int_rz ...), the fast-math ones (__expf,
 *     __sinf, __fdividef ...), rsqrtf, rcbrtf, sinpif ..., the bit casts
 *     (__float_as_int ...) and the cache-hinted loads and stores (__ldg ...);
 *     C's <math.h> and <stdlib.h> for the rest (abs, fabsf, sqrtf ...)
 *   printf (at most cudaLimitPrintfFifoSize bytes per launch, 1 MB by
 *     default), malloc and free (a device heap of cudaLimitMallocHeapSize,
 *     8 MB by default), assert, __trap, __brkpt: a failed assertion, a
 *     trap or a breakpoint is reported with the lane and file:line, and the
 *     program ends with the summary, as a failed launch ends a GPU program
 *   cudaMalloc, cudaMemcpy, cudaDeviceSetLimit, ...   the host runtime subset
 *   WS_LAUNCH                        what LAUNCH in lesson.h expands to
 * Cooperative Groups are in cooperative_groups.h (this folder).
 *
 * __CUDA_ARCH__ is not defined: code guarded by it takes its host path, and
 * lesson.h's PRE_VOLTA is 0. Shared memory is declared with a size known at
 * compile time (`__shared__ int s[256];`); dynamic (extern) shared memory
 * is not supported.
 */
#ifndef WARPSIM_H
#define WARPSIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
#define WS_C_BEGIN extern "C" {
#define WS_C_END }
#else
#define WS_C_BEGIN
#define WS_C_END
#endif

/* ------------------------------------------------------------------ */
/* Qualifiers                                                           */
/* ------------------------------------------------------------------ */

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __device_builtin__
#define __forceinline__ __inline__ __attribute__((always_inline))
/* Empty: the C library and libstdc++ write __attribute__((__noinline__)),
 * which a macro with an attribute in it would break; at -O0 nothing is
 * inlined that is not always_inline anyway. */
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
/*
 * Every __shared__ variable goes to one section, which warpsim finds by the
 * linker's start and end symbols: on ELF (Linux) the section ws_shared and
 * __start_ws_shared/__stop_ws_shared; on Mach-O (macOS) a section needs a
 * segment, "__DATA,ws_shared", and its bounds are
 * section$start$__DATA$ws_shared and section$end$__DATA$ws_shared.
 * WS_SHARED_START/WS_SHARED_STOP name them: `extern char lo[] WS_SHARED_START;`.
 *
 * On ELF a C++ __shared__ variable is marked instead of placed: `retain`
 * (SHF_GNU_RETAIN on its section, -fdata-sections giving it a section of
 * its own), and mk/warpsim.mk's ws_compile renames each such section of
 * the object to ws_shared. g++ 12 ignores a section attribute on a static
 * of a function template (cg.cu's template kernels have them) and refuses
 * one on a static of an inline function beside the file's other
 * __shared__ variables ("section type conflict"); the mark it keeps.
 */
#if defined(__APPLE__)
#define WS_SHARED_SECTION "__DATA,ws_shared"
#define WS_SHARED_START __asm__("section$start$__DATA$ws_shared")
#define WS_SHARED_STOP __asm__("section$end$__DATA$ws_shared")
#else
#define WS_SHARED_SECTION "ws_shared"
#define WS_SHARED_START __asm__("__start_ws_shared")
#define WS_SHARED_STOP __asm__("__stop_ws_shared")
#endif
#if defined(__cplusplus) && defined(__ELF__)
#define __shared__ static __attribute__((aligned(16), retain))
#else
#define __shared__ static __attribute__((section(WS_SHARED_SECTION), aligned(16)))
#endif

/* ------------------------------------------------------------------ */
/* Coordinates                                                          */
/* ------------------------------------------------------------------ */

typedef struct uint3 { unsigned int x, y, z; } uint3;
#ifdef __cplusplus
/* As CUDA's: dim3 d(n) is (n, 1, 1). Trivially copyable, so it passes as
 * the C struct does. */
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{ x, y, z }; }
};
#else
typedef struct dim3 { unsigned int x, y, z; } dim3;
#endif

/* The running lane's coordinates; warpsim points ws_self at them. */
typedef struct ws_coords {
    uint3 thread_idx;
    uint3 block_idx;
} ws_coords;

WS_C_BEGIN
extern ws_coords *ws_self;
extern dim3 ws_block_dim, ws_grid_dim;
WS_C_END

#define threadIdx (*(const uint3 *)&ws_self->thread_idx)
#define blockIdx  (*(const uint3 *)&ws_self->block_idx)
#define blockDim  (*(const dim3 *)&ws_block_dim)
#define gridDim   (*(const dim3 *)&ws_grid_dim)
#define warpSize  32

/* ------------------------------------------------------------------ */
/* Host runtime                                                         */
/* ------------------------------------------------------------------ */

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorUnsupportedLimit = 215,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorAssert = 710,
    cudaErrorLaunchFailure = 719,
    cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
} cudaMemcpyKind;

/* driver_types.h's values */
typedef enum cudaLimit {
    cudaLimitStackSize = 0x00,
    cudaLimitPrintfFifoSize = 0x01,
    cudaLimitMallocHeapSize = 0x02
} cudaLimit;

typedef struct ws_event *cudaEvent_t;
typedef struct ws_stream *cudaStream_t;

WS_C_BEGIN
cudaError_t ws_cuda_malloc(void **ptr, size_t bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t e);
/* cudaLimitMallocHeapSize (8 MB) and cudaLimitPrintfFifoSize (1 MB), set
 * before the first launch that calls malloc or printf (else
 * cudaErrorInvalidValue, as on a GPU); cudaLimitStackSize reads 1024 and
 * takes any value (a lane's stack is 508 KiB at the least). */
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit);
cudaError_t cudaGetDeviceCount(int *count);       /* 1 */
cudaError_t cudaGetDevice(int *device);           /* 0 */
cudaError_t cudaSetDevice(int device);            /* 0 only */
/* The library's: device memory for the symbol functions below. */
cudaError_t ws_symbol_copy(void *dst, const void *src, size_t bytes, int to_symbol);
WS_C_END

#ifdef __cplusplus
template <class T>
static inline cudaError_t cudaMalloc(T **ptr, size_t bytes)
{
    return ws_cuda_malloc((void **)ptr, bytes);
}
/* __device__ and __constant__ variables are host variables here. */
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t bytes,
                                             size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    (void)kind;
    return ws_symbol_copy((char *)&symbol + offset, src, bytes, 1);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t bytes,
                                               size_t offset = 0,
                                               cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    (void)kind;
    return ws_symbol_copy(dst, (const char *)&symbol + offset, bytes, 0);
}
#else
#define cudaMalloc(ptr, bytes) ws_cuda_malloc((void **)(ptr), (bytes))
#endif

/* ------------------------------------------------------------------ */
/* The library's side of the device API                                 */
/* ------------------------------------------------------------------ */

enum { WS_SHFL_IDX, WS_SHFL_UP, WS_SHFL_DOWN, WS_SHFL_XOR };
enum { WS_VOTE_BALLOT, WS_VOTE_ANY, WS_VOTE_ALL, WS_VOTE_UNI };
enum { WS_RED_ADD, WS_RED_MIN, WS_RED_MAX, WS_RED_AND, WS_RED_OR, WS_RED_XOR };
enum {
    WS_AT_ADD, WS_AT_SUB, WS_AT_EXCH, WS_AT_MIN, WS_AT_MAX, WS_AT_INC,
    WS_AT_DEC, WS_AT_AND, WS_AT_OR, WS_AT_XOR, WS_AT_CAS
};
/* ws_trap's kinds */
enum { WS_TRAP, WS_BRKPT };

WS_C_BEGIN
/* Runs body once per thread of every block; returns when all are done. */
void ws_launch(void (*body)(void), dim3 grid, dim3 block, size_t shared_bytes,
               const char *kernel, const char *file, int line);
/* After a launch: what printf left out of it, in one line. */
void ws_launch_done(void);
/*
 * WS_LAUNCH's two ways. Arguments that take at most WS_LAUNCH_STACK_BYTES
 * of stack (counting each as passed in memory, in 8-byte slots) go through
 * ws_launch_capture, called as a pointer of the kernel's own type, so that
 * the compiler converts and places them as for the kernel; the capture
 * (assembly, src/ctx.c) records the argument registers and stack, and
 * ws_launch_replay repeats that call on each lane's stack. Larger ones
 * (CUDA allows 32,764 bytes) go through a thunk of the kernel's type
 * (warpsim_device.h) that reads them from ws_launch_args.
 */
#define WS_LAUNCH_STACK_BYTES 256
void ws_launch_kernel(void (*kernel)(void));
extern void (*const ws_launch_capture)(void);
void ws_launch_replay(void);
/* A launch of large arguments (WS_LAUNCH): what each lane's thunk reads,
 * set (and, after the launch, cleared: NULL, 0) by ws_launch_args_set,
 * which lets the lanes read those bytes, as a kernel reads its parameters
 * on a GPU, although they lie in the launching thread's stack. */
extern void *ws_launch_args;
void ws_launch_args_set(void *args, size_t bytes);

void ws_syncthreads(const char *file, int line);
int ws_syncthreads_op(int op, int pred, const char *file, int line);
void ws_syncwarp(unsigned mask, const char *file, int line);
void ws_nanosleep(unsigned ns, const char *file, int line);
long long ws_clock64(const char *file, int line);
void ws_threadfence(const char *file, int line);
unsigned ws_activemask(const char *file, int line);
/* The collective behind every shuffle, on 64-bit payloads (size is 4 or 8
 * bytes). The typed wrappers are always inlined, so the return address
 * that it sees is in the lesson's code. */
uint64_t ws_shfl_here(int mode, unsigned mask, uint64_t bits, int size, int arg,
                      int width, const char *file, int line);
unsigned ws_vote(int op, unsigned mask, int pred, const char *file, int line);
unsigned ws_match(int all, unsigned mask, uint64_t bits, int size, int *pred,
                  const char *file, int line);
unsigned ws_reduce(int op, int is_signed, unsigned mask, unsigned v,
                   const char *file, int line);
/* type: 0 int, 1 unsigned, 2 long long, 3 unsigned long long, 4 float, 5 double */
uint64_t ws_atomic(int op, int type, void *addr, uint64_t val, uint64_t cmp,
                   const char *file, int line);
/* clock(): the lane's virtual clock in a kernel, the C library's outside */
long ws_clock_any(const char *file, int line);
int ws_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *ws_malloc(size_t bytes);
void ws_free(void *p);
void ws_trap(int kind, const char *file, int line) __attribute__((noreturn));
/* A kernel's lane did what CUDA makes abort the launch (what: a phrase):
 * reported like a trap. */
void ws_device_error(const char *what, const char *file, int line) __attribute__((noreturn));
WS_C_END

#ifdef __cplusplus
#include "warpsim_device.h"
#endif

#endif /* WARPSIM_H */
