/*
 * lesson.h - the one header every lesson source includes.
 *
 * A lesson source (legacy.cu, sync.cu) builds two ways from the same text:
 *   - with nvcc, for a real GPU (the default);
 *   - with the system C compiler against warpsim, the CPU emulator of warp
 *     execution, when WARPSIM is defined (warpsim/include/warpsim.h then
 *     supplies the CUDA names).
 * Lesson code is therefore C that nvcc also accepts as C++: no templates,
 * classes, references or overloads; cast the result of malloc; declare
 * shared memory with a size known at compile time.
 *
 * What this header gives a lesson:
 *   FULL_MASK, LANE(), WARP_IN_BLOCK()      the warp vocabulary
 *   CUDA_CHECK(call)                      stop with file:line on a CUDA error
 *   LAUNCH(kernel, blocks, threads, shared_bytes, args...)
 *                                         one launch macro for GPU and warpsim;
 *                                         under warpsim the arguments are
 *                                         evaluated once, so pass plain values
 *   LEGACY_SHFL(), LEGACY_SHFL_DOWN(), LEGACY_BALLOT(), LEGACY_ANY(),
 *   LEGACY_ALL()                          the mask-less primitives of CUDA 8:
 *                                         the real ones below compute
 *                                         capability 7.0, what they amount to
 *                                         (whoever is active) from 7.0 on
 *   PRE_VOLTA                             1 in device code built for
 *                                         __CUDA_ARCH__ < 700, else 0
 *   jitter_sleep(ns, sleeper)             an interleaving that independent
 *                                         thread scheduling allows: the lane
 *                                         sleeps with __nanosleep when sleeper
 *   lesson_print_path()                   "path: ..." - which code path the
 *                                         kernels were built for and run
 *   watchdog_expired(start, cycles)       bounds a spin-wait that may hang
 *   lesson_parse()                        the command line every program shares
 *   lesson_device_alloc(), lesson_host_alloc()
 *                                         allocations that fail with one clear line
 *   lesson_random_ints()                  reproducible, never-zero input
 *   lesson_compare_ints()                 the first mismatches, then a count
 *   lesson_lanes_text()                   a mask's lanes as "0-15" or "1,3,5"
 *   lesson_fail(), lesson_result()        an error line, the closing line, and
 *                                         the exit status that goes with each
 *
 * Exit status of every lesson program (the checkers rely on it):
 *   0  the result matched the CPU reference
 *   1  the result was wrong
 *   2  bad usage or input (one line on stderr saying what)
 *   3  a hang caught by the in-kernel watchdog
 *   77 no usable GPU (a skip, not a failure)
 */
#ifndef LESSON_H
#define LESSON_H

#if defined(WARPSIM)
#include "warpsim.h"
#else
#include <cuda_runtime.h>
#endif

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FULL_MASK 0xffffffffu

#define LESSON_OK    0
#define LESSON_WRONG 1
#define LESSON_USAGE 2
#define LESSON_HANG  3
#define LESSON_SKIP  77

/* The lane of the calling thread in its warp, and its warp in the block. */
#define LANE()          ((int)(threadIdx.x % 32u))
#define WARP_IN_BLOCK() ((int)(threadIdx.x / 32u))

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

static const char *lesson_prog = "lesson";

/* Prints "PROG: MESSAGE" on stderr and exits with status. */
static inline void lesson_fail(int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", lesson_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(status);
}

/* No GPU and no driver are a skip (77); anything else is a real error. */
static inline void lesson_cuda_check(cudaError_t e, const char *what,
                                     const char *file, int line)
{
    if (e == cudaSuccess)
        return;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        lesson_fail(LESSON_SKIP, "no usable CUDA GPU here (%s); "
                    "run 'make check EMU=1' to use warpsim instead",
                    cudaGetErrorString(e));
    lesson_fail(LESSON_WRONG, "%s:%d: %s failed: %s", file, line, what,
                cudaGetErrorString(e));
}

#define CUDA_CHECK(call) lesson_cuda_check((call), #call, __FILE__, __LINE__)

/* ------------------------------------------------------------------ */
/* Launch                                                               */
/* ------------------------------------------------------------------ */

#if defined(WARPSIM)
#define LAUNCH(kernel, blocks, threads, shared_bytes, ...)                    \
    do {                                                                      \
        WS_LAUNCH(kernel, blocks, threads, shared_bytes, __VA_ARGS__);        \
        CUDA_CHECK(cudaGetLastError());                                       \
    } while (0)
#else
#define LAUNCH(kernel, blocks, threads, shared_bytes, ...)                    \
    do {                                                                      \
        kernel<<<(blocks), (threads), (shared_bytes)>>>(__VA_ARGS__);         \
        CUDA_CHECK(cudaGetLastError());                                       \
    } while (0)
#endif

/* ------------------------------------------------------------------ */
/* Pre-Volta and Volta-and-newer code paths                             */
/* ------------------------------------------------------------------ */

/*
 * PRE_VOLTA is 1 in device code compiled for a virtual or real architecture
 * below compute_70 (CUDA 11.8 or 12.x with -arch=sm_60 or compute_60 PTX),
 * where the lessons use the primitives that GPUs without independent thread
 * scheduling had. Everywhere else (host code, warpsim, sm_70 and newer) it
 * is 0.
 */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700 && !defined(WARPSIM)
#define PRE_VOLTA 1
#else
#define PRE_VOLTA 0
#endif

/*
 * The mask-less warp primitives of CUDA 8 and older, as legacy code calls
 * them. Before compute capability 7.0 the real ones; CUDA 9 deprecated them
 * and compute_70 and newer lack __shfl and friends, so there they are
 * written out as what they amount to: the _sync form with whoever happens
 * to be active as its mask. Neither is right on a GPU with independent
 * thread scheduling.
 */
#if PRE_VOLTA
#define LEGACY_SHFL(v, src)      __shfl((v), (src))
#define LEGACY_SHFL_DOWN(v, d)   __shfl_down((v), (d))
#define LEGACY_BALLOT(p)         __ballot(p)
#define LEGACY_ANY(p)            __any(p)
#define LEGACY_ALL(p)            __all(p)
#else
#define LEGACY_SHFL(v, src)      __shfl_sync(__activemask(), (v), (src))
#define LEGACY_SHFL_DOWN(v, d)   __shfl_down_sync(__activemask(), (v), (d))
#define LEGACY_BALLOT(p)         __ballot_sync(__activemask(), (p))
#define LEGACY_ANY(p)            __any_sync(__activemask(), (p))
#define LEGACY_ALL(p)            __all_sync(__activemask(), (p))
#endif

#if !defined(WARPSIM)
/* __CUDA_ARCH__ as the kernels were built, read on the GPU. */
static __global__ void lesson_arch_kernel(int *arch)
{
#if defined(__CUDA_ARCH__)
    *arch = __CUDA_ARCH__;
#else
    *arch = 0;
#endif
}
#endif

/*
 * Prints "path: ...": the code path the kernels of this program were built
 * for, and the GPU they run on. compute_60 PTX on a newer GPU is
 * JIT-compiled by the driver and still runs the pre-Volta path, with
 * pre-Volta (lockstep) thread scheduling.
 */
static inline void lesson_print_path(void)
{
#if defined(WARPSIM)
    printf("path: Volta and newer, on warpsim (the CPU emulator; no __CUDA_ARCH__)\n");
#else
    int *d_arch, arch = 0, dev = 0;
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaMalloc((void **)&d_arch, sizeof(int)));
    lesson_arch_kernel<<<1, 1>>>(d_arch);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&arch, d_arch, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_arch));
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    if (arch < 700)
        printf("path: pre-Volta fallback (__CUDA_ARCH__ %d) on %s, compute capability %d.%d%s\n",
               arch, prop.name, prop.major, prop.minor,
               prop.major >= 7 ? ": PTX JIT-compiled, pre-Volta scheduling" : "");
    else
        printf("path: Volta and newer (__CUDA_ARCH__ %d) on %s, compute capability %d.%d\n",
               arch, prop.name, prop.major, prop.minor);
#endif
}

/* ------------------------------------------------------------------ */
/* Jitter                                                               */
/* ------------------------------------------------------------------ */

/*
 * Sleeps ns nanoseconds in the lanes where sleeper is non-zero. From compute
 * capability 7.0 on it must be a real sleep (__nanosleep): a busy-wait in a
 * branch just stalls the whole warp, which the compiler reconverges after
 * the branch, and hides the bug (docs/results). Before 7.0 there is no
 * __nanosleep and no independent thread scheduling: the sleepers busy-wait
 * on the GPU's nanosecond timer while the rest of the warp waits for them,
 * which is exactly what a slow path did to a pre-Volta warp.
 */
static __device__ inline void jitter_sleep(unsigned ns, int sleeper)
{
#if defined(WARPSIM) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700)
    if (ns != 0 && sleeper)
        __nanosleep(ns);
#elif defined(__CUDA_ARCH__)
    unsigned long long start, now;
    if (ns != 0 && sleeper) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
        do {
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        } while (now - start < ns);
    }
#else
    (void)ns;
    (void)sleeper;
#endif
}

/*
 * A watchdog for demonstrations that hang: a lane that spin-waits calls
 * watchdog_expired(start, cycles) in its loop, with start = clock64() taken
 * before the loop, and gives up (and reports) once it returns non-zero, so
 * that the program ends by itself with "HANG detected: ..." and exit 3.
 */
static __device__ inline int watchdog_expired(long long start, long long cycles)
{
    return clock64() - start > cycles;
}

/* ------------------------------------------------------------------ */
/* Command line                                                         */
/* ------------------------------------------------------------------ */

/* One numeric option. value points at the program's variable. */
typedef struct {
    char letter;           /* -x */
    const char *name;      /* --name */
    const char *arg;       /* placeholder shown in --help */
    long long *value;
    long long min, max;
    const char *help;
} lesson_option;

/* What a program is, for --help and for the first line of its report. */
typedef struct {
    const char *file;      /* legacy.cu or sync.cu */
    const char *about;     /* one paragraph */
    const char **variants; /* names of variants 1..nvariants */
    int nvariants;
    lesson_option *options;
    int noptions;
} lesson_program;

/* Parses "12", "-5", "4K", "256M", "1G" (K, M, G are 2^10, 2^20, 2^30). */
static inline int lesson_parse_number(const char *s, long long *out)
{
    char *end;
    long long v, scale = 1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE)
        return -1;
    if (*end == 'K' || *end == 'k') { scale = 1LL << 10; end++; }
    else if (*end == 'M') { scale = 1LL << 20; end++; }
    else if (*end == 'G') { scale = 1LL << 30; end++; }
    if (*end != '\0')
        return -1;
    if (v > LLONG_MAX / scale || v < LLONG_MIN / scale)
        return -1;
    *out = v * scale;
    return 0;
}

static inline void lesson_usage(const lesson_program *p)
{
    int i;
    printf("usage: %s [options]\n\n%s\n\noptions:\n", lesson_prog, p->about);
    for (i = 0; i < p->noptions; i++) {
        const lesson_option *o = &p->options[i];
        char flag[64];
        snprintf(flag, sizeof flag, "-%c, --%s %s", o->letter, o->name, o->arg);
        printf("  %-24s %s (%lld..%lld, default %lld)\n", flag, o->help,
               o->min, o->max, *o->value);
    }
    printf("  %-24s %s\n", "--path", "print which code path the kernels run (pre-Volta or not) and exit");
    printf("  %-24s %s\n", "-h, --help", "show this help and exit");
    printf("\nnumbers take a K, M or G suffix for 2^10, 2^20, 2^30 (-n 16M).\n");
    printf("\nvariants (-k NUMBER, or -k NAME: the word before the colon):\n");
    for (i = 0; i < p->nvariants; i++)
        printf("  %d  %s\n", i + 1, p->variants[i]);
    printf("\nexit status: 0 matches the CPU, 1 wrong result, 2 bad usage,\n"
           "3 hang caught by the watchdog, 77 no usable GPU.\n");
}

/* Finds the option for "-x" or "--name"; NULL if none. */
static inline lesson_option *lesson_find_option(const lesson_program *p,
                                                const char *flag)
{
    int i;
    for (i = 0; i < p->noptions; i++) {
        lesson_option *o = &p->options[i];
        if (flag[0] == '-' && flag[1] == o->letter && flag[2] == '\0')
            return o;
        if (flag[0] == '-' && flag[1] == '-' && strcmp(flag + 2, o->name) == 0)
            return o;
    }
    return NULL;
}

/*
 * The number of the variant called name: the words before ':' in the
 * variant's description ("partners" for "partners: Listing 3 as printed").
 * Exits 2 when no variant has that name.
 */
static inline long long lesson_variant_named(const lesson_program *p, const char *name)
{
    int d;
    for (d = 0; d < p->nvariants; d++) {
        const char *v = p->variants[d];
        size_t len = strcspn(v, ":");
        if (strlen(name) == len && strncmp(name, v, len) == 0)
            return d + 1;
    }
    lesson_fail(LESSON_USAGE, "--variant: no variant named '%s' (try --help)", name);
    return 0;
}

/*
 * Parses argv into the options' variables; prints --help and exits 0, or
 * exits 2 with one line on the first bad argument. Accepts "-n 5",
 * "--size 5" and "--size=5"; -k/--variant also takes a variant's name.
 */
static inline void lesson_parse(int argc, char **argv, const lesson_program *p)
{
    int i;
    const char *slash = strrchr(argv[0], '/');
    lesson_prog = slash ? slash + 1 : argv[0];
    for (i = 1; i < argc; i++) {
        char flag[64];
        const char *arg = argv[i], *val;
        const char *eq = strchr(arg, '=');
        lesson_option *o;
        long long v = 0;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            lesson_usage(p);
            exit(LESSON_OK);
        }
        if (strcmp(arg, "--path") == 0) {
            lesson_print_path();
            exit(LESSON_OK);
        }
        if (eq && strncmp(arg, "--", 2) == 0 && (size_t)(eq - arg) < sizeof flag) {
            memcpy(flag, arg, (size_t)(eq - arg));
            flag[eq - arg] = '\0';
            val = eq + 1;
        } else {
            snprintf(flag, sizeof flag, "%s", arg);
            val = NULL;
        }
        o = lesson_find_option(p, flag);
        if (!o)
            lesson_fail(LESSON_USAGE, "unknown option '%s' (try --help)", arg);
        if (!val) {
            if (i + 1 >= argc)
                lesson_fail(LESSON_USAGE, "%s needs a value (try --help)", flag);
            val = argv[++i];
        }
        if (lesson_parse_number(val, &v) != 0 && strcmp(o->name, "variant") == 0)
            v = lesson_variant_named(p, val);
        else if (lesson_parse_number(val, &v) != 0)
            lesson_fail(LESSON_USAGE, "--%s: '%s' is not a number", o->name, val);
        if (v < o->min || v > o->max)
            lesson_fail(LESSON_USAGE, "--%s must be between %lld and %lld (got %lld)",
                        o->name, o->min, o->max, v);
        *o->value = v;
    }
}

/* ------------------------------------------------------------------ */
/* Memory                                                               */
/* ------------------------------------------------------------------ */

/* Formats a byte count as "1.5 GiB" into buf. */
static inline const char *lesson_bytes(double bytes, char *buf, size_t size)
{
    const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    while (bytes >= 1024.0 && u < 4) { bytes /= 1024.0; u++; }
    snprintf(buf, size, "%.1f %s", bytes, unit[u]);
    return buf;
}

/* Allocates device memory or exits: 2 when the GPU lacks the memory. */
static inline void *lesson_device_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    char buf[32];
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation)
        lesson_fail(LESSON_USAGE, "%s needs %s of GPU memory, more than the GPU "
                    "can give (%s); choose a smaller -n", what,
                    lesson_bytes((double)bytes, buf, sizeof buf), cudaGetErrorString(e));
    lesson_cuda_check(e, "cudaMalloc", __FILE__, __LINE__);
    return p;
}

/* Allocates host memory or exits 2 with the size that failed. */
static inline void *lesson_host_alloc(size_t bytes, const char *what)
{
    char buf[32];
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        lesson_fail(LESSON_USAGE, "%s needs %s of host memory, which is not "
                    "available; choose a smaller -n", what,
                    lesson_bytes((double)bytes, buf, sizeof buf));
    return p;
}

/* ------------------------------------------------------------------ */
/* Input and comparison                                                 */
/* ------------------------------------------------------------------ */

/* splitmix64: the same stream on every machine for the same seed. */
static inline uint64_t lesson_next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Fills a[0..n) with values in -max..-1 and 1..max: never zero, so a lost
 * element always changes a sum. */
static inline void lesson_random_ints(int *a, long long n, long long seed, int max)
{
    uint64_t s = (uint64_t)seed;
    long long i;
    for (i = 0; i < n; i++) {
        uint64_t r = lesson_next_random(&s);
        int v = 1 + (int)((r >> 1) % (uint64_t)max);
        a[i] = (r & 1) ? v : -v;
    }
}

/*
 * Compares got[] with expected[] and returns how many differ. Prints the
 * first ten differences as "  warp 3: expected 12 got 7"; what names the
 * element ("warp", "block").
 */
static inline long long lesson_compare_ints(const char *what, const int *expected,
                                            const int *got, long long count)
{
    long long i, wrong = 0;
    for (i = 0; i < count; i++) {
        if (expected[i] == got[i])
            continue;
        if (++wrong <= 10)
            printf("  %s %lld: expected %d got %d\n", what, i, expected[i], got[i]);
    }
    if (wrong > 10)
        printf("  ... and %lld more\n", wrong - 10);
    return wrong;
}

/* The lanes of a mask as "0-15" or "1,3,5" ("none" for 0), in buf. */
static inline const char *lesson_lanes_text(unsigned mask, char *buf, size_t size)
{
    int lane = 0, used = 0;
    buf[0] = '\0';
    while (lane < 32 && (size_t)used < size) {
        int first = lane;
        if (!(mask >> lane & 1)) {
            lane++;
            continue;
        }
        while (lane < 32 && mask >> lane & 1)
            lane++;
        if (lane - 1 > first)
            used += snprintf(buf + used, size - (size_t)used, "%s%d-%d",
                             used ? "," : "", first, lane - 1);
        else
            used += snprintf(buf + used, size - (size_t)used, "%s%d",
                             used ? "," : "", first);
    }
    if (used == 0)
        snprintf(buf, size, "none");
    return buf;
}

/*
 * Prints the closing line, "result: ok (DETAIL)" or "result: WRONG (DETAIL)",
 * and returns the exit status that goes with it.
 */
static inline int lesson_result(int right, const char *fmt, ...)
{
    va_list ap;
    printf("result: %s (", right ? "ok" : "WRONG");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(")\n");
    return right ? LESSON_OK : LESSON_WRONG;
}

#endif /* LESSON_H */
