/*
 * runtime.c - settings, the program's entry, and the host runtime subset
 * the lessons use (cudaMalloc, cudaMemcpy, cudaMemset, cudaFree, events,
 * errors).
 *
 * Settings come from the environment (the `warpsim` driver sets them):
 *   WARPSIM_MODEL=lockstep|its|random   default its
 *   WARPSIM_ORDER=forward|reverse|alternate   its: who runs first on a tie
 *   WARPSIM_SEED=N                      random: the interleaving (default 1)
 *   WARPSIM_ERROR_EXITCODE=N            exit N when anything was reported and
 *                                       the program would otherwise exit 0
 *   WARPSIM_MEMORY=SIZE                 device memory (default 1G)
 *   WARPSIM_SPIN_LIMIT=N                steps without progress before a hang
 *   WARPSIM_VERBOSE=1                   notes too; WARPSIM_STATS=1 throughput
 * A bad value is one line on stderr and exit status 2.
 *
 * The lesson's main is compiled as ws_main (-Dmain=ws_main); warpsim's main
 * calls it and then prints the summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ws_internal.h"

const char *const ws_model_names[] = { "lockstep", "its", "random" };
const char *const ws_order_names[] = { "forward", "reverse", "alternate" };

ws_settings ws_cfg = {
    WS_ITS, WS_FORWARD, 1, -1, (uint64_t)1 << 22, (size_t)1 << 30, 0, 0
};
cudaError_t ws_last_error = cudaSuccess;

static void bad_setting(const char *name, const char *value, const char *want)
{
    fflush(stdout);
    fprintf(stderr, "warpsim: %s=%s: %s\n", name, value, want);
    exit(2);
}

/* Parses an unsigned number with an optional K, M or G suffix; -1 if bad. */
static int parse_count(const char *s, int suffixes, unsigned long long *out)
{
    char *end;
    unsigned long long v, scale = 1;
    if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (end == s || errno == ERANGE)
        return -1;
    if (suffixes && (*end == 'K' || *end == 'k')) { scale = 1ULL << 10; end++; }
    else if (suffixes && *end == 'M') { scale = 1ULL << 20; end++; }
    else if (suffixes && *end == 'G') { scale = 1ULL << 30; end++; }
    if (*end != '\0' || v > ~0ULL / scale)
        return -1;
    *out = v * scale;
    return 0;
}

static int pick(const char *name, const char *value, const char *const *names, int n,
                const char *want)
{
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(value, names[i]))
            return i;
    bad_setting(name, value, want);
    return 0;
}

static void read_settings(void)
{
    const char *v;
    unsigned long long n;
    if ((v = getenv("WARPSIM_MODEL")) && *v)
        ws_cfg.model = pick("WARPSIM_MODEL", v, ws_model_names, 3,
                            "unknown model (use lockstep, its or random)");
    if ((v = getenv("WARPSIM_ORDER")) && *v)
        ws_cfg.order = pick("WARPSIM_ORDER", v, ws_order_names, 3,
                            "unknown order (use forward, reverse or alternate)");
    if ((v = getenv("WARPSIM_SEED")) && *v) {
        if (parse_count(v, 0, &n) != 0)
            bad_setting("WARPSIM_SEED", v, "the seed must be a number from 0 to 2^64-1");
        ws_cfg.seed = n;
    }
    if ((v = getenv("WARPSIM_ERROR_EXITCODE")) && *v) {
        if (parse_count(v, 0, &n) != 0 || n > 255)
            bad_setting("WARPSIM_ERROR_EXITCODE", v, "the exit code must be from 0 to 255");
        ws_cfg.error_exitcode = n ? (int)n : -1;
    }
    if ((v = getenv("WARPSIM_MEMORY")) && *v) {
        if (parse_count(v, 1, &n) != 0 || n == 0 || n > (1ULL << 40))
            bad_setting("WARPSIM_MEMORY", v,
                        "the device memory must be from 1 byte to 1024G (K, M, G suffixes)");
        ws_cfg.memory_limit = (size_t)n;
    }
    if ((v = getenv("WARPSIM_SPIN_LIMIT")) && *v) {
        if (parse_count(v, 1, &n) != 0 || n < 1000)
            bad_setting("WARPSIM_SPIN_LIMIT", v, "the spin limit must be 1000 steps or more");
        ws_cfg.spin_limit = n;
    }
    if ((v = getenv("WARPSIM_VERBOSE")) && *v)
        ws_cfg.verbose = strcmp(v, "0") != 0;
    if ((v = getenv("WARPSIM_STATS")) && *v)
        ws_cfg.stats = strcmp(v, "0") != 0;
}

static void at_exit(void)
{
    ws_summary();
}

/* A lane that faults (a bad pointer, or its stack overflowing into the
 * guard page) is named before the program dies of the signal as usual. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
    ws_lane *l = ws.cur;
    char who[160];
    (void)uc;
    if (l) {
        fflush(stdout);
        fprintf(stderr, "warpsim: %s in kernel %s: %s touched address %p after %s\n",
                sig == SIGBUS ? "bus error" : "segmentation fault", ws.kernel,
                ws_who(l, who, sizeof who), si->si_addr, ws_lane_where(l));
        ws_counts[WR_MEM]++;
        ws_summary();
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_faults(void)
{
    static char alt[64 * 1024];
    stack_t ss;
    struct sigaction sa;
    ss.ss_sp = alt;
    ss.ss_size = sizeof alt;
    ss.ss_flags = 0;
    if (sigaltstack(&ss, NULL) != 0)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

void ws_init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    read_settings();
    ws_report_init();
    ws_shadow_init();
    catch_faults();
    atexit(at_exit);
}

/* ---- entry ----------------------------------------------------------- */

int ws_main(int argc, char **argv);

int main(int argc, char **argv)
{
    int rc;
    ws_init();
    rc = ws_main(argc, argv);
    fflush(stdout);
    ws_summary();
    if (rc == 0 && ws_cfg.error_exitcode > 0 &&
        ws_counts[WR_RACE] + ws_counts[WR_HANG] + ws_counts[WR_PRIM] +
        ws_counts[WR_UNINIT] + ws_counts[WR_MEM] > 0)
        rc = ws_cfg.error_exitcode;
    return rc;
}

/* ---- host runtime ---------------------------------------------------- */

static cudaError_t fail(cudaError_t e)
{
    ws_last_error = e;
    return e;
}

cudaError_t ws_cuda_malloc(void **ptr, size_t bytes)
{
    cudaError_t e;
    void *p;
    ws_init();
    if (!ptr)
        return fail(cudaErrorInvalidValue);
    p = ws_arena_alloc(bytes, &e);
    if (e != cudaSuccess)
        return fail(e);
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    if (!ptr)
        return cudaSuccess;
    if (ws_arena_free(ptr) != 0)
        return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    int d = ws_is_device(dst, bytes), s = ws_is_device(src, bytes);
    if (d < 0 || s < 0 || (bytes && (!dst || !src)))
        return fail(cudaErrorInvalidValue);
    switch (kind) {
    case cudaMemcpyHostToDevice: if (!d || s) return fail(cudaErrorInvalidValue); break;
    case cudaMemcpyDeviceToHost: if (d || !s) return fail(cudaErrorInvalidValue); break;
    case cudaMemcpyDeviceToDevice: if (!d || !s) return fail(cudaErrorInvalidValue); break;
    case cudaMemcpyHostToHost: if (d || s) return fail(cudaErrorInvalidValue); break;
    case cudaMemcpyDefault: break;
    default: return fail(cudaErrorInvalidMemcpyDirection);
    }
    if (bytes)
        memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *ptr, int value, size_t bytes)
{
    if (bytes && ws_is_device(ptr, bytes) != 1)
        return fail(cudaErrorInvalidValue);
    if (bytes)
        memset(ptr, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = ws_last_error;
    ws_last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return ws_last_error;
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    default: return "unknown error";
    }
}

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    default: return "cudaErrorUnknown";
    }
}

/* Events measure wall time: kernels run synchronously under warpsim. */
struct ws_event { double t; int recorded; };

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    if (!e)
        return fail(cudaErrorInvalidValue);
    *e = calloc(1, sizeof **e);
    return *e ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    (void)s;
    if (!e)
        return fail(cudaErrorInvalidResourceHandle);
    e->t = wall();
    e->recorded = 1;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    return e ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms || !start || !end)
        return fail(cudaErrorInvalidValue);
    if (!start->recorded || !end->recorded)
        return fail(cudaErrorInvalidResourceHandle);
    *ms = (float)((end->t - start->t) * 1e3);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}
