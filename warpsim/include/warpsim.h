/*
 * warpsim.h - the CUDA names a lesson source needs, for the C compiler.
 *
 * warpsim runs a lesson's legacy.cu or sync.cu on the CPU: gcc or clang
 * compiles the file as C (gnu11) at -O0 with WARPSIM defined and with
 * -fsanitize=thread, whose
 * instrumentation reports every memory access to warpsim (src/tsan.c), and
 * links it with libwarpsim.a instead of libtsan. Each thread of a block is a
 * coroutine; a scheduling model decides which lane runs at each memory
 * access or primitive (src/sched.c), and detectors watch the run.
 *
 * This header maps the CUDA vocabulary onto warpsim:
 *   __global__, __device__, ...     qualifiers, mostly nothing in C
 *   __shared__                      a static in the section ws_shared, which
 *                                   warpsim poisons at every block start
 *   threadIdx, blockIdx, ...        the running lane's coordinates
 *   __shfl*_sync, votes, match      macros that pass __FILE__ and __LINE__ and
 *                                   pick the value type with _Generic
 *   __syncthreads, __syncwarp, atomics, __nanosleep, clock64
 *   cudaMalloc, cudaMemcpy, ...     the host runtime subset lessons use
 *   WS_LAUNCH                       what LAUNCH in lesson.h expands to
 *
 * Shared memory is declared with a size known at compile time
 * (`__shared__ int s[256];`); dynamic (extern) shared memory is not supported.
 */
#ifndef WARPSIM_H
#define WARPSIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
#error "warpsim.h is for C: compile lesson sources with gcc -x c -DWARPSIM"
#endif

/* ------------------------------------------------------------------ */
/* Qualifiers                                                           */
/* ------------------------------------------------------------------ */

#define __global__
#define __device__
#define __host__
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
/*
 * Every __shared__ variable goes to one section, which warpsim finds by the
 * linker's start and end symbols: on ELF (Linux) the section ws_shared and
 * __start_ws_shared/__stop_ws_shared; on Mach-O (macOS) a section needs a
 * segment, "__DATA,ws_shared", and its bounds are
 * section$start$__DATA$ws_shared and section$end$__DATA$ws_shared.
 * WS_SHARED_START/WS_SHARED_STOP name them: `extern char lo[] WS_SHARED_START;`.
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
#define __shared__ static __attribute__((section(WS_SHARED_SECTION), aligned(16)))

/* ------------------------------------------------------------------ */
/* Coordinates                                                          */
/* ------------------------------------------------------------------ */

typedef struct { unsigned int x, y, z; } uint3;
typedef struct { unsigned int x, y, z; } dim3;

/* The running lane's coordinates; warpsim points ws_self at them. */
typedef struct ws_coords {
    uint3 thread_idx;
    uint3 block_idx;
} ws_coords;

extern ws_coords *ws_self;
extern dim3 ws_block_dim, ws_grid_dim;

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
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
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

typedef struct ws_event *cudaEvent_t;
typedef struct ws_stream *cudaStream_t;

cudaError_t ws_cuda_malloc(void **ptr, size_t bytes);
#define cudaMalloc(ptr, bytes) ws_cuda_malloc((void **)(ptr), (bytes))
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t e);

/* ------------------------------------------------------------------ */
/* Launch                                                               */
/* ------------------------------------------------------------------ */

/* Runs body once per thread of every block; returns when all are done. */
void ws_launch(void (*body)(void), dim3 grid, dim3 block, size_t shared_bytes,
               const char *kernel, const char *file, int line);

static inline dim3 ws_dim3_id(dim3 d) { return d; }
static inline dim3 ws_dim3_of_uint(unsigned long long x)
{
    dim3 d = { (unsigned int)x, 1, 1 };
    if (x > 0xffffffffULL)      /* larger than any grid: ws_launch refuses 0 */
        d.x = 0;
    return d;
}
#define WS_DIM3(x) _Generic((x), dim3: ws_dim3_id, default: ws_dim3_of_uint)(x)

/*
 * WS_LAUNCH(kernel, blocks, threads, shared_bytes, args...), 1 to 16
 * arguments: the kernel's address goes to ws_launch_kernel; then the
 * capture (ws_launch_capture points at it) is called as a pointer of the
 * kernel's own type, with the arguments, so that the compiler evaluates each once, converts it
 * to its parameter's type and places it where the kernel expects it; the
 * capture (assembly, src/ctx.c) records the argument registers and stack.
 * ws_launch then runs ws_launch_replay once per emulated thread, on the
 * thread's own stack, which repeats that call to the kernel. No nested
 * function (clang has none), no trampoline, no executable stack.
 */
void ws_launch_kernel(void (*kernel)(void));
extern void (*const ws_launch_capture)(void);
void ws_launch_replay(void);

/* Bytes of stack a launch's arguments may take (ctx.c copies this much),
 * counting each argument as passed in memory, in 8-byte slots. */
#define WS_LAUNCH_STACK_BYTES 256
#define WS_NARGS(...) WS_NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, \
                                7, 6, 5, 4, 3, 2, 1, 0)
#define WS_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, \
                  a14, a15, a16, n, ...) n
#define WS_CAT(a, b) WS_CAT_(a, b)
#define WS_CAT_(a, b) a##b
#define WS_SZ(a) ((sizeof(0 ? (a) : (a)) + 7) / 8 * 8)
#define WS_SZ_1(a) WS_SZ(a)
#define WS_SZ_2(a, ...) WS_SZ(a) + WS_SZ_1(__VA_ARGS__)
#define WS_SZ_3(a, ...) WS_SZ(a) + WS_SZ_2(__VA_ARGS__)
#define WS_SZ_4(a, ...) WS_SZ(a) + WS_SZ_3(__VA_ARGS__)
#define WS_SZ_5(a, ...) WS_SZ(a) + WS_SZ_4(__VA_ARGS__)
#define WS_SZ_6(a, ...) WS_SZ(a) + WS_SZ_5(__VA_ARGS__)
#define WS_SZ_7(a, ...) WS_SZ(a) + WS_SZ_6(__VA_ARGS__)
#define WS_SZ_8(a, ...) WS_SZ(a) + WS_SZ_7(__VA_ARGS__)
#define WS_SZ_9(a, ...) WS_SZ(a) + WS_SZ_8(__VA_ARGS__)
#define WS_SZ_10(a, ...) WS_SZ(a) + WS_SZ_9(__VA_ARGS__)
#define WS_SZ_11(a, ...) WS_SZ(a) + WS_SZ_10(__VA_ARGS__)
#define WS_SZ_12(a, ...) WS_SZ(a) + WS_SZ_11(__VA_ARGS__)
#define WS_SZ_13(a, ...) WS_SZ(a) + WS_SZ_12(__VA_ARGS__)
#define WS_SZ_14(a, ...) WS_SZ(a) + WS_SZ_13(__VA_ARGS__)
#define WS_SZ_15(a, ...) WS_SZ(a) + WS_SZ_14(__VA_ARGS__)
#define WS_SZ_16(a, ...) WS_SZ(a) + WS_SZ_15(__VA_ARGS__)
#define WS_ARG_BYTES(...) (WS_CAT(WS_SZ_, WS_NARGS(__VA_ARGS__))(__VA_ARGS__))

#define WS_LAUNCH(kernel, blocks, threads, shared_bytes, ...)                  \
    do {                                                                       \
        _Static_assert(WS_ARG_BYTES(__VA_ARGS__) <= WS_LAUNCH_STACK_BYTES,     \
                       "warpsim: a launch passes 1 to 16 arguments, "          \
                       "of at most 256 bytes");                                \
        ws_launch_kernel((void (*)(void))(kernel));                            \
        ((__typeof__(*(kernel)) *)ws_launch_capture)(__VA_ARGS__);             \
        ws_launch(ws_launch_replay, WS_DIM3(blocks), WS_DIM3(threads),         \
                  (size_t)(shared_bytes), #kernel, __FILE__, __LINE__);        \
    } while (0)

/* ------------------------------------------------------------------ */
/* Barriers, time, fences                                               */
/* ------------------------------------------------------------------ */

void ws_syncthreads(const char *file, int line);
int ws_syncthreads_op(int op, int pred, const char *file, int line);
void ws_syncwarp(unsigned mask, const char *file, int line);
void ws_nanosleep(unsigned ns, const char *file, int line);
long long ws_clock64(const char *file, int line);
void ws_threadfence(const char *file, int line);
unsigned ws_activemask(const char *file, int line);

#define __syncthreads() ws_syncthreads(__FILE__, __LINE__)
#define __syncthreads_count(p) ws_syncthreads_op(0, (p), __FILE__, __LINE__)
#define __syncthreads_and(p) ws_syncthreads_op(1, (p), __FILE__, __LINE__)
#define __syncthreads_or(p) ws_syncthreads_op(2, (p), __FILE__, __LINE__)

/* __syncwarp() or __syncwarp(mask) */
#define WS_PICK2(_0, _1, name, ...) name
#define WS_SYNCWARP_FULL() ws_syncwarp(0xffffffffu, __FILE__, __LINE__)
#define WS_SYNCWARP_MASK(m) ws_syncwarp((m), __FILE__, __LINE__)
#define __syncwarp(...) \
    WS_PICK2(_, ##__VA_ARGS__, WS_SYNCWARP_MASK, WS_SYNCWARP_FULL)(__VA_ARGS__)

#define __nanosleep(ns) ws_nanosleep((unsigned)(ns), __FILE__, __LINE__)
#define clock64() ws_clock64(__FILE__, __LINE__)
#define __threadfence() ws_threadfence(__FILE__, __LINE__)
#define __threadfence_block() ws_threadfence(__FILE__, __LINE__)
#define __activemask() ws_activemask(__FILE__, __LINE__)

/* ------------------------------------------------------------------ */
/* Shuffles                                                             */
/* ------------------------------------------------------------------ */

enum { WS_SHFL_IDX, WS_SHFL_UP, WS_SHFL_DOWN, WS_SHFL_XOR };

/*
 * The collective behind every shuffle, on 64-bit payloads (size is 4 or 8
 * bytes). The typed wrappers are always inlined, so the return address that
 * ws_shfl_here sees is in the lesson's code.
 */
uint64_t ws_shfl_here(int mode, unsigned mask, uint64_t bits, int size, int arg,
                      int width, const char *file, int line);
#define WS_SHFL_FN(name, T)                                                     \
    static inline __attribute__((always_inline)) T                               \
    name(int mode, unsigned mask, T v, int arg, int width, const char *file,    \
         int line)                                                              \
    {                                                                           \
        uint64_t b = 0;                                                         \
        T r;                                                                    \
        __builtin_memcpy(&b, &v, sizeof v);                                     \
        b = ws_shfl_here(mode, mask, b, (int)sizeof v, arg, width, file, line); \
        __builtin_memcpy(&r, &b, sizeof r);                                     \
        return r;                                                               \
    }
WS_SHFL_FN(ws_shfl_i, int)
WS_SHFL_FN(ws_shfl_u, unsigned int)
WS_SHFL_FN(ws_shfl_l, long)
WS_SHFL_FN(ws_shfl_ul, unsigned long)
WS_SHFL_FN(ws_shfl_ll, long long)
WS_SHFL_FN(ws_shfl_ull, unsigned long long)
WS_SHFL_FN(ws_shfl_f, float)
WS_SHFL_FN(ws_shfl_d, double)

#define WS_SHFL_T(v) _Generic((v),                                              \
    int: ws_shfl_i, unsigned int: ws_shfl_u, long: ws_shfl_l,                   \
    unsigned long: ws_shfl_ul, long long: ws_shfl_ll,                           \
    unsigned long long: ws_shfl_ull, float: ws_shfl_f, double: ws_shfl_d,       \
    short: ws_shfl_i, unsigned short: ws_shfl_i, char: ws_shfl_i,               \
    signed char: ws_shfl_i, unsigned char: ws_shfl_i)
/* (mode, mask, v, arg [, width]): width defaults to warpSize */
#define WS_SHFL_CALL(mode, m, v, a, w, ...) \
    WS_SHFL_T(v)((mode), (m), (v), (int)(a), (int)(w), __FILE__, __LINE__)
#define __shfl_sync(m, v, ...) WS_SHFL_CALL(WS_SHFL_IDX, m, v, __VA_ARGS__, 32, 0)
#define __shfl_up_sync(m, v, ...) WS_SHFL_CALL(WS_SHFL_UP, m, v, __VA_ARGS__, 32, 0)
#define __shfl_down_sync(m, v, ...) WS_SHFL_CALL(WS_SHFL_DOWN, m, v, __VA_ARGS__, 32, 0)
#define __shfl_xor_sync(m, v, ...) WS_SHFL_CALL(WS_SHFL_XOR, m, v, __VA_ARGS__, 32, 0)

/* ------------------------------------------------------------------ */
/* Votes, match, reduce                                                 */
/* ------------------------------------------------------------------ */

enum { WS_VOTE_BALLOT, WS_VOTE_ANY, WS_VOTE_ALL, WS_VOTE_UNI };
unsigned ws_vote(int op, unsigned mask, int pred, const char *file, int line);
#define __ballot_sync(m, p) ws_vote(WS_VOTE_BALLOT, (m), (p) != 0, __FILE__, __LINE__)
#define __any_sync(m, p) ((int)ws_vote(WS_VOTE_ANY, (m), (p) != 0, __FILE__, __LINE__))
#define __all_sync(m, p) ((int)ws_vote(WS_VOTE_ALL, (m), (p) != 0, __FILE__, __LINE__))
#define __uni_sync(m, p) ((int)ws_vote(WS_VOTE_UNI, (m), (p) != 0, __FILE__, __LINE__))

/* __match_any_sync(mask, v), __match_all_sync(mask, v, &pred) */
unsigned ws_match(int all, unsigned mask, uint64_t bits, int size, int *pred,
                  const char *file, int line);
#define WS_BITS(v) _Generic((v),                                                \
    float: ws_bits_f, double: ws_bits_d, default: ws_bits_ll)(v)
static inline uint64_t ws_bits_f(float v) { uint32_t b; __builtin_memcpy(&b, &v, 4); return b; }
static inline uint64_t ws_bits_d(double v) { uint64_t b; __builtin_memcpy(&b, &v, 8); return b; }
static inline uint64_t ws_bits_ll(unsigned long long v) { return v; }
#define WS_VSIZE(v) ((int)sizeof(v) < 4 ? 4 : (int)sizeof(v))
#define __match_any_sync(m, v) \
    ws_match(0, (m), WS_BITS(v) & (WS_VSIZE(v) == 4 ? 0xffffffffULL : ~0ULL), \
             WS_VSIZE(v), (int *)0, __FILE__, __LINE__)
#define __match_all_sync(m, v, pred) \
    ws_match(1, (m), WS_BITS(v) & (WS_VSIZE(v) == 4 ? 0xffffffffULL : ~0ULL), \
             WS_VSIZE(v), (pred), __FILE__, __LINE__)

/* __reduce_*_sync (compute capability 8.0): warpsim has them too. */
enum { WS_RED_ADD, WS_RED_MIN, WS_RED_MAX, WS_RED_AND, WS_RED_OR, WS_RED_XOR };
unsigned ws_reduce(int op, int is_signed, unsigned mask, unsigned v,
                   const char *file, int line);
#define WS_SIGNED(v) _Generic((v), int: 1, default: 0)
#define __reduce_add_sync(m, v) ws_reduce(WS_RED_ADD, WS_SIGNED(v), (m), (unsigned)(v), __FILE__, __LINE__)
#define __reduce_min_sync(m, v) ws_reduce(WS_RED_MIN, WS_SIGNED(v), (m), (unsigned)(v), __FILE__, __LINE__)
#define __reduce_max_sync(m, v) ws_reduce(WS_RED_MAX, WS_SIGNED(v), (m), (unsigned)(v), __FILE__, __LINE__)
#define __reduce_and_sync(m, v) ws_reduce(WS_RED_AND, 0, (m), (unsigned)(v), __FILE__, __LINE__)
#define __reduce_or_sync(m, v) ws_reduce(WS_RED_OR, 0, (m), (unsigned)(v), __FILE__, __LINE__)
#define __reduce_xor_sync(m, v) ws_reduce(WS_RED_XOR, 0, (m), (unsigned)(v), __FILE__, __LINE__)

/* ------------------------------------------------------------------ */
/* Bit tricks (pure functions)                                          */
/* ------------------------------------------------------------------ */

static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x)
{
    return x ? __builtin_clzll((unsigned long long)x) : 64;
}
static inline unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}
static inline unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned int)x) << 32) |
           __brev((unsigned int)(x >> 32));
}
#define __ldg(p) (*(p))

/* ------------------------------------------------------------------ */
/* Atomics                                                              */
/* ------------------------------------------------------------------ */

enum {
    WS_AT_ADD, WS_AT_SUB, WS_AT_EXCH, WS_AT_MIN, WS_AT_MAX, WS_AT_INC,
    WS_AT_DEC, WS_AT_AND, WS_AT_OR, WS_AT_XOR, WS_AT_CAS
};
/* type: 0 int, 1 unsigned, 2 long long, 3 unsigned long long, 4 float, 5 double */
uint64_t ws_atomic(int op, int type, void *addr, uint64_t val, uint64_t cmp,
                   const char *file, int line);

#define WS_AT_FN(name, T, type)                                                 \
    static inline __attribute__((always_inline)) T                               \
    name(int op, T *p, T v, T c, const char *file, int line)                    \
    {                                                                           \
        uint64_t bv = 0, bc = 0, r;                                             \
        T out;                                                                  \
        __builtin_memcpy(&bv, &v, sizeof v);                                    \
        __builtin_memcpy(&bc, &c, sizeof c);                                    \
        r = ws_atomic(op, type, (void *)p, bv, bc, file, line);                 \
        __builtin_memcpy(&out, &r, sizeof out);                                 \
        return out;                                                             \
    }
WS_AT_FN(ws_at_i, int, 0)
WS_AT_FN(ws_at_u, unsigned int, 1)
WS_AT_FN(ws_at_ll, long long, 2)
WS_AT_FN(ws_at_ull, unsigned long long, 3)
WS_AT_FN(ws_at_f, float, 4)
WS_AT_FN(ws_at_d, double, 5)

#define WS_AT_T(p) _Generic((p),                                                \
    int *: ws_at_i, unsigned int *: ws_at_u, long long *: ws_at_ll,             \
    unsigned long long *: ws_at_ull, float *: ws_at_f, double *: ws_at_d,       \
    volatile int *: ws_at_i, volatile unsigned int *: ws_at_u,                  \
    volatile long long *: ws_at_ll, volatile unsigned long long *: ws_at_ull,   \
    volatile float *: ws_at_f, volatile double *: ws_at_d)
#define WS_AT(op, p, v, c) WS_AT_T(p)((op), (void *)(p), (v), (c), __FILE__, __LINE__)

#define atomicAdd(p, v) WS_AT(WS_AT_ADD, p, v, 0)
#define atomicSub(p, v) WS_AT(WS_AT_SUB, p, v, 0)
#define atomicExch(p, v) WS_AT(WS_AT_EXCH, p, v, 0)
#define atomicMin(p, v) WS_AT(WS_AT_MIN, p, v, 0)
#define atomicMax(p, v) WS_AT(WS_AT_MAX, p, v, 0)
#define atomicInc(p, v) WS_AT(WS_AT_INC, p, v, 0)
#define atomicDec(p, v) WS_AT(WS_AT_DEC, p, v, 0)
#define atomicAnd(p, v) WS_AT(WS_AT_AND, p, v, 0)
#define atomicOr(p, v) WS_AT(WS_AT_OR, p, v, 0)
#define atomicXor(p, v) WS_AT(WS_AT_XOR, p, v, 0)
#define atomicCAS(p, c, v) WS_AT(WS_AT_CAS, p, v, c)

#endif /* WARPSIM_H */
