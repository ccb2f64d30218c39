/*
 * warpsim_device.h - the CUDA C++ device API on warpsim, as the toolkit's
 * headers declare it (warpsim.h includes this file when it is compiled as
 * C++; its first comment lists what is here).
 *
 * Every function that reaches warpsim is always inlined, so that the return
 * address the library sees (the call's site, its pc) lies in the lesson's
 * own code, and takes the caller's file and line as default arguments
 * (__builtin_FILE(), __builtin_LINE(), which both compilers evaluate at the
 * call): reports name the line that calls __shfl_sync, not this header.
 */
#ifndef WARPSIM_DEVICE_H
#define WARPSIM_DEVICE_H

/* The C library's <math.h> alone: libstdc++'s wrapper would read all of
 * <cmath> (its float overloads of sqrt, sin ...), which takes most of the
 * time of compiling a lesson file (0.33 of 0.45 s with g++ 12). A file that
 * wants the overloads includes <cmath>. (<stdlib.h> still gives C++'s abs
 * of float, double, long and long long.) */
#define _GLIBCXX_INCLUDE_NEXT_C_HEADERS
#include <math.h>
#undef _GLIBCXX_INCLUDE_NEXT_C_HEADERS
#include <fenv.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WS_INLINE static inline __attribute__((always_inline))
#define WS_HERE const char *file = __builtin_FILE(), int line = __builtin_LINE()

/* ------------------------------------------------------------------ */
/* Vector types (vector_types.h): T1..T4 and make_T1..make_T4           */
/* ------------------------------------------------------------------ */

#define WS_VEC(T, N, A2, A4)                                                   \
    struct __attribute__((aligned(1 * sizeof(T)))) N##1 { T x; };             \
    struct __attribute__((aligned(A2))) N##2 { T x, y; };                     \
    struct __attribute__((aligned(A4))) N##4 { T x, y, z, w; };               \
    typedef struct N##1 N##1;                                                 \
    typedef struct N##2 N##2;                                                 \
    typedef struct N##4 N##4;                                                 \
    WS_INLINE N##1 make_##N##1(T x) { N##1 v; v.x = x; return v; }            \
    WS_INLINE N##2 make_##N##2(T x, T y) { N##2 v; v.x = x; v.y = y; return v; } \
    WS_INLINE N##4 make_##N##4(T x, T y, T z, T w)                            \
    {                                                                         \
        N##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v;                 \
    }
#define WS_VEC3(T, N)                                                          \
    WS_INLINE N##3 make_##N##3(T x, T y, T z)                                 \
    {                                                                         \
        N##3 v; v.x = x; v.y = y; v.z = z; return v;                          \
    }
#define WS_VECS(T, N, A2, A4)                                                  \
    WS_VEC(T, N, A2, A4)                                                      \
    typedef struct N##3 { T x, y, z; } N##3;                                  \
    WS_VEC3(T, N)
WS_VECS(signed char, char, 2, 4)
WS_VECS(unsigned char, uchar, 2, 4)
WS_VECS(short, short, 4, 8)
WS_VECS(unsigned short, ushort, 4, 8)
WS_VECS(int, int, 8, 16)
WS_VEC(unsigned int, uint, 8, 16)
WS_VEC3(unsigned int, uint)      /* uint3 is warpsim.h's, threadIdx's type */
WS_VECS(long, long, 2 * sizeof(long), 16)
WS_VECS(unsigned long, ulong, 2 * sizeof(long), 16)
WS_VECS(long long, longlong, 16, 16)
WS_VECS(unsigned long long, ulonglong, 16, 16)
WS_VECS(float, float, 8, 16)
WS_VECS(double, double, 16, 16)
#undef WS_VECS
#undef WS_VEC3
#undef WS_VEC

/* ------------------------------------------------------------------ */
/* Launch                                                               */
/* ------------------------------------------------------------------ */

WS_INLINE dim3 ws_dim3(dim3 d) { return d; }
WS_INLINE dim3 ws_dim3(unsigned long long x)
{
    dim3 d((unsigned int)x);
    if (x > 0xffffffffULL)      /* larger than any grid: ws_launch refuses 0 */
        d.x = 0;
    return d;
}

extern "C" void ws_thunk_enter(void);

/* The arguments of a launch that the capture cannot take, converted to the
 * kernel's parameter types (CUDA converts them as for a call). */
template <class... P> struct ws_pack;
template <> struct ws_pack<> {
    template <class K, class... Q>
    __attribute__((always_inline)) void call(K k, Q &...q) { k(q...); }
};
template <class H, class... T> struct ws_pack<H, T...> {
    H h;
    ws_pack<T...> t;
    template <class A, class... As>
    __attribute__((always_inline)) ws_pack(A &&a, As &&...as)
        : h(static_cast<A &&>(a)), t(static_cast<As &&>(as)...) {}
    template <class K, class... Q>
    __attribute__((always_inline)) void call(K k, Q &...q) { t.call(k, q..., h); }
};
template <class... P> struct ws_args {
    void (*k)(P...);
    ws_pack<P...> a;
};

/* Each lane's call of a kernel with large arguments: ws_thunk_enter drops
 * this function's own frame from the lane's call stack, so that the
 * kernel's frame is the lane's first, as in a launch through the capture
 * (the lockstep model and the missing-lanes check read that stack). */
template <class... P>
static void ws_thunk(void)
{
    ws_args<P...> *f = (ws_args<P...> *)ws_launch_args;
    ws_thunk_enter();
    f->a.call(f->k);
}

/* Stack bytes of a call's arguments, each counted in memory, in 8-byte
 * slots (what the capture copies, WS_LAUNCH_STACK_BYTES at most), and the
 * bytes of parameters as CUDA counts them (each at its alignment). */
template <class... P>
constexpr size_t ws_stack_bytes()
{
    return (0 + ... + ((sizeof(P) + 7) / 8 * 8));
}
template <class... P>
constexpr size_t ws_param_bytes()
{
    size_t n = 0;
    ((n = (n + alignof(P) - 1) / alignof(P) * alignof(P) + sizeof(P)), ...);
    return n;
}

template <class... P, class... A>
static void ws_launch_cxx(void (*k)(P...), dim3 grid, dim3 block, size_t shared_bytes,
                          const char *name, const char *file, int line, A &&...a)
{
    /* CUDA 12.1 and later take 32,764 bytes of kernel parameters on
     * compute capability 7.0 and newer (4,096 before); NVIDIA Technical
     * Blog, "CUDA 12.1 Supports Large Kernel Parameters", and the CUDA C++
     * Programming Guide, "Function Parameters". warpsim takes the larger. */
    static_assert(ws_param_bytes<P...>() <= 32764,
                  "warpsim: a kernel's parameters take at most 32,764 bytes, "
                  "as in CUDA 12.1 and later on compute capability 7.0 and newer");
    static_assert(sizeof...(P) == sizeof...(A),
                  "warpsim: a launch passes as many arguments as the kernel has parameters");
    if constexpr (ws_stack_bytes<P...>() <= WS_LAUNCH_STACK_BYTES &&
                  (true && ... && __is_trivially_copyable(P))) {
        ws_launch_kernel((void (*)(void))k);
        ((void (*)(P...))ws_launch_capture)(static_cast<A &&>(a)...);
        ws_launch(ws_launch_replay, grid, block, shared_bytes, name, file, line);
    } else {
        ws_args<P...> f = { k, ws_pack<P...>(static_cast<A &&>(a)...) };
        /* (no recorded call: device memory is not named by parameter) */
        ws_launch_kernel((void (*)(void))0);
        ws_launch_args_set(&f, sizeof f);
        ws_launch(&ws_thunk<P...>, grid, block, shared_bytes, name, file, line);
        ws_launch_args_set(NULL, 0);
    }
    ws_launch_done();
}

/* WS_LAUNCH(kernel, blocks, threads, shared_bytes, args...): what
 * kernel<<<blocks, threads, shared_bytes>>>(args...) does, synchronously.
 * blocks and threads are numbers or dim3. */
#define WS_LAUNCH(kernel, blocks, threads, shared_bytes, ...)                  \
    ws_launch_cxx((kernel), ws_dim3(blocks), ws_dim3(threads), (size_t)(shared_bytes), \
                  #kernel, __FILE__, __LINE__, ##__VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Barriers, time, fences, traps                                        */
/* ------------------------------------------------------------------ */

WS_INLINE void __syncthreads(WS_HERE) { ws_syncthreads(file, line); }
WS_INLINE int __syncthreads_count(int pred, WS_HERE) { return ws_syncthreads_op(0, pred, file, line); }
WS_INLINE int __syncthreads_and(int pred, WS_HERE) { return ws_syncthreads_op(1, pred, file, line); }
WS_INLINE int __syncthreads_or(int pred, WS_HERE) { return ws_syncthreads_op(2, pred, file, line); }
WS_INLINE void __syncwarp(unsigned mask = 0xffffffffu, WS_HERE) { ws_syncwarp(mask, file, line); }
WS_INLINE void __nanosleep(unsigned ns, WS_HERE) { ws_nanosleep(ns, file, line); }
WS_INLINE long long clock64(WS_HERE) { return ws_clock64(file, line); }
WS_INLINE void __threadfence(WS_HERE) { ws_threadfence(file, line); }
WS_INLINE void __threadfence_block(WS_HERE) { ws_threadfence(file, line); }
WS_INLINE void __threadfence_system(WS_HERE) { ws_threadfence(file, line); }
WS_INLINE unsigned __activemask(WS_HERE) { return ws_activemask(file, line); }
/* A trap or a breakpoint (no debugger: a failed launch): reported with the
 * lane and the line; the program ends with the summary. */
WS_INLINE void __trap(WS_HERE) { ws_trap(WS_TRAP, file, line); }
WS_INLINE void __brkpt(WS_HERE) { ws_trap(WS_BRKPT, file, line); }
/* clock() in a kernel reads the lane's virtual clock, in host code the C
 * library's (a macro: C's clock takes no arguments to overload). */
#define clock() ((clock_t)ws_clock_any(__FILE__, __LINE__))
/* __nanosleep and clock64 are also macros, that call the library where
 * they are written: lesson.h's helpers that a kernel calls (jitter_sleep,
 * watchdog_expired) are then where a report says a lane sleeps or spins,
 * not this header. */
#define __nanosleep(ns) ws_nanosleep((unsigned)(ns), __FILE__, __LINE__)
#define clock64() ws_clock64(__FILE__, __LINE__)
/* So are the barriers and fences, with no overloads to choose: a call in
 * a kernel is the library's call where it is written, as fast at -O0 as
 * before lesson files were C++ (an inlined function keeps its own copies
 * of its arguments there). The functions above stay for the rest
 * (lesson.h's delay points call __syncwarp and __activemask by name). */
#define __syncthreads() ws_syncthreads(__FILE__, __LINE__)
#define __syncthreads_count(p) ws_syncthreads_op(0, (p), __FILE__, __LINE__)
#define __syncthreads_and(p) ws_syncthreads_op(1, (p), __FILE__, __LINE__)
#define __syncthreads_or(p) ws_syncthreads_op(2, (p), __FILE__, __LINE__)
#define __threadfence() ws_threadfence(__FILE__, __LINE__)
#define __threadfence_block() ws_threadfence(__FILE__, __LINE__)
#define __threadfence_system() ws_threadfence(__FILE__, __LINE__)
#define __activemask() ws_activemask(__FILE__, __LINE__)
#define WS_PICK2(_0, _1, name, ...) name
#define WS_SYNCWARP_FULL() ws_syncwarp(0xffffffffu, __FILE__, __LINE__)
#define WS_SYNCWARP_MASK(m) ws_syncwarp((m), __FILE__, __LINE__)
#define __syncwarp(...) WS_PICK2(_, ##__VA_ARGS__, WS_SYNCWARP_MASK, WS_SYNCWARP_FULL)(__VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Shuffles                                                             */
/* ------------------------------------------------------------------ */

template <class T>
WS_INLINE T ws_shfl(int mode, unsigned mask, T v, int arg, int width, const char *file,
                    int line)
{
    uint64_t b = 0;
    T r;
    __builtin_memcpy(&b, &v, sizeof v);
    b = ws_shfl_here(mode, mask, b, (int)sizeof v, arg, width, file, line);
    __builtin_memcpy(&r, &b, sizeof r);
    return r;
}

#define WS_SHFL_TYPE(T)                                                        \
    WS_INLINE T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize, WS_HERE) \
    {                                                                          \
        return ws_shfl(WS_SHFL_IDX, mask, var, srcLane, width, file, line);    \
    }                                                                          \
    WS_INLINE T __shfl_up_sync(unsigned mask, T var, unsigned int delta,      \
                               int width = warpSize, WS_HERE)                  \
    {                                                                          \
        return ws_shfl(WS_SHFL_UP, mask, var, (int)delta, width, file, line);  \
    }                                                                          \
    WS_INLINE T __shfl_down_sync(unsigned mask, T var, unsigned int delta,    \
                                 int width = warpSize, WS_HERE)                \
    {                                                                          \
        return ws_shfl(WS_SHFL_DOWN, mask, var, (int)delta, width, file, line); \
    }                                                                          \
    WS_INLINE T __shfl_xor_sync(unsigned mask, T var, int laneMask,           \
                                int width = warpSize, WS_HERE)                 \
    {                                                                          \
        return ws_shfl(WS_SHFL_XOR, mask, var, laneMask, width, file, line);   \
    }
WS_SHFL_TYPE(int)
WS_SHFL_TYPE(unsigned int)
WS_SHFL_TYPE(long)
WS_SHFL_TYPE(unsigned long)
WS_SHFL_TYPE(long long)
WS_SHFL_TYPE(unsigned long long)
WS_SHFL_TYPE(float)
WS_SHFL_TYPE(double)
#undef WS_SHFL_TYPE

/* ------------------------------------------------------------------ */
/* Votes, match, reduce                                                 */
/* ------------------------------------------------------------------ */

WS_INLINE unsigned __ballot_sync(unsigned mask, int pred, WS_HERE)
{
    return ws_vote(WS_VOTE_BALLOT, mask, pred != 0, file, line);
}
WS_INLINE int __any_sync(unsigned mask, int pred, WS_HERE)
{
    return (int)ws_vote(WS_VOTE_ANY, mask, pred != 0, file, line);
}
WS_INLINE int __all_sync(unsigned mask, int pred, WS_HERE)
{
    return (int)ws_vote(WS_VOTE_ALL, mask, pred != 0, file, line);
}
WS_INLINE int __uni_sync(unsigned mask, int pred, WS_HERE)
{
    return (int)ws_vote(WS_VOTE_UNI, mask, pred != 0, file, line);
}

/* The value's bits as match compares them: 4-byte types in 32 bits. */
template <class T>
WS_INLINE uint64_t ws_match_bits(T v)
{
    uint64_t b = 0;
    __builtin_memcpy(&b, &v, sizeof v);
    return sizeof v == 4 ? b & 0xffffffffULL : b;
}
#define WS_MATCH_TYPE(T)                                                       \
    WS_INLINE unsigned __match_any_sync(unsigned mask, T value, WS_HERE)       \
    {                                                                          \
        return ws_match(0, mask, ws_match_bits(value), (int)sizeof value, NULL, file, line); \
    }                                                                          \
    WS_INLINE unsigned __match_all_sync(unsigned mask, T value, int *pred, WS_HERE) \
    {                                                                          \
        return ws_match(1, mask, ws_match_bits(value), (int)sizeof value, pred, file, line); \
    }
WS_MATCH_TYPE(int)
WS_MATCH_TYPE(unsigned int)
WS_MATCH_TYPE(long)
WS_MATCH_TYPE(unsigned long)
WS_MATCH_TYPE(long long)
WS_MATCH_TYPE(unsigned long long)
WS_MATCH_TYPE(float)
WS_MATCH_TYPE(double)
#undef WS_MATCH_TYPE

/* __reduce_*_sync: compute capability 8.0 on a GPU; warpsim has them
 * always, and says so to the preprocessor (defined(__reduce_add_sync)). */
WS_INLINE unsigned __reduce_add_sync(unsigned mask, unsigned value, WS_HERE)
{
    return ws_reduce(WS_RED_ADD, 0, mask, value, file, line);
}
WS_INLINE int __reduce_add_sync(unsigned mask, int value, WS_HERE)
{
    return (int)ws_reduce(WS_RED_ADD, 1, mask, (unsigned)value, file, line);
}
WS_INLINE unsigned __reduce_min_sync(unsigned mask, unsigned value, WS_HERE)
{
    return ws_reduce(WS_RED_MIN, 0, mask, value, file, line);
}
WS_INLINE int __reduce_min_sync(unsigned mask, int value, WS_HERE)
{
    return (int)ws_reduce(WS_RED_MIN, 1, mask, (unsigned)value, file, line);
}
WS_INLINE unsigned __reduce_max_sync(unsigned mask, unsigned value, WS_HERE)
{
    return ws_reduce(WS_RED_MAX, 0, mask, value, file, line);
}
WS_INLINE int __reduce_max_sync(unsigned mask, int value, WS_HERE)
{
    return (int)ws_reduce(WS_RED_MAX, 1, mask, (unsigned)value, file, line);
}
WS_INLINE unsigned __reduce_and_sync(unsigned mask, unsigned value, WS_HERE)
{
    return ws_reduce(WS_RED_AND, 0, mask, value, file, line);
}
WS_INLINE unsigned __reduce_or_sync(unsigned mask, unsigned value, WS_HERE)
{
    return ws_reduce(WS_RED_OR, 0, mask, value, file, line);
}
WS_INLINE unsigned __reduce_xor_sync(unsigned mask, unsigned value, WS_HERE)
{
    return ws_reduce(WS_RED_XOR, 0, mask, value, file, line);
}
#define __reduce_add_sync __reduce_add_sync
#define __reduce_min_sync __reduce_min_sync
#define __reduce_max_sync __reduce_max_sync
#define __reduce_and_sync __reduce_and_sync
#define __reduce_or_sync __reduce_or_sync
#define __reduce_xor_sync __reduce_xor_sync

/* ------------------------------------------------------------------ */
/* Atomics                                                              */
/* ------------------------------------------------------------------ */

template <class T>
WS_INLINE T ws_at(int op, int type, T *p, T v, T c, const char *file, int line)
{
    uint64_t bv = 0, bc = 0, r;
    T out;
    __builtin_memcpy(&bv, &v, sizeof v);
    __builtin_memcpy(&bc, &c, sizeof c);
    r = ws_atomic(op, type, (void *)p, bv, bc, file, line);
    __builtin_memcpy(&out, &r, sizeof out);
    return out;
}
#define WS_AT2(name, op, T, type)                                              \
    WS_INLINE T name(T *address, T val, WS_HERE)                               \
    {                                                                          \
        return ws_at(op, type, address, val, (T)0, file, line);               \
    }
#define WS_AT_INTS(name, op)                                                   \
    WS_AT2(name, op, int, 0) WS_AT2(name, op, unsigned int, 1)
#define WS_AT_LONGS(name, op)                                                  \
    WS_AT2(name, op, long long, 2) WS_AT2(name, op, unsigned long long, 3)
WS_AT_INTS(atomicAdd, WS_AT_ADD)
WS_AT2(atomicAdd, WS_AT_ADD, unsigned long long, 3)
WS_AT2(atomicAdd, WS_AT_ADD, float, 4)
WS_AT2(atomicAdd, WS_AT_ADD, double, 5)
WS_AT_INTS(atomicSub, WS_AT_SUB)
WS_AT_INTS(atomicExch, WS_AT_EXCH)
WS_AT2(atomicExch, WS_AT_EXCH, unsigned long long, 3)
WS_AT2(atomicExch, WS_AT_EXCH, float, 4)
WS_AT_INTS(atomicMin, WS_AT_MIN)
WS_AT_LONGS(atomicMin, WS_AT_MIN)
WS_AT_INTS(atomicMax, WS_AT_MAX)
WS_AT_LONGS(atomicMax, WS_AT_MAX)
WS_AT2(atomicInc, WS_AT_INC, unsigned int, 1)
WS_AT2(atomicDec, WS_AT_DEC, unsigned int, 1)
WS_AT_INTS(atomicAnd, WS_AT_AND)
WS_AT_LONGS(atomicAnd, WS_AT_AND)
WS_AT_INTS(atomicOr, WS_AT_OR)
WS_AT_LONGS(atomicOr, WS_AT_OR)
WS_AT_INTS(atomicXor, WS_AT_XOR)
WS_AT_LONGS(atomicXor, WS_AT_XOR)
#define WS_CAS(T, type)                                                        \
    WS_INLINE T atomicCAS(T *address, T compare, T val, WS_HERE)               \
    {                                                                          \
        return ws_at(WS_AT_CAS, type, address, val, compare, file, line);     \
    }
WS_CAS(int, 0)
WS_CAS(unsigned int, 1)
WS_CAS(unsigned long long, 3)
#undef WS_CAS
#undef WS_AT_LONGS
#undef WS_AT_INTS
#undef WS_AT2
/* The scopes (thread block, system) are one memory here. */
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS

/* ------------------------------------------------------------------ */
/* Integer functions and intrinsics (pure)                              */
/* ------------------------------------------------------------------ */

/* min and max, every overload of crt/math_functions.hpp: mixed signed and
 * unsigned arguments compare as unsigned, float with double as double. */
#define WS_MINMAX(R, A, B)                                                     \
    WS_INLINE R min(const A a, const B b) { return (R)a < (R)b ? (R)a : (R)b; } \
    WS_INLINE R max(const A a, const B b) { return (R)a > (R)b ? (R)a : (R)b; }
WS_MINMAX(int, int, int)
WS_MINMAX(unsigned int, unsigned int, unsigned int)
WS_MINMAX(unsigned int, int, unsigned int)
WS_MINMAX(unsigned int, unsigned int, int)
WS_MINMAX(long, long, long)
WS_MINMAX(unsigned long, unsigned long, unsigned long)
WS_MINMAX(unsigned long, long, unsigned long)
WS_MINMAX(unsigned long, unsigned long, long)
WS_MINMAX(long long, long long, long long)
WS_MINMAX(unsigned long long, unsigned long long, unsigned long long)
WS_MINMAX(unsigned long long, long long, unsigned long long)
WS_MINMAX(unsigned long long, unsigned long long, long long)
WS_MINMAX(double, double, double)
WS_MINMAX(double, float, double)
WS_MINMAX(double, double, float)
#undef WS_MINMAX
/* min(float, float) and max(float, float) as fminf and fmaxf: a NaN loses */
WS_INLINE float min(const float a, const float b) { return fminf(a, b); }
WS_INLINE float max(const float a, const float b) { return fmaxf(a, b); }
WS_INLINE unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
WS_INLINE unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
WS_INLINE long long llmin(long long a, long long b) { return a < b ? a : b; }
WS_INLINE long long llmax(long long a, long long b) { return a > b ? a : b; }
WS_INLINE unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
WS_INLINE unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

WS_INLINE int __popc(unsigned int x) { return __builtin_popcount(x); }
WS_INLINE int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
WS_INLINE int __ffs(int x) { return __builtin_ffs(x); }
WS_INLINE int __ffsll(long long x) { return __builtin_ffsll(x); }
WS_INLINE int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
WS_INLINE int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
WS_INLINE unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}
WS_INLINE unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
/* The n-th set bit of mask at or after base (offset > 0) or at or before
 * it (offset < 0), counting |offset| set bits; 0xffffffff when none. */
WS_INLINE unsigned int __fns(unsigned int mask, unsigned int base, int offset)
{
    int pos = (int)base, step = offset < 0 ? -1 : 1, left = offset < 0 ? -offset : offset;
    if (offset == 0)
        return base < 32 && (mask >> base & 1) ? base : 0xffffffffu;
    for (; pos >= 0 && pos < 32; pos += step)
        if ((mask >> pos & 1) && --left == 0)
            return (unsigned int)pos;
    return 0xffffffffu;
}
WS_INLINE unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << (shift & 31)) >> 32);
}
WS_INLINE unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << (shift > 32 ? 32 : shift)) >> 32);
}
WS_INLINE unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> (shift & 31));
}
WS_INLINE unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> (shift > 32 ? 32 : shift));
}
/* Byte i of the result is byte (s >> 4i) & 7 of the eight bytes y:x. */
WS_INLINE unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned int r = 0, i;
    for (i = 0; i < 4; i++)
        r |= (unsigned int)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
/* The low 32 bits of the product of the low 24 bits of each, signed. */
WS_INLINE int __mul24(int x, int y)
{
    long long a = (int)((unsigned)x << 8) >> 8, b = (int)((unsigned)y << 8) >> 8;
    return (int)(unsigned)(a * b);
}
WS_INLINE unsigned int __umul24(unsigned int x, unsigned int y)
{
    return (x & 0xffffffu) * (y & 0xffffffu);
}
WS_INLINE int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
WS_INLINE unsigned int __umulhi(unsigned int x, unsigned int y)
{
    return (unsigned int)(((unsigned long long)x * y) >> 32);
}
WS_INLINE long long __mul64hi(long long x, long long y)
{
    return (long long)(((__int128)x * y) >> 64);
}
WS_INLINE unsigned long long __umul64hi(unsigned long long x, unsigned long long y)
{
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
WS_INLINE unsigned int __sad(int x, int y, unsigned int z)
{
    return z + (unsigned int)(x > y ? (long long)x - y : (long long)y - x);
}
WS_INLINE unsigned int __usad(unsigned int x, unsigned int y, unsigned int z)
{
    return z + (x > y ? x - y : y - x);
}
WS_INLINE int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
WS_INLINE unsigned int __uhadd(unsigned int x, unsigned int y)
{
    return (unsigned int)(((unsigned long long)x + y) >> 1);
}
WS_INLINE int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
WS_INLINE unsigned int __urhadd(unsigned int x, unsigned int y)
{
    return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}
WS_INLINE int __dp4a(int a, int b, int c)
{
    int i;
    for (i = 0; i < 4; i++)
        c += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
    return c;
}
WS_INLINE unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c)
{
    int i;
    for (i = 0; i < 4; i++)
        c += ((a >> (8 * i)) & 0xff) * ((b >> (8 * i)) & 0xff);
    return c;
}

/* ------------------------------------------------------------------ */
/* Floating point: rounding, conversions, fast-math, bit casts          */
/* ------------------------------------------------------------------ */

/* An operation in a rounding mode (rn: to nearest even, rz: toward zero,
 * ru: up, rd: down), through the C library's fenv. */
#define WS_ROUNDED(mode, expr)                                                 \
    ({                                                                         \
        int ws_old_ = fegetround();                                            \
        fesetround(mode);                                                      \
        __typeof__(expr) ws_r_ = (expr);                                       \
        fesetround(ws_old_);                                                   \
        ws_r_;                                                                 \
    })
#define WS_ROUND_OPS(sfx, mode)                                                \
    WS_INLINE float __fadd_##sfx(float a, float b) { return WS_ROUNDED(mode, a + b); } \
    WS_INLINE float __fsub_##sfx(float a, float b) { return WS_ROUNDED(mode, a - b); } \
    WS_INLINE float __fmul_##sfx(float a, float b) { return WS_ROUNDED(mode, a * b); } \
    WS_INLINE float __fdiv_##sfx(float a, float b) { return WS_ROUNDED(mode, a / b); } \
    WS_INLINE float __fmaf_##sfx(float a, float b, float c) { return WS_ROUNDED(mode, fmaf(a, b, c)); } \
    WS_INLINE float __frcp_##sfx(float a) { return WS_ROUNDED(mode, 1.0f / a); } \
    WS_INLINE float __fsqrt_##sfx(float a) { return WS_ROUNDED(mode, sqrtf(a)); } \
    WS_INLINE double __dadd_##sfx(double a, double b) { return WS_ROUNDED(mode, a + b); } \
    WS_INLINE double __dsub_##sfx(double a, double b) { return WS_ROUNDED(mode, a - b); } \
    WS_INLINE double __dmul_##sfx(double a, double b) { return WS_ROUNDED(mode, a * b); } \
    WS_INLINE double __ddiv_##sfx(double a, double b) { return WS_ROUNDED(mode, a / b); } \
    WS_INLINE double __fma_##sfx(double a, double b, double c) { return WS_ROUNDED(mode, fma(a, b, c)); } \
    WS_INLINE double __drcp_##sfx(double a) { return WS_ROUNDED(mode, 1.0 / a); } \
    WS_INLINE double __dsqrt_##sfx(double a) { return WS_ROUNDED(mode, sqrt(a)); } \
    WS_INLINE int __float2int_##sfx(float a) { return (int)WS_ROUNDED(mode, nearbyintf(a)); } \
    WS_INLINE unsigned int __float2uint_##sfx(float a) { return (unsigned int)WS_ROUNDED(mode, nearbyintf(a)); } \
    WS_INLINE long long __float2ll_##sfx(float a) { return (long long)WS_ROUNDED(mode, nearbyintf(a)); } \
    WS_INLINE unsigned long long __float2ull_##sfx(float a) { return (unsigned long long)WS_ROUNDED(mode, nearbyintf(a)); } \
    WS_INLINE int __double2int_##sfx(double a) { return (int)WS_ROUNDED(mode, nearbyint(a)); } \
    WS_INLINE unsigned int __double2uint_##sfx(double a) { return (unsigned int)WS_ROUNDED(mode, nearbyint(a)); } \
    WS_INLINE long long __double2ll_##sfx(double a) { return (long long)WS_ROUNDED(mode, nearbyint(a)); } \
    WS_INLINE unsigned long long __double2ull_##sfx(double a) { return (unsigned long long)WS_ROUNDED(mode, nearbyint(a)); } \
    WS_INLINE float __int2float_##sfx(int a) { return WS_ROUNDED(mode, (float)a); } \
    WS_INLINE float __uint2float_##sfx(unsigned int a) { return WS_ROUNDED(mode, (float)a); } \
    WS_INLINE float __ll2float_##sfx(long long a) { return WS_ROUNDED(mode, (float)a); } \
    WS_INLINE float __ull2float_##sfx(unsigned long long a) { return WS_ROUNDED(mode, (float)a); } \
    WS_INLINE double __ll2double_##sfx(long long a) { return WS_ROUNDED(mode, (double)a); } \
    WS_INLINE double __ull2double_##sfx(unsigned long long a) { return WS_ROUNDED(mode, (double)a); } \
    WS_INLINE float __double2float_##sfx(double a) { return WS_ROUNDED(mode, (float)a); }
WS_ROUND_OPS(rn, FE_TONEAREST)
WS_ROUND_OPS(rz, FE_TOWARDZERO)
WS_ROUND_OPS(ru, FE_UPWARD)
WS_ROUND_OPS(rd, FE_DOWNWARD)
#undef WS_ROUND_OPS
WS_INLINE float __frsqrt_rn(float a) { return 1.0f / sqrtf(a); }
WS_INLINE double __int2double_rn(int a) { return (double)a; }
WS_INLINE double __uint2double_rn(unsigned int a) { return (double)a; }

/* The fast, less exact intrinsics: the C library's exact functions.
 * glibc's <math.h> declares __expf ... (extern "C", never exported):
 * warpsim defines them with that linkage. */
#define WS_GLIBC_MATH(decl, body)                                              \
    extern "C" inline __attribute__((always_inline)) decl noexcept { body; }
WS_GLIBC_MATH(float __expf(float x), return expf(x))
WS_GLIBC_MATH(float __exp10f(float x), return exp10f(x))
WS_GLIBC_MATH(float __logf(float x), return logf(x))
WS_GLIBC_MATH(float __log2f(float x), return log2f(x))
WS_GLIBC_MATH(float __log10f(float x), return log10f(x))
WS_GLIBC_MATH(float __sinf(float x), return sinf(x))
WS_GLIBC_MATH(float __cosf(float x), return cosf(x))
WS_GLIBC_MATH(float __tanf(float x), return tanf(x))
WS_GLIBC_MATH(void __sincosf(float x, float *s, float *c), sincosf(x, s, c))
WS_GLIBC_MATH(float __powf(float x, float y), return powf(x, y))
#undef WS_GLIBC_MATH
WS_INLINE float __fdividef(float x, float y) { return x / y; }
WS_INLINE float fdividef(float x, float y) { return x / y; }
WS_INLINE float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
WS_INLINE float rsqrtf(float x) { return 1.0f / sqrtf(x); }
WS_INLINE double rsqrt(double x) { return 1.0 / sqrt(x); }
WS_INLINE float rcbrtf(float x) { return 1.0f / cbrtf(x); }
WS_INLINE double rcbrt(double x) { return 1.0 / cbrt(x); }
#if !(defined(__GLIBC__) && __GLIBC_PREREQ(2, 41))   /* C23's sinpi and cospi */
WS_INLINE float sinpif(float x) { return sinf((float)M_PI * x); }
WS_INLINE float cospif(float x) { return cosf((float)M_PI * x); }
WS_INLINE void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
WS_INLINE double sinpi(double x) { return sin(M_PI * x); }
WS_INLINE double cospi(double x) { return cos(M_PI * x); }
WS_INLINE void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
#endif

/* Bit casts */
template <class R, class T>
WS_INLINE R ws_bitcast(T v)
{
    R r;
    __builtin_memcpy(&r, &v, sizeof r);
    return r;
}
WS_INLINE int __float_as_int(float x) { return ws_bitcast<int>(x); }
WS_INLINE unsigned int __float_as_uint(float x) { return ws_bitcast<unsigned int>(x); }
WS_INLINE float __int_as_float(int x) { return ws_bitcast<float>(x); }
WS_INLINE float __uint_as_float(unsigned int x) { return ws_bitcast<float>(x); }
WS_INLINE long long __double_as_longlong(double x) { return ws_bitcast<long long>(x); }
WS_INLINE double __longlong_as_double(long long x) { return ws_bitcast<double>(x); }
WS_INLINE double __hiloint2double(int hi, int lo)
{
    return ws_bitcast<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}
WS_INLINE int __double2hiint(double x) { return (int)(ws_bitcast<unsigned long long>(x) >> 32); }
WS_INLINE int __double2loint(double x) { return (int)ws_bitcast<unsigned long long>(x); }

/* Loads and stores with cache hints: plain accesses here. */
template <class T> WS_INLINE T __ldg(const T *p) { return *p; }
template <class T> WS_INLINE T __ldcg(const T *p) { return *p; }
template <class T> WS_INLINE T __ldca(const T *p) { return *p; }
template <class T> WS_INLINE T __ldcs(const T *p) { return *p; }
template <class T> WS_INLINE T __ldlu(const T *p) { return *p; }
template <class T> WS_INLINE T __ldcv(const T *p) { return *p; }
template <class T> WS_INLINE void __stwb(T *p, T v) { *p = v; }
template <class T> WS_INLINE void __stcg(T *p, T v) { *p = v; }
template <class T> WS_INLINE void __stcs(T *p, T v) { *p = v; }
template <class T> WS_INLINE void __stwt(T *p, T v) { *p = v; }

/* ------------------------------------------------------------------ */
/* printf, malloc, free in kernels (macros: C's own are not overloads)  */
/* ------------------------------------------------------------------ */

/* In a kernel: printf keeps each launch's output within
 * cudaLimitPrintfFifoSize and says in one line what it left out; malloc
 * and free use the device heap (cudaLimitMallocHeapSize; NULL when it is
 * full). In host code they are the C library's. assert is the C library's
 * macro; warpsim's __assert_fail reports one that fails in a kernel. */
#define printf(...) ws_printf(__VA_ARGS__)
#define malloc(n) ws_malloc(n)
#define free(p) ws_free(p)

#undef WS_HERE
#undef WS_INLINE

#endif /* WARPSIM_DEVICE_H */
