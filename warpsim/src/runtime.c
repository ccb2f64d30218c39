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
 *   WARPSIM_STEP_LIMIT=N                steps of one thread before a livelock
 *   WARPSIM_VERBOSE=1                   notes too; WARPSIM_STATS=1 throughput
 * A bad value is one line on stderr and exit status 2 (the table and the
 * parsing are in settings.c).
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
#include <ucontext.h>
#include <unistd.h>
#include "ws_internal.h"

ws_settings ws_cfg = {
    WS_ITS, WS_FORWARD, 1, -1, (uint64_t)1 << 22, (uint64_t)1 << 20, (size_t)1 << 30, 0, 0,
    NULL, 1, 0, 0, 400, 0
};
cudaError_t ws_last_error = cudaSuccess;

/* Reads the WARPSIM_* variables; a bad value is one line and exit 2. */
static void read_settings(void)
{
    int i;
    for (i = 0; i < WS_NSETTINGS; i++) {
        const ws_setting *s = &ws_settings_table[i];
        const char *v = getenv(s->env);
        unsigned long long n;
        if (!v || !*v)
            continue;
        if (ws_setting_parse(s, v, &n) != 0) {
            fflush(stdout);
            fprintf(stderr, "warpsim: %s=%s: %s\n", s->env, v, s->want);
            exit(2);
        }
        switch (i) {
        case WS_SET_MODEL: ws_cfg.model = (int)n; break;
        case WS_SET_ORDER: ws_cfg.order = (int)n; break;
        case WS_SET_SEED: ws_cfg.seed = n; break;
        case WS_SET_ERROR_EXITCODE: ws_cfg.error_exitcode = n ? (int)n : -1; break;
        case WS_SET_MEMORY: ws_cfg.memory_limit = (size_t)n; break;
        case WS_SET_SPIN_LIMIT: ws_cfg.spin_limit = n; break;
        case WS_SET_STEP_LIMIT: ws_cfg.step_limit = n; break;
        case WS_SET_VERBOSE: ws_cfg.verbose = (int)n; break;
        case WS_SET_TRACE: ws_cfg.trace = v; break;
        case WS_SET_TRACE_LAUNCH: ws_cfg.trace_launch = n; break;
        case WS_SET_TRACE_BLOCK: ws_cfg.trace_block = n; break;
        case WS_SET_TRACE_WARP: ws_cfg.trace_warp = (int)n; break;
        case WS_SET_TRACE_STEPS: ws_cfg.trace_steps = (int)n; break;
        case WS_SET_TRACE_HEIGHT: ws_cfg.trace_height = (int)n; break;
        default: ws_cfg.stats = (int)n; break;
        }
    }
}

static void at_exit(void)
{
    ws_summary();
}

/* The pc where a signal struck, from the context the kernel saved. */
static uintptr_t fault_pc(void *uc)
{
#if defined(__x86_64__) && defined(__linux__)
    return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__) && defined(__linux__)
    return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

static const char *fault_what(int sig, int code)
{
    switch (sig) {
    case SIGFPE:
        return code == FPE_INTDIV ? "integer division by zero"
             : code == FPE_INTOVF ? "integer overflow in a division"
             : "arithmetic exception";
    case SIGBUS: return "bus error";
    case SIGILL: return "illegal instruction";
    default: return "segmentation fault";
    }
}

/*
 * A lane that faults (an integer division by zero, a bad pointer, its stack
 * overflowing into the guard page) is reported like a memory error: what,
 * the lane, the line, the kernel. The program then ends with the summary
 * and the status of a failed kernel (1, or --error-exitcode N): on a GPU
 * the launch fails and the program's CUDA_CHECK stops it. A signal outside
 * kernel code, or a second one while reporting, kills the program as usual.
 */
/* A kernel's lane failed: "warpsim: WHAT in kernel K: lane ... AT", the
 * summary, and the status of a failed kernel (1, or --error-exitcode N).
 * runtime.c's signal handler and tsan.c's division check both end here. */
void ws_kernel_fault(const ws_lane *l, const char *what, const char *at)
{
    char who[160];
    fflush(stdout);
    ws_counts[WR_MEM]++;
    fprintf(stderr, "warpsim: %s in kernel %s: %s %s\n", what, ws.kernel,
            ws_who(l, who, sizeof who), at);
    ws_summary();
    fflush(NULL);
    _exit(ws_cfg.error_exitcode > 0 ? ws_cfg.error_exitcode : 1);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    static volatile sig_atomic_t busy;
    ws_lane *l = ws.cur;
    char at[240];
    uintptr_t pc = fault_pc(uc);
    if (l && !busy) {
        int n;
        busy = 1;
        if (pc)
            n = snprintf(at, sizeof at, "at %s", ws_where(pc + 1));
        else
            n = snprintf(at, sizeof at, "after %s", ws_lane_where(l));
        if (sig != SIGFPE && sig != SIGILL && n > 0 && (size_t)n < sizeof at)
            snprintf(at + n, sizeof at - (size_t)n, " touches address %p", si->si_addr);
        ws_kernel_fault(l, fault_what(sig, si->si_code), at);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_faults(void)
{
    static char alt[256 * 1024];
    stack_t ss;
    struct sigaction sa;
    ss.ss_sp = alt;
    ss.ss_size = sizeof alt;
    ss.ss_flags = 0;
    if (sigaltstack(&ss, NULL) != 0)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
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

/* ---- the summary ----------------------------------------------------- */

static int summary_done;

void ws_summary(void)
{
    char order[32] = "";
    if (summary_done || !ws.launches)
        return;
    summary_done = 1;
    fflush(stdout);
    ws_trace_write();
    if (ws_cfg.model == WS_ITS && ws_cfg.order != WS_FORWARD)
        snprintf(order, sizeof order, ", order %s", ws_order_names[ws_cfg.order]);
    if (ws_cfg.stats) {
        double s = ws.kernel_seconds;
        fprintf(stderr, "warpsim: stats: %llu launches, %llu blocks, %llu memory accesses, "
                "%llu scheduling steps in %.3f s: %.2f M accesses/s\n",
                (unsigned long long)ws.launches, (unsigned long long)ws.blocks_run,
                (unsigned long long)ws.accesses, (unsigned long long)ws.total_steps, s,
                s > 0 ? (double)ws.accesses / s / 1e6 : 0.0);
    }
    if (ws_counts[WR_NOTE] && ws_cfg.verbose)
        fprintf(stderr, "warpsim: %llu notes (allowed by the CUDA Programming Guide)\n",
                (unsigned long long)ws_counts[WR_NOTE]);
    fprintf(stderr, "warpsim: %llu race%s, %llu hang%s, %llu warp-primitive error%s, "
            "%llu uninitialized read%s, %llu memory error%s (model %s%s, seed %llu)\n",
            (unsigned long long)ws_counts[WR_RACE], ws_counts[WR_RACE] == 1 ? "" : "s",
            (unsigned long long)ws_counts[WR_HANG], ws_counts[WR_HANG] == 1 ? "" : "s",
            (unsigned long long)ws_counts[WR_PRIM], ws_counts[WR_PRIM] == 1 ? "" : "s",
            (unsigned long long)ws_counts[WR_UNINIT], ws_counts[WR_UNINIT] == 1 ? "" : "s",
            (unsigned long long)ws_counts[WR_MEM], ws_counts[WR_MEM] == 1 ? "" : "s",
            ws_model_names[ws_cfg.model], order, (unsigned long long)ws_cfg.seed);
    ws_report_close();
}

/* ---- entry ----------------------------------------------------------- */

/* What the driver looks for in a program before it runs it (driver.c). */
__attribute__((used)) const char ws_program_mark[] = "warpsim-program:" "libwarpsim";

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
    if (bytes) {
        memmove(dst, src, bytes);
        ws_shadow_host_copied(dst, src, bytes);
    }
    return cudaSuccess;
}

cudaError_t cudaMemset(void *ptr, int value, size_t bytes)
{
    if (bytes && ws_is_device(ptr, bytes) != 1)
        return fail(cudaErrorInvalidValue);
    if (bytes) {
        memset(ptr, value, bytes);
        ws_shadow_host_wrote(ptr, bytes);
    }
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
