/*
 * lesson.h - the one header every lesson source includes.
 *
 * A lesson source (legacy.cu, sync.cu) builds two ways from the same text:
 *   - with nvcc, for a real GPU (the default);
 *   - with the system C++ compiler (g++ or clang++, C++17) against warpsim,
 *     the CPU emulator of warp execution, when WARPSIM is defined
 *     (warpsim/include/warpsim.h then supplies the CUDA names).
 * Lesson code is CUDA C++ that nvcc and warpsim both accept, plain and
 * C-style where that reads best; declare shared memory with a size known
 * at compile time.
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
 *                                         capability 7.0; from 7.0 on, where
 *                                         those are unavailable, the common
 *                                         (wrong) port with __activemask()
 *   PRE_VOLTA                             1 in device code built for
 *                                         __CUDA_ARCH__ < 700, else 0
 *   jitter_sleep(ns, sleeper)             an interleaving that independent
 *                                         thread scheduling allows: the lane
 *                                         sleeps with __nanosleep when sleeper
 *   lesson_print_path()                   "path: ..." - which code path the
 *                                         kernels were built for and run
 *   watchdog_expired(start, cycles)       bounds a spin-wait that may hang
 *   lesson_parse()                        the command line every program shares
 *   lesson_device_alloc(), lesson_host_alloc(), lesson_device_free(),
 *   lesson_host_free()                    allocations that fail with one clear line
 *   PROGRAM --cases FILE                  several runs in one process (below)
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

#if defined(LESSON_VERIFY)
/* build/verify: harness.cu compiled by the host C compiler, no CUDA. */
#elif defined(WARPSIM)
#include "warpsim.h"
#else
#include <cuda_runtime.h>
#endif

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static const char *lesson_argv0 = NULL;    /* as the program was run (lesson_parse) */

/* While one run of `--cases` is under way (see "Several runs in one
 * process" below), lesson_fail ends that run, not the process. */
static jmp_buf lesson_case_jump;
static int lesson_case_armed = 0;
static int lesson_case_status = 0;

/* Prints "PROG: MESSAGE" on stderr and exits with status (or ends the run
 * of --cases under way with it). */
static inline void lesson_fail(int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", lesson_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (lesson_case_armed) {
        lesson_case_armed = 0;
        lesson_case_status = status;
        longjmp(lesson_case_jump, 1);
    }
    exit(status);
}

#if !defined(LESSON_VERIFY)
/* No GPU and no driver are a skip (77); anything else is a real error. */
static inline void lesson_cuda_check(cudaError_t e, const char *what,
                                     const char *file, int line)
{
    if (e == cudaSuccess)
        return;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        /* build/X's twin for warpsim is build/emu/X (build/pascal/X's too) */
        char emu[4096] = "";
        const char *slash = lesson_argv0 ? strrchr(lesson_argv0, '/') : NULL;
        if (slash) {
            int dir = (int)(slash - lesson_argv0);
            if (dir >= 7 && strncmp(slash - 7, "/pascal", 7) == 0)
                dir -= 7;
            snprintf(emu, sizeof emu, "%.*s/emu%s", dir, lesson_argv0, slash);
        } else if (lesson_argv0) {
            snprintf(emu, sizeof emu, "emu/%s", lesson_argv0);
        }
        if (emu[0])
            lesson_fail(LESSON_SKIP, "no usable CUDA GPU here (%s): %s is this program for "
                        "warpsim, the CPU emulator ('make emu' builds it; 'make check EMU=1' "
                        "checks on it)", cudaGetErrorString(e), emu);
        lesson_fail(LESSON_SKIP, "no usable CUDA GPU here (%s); "
                    "run 'make check EMU=1' to use warpsim instead",
                    cudaGetErrorString(e));
    }
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
 * them. Below compute capability 7.0 these are the real ones. CUDA 9
 * deprecated them, and for compute capability 7.0 and newer they are not
 * available (CUDA C++ Programming Guide, warp shuffle and vote functions).
 * From 7.0 on the macros expand to the common port, for instance
 * __ballot_sync(__activemask(), p): a wrong port, not what the mask-less
 * forms did, as __activemask() names only the lanes that happen to be
 * converged at that moment. It is kept so that the lessons can show it
 * failing. Neither form is right on a GPU with independent thread
 * scheduling.
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
 * JIT-compiled by the driver and still runs the pre-Volta path: such code
 * opts into pre-Volta thread scheduling (never a promise of lockstep).
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

#endif /* !LESSON_VERIFY */

#if !defined(LESSON_VERIFY)
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
#else
static inline void lesson_print_path(void) { }
#endif

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
    const char *about;     /* one paragraph; {file} stands for file */
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

/*
 * Lessons with a harness.cu (see "The lesson harness" below) take two more
 * options, parsed here once lesson_harness_options is set:
 *   --sleepers PATTERN   which lanes sleep at the delay points
 *   --dump FILE          write the raw results to FILE for build/verify
 */
static int lesson_harness_options = 0;
static const char *lesson_sleepers = "odd";
static const char *lesson_dump_path = NULL;

static inline void lesson_usage(const lesson_program *p)
{
    int i;
    const char *about = p->about, *at;
    printf("usage: %s [options]\n\n", lesson_prog);
    while ((at = strstr(about, "{file}")) != NULL) {
        printf("%.*s%s", (int)(at - about), about, p->file);
        about = at + 6;
    }
    printf("%s\n\noptions:\n", about);
    for (i = 0; i < p->noptions; i++) {
        const lesson_option *o = &p->options[i];
        char flag[64];
        snprintf(flag, sizeof flag, "-%c, --%s %s", o->letter, o->name, o->arg);
        printf("  %-24s %s (%lld..%lld, default %lld)\n", flag, o->help,
               o->min, o->max, *o->value);
    }
    if (lesson_harness_options) {
        printf("  %-24s %s\n", "--sleepers PATTERN",
               "lanes that sleep -j NS before and after each warp primitive and");
        printf("  %-24s %s\n", "", "each read of threadIdx: odd, even, upper, lower, leader");
        printf("  %-24s %s\n", "", "(lane 0) or random (a seeded choice per warp, -s); default odd");
        printf("  %-24s %s\n", "--dump FILE", "write the results to FILE instead of judging them (build/verify does)");
    }
#if defined(LESSON_HARNESS) || defined(LESSON_CASES)
    printf("  %-24s %s\n", "--cases FILE", "make the runs listed in FILE in this one process, each framed");
    printf("  %-24s %s\n", "", "by lines of its own (the checker writes FILE: include/lesson.h)");
#endif
    printf("  %-24s %s\n", "--path", "print which code path the kernels run (pre-Volta or not) and exit");
    printf("  %-24s %s\n", "-h, --help", "show this help and exit");
    printf("\nnumbers take a K, M or G suffix for 2^10, 2^20, 2^30 (-n 16M).\n");
    printf("\nvariants (-k NUMBER, or -k NAME: the word before the colon):\n");
    for (i = 0; i < p->nvariants; i++)
        printf("  %d  %s\n", i + 1, p->variants[i]);
    printf("\nexit status: 0 matches the CPU, 1 wrong result, 2 bad usage,\n"
           "3 hang caught by the watchdog, 77 no usable GPU.\n");
}

static inline int lesson_sleepers_lanes(const char *name, unsigned *lanes, int *random);

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
    lesson_argv0 = argv[0];
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
        if (lesson_harness_options &&
            (strcmp(flag, "--sleepers") == 0 || strcmp(flag, "--dump") == 0)) {
            if (!val) {
                if (i + 1 >= argc)
                    lesson_fail(LESSON_USAGE, "%s needs a value (try --help)", flag);
                val = argv[++i];
            }
            if (strcmp(flag, "--dump") == 0)
                lesson_dump_path = val;
            else
                lesson_sleepers = val;
            continue;
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
    if (lesson_harness_options) {
        unsigned lanes;
        int random;
        if (lesson_sleepers_lanes(lesson_sleepers, &lanes, &random) != 0)
            lesson_fail(LESSON_USAGE, "--sleepers: no pattern named '%s' "
                        "(odd, even, upper, lower, leader, random)", lesson_sleepers);
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

/*
 * What a run of --cases allocated through the functions below, freed when
 * the run ends however it ends (lesson_case_release), so that a process
 * running hundreds of them holds no more than one run's memory. Outside
 * --cases nothing is recorded: the process's end frees everything.
 */
typedef struct {
    void **p;
    size_t n, cap;
} lesson_owned;
static lesson_owned lesson_owned_host;
#if !defined(LESSON_VERIFY)
static lesson_owned lesson_owned_device;
#endif
static int lesson_cases_active = 0;

static inline void lesson_own(lesson_owned *o, void *p)
{
    if (!lesson_cases_active || !p)
        return;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        void **grown = (void **)realloc(o->p, cap * sizeof *grown);
        if (!grown)
            return;             /* freed at the process's end instead */
        o->p = grown;
        o->cap = cap;
    }
    o->p[o->n++] = p;
}

/* Forgets p (a pointer freed by its owner); whether it was recorded. */
static inline int lesson_disown(lesson_owned *o, void *p)
{
    size_t i;
    for (i = 0; i < o->n; i++)
        if (o->p[i] == p) {
            o->p[i] = o->p[--o->n];
            return 1;
        }
    return 0;
}

#if !defined(LESSON_VERIFY)
/*
 * Allocates device memory or exits: 2 when the GPU lacks the memory. The
 * bytes are poisoned (0xab): nothing promises that new device memory is
 * zero, and a value no kernel wrote must never look right, in a fresh
 * process or after other runs of --cases.
 */
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
    lesson_own(&lesson_owned_device, p);
    lesson_cuda_check(cudaMemset(p, 0xab, bytes), "cudaMemset", __FILE__, __LINE__);
    return p;
}

/* Frees what lesson_device_alloc gave. */
static inline void lesson_device_free(void *p)
{
    lesson_disown(&lesson_owned_device, p);
    lesson_cuda_check(cudaFree(p), "cudaFree", __FILE__, __LINE__);
}
#endif

/* Allocates host memory or exits 2 with the size that failed. */
static inline void *lesson_host_alloc(size_t bytes, const char *what)
{
    char buf[32];
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        lesson_fail(LESSON_USAGE, "%s needs %s of host memory, which is not "
                    "available; choose a smaller -n", what,
                    lesson_bytes((double)bytes, buf, sizeof buf));
    lesson_own(&lesson_owned_host, p);
    return p;
}

/* Frees what lesson_host_alloc gave. */
static inline void lesson_host_free(void *p)
{
    lesson_disown(&lesson_owned_host, p);
    free(p);
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

/* a[lo..hi) of lesson_random_ints: element i is the (i+1)-th number of the
 * stream, whose state is seed + (i + 1) * splitmix64's increment. */
static inline void lesson_random_range(int *a, long long lo, long long hi,
                                       long long seed, int max)
{
    uint64_t s = (uint64_t)seed + (uint64_t)lo * 0x9e3779b97f4a7c15ULL;
    long long i;
    for (i = lo; i < hi; i++) {
        uint64_t r = lesson_next_random(&s);
        int v = 1 + (int)((r >> 1) % (uint64_t)max);
        a[i] = (r & 1) ? v : -v;
    }
}

#if !defined(WARPSIM)
#include <pthread.h>
typedef struct lesson_fill {
    int *a;
    long long lo, hi, seed;
    int max;
} lesson_fill;

static inline void *lesson_fill_part(void *arg)
{
    lesson_fill *f = (lesson_fill *)arg;
    lesson_random_range(f->a, f->lo, f->hi, f->seed, f->max);
    return NULL;
}
#endif

/* Fills a[0..n) with values in -max..-1 and 1..max: never zero, so a lost
 * element always changes a sum. The same numbers for the same seed on every
 * machine, however they are made: a large input is made by up to 16 threads
 * of the host, each its own part of the stream (a 2^28-int input takes a
 * second on one core). Under warpsim, whose host code shares its state, and
 * wherever a thread cannot start, by this thread alone. SIGALRM (the
 * per-run alarm of --cases) waits until every part is made. */
static inline void lesson_random_ints(int *a, long long n, long long seed, int max)
{
#if !defined(WARPSIM)
    enum { MAX_PARTS = 16 };
    lesson_fill part[MAX_PARTS];
    pthread_t tid[MAX_PARTS];
    int started[MAX_PARTS] = { 0 };
    sigset_t alarm_only, before;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int parts = cpus < 1 ? 1 : cpus > MAX_PARTS ? MAX_PARTS : (int)cpus, k;
    if (n >= (1LL << 22) && parts > 1) {
        sigemptyset(&alarm_only);
        sigaddset(&alarm_only, SIGALRM);
        pthread_sigmask(SIG_BLOCK, &alarm_only, &before);
        for (k = 0; k < parts; k++) {
            part[k].a = a;
            part[k].lo = n / parts * k;
            part[k].hi = k == parts - 1 ? n : n / parts * (k + 1);
            part[k].seed = seed;
            part[k].max = max;
            if (k > 0)
                started[k] = pthread_create(&tid[k], NULL, lesson_fill_part, &part[k]) == 0;
        }
        for (k = 0; k < parts; k++)
            if (!started[k])
                lesson_fill_part(&part[k]);
        for (k = 1; k < parts; k++)
            if (started[k])
                pthread_join(tid[k], NULL);
        pthread_sigmask(SIG_SETMASK, &before, NULL);
        return;
    }
#endif
    lesson_random_range(a, 0, n, seed, max);
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


/* ------------------------------------------------------------------ */
/* The lesson harness                                                   */
/* ------------------------------------------------------------------ */

/*
 * A lesson folder with a harness.cu builds each program from two
 * translation units (mk/lesson.mk): harness.cu, the host side a student
 * never edits (command line, input, CPU reference, launch, verdict), built
 * once per build folder with LESSON_HARNESS defined; and the lesson file
 * (legacy.cu, sync.cu, a student's mine.cu), device code only, built with
 * LESSON_UNIT and LESSON_SRC_NAME (its file name, a string) defined: the
 * harness reads that name as lesson_src_name. build/verify is harness.cu
 * again, built by the host C compiler with LESSON_VERIFY defined: it runs
 * a program with --dump, and judges what the program wrote
 * (lesson_verify_start below).
 *
 * Delays that do not depend on the file: in a lesson unit every warp
 * primitive (__shfl*_sync, __ballot_sync, __any/__all/__uni_sync,
 * __activemask, __syncwarp, __match_*_sync, __reduce_*_sync, the LEGACY_*
 * mask-less forms) and every read of threadIdx (so LANE() too) is a delay
 * point: the lanes of the --sleepers pattern sleep -j NS nanoseconds just
 * before and just after it (on the GPU with __nanosleep, a busy-wait on
 * %globaltimer below compute capability 7.0; on warpsim in virtual time).
 * The harness passes the setting to the lesson unit with
 * lesson_delay_set(), which lesson.h defines in the lesson unit: a
 * __device__ variable is not shared between translation units without -rdc.
 */

/* The lanes of a --sleepers pattern; *random is set for "random", whose
 * lanes are drawn per warp from the seed. Returns -1 for an unknown name. */
static inline int lesson_sleepers_lanes(const char *name, unsigned *lanes, int *random)
{
    *random = 0;
    if (strcmp(name, "odd") == 0) *lanes = 0xaaaaaaaau;
    else if (strcmp(name, "even") == 0) *lanes = 0x55555555u;
    else if (strcmp(name, "upper") == 0) *lanes = 0xffff0000u;
    else if (strcmp(name, "lower") == 0) *lanes = 0x0000ffffu;
    else if (strcmp(name, "leader") == 0) *lanes = 0x00000001u;
    else if (strcmp(name, "random") == 0) { *lanes = 0; *random = 1; }
    else return -1;
    return 0;
}

#if defined(LESSON_UNIT) && !defined(LESSON_VERIFY)

/* The lesson file's name, for the harness (extern: C++ would keep a const
 * of namespace scope to this translation unit). */
#ifndef LESSON_SRC_NAME
#define LESSON_SRC_NAME "lesson.cu"
#endif
extern const char lesson_src_name[];
const char lesson_src_name[] = LESSON_SRC_NAME;

#if defined(WARPSIM)
static unsigned lesson_delay_ns_d;
static unsigned lesson_delay_lanes_d;
static int lesson_delay_random_d;
static unsigned long long lesson_delay_seed_d;
#define LESSON_TID_X (ws_self->thread_idx.x)
#define LESSON_BID_X (ws_self->block_idx.x)
#define LESSON_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
/* In constant memory, which a kernel reads and never writes: no store of
 * the lesson file, out of bounds of its own arrays, can turn the delays off. */
static __constant__ unsigned lesson_delay_ns_d;
static __constant__ unsigned lesson_delay_lanes_d;
static __constant__ int lesson_delay_random_d;
static __constant__ unsigned long long lesson_delay_seed_d;
#define LESSON_TID_X (threadIdx.x)
#define LESSON_BID_X (blockIdx.x)
#define LESSON_ALWAYS_INLINE static __device__ __forceinline__
#endif

/* Called by the harness before each launch (host code, this unit only). */
void lesson_delay_set(unsigned ns, unsigned lanes, int random, unsigned long long seed);
void lesson_delay_set(unsigned ns, unsigned lanes, int random, unsigned long long seed)
{
#if defined(WARPSIM)
    lesson_delay_ns_d = ns;
    lesson_delay_lanes_d = lanes;
    lesson_delay_random_d = random;
    lesson_delay_seed_d = seed;
#else
    CUDA_CHECK(cudaMemcpyToSymbol(lesson_delay_ns_d, &ns, sizeof ns));
    CUDA_CHECK(cudaMemcpyToSymbol(lesson_delay_lanes_d, &lanes, sizeof lanes));
    CUDA_CHECK(cudaMemcpyToSymbol(lesson_delay_random_d, &random, sizeof random));
    CUDA_CHECK(cudaMemcpyToSymbol(lesson_delay_seed_d, &seed, sizeof seed));
#endif
}

/* Whether the calling lane is one of the sleepers. */
LESSON_ALWAYS_INLINE int lesson_delay_sleeper(void)
{
    unsigned lane = LESSON_TID_X % 32u, lanes = lesson_delay_lanes_d;
    if (lesson_delay_random_d) {
        /* splitmix64 of (seed, warp of the grid): the same warps sleep in
         * every run with the same seed. */
        unsigned long long z = lesson_delay_seed_d + 0x9e3779b97f4a7c15ULL *
            (1ULL + (unsigned long long)LESSON_BID_X * 1024ULL + LESSON_TID_X / 32u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        lanes = (unsigned)(z ^ (z >> 31));
    }
    return (int)(lanes >> lane & 1u);
}

/*
 * A delay point: the sleepers sleep lesson_delay_ns_d nanoseconds. On
 * warpsim every lane calls __nanosleep (the others for 0 ns), so that the
 * lanes do not diverge there: the lockstep model orders lanes by where they
 * are in the code, and a lane left behind in a branch at the end of a loop
 * body would run after those already in the next iteration.
 */
LESSON_ALWAYS_INLINE void lesson_delay_point(void)
{
#if defined(WARPSIM)
    if (lesson_delay_ns_d != 0)
        __nanosleep(lesson_delay_sleeper() ? lesson_delay_ns_d : 0);
#else
    if (lesson_delay_ns_d != 0 && lesson_delay_sleeper())
        jitter_sleep(lesson_delay_ns_d, 1);
#endif
}

#if defined(WARPSIM)
/* warpsim.h declares the primitives as CUDA does, as functions (the
 * __reduce_*_sync also as macros of their own names, __activemask and
 * __syncwarp also as macros that call the library); each becomes a macro
 * of its own name here, between two delay points. Inside a macro's own
 * expansion its name is not expanded again, so each calls the function.
 * (A statement expression rather than nvcc's template below: its value
 * needs no function of its own, which the lockstep model would see as a
 * call.) */
#define LESSON_DELAYED(call) \
    ({ lesson_delay_point(); __typeof__(call) lesson_r_ = (call); lesson_delay_point(); lesson_r_; })
#define LESSON_DELAYED_VOID(call) \
    ({ lesson_delay_point(); call; lesson_delay_point(); })
#undef threadIdx
#define threadIdx (*(lesson_delay_point(), (const uint3 *)&ws_self->thread_idx))
#undef __activemask
#undef __syncwarp
#define __activemask() LESSON_DELAYED(__activemask())
#define __syncwarp(...) LESSON_DELAYED_VOID(__syncwarp(__VA_ARGS__))
#define __shfl_sync(...) LESSON_DELAYED(__shfl_sync(__VA_ARGS__))
#define __shfl_up_sync(...) LESSON_DELAYED(__shfl_up_sync(__VA_ARGS__))
#define __shfl_down_sync(...) LESSON_DELAYED(__shfl_down_sync(__VA_ARGS__))
#define __shfl_xor_sync(...) LESSON_DELAYED(__shfl_xor_sync(__VA_ARGS__))
#define __ballot_sync(...) LESSON_DELAYED(__ballot_sync(__VA_ARGS__))
#define __any_sync(...) LESSON_DELAYED(__any_sync(__VA_ARGS__))
#define __all_sync(...) LESSON_DELAYED(__all_sync(__VA_ARGS__))
#define __uni_sync(...) LESSON_DELAYED(__uni_sync(__VA_ARGS__))
#define __match_any_sync(...) LESSON_DELAYED(__match_any_sync(__VA_ARGS__))
#define __match_all_sync(...) LESSON_DELAYED(__match_all_sync(__VA_ARGS__))
#undef __reduce_add_sync
#undef __reduce_min_sync
#undef __reduce_max_sync
#undef __reduce_and_sync
#undef __reduce_or_sync
#undef __reduce_xor_sync
#define __reduce_add_sync(...) LESSON_DELAYED(__reduce_add_sync(__VA_ARGS__))
#define __reduce_min_sync(...) LESSON_DELAYED(__reduce_min_sync(__VA_ARGS__))
#define __reduce_max_sync(...) LESSON_DELAYED(__reduce_max_sync(__VA_ARGS__))
#define __reduce_and_sync(...) LESSON_DELAYED(__reduce_and_sync(__VA_ARGS__))
#define __reduce_or_sync(...) LESSON_DELAYED(__reduce_or_sync(__VA_ARGS__))
#define __reduce_xor_sync(...) LESSON_DELAYED(__reduce_xor_sync(__VA_ARGS__))
#else /* nvcc */
/*
 * CUDA headers that declare overloads of these names (__half2 shuffles,
 * Cooperative Groups) must be read before the names become macros: they
 * are included here, unless the build says the file names none of them
 * (-DLESSON_LIGHT, which the lesson Makefiles pass then: these headers are
 * most of a build's time). A lesson file that includes any other CUDA
 * header that uses them (CUB, ...) must include it before lesson.h.
 */
#ifndef LESSON_LIGHT
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
#include <cooperative_groups/scan.h>
#endif
#endif
/* The primitive's value, after a delay point: the argument, the call, is
 * evaluated before the body runs. */
template <typename T>
static __device__ __forceinline__ T lesson_delay_after(T v)
{
    lesson_delay_point();
    return v;
}
/* Inside a macro's own expansion its name is not expanded again, so each
 * of these calls the CUDA function of the same name. */
#define LESSON_DELAYED(call) (lesson_delay_point(), lesson_delay_after(call))
#define threadIdx (lesson_delay_point(), threadIdx)
#define __activemask() LESSON_DELAYED(__activemask())
#define __syncwarp(...) (lesson_delay_point(), __syncwarp(__VA_ARGS__), lesson_delay_point())
#define __shfl_sync(...) LESSON_DELAYED(__shfl_sync(__VA_ARGS__))
#define __shfl_up_sync(...) LESSON_DELAYED(__shfl_up_sync(__VA_ARGS__))
#define __shfl_down_sync(...) LESSON_DELAYED(__shfl_down_sync(__VA_ARGS__))
#define __shfl_xor_sync(...) LESSON_DELAYED(__shfl_xor_sync(__VA_ARGS__))
#define __ballot_sync(...) LESSON_DELAYED(__ballot_sync(__VA_ARGS__))
#define __any_sync(...) LESSON_DELAYED(__any_sync(__VA_ARGS__))
#define __all_sync(...) LESSON_DELAYED(__all_sync(__VA_ARGS__))
#define __uni_sync(...) LESSON_DELAYED(__uni_sync(__VA_ARGS__))
#define __match_any_sync(...) LESSON_DELAYED(__match_any_sync(__VA_ARGS__))
#define __match_all_sync(...) LESSON_DELAYED(__match_all_sync(__VA_ARGS__))
#define __reduce_add_sync(...) LESSON_DELAYED(__reduce_add_sync(__VA_ARGS__))
#define __reduce_min_sync(...) LESSON_DELAYED(__reduce_min_sync(__VA_ARGS__))
#define __reduce_max_sync(...) LESSON_DELAYED(__reduce_max_sync(__VA_ARGS__))
#define __reduce_and_sync(...) LESSON_DELAYED(__reduce_and_sync(__VA_ARGS__))
#define __reduce_or_sync(...) LESSON_DELAYED(__reduce_or_sync(__VA_ARGS__))
#define __reduce_xor_sync(...) LESSON_DELAYED(__reduce_xor_sync(__VA_ARGS__))
#if PRE_VOLTA
/* The real mask-less primitives below 7.0 are delay points too (from 7.0
 * on LEGACY_* expand to the __activemask() port, delayed above). */
#undef LEGACY_SHFL
#undef LEGACY_SHFL_DOWN
#undef LEGACY_BALLOT
#undef LEGACY_ANY
#undef LEGACY_ALL
#define LEGACY_SHFL(v, src)      LESSON_DELAYED(__shfl((v), (src)))
#define LEGACY_SHFL_DOWN(v, d)   LESSON_DELAYED(__shfl_down((v), (d)))
#define LEGACY_BALLOT(p)         LESSON_DELAYED(__ballot(p))
#define LEGACY_ANY(p)            LESSON_DELAYED(__any(p))
#define LEGACY_ALL(p)            LESSON_DELAYED(__all(p))
#endif
#endif /* nvcc */

#endif /* LESSON_UNIT */

#if defined(LESSON_HARNESS) && !defined(LESSON_VERIFY)
/* Defined in the lesson unit by this header (see above). */
void lesson_delay_set(unsigned ns, unsigned lanes, int random, unsigned long long seed);
extern const char lesson_src_name[];

/* Hands -j NS and --sleepers to the lesson unit; seed draws "random". */
static inline void lesson_delay_from_options(long long ns, long long seed)
{
    unsigned lanes = 0;
    int random = 0;
    lesson_sleepers_lanes(lesson_sleepers, &lanes, &random);   /* checked by lesson_parse */
    lesson_delay_set((unsigned)ns, lanes, random, (unsigned long long)seed);
}

/*
 * Tells which kernel runs next, on a line of its own written at once: if
 * it never ends, the checker that stops the program names it.
 */
static inline void lesson_launching(const char *kernel, long long blocks, long long threads)
{
    printf("launch: %s<<<%lld, %lld>>>\n", kernel, blocks, threads);
    fflush(stdout);
}
#endif /* LESSON_HARNESS */

#if (defined(LESSON_HARNESS) || defined(LESSON_CASES)) && !defined(LESSON_VERIFY)
/* ------------------------------------------------------------------ */
/* Several runs in one process                                          */
/* ------------------------------------------------------------------ */

/*
 * Starting a process on a GPU costs about a quarter of a second (its CUDA
 * context), more than most of a checker's runs take. `PROGRAM --cases FILE`
 * makes several runs in one process, one after another, each exactly as
 * `PROGRAM ARGS` would. A program built with a harness.cu has it (the
 * harness's own main is lesson_main; lesson.h supplies main), and so does
 * any program that defines LESSON_CASES before including lesson.h and
 * names its main lesson_main. FILE is written by the checker
 * (scripts/checklib.sh):
 *
 *   lesson-cases 1 TAG
 *   SECONDS<TAB>ARG<TAB>ARG...        one line per run
 *
 * Each run's output is framed by lines of its own, "@@TAG case K" before
 * and "@@TAG status K STATUS" after (K counts from 1; TAG, chosen by the
 * checker, is what a lesson file's printf cannot guess). A run still going
 * after SECONDS ends the process: "@@TAG timeout K SECONDS", exit 124 (the
 * marker may follow a line the run left unfinished). A run ends at its
 * return or at lesson_fail; what it allocated through lesson_*_alloc is
 * freed, and when the GPU is left unusable (a kernel that faulted) the
 * process stops after "@@TAG status": the checker runs the rest apart.
 * Outputs are poisoned when allocated (lesson_device_alloc) and inputs
 * copied anew, so a run sees nothing of the one before it but what a
 * kernel left in __device__ variables.
 */
static char lesson_case_alarm_text[160];

/* SIGALRM during a run: the marker, then the end (a kernel that never ends
 * cannot be stopped otherwise). */
static void lesson_case_alarm(int sig)
{
    ssize_t unused = write(1, lesson_case_alarm_text, strlen(lesson_case_alarm_text));
    (void)unused;
    (void)sig;
    _exit(124);
}

/* Frees what the run allocated; returns 0 when the GPU is still usable
 * (an error of the run's own is forgotten; a fault stays, and says so). */
static int lesson_case_release(void)
{
    size_t i;
    (void)cudaGetLastError();
    for (i = 0; i < lesson_owned_device.n; i++)
        (void)cudaFree(lesson_owned_device.p[i]);
    for (i = 0; i < lesson_owned_host.n; i++)
        free(lesson_owned_host.p[i]);
    lesson_owned_device.n = lesson_owned_host.n = 0;
    (void)cudaGetLastError();
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

int lesson_main(int argc, char **argv);

/* One run of --cases: lesson_main's status, or lesson_fail's. */
static int lesson_case_run(int argc, char **argv)
{
    int rc;
    if (setjmp(lesson_case_jump) != 0)
        return lesson_case_status;
    lesson_case_armed = 1;
    rc = lesson_main(argc, argv);
    lesson_case_armed = 0;
    return rc;
}

/* Runs the cases of FILE (see above); returns the exit status of the
 * process: 0 all were run, 2 a malformed FILE, else the status of a run
 * after which the GPU was unusable. */
static int lesson_run_cases(char *self, const char *path)
{
    FILE *f = fopen(path, "r");
    char tag[64], *line = NULL, *args[256];
    size_t cap = 0;
    long k = 0;
    int rc = 0;
    if (!f)
        lesson_fail(LESSON_USAGE, "--cases: cannot read %s: %s", path, strerror(errno));
    if (fscanf(f, "lesson-cases 1 %63s", tag) != 1 || fgetc(f) != '\n')
        lesson_fail(LESSON_USAGE, "--cases: %s is not a list of runs (lesson-cases 1)", path);
    signal(SIGALRM, lesson_case_alarm);
    lesson_cases_active = 1;
    while (getline(&line, &cap, f) > 0) {
        char *field, *rest = line;
        int argc = 0, i;
        long seconds;
        k++;
        line[strcspn(line, "\n")] = '\0';
        args[argc++] = self;
        field = strsep(&rest, "\t");
        seconds = strtol(field, NULL, 10);
        while ((field = strsep(&rest, "\t")) != NULL && argc < 255)
            if (*field != '\0')
                args[argc++] = field;
        args[argc] = NULL;
        for (i = 1; i < argc; i++)
            if (strncmp(args[i], "--cases", 7) == 0 || strcmp(args[i], "--path") == 0 ||
                strcmp(args[i], "--help") == 0 || strcmp(args[i], "-h") == 0)
                lesson_fail(LESSON_USAGE, "--cases: %s is not for a run of %s", args[i], path);
        if (seconds <= 0 || rest != NULL)
            lesson_fail(LESSON_USAGE, "--cases: line %ld of %s is not SECONDS<TAB>ARGS", k + 1, path);
        snprintf(lesson_case_alarm_text, sizeof lesson_case_alarm_text,
                 "@@%s timeout %ld %ld\n", tag, k, seconds);
        printf("@@%s case %ld\n", tag, k);
        fflush(stdout);
        lesson_sleepers = "odd";
        lesson_dump_path = NULL;
        lesson_harness_options = 0;
        alarm((unsigned)seconds);
        rc = lesson_case_run(argc, args);
        fflush(stdout);
        if (lesson_case_release() != 0) {
            alarm(0);
            printf("%s: the GPU is unusable after this run (%s): the rest run apart\n",
                   lesson_prog, cudaGetErrorString(cudaDeviceSynchronize()));
            printf("@@%s status %ld %d\n", tag, k, rc ? rc : LESSON_WRONG);
            return rc ? rc : LESSON_WRONG;
        }
        alarm(0);
        printf("@@%s status %ld %d\n", tag, k, rc);
        fflush(stdout);
    }
    free(line);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--cases") == 0) {
        if (argc != 3)
            lesson_fail(LESSON_USAGE, "--cases takes one file (try --help)");
        return lesson_run_cases(argv[0], argv[2]);
    }
    return lesson_main(argc, argv);
}
#endif /* LESSON_HARNESS || LESSON_CASES */

/*
 * The results file of --dump: "lesson-dump 1\n", then for each array a
 * line "NAME COUNT\n" and COUNT ints in the machine's byte order.
 */
#if !defined(LESSON_VERIFY)
/* Opens the --dump file, or exits 2 saying why. */
static inline FILE *lesson_dump_open(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        lesson_fail(LESSON_USAGE, "--dump: cannot write %s: %s", path, strerror(errno));
    fputs("lesson-dump 1\n", f);
    return f;
}

static inline void lesson_dump_ints(FILE *f, const char *name, const int *a, long long count)
{
    fprintf(f, "%s %lld\n", name, count);
    if (count > 0 && fwrite(a, sizeof(int), (size_t)count, f) != (size_t)count)
        lesson_fail(LESSON_WRONG, "--dump: write failed: %s", strerror(errno));
}

static inline void lesson_dump_close(FILE *f)
{
    if (fclose(f) != 0)
        lesson_fail(LESSON_WRONG, "--dump: write failed: %s", strerror(errno));
}
#else /* LESSON_VERIFY */

/* build/verify judges any lesson file's program. */
static const char lesson_src_name[] = "the lesson file";

#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>

/* Reads the array NAME of count ints from a --dump file; -1 (and a line
 * saying why) when it is not there as expected. */
static inline int lesson_dump_read_ints(FILE *f, const char *name, int *a, long long count)
{
    char got[64];
    long long n = -1;
    if (fscanf(f, "%63s %lld", got, &n) != 2 || fgetc(f) != '\n') {
        printf("verify: the results hold no %s\n", name);
        return -1;
    }
    if (strcmp(got, name) != 0 || n != count) {
        printf("verify: the results hold %s %lld where %s %lld was expected\n",
               got, n, name, count);
        return -1;
    }
    if (count > 0 && fread(a, sizeof(int), (size_t)count, f) != (size_t)count) {
        printf("verify: the results end before the %lld values of %s\n", count, name);
        return -1;
    }
    return 0;
}

static pid_t lesson_verify_child = 0;
static int lesson_verify_group = 0;     /* --timeout: the program leads a process group */
static volatile sig_atomic_t lesson_verify_expired = 0;

/* Passes a signal on to the program (its whole process group under
 * --timeout), then takes it. */
static void lesson_verify_forward(int sig)
{
    if (lesson_verify_child > 0)
        kill(lesson_verify_group ? -lesson_verify_child : lesson_verify_child, sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* --timeout's alarm, as timeout(1) -k 5 would: SIGTERM to the program's
 * process group when its time is up, SIGKILL 5 s later; when the program
 * has ended already, the judging that follows has used up the time. */
static void lesson_verify_alarm(int sig)
{
    (void)sig;
    if (lesson_verify_child <= 0)
        _exit(124);
    kill(-lesson_verify_child, lesson_verify_expired ? SIGKILL : SIGTERM);
    lesson_verify_expired = 1;
    alarm(5);
}

/* How much of a program's output verify shows (the checker keeps it). */
#ifndef LESSON_VERIFY_SHOWN
#define LESSON_VERIFY_SHOWN (4 << 20)
#endif

static void lesson_verify_usage(const char *self)
{
    printf("usage: %s [--timeout SECONDS] [--model M [--seed S] [--order O] [--error-exitcode N]]\n"
           "       %*s [--wrap WORD]... PROGRAM [ARGS...]\n"
           "       %s --judge OUTPUT STATUS RESULTS PROGRAM [ARGS...]\n\n"
           "Runs PROGRAM ARGS --dump /dev/fd/N (a lesson program: legacy, sync, a\n"
           "student's file), shows what it prints, and judges the results it\n"
           "wrote to the file this program opened for it (made in $TMPDIR, default\n"
           "/tmp, and removed at once: no name the program could rewrite) against\n"
           "the CPU reference computed here from the same ARGS. The verdict is the\n"
           "one `result:` line this program prints; a `result:` or `verify:` line\n"
           "that PROGRAM prints is shown as its own words only. What it prints is\n"
           "shown up to %d MiB, then one line says the rest is not.\n"
           "warpsim's settings are this program's, never the environment's: every\n"
           "WARPSIM_* variable inherited is dropped, and for a program built for\n"
           "warpsim (--model, or the program carries warpsim's summary channel)\n"
           "--model M (lockstep, its, random; default its), --seed S (default 1),\n"
           "--order O and --error-exitcode N are set. warpsim then writes its\n"
           "summary to a pipe this program opened (WARPSIM_SUMMARY_FD), which is\n"
           "checked (one line, the model, seed and order set here, the exit\n"
           "status) and shown as `verify: warpsim summary: ...`; a run that ends\n"
           "without it fails, saying so.\n"
           "--wrap WORD puts WORD before PROGRAM (repeat it for a command such as\n"
           "compute-sanitizer --tool racecheck).\n"
           "--timeout SECONDS stops the program (its process group: SIGTERM, then\n"
           "SIGKILL 5 s later) and this judging when SECONDS have passed, and\n"
           "exits 124, as timeout -k 5 SECONDS would (the checker runs it so).\n"
           "--judge judges a run made already (one of PROGRAM --cases): OUTPUT\n"
           "holds what it printed, STATUS is its exit status and RESULTS the\n"
           "file it wrote; the verdict is the one a run of PROGRAM ARGS gets.\n\n"
           "exit status: 0 right, 1 wrong (or no results written, or no warpsim\n"
           "summary), 2 bad usage; otherwise PROGRAM's own non-zero status (3 hang,\n"
           "99 warpsim or the sanitizer reported something, 128+N killed by\n"
           "signal N); 124 its time was up (--timeout).\n",
           self, (int)strlen(self), "", self, LESSON_VERIFY_SHOWN >> 20);
}

/* Shows what a program printed, line by line: its words, never a verdict;
 * LESSON_VERIFY_SHOWN bytes of it, then one line, and the rest is read and
 * dropped (a program that prints without end is stopped by --timeout). */
static void lesson_verify_relay(FILE *in, const char *name)
{
    char line[4096];
    size_t shown = 0;
    int cut = 0;
    while (fgets(line, sizeof line, in)) {
        size_t n = strlen(line);
        if (cut)
            continue;
        if (shown + n > LESSON_VERIFY_SHOWN) {
            printf("verify: %s printed more than %d MiB: the rest of its output is not shown\n",
                   name, LESSON_VERIFY_SHOWN >> 20);
            fflush(stdout);
            cut = 1;
            continue;
        }
        shown += n;
        if (strncmp(line, "result:", 7) == 0 || strncmp(line, "verify:", 7) == 0)
            printf("%s printed (not the verdict): %s", name, line);
        else
            fputs(line, stdout);
        if (!strchr(line, '\n'))
            putchar('\n');
        fflush(stdout);
    }
}

/*
 * After the program ended with exit status code: exits with that status
 * when it is neither 0 nor 99, or 1 when it wrote no results to the file
 * dump (open, at its start); else returns the results file, open, with
 * the program's arguments in *args_argc and *args_argv and code in
 * *status.
 */
static FILE *lesson_verify_results(FILE *dump, const char *name, int code,
                                   int argc, char **argv, int first,
                                   int *args_argc, char ***args_argv, int *status)
{
    char line[64];
    *status = code;
    if (code != 0 && code != 99)
        exit(code);
    if (!dump || fgets(line, sizeof line, dump) == NULL ||
        strcmp(line, "lesson-dump 1\n") != 0) {
        printf("verify: %s exited %d without writing its results (--dump): "
               "nothing it computed can be checked\n", name, code);
        printf("result: WRONG (no results written)\n");
        exit(code ? code : LESSON_WRONG);
    }
    *args_argc = argc - first;
    *args_argv = argv + first;
    return dump;
}

/* What verify sets for a program built for warpsim. */
typedef struct {
    const char *model, *seed, *order, *error_exitcode;
    int warpsim;        /* 1: a warpsim program; 2: one with the summary channel */
} lesson_ws_settings;

/* Whether the file path holds text (a string compiled into libwarpsim):
 * a program built with a warpsim that writes the summary line. */
static inline int lesson_file_holds(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    size_t n = strlen(text), have = 0, got, i;
    char buf[65536 + 64];
    int found = 0;
    if (!f)
        return 0;
    while (!found && (got = fread(buf + have, 1, sizeof buf - 64 - have, f)) > 0) {
        have += got;
        for (i = 0; i + n <= have; i++)
            if (buf[i] == text[0] && memcmp(buf + i, text, n) == 0) {
                found = 1;
                break;
            }
        if (have >= n) {                 /* keep a tail that a match may span */
            memmove(buf, buf + have - (n - 1), n - 1);
            have = n - 1;
        }
    }
    fclose(f);
    return found;
}

/* The path of the program named cmd (as execvp would find it), in buf. */
static inline const char *lesson_verify_which(const char *cmd, char *buf, size_t size)
{
    const char *p = getenv("PATH"), *e;
    if (strchr(cmd, '/'))
        return cmd;
    for (; p && *p; p = *e ? e + 1 : e) {
        e = strchr(p, ':');
        if (!e)
            e = p + strlen(p);
        if (snprintf(buf, size, "%.*s/%s", (int)(e - p), p, cmd) < (int)size && access(buf, X_OK) == 0)
            return buf;
    }
    return cmd;
}

/* Drops every WARPSIM_* variable of the environment (the checker's or a
 * student's: verify's settings are its own). Returns how many. */
static inline int lesson_verify_clear_warpsim(void)
{
    extern char **environ;
    char name[256];
    int dropped = 0, again = 1;
    while (again) {
        char **e;
        again = 0;
        for (e = environ; e && *e; e++)
            if (strncmp(*e, "WARPSIM_", 8) == 0) {
                size_t n = strcspn(*e, "=");
                if (n >= sizeof name)
                    n = sizeof name - 1;
                memcpy(name, *e, n);
                name[n] = '\0';
                unsetenv(name);
                dropped++;
                again = 1;
                break;
            }
    }
    return dropped;
}

/* The value of KEY= in a warpsim-summary line, in buf ("" when absent). */
static inline const char *lesson_summary_value(const char *line, const char *key, char *buf, size_t size)
{
    size_t k = strlen(key);
    const char *p = line;
    buf[0] = '\0';
    while ((p = strstr(p, key)) != NULL) {
        if ((p == line || p[-1] == ' ') && p[k] == '=') {
            size_t n = strcspn(p + k + 1, " \n");
            snprintf(buf, size, "%.*s", (int)n, p + k + 1);
            return buf;
        }
        p += k;
    }
    return buf;
}

/*
 * Reads what warpsim wrote to the summary pipe (fd, non-blocking, the
 * program ended) and checks it against what verify set: one line
 * `warpsim-summary v1 model=M seed=S order=O races=R hangs=H prim_errors=P
 * uninit=U mem_errors=E other=X launches=L status=C`. Prints `verify:
 * warpsim summary: ...` and returns code, made error_exitcode when the run
 * reported something and would have passed; or prints what is wrong with
 * it and exits 1. A run that failed already (not 0 nor 99) may end without
 * the line: its status is returned as it is.
 */
static inline int lesson_verify_summary(int fd, const char *name, int code, const lesson_ws_settings *ws)
{
    char text[4096], v[64], want[64];
    size_t have = 0;
    ssize_t got;
    const char *nl, *keys[] = { "races", "hangs", "prim_errors", "uninit", "mem_errors", "other" };
    unsigned long long count[6] = { 0 }, reported = 0;
    int i;
    while (have < sizeof text - 1 && (got = read(fd, text + have, sizeof text - 1 - have)) > 0)
        have += (size_t)got;
    text[have] = '\0';
    close(fd);
    nl = strchr(text, '\n');
    if (have == 0 && code != 0 && code != 99)
        return code;        /* a failure already (usage, hang, crash): nothing to trust */
    if (have == 0) {
        printf("verify: %s ended without warpsim's summary (exit status %d): the program "
               "ended before warpsim did, or something else ended it\n", name, code);
        printf("result: WRONG (no warpsim summary)\n");
        exit(code ? code : LESSON_WRONG);
    }
    if (strncmp(text, "warpsim-summary v1 ", 19) != 0 || !nl || nl[1] != '\0') {
        printf("verify: warpsim's summary channel held something else than one summary line: %.80s\n", text);
        printf("result: WRONG (no warpsim summary)\n");
        exit(LESSON_WRONG);
    }
    if (strcmp(lesson_summary_value(text, "model", v, sizeof v), ws->model) != 0 ||
        strcmp(lesson_summary_value(text, "seed", v, sizeof v), ws->seed) != 0 ||
        (ws->order && strcmp(lesson_summary_value(text, "order", v, sizeof v), ws->order) != 0)) {
        printf("verify: warpsim ran with other settings than verify set (model %s, seed %s%s%s): %.*s\n",
               ws->model, ws->seed, ws->order ? ", order " : "", ws->order ? ws->order : "",
               (int)(nl - text), text);
        printf("result: WRONG (warpsim's settings were changed)\n");
        exit(LESSON_WRONG);
    }
    lesson_summary_value(text, "status", v, sizeof v);
    snprintf(want, sizeof want, "%d", code);
    if (v[0] && strcmp(v, want) != 0) {
        printf("verify: %s exited %d, but warpsim ended it with status %s: something ran after warpsim\n",
               name, code, v);
        printf("result: WRONG (the exit status was changed)\n");
        exit(LESSON_WRONG);
    }
    for (i = 0; i < 6; i++) {
        count[i] = strtoull(lesson_summary_value(text, keys[i], v, sizeof v), NULL, 10);
        reported += count[i];
    }
    printf("verify: warpsim summary: %llu race%s, %llu hang%s, %llu warp-primitive error%s, "
           "%llu uninitialized read%s, %llu memory error%s, %llu other report%s (model %s, seed %s)\n",
           count[0], count[0] == 1 ? "" : "s", count[1], count[1] == 1 ? "" : "s",
           count[2], count[2] == 1 ? "" : "s", count[3], count[3] == 1 ? "" : "s",
           count[4], count[4] == 1 ? "" : "s", count[5], count[5] == 1 ? "" : "s",
           ws->model, ws->seed);
    fflush(stdout);
    if (code == 0 && reported > 0 && ws->error_exitcode)
        return atoi(ws->error_exitcode);
    return code;
}

/*
 * build/verify's first half: runs the program given on its command line
 * with --dump, relays its output, and returns the results file, open for
 * reading, with *args_argc and *args_argv set to the program's own arguments
 * (argv[0] the program), to parse with lesson_parse. Exits with the
 * program's status when that is not 0, and 1 when it wrote no results.
 * A status of 99 (a report from warpsim or the sanitizer) with results
 * written is returned in *status, so that the caller judges the results
 * and then exits 99. With --judge it runs nothing: the run was made already
 * (PROGRAM --cases), and its output, status and results are read instead.
 */
static inline FILE *lesson_verify_start(int argc, char **argv, int *args_argc,
                                        char ***args_argv, int *status)
{
    char **cmd, dump_arg[32], fd_text[16], found[4096];
    const char *judge = NULL;
    int first = 1, ncmd = 0, fds[2], sfd[2] = { -1, -1 }, rfd, i, wstatus;
    long seconds = 0;
    FILE *in, *dump;
    const char *name;
    lesson_ws_settings ws = { NULL, NULL, NULL, NULL, 0 };

    lesson_prog = "verify";
    *status = 0;
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        lesson_verify_usage(argv[0]);
        exit(argc < 2 ? LESSON_USAGE : LESSON_OK);
    }
    if (strcmp(argv[1], "--judge") == 0) {
        char *end;
        if (argc < 6)
            lesson_fail(LESSON_USAGE, "--judge needs OUTPUT STATUS RESULTS PROGRAM (try --help)");
        judge = argv[2];
        wstatus = (int)strtol(argv[3], &end, 10);
        if (*end != '\0' || end == argv[3] || wstatus < 0 || wstatus > 255)
            lesson_fail(LESSON_USAGE, "--judge: '%s' is not an exit status", argv[3]);
        first = 5;
        name = strrchr(argv[first], '/') ? strrchr(argv[first], '/') + 1 : argv[first];
        in = fopen(judge, "r");
        if (!in)
            lesson_fail(LESSON_USAGE, "--judge: cannot read %s: %s", judge, strerror(errno));
        lesson_verify_relay(in, name);
        fclose(in);
        dump = fopen(argv[4], "rb");
        unlink(argv[4]);        /* read once: the judge removes the results it read */
        return lesson_verify_results(dump, name, wstatus, argc, argv, first,
                                     args_argc, args_argv, status);
    }
    /* The options, in any order, before the program. */
    while (first + 1 < argc && strncmp(argv[first], "--", 2) == 0) {
        const char *o = argv[first], *v = argv[first + 1];
        if (strcmp(o, "--timeout") == 0) {
            char *end;
            seconds = strtol(v, &end, 10);
            if (*end != '\0' || end == v || seconds < 1 || seconds > 86400)
                lesson_fail(LESSON_USAGE, "--timeout: '%s' is not a number of seconds from 1 to 86400", v);
        } else if (strcmp(o, "--model") == 0) {
            if (strcmp(v, "lockstep") && strcmp(v, "its") && strcmp(v, "random"))
                lesson_fail(LESSON_USAGE, "--model: '%s' is no model of warpsim (lockstep, its, random)", v);
            ws.model = v;
        } else if (strcmp(o, "--seed") == 0 || strcmp(o, "--error-exitcode") == 0) {
            char *end;
            unsigned long long n = strtoull(v, &end, 10);
            if (*end != '\0' || end == v || v[0] == '-' || (o[2] == 'e' && n > 255))
                lesson_fail(LESSON_USAGE, "%s: '%s' is not a number%s", o, v, o[2] == 'e' ? " from 0 to 255" : "");
            if (o[2] == 's')
                ws.seed = v;
            else
                ws.error_exitcode = v;
        } else if (strcmp(o, "--order") == 0) {
            if (strcmp(v, "forward") && strcmp(v, "reverse") && strcmp(v, "alternate"))
                lesson_fail(LESSON_USAGE, "--order: '%s' is no order of warpsim (forward, reverse, alternate)", v);
            ws.order = v;
        } else if (strcmp(o, "--wrap") != 0) {
            break;
        }
        first += 2;
    }
    if (first >= argc)
        lesson_fail(LESSON_USAGE, "no program to run (try --help)");
    if (strncmp(argv[first], "--", 2) == 0)
        lesson_fail(LESSON_USAGE, "unknown option %s (try --help)", argv[first]);
    for (i = first + 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
            strcmp(argv[i], "--path") == 0 || strncmp(argv[i], "--dump", 6) == 0 ||
            strncmp(argv[i], "--cases", 7) == 0)
            lesson_fail(LESSON_USAGE, "%s: run the program itself for that", argv[i]);
    name = strrchr(argv[first], '/') ? strrchr(argv[first], '/') + 1 : argv[first];

    /* warpsim's settings: verify's own, never the environment's. */
    lesson_verify_clear_warpsim();
    if (lesson_file_holds(lesson_verify_which(argv[first], found, sizeof found), "warpsim-summary v1"))
        ws.warpsim = 2;
    else if (ws.model)
        ws.warpsim = 1;
    if (ws.warpsim) {
        if (!ws.model)
            ws.model = "its";
        if (!ws.seed)
            ws.seed = "1";
        setenv("WARPSIM_MODEL", ws.model, 1);
        setenv("WARPSIM_SEED", ws.seed, 1);
        if (ws.order)
            setenv("WARPSIM_ORDER", ws.order, 1);
        if (ws.error_exitcode)
            setenv("WARPSIM_ERROR_EXITCODE", ws.error_exitcode, 1);
    }
    if (ws.warpsim == 2) {
        if (pipe(sfd) != 0)
            lesson_fail(LESSON_USAGE, "pipe: %s", strerror(errno));
        fcntl(sfd[0], F_SETFD, FD_CLOEXEC);
        fcntl(sfd[0], F_SETFL, O_NONBLOCK);
        snprintf(fd_text, sizeof fd_text, "%d", sfd[1]);
        setenv("WARPSIM_SUMMARY_FD", fd_text, 1);
    }
    /* The results: a file with no name, which the program reaches only
     * through the descriptor it is handed. */
    {
        const char *dir = getenv("TMPDIR");
        char made[4096];
        if (!dir || !*dir)
            dir = "/tmp";
        if (snprintf(made, sizeof made, "%s/lesson-dump-XXXXXX", dir) >= (int)sizeof made)
            lesson_fail(LESSON_USAGE, "TMPDIR is too long a path");
        rfd = mkstemp(made);
        if (rfd < 0)
            lesson_fail(LESSON_USAGE, "cannot make a file in %s: %s", dir, strerror(errno));
        unlink(made);
        snprintf(dump_arg, sizeof dump_arg, "/dev/fd/%d", rfd);
    }
    cmd = (char **)lesson_host_alloc(sizeof(char *) * (size_t)(argc + 3), "the command");
    for (i = 1; i < first; i += 2)
        if (strcmp(argv[i], "--wrap") == 0)
            cmd[ncmd++] = argv[i + 1];
    for (i = first; i < argc; i++)
        cmd[ncmd++] = argv[i];
    cmd[ncmd++] = (char *)"--dump";
    cmd[ncmd++] = dump_arg;
    cmd[ncmd] = NULL;

    fflush(stdout);
    if (pipe(fds) != 0)
        lesson_fail(LESSON_USAGE, "pipe: %s", strerror(errno));
    lesson_verify_child = fork();
    if (lesson_verify_child < 0)
        lesson_fail(LESSON_USAGE, "fork: %s", strerror(errno));
    if (seconds)
        lesson_verify_group = 1;
    if (lesson_verify_child == 0) {
        if (seconds)
            setpgid(0, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execvp(cmd[0], cmd);
        fprintf(stderr, "verify: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    if (sfd[1] >= 0)
        close(sfd[1]);
    signal(SIGTERM, lesson_verify_forward);
    signal(SIGINT, lesson_verify_forward);
    signal(SIGHUP, lesson_verify_forward);
    if (seconds) {
        struct sigaction sa;
        setpgid(lesson_verify_child, lesson_verify_child);
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = lesson_verify_alarm;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        alarm((unsigned)seconds);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    if (in) {
        lesson_verify_relay(in, name);
        fclose(in);
    }
    while (waitpid(lesson_verify_child, &wstatus, 0) < 0 && errno == EINTR)
        ;
    lesson_verify_child = 0;
    free(cmd);
    if (lesson_verify_expired)
        exit(124);
    if (WIFSIGNALED(wstatus)) {
        printf("verify: %s was killed by signal %d (%s)\n", name, WTERMSIG(wstatus),
               strsignal(WTERMSIG(wstatus)));
        exit(128 + WTERMSIG(wstatus));
    }
    wstatus = WEXITSTATUS(wstatus);
    if (sfd[0] >= 0)
        wstatus = lesson_verify_summary(sfd[0], name, wstatus, &ws);
    lseek(rfd, 0, SEEK_SET);
    dump = fdopen(rfd, "rb");
    return lesson_verify_results(dump, name, wstatus, argc, argv, first,
                                 args_argc, args_argv, status);
}

int lesson_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return lesson_main(argc, argv);
}
#endif /* LESSON_VERIFY */

#endif /* LESSON_H */
