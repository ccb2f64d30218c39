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
 *   WARPSIM_TRACE=FILE.svg ...          the picture (trace.c)
 *   WARPSIM_SUMMARY_FD=N                the summary channel (below)
 * A bad value is one line on stderr and exit status 2 (the table and the
 * parsing are in settings.c).
 *
 * The lesson's main is compiled as ws_main (-Dmain=ws_main); warpsim's main
 * calls it and then prints the summary. However the program ends through
 * warpsim (main returns, it calls exit, a report stops it, a hang, a fatal
 * signal warpsim catches), finish() says the summary once, and with
 * WARPSIM_SUMMARY_FD=N writes one line to file descriptor N for a grader:
 *   warpsim-summary v1 model=M seed=S order=O races=R hangs=H prim_errors=P
 *   uninit=U mem_errors=E other=X launches=L status=C
 * (C: the exit status warpsim gives the process; other: failed assertions,
 * traps, divisions by zero and the like).
 *
 * The device API's own runtime is here too: the device heap of malloc and
 * free (cudaLimitMallocHeapSize), printf's bound (cudaLimitPrintfFifoSize),
 * assert, __trap and __brkpt in a kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "ws_internal.h"

cudaError_t ws_last_error = cudaSuccess;

/* The summary channel: WARPSIM_SUMMARY_FD's descriptor, or -1. */
static int summary_fd = -1;

/* Whether fd is open for writing. */
static int writable_fd(long fd)
{
    int fl;
    if (fd < 0 || fd > 0x7fffffffL)
        return 0;
    fl = fcntl((int)fd, F_GETFL);
    return fl != -1 && (fl & O_ACCMODE) != O_RDONLY;
}

static void bad_setting(const char *env, const char *v, const char *why)
{
    fflush(stdout);
    fprintf(stderr, "warpsim: %s=%s: %s\n", env, v, why);
    exit(2);
}

/* Reads the WARPSIM_* variables; a bad value is one line and exit 2. */
static void read_settings(void)
{
    int i;
    const char *v;
    for (i = 0; i < WS_NSETTINGS; i++) {
        const ws_setting *s = &ws_settings_table[i];
        unsigned long long n;
        v = getenv(s->env);
        if (!v || !*v)
            continue;
        if (ws_setting_parse(s, v, &n) != 0)
            bad_setting(s->env, v, s->want);
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
        case WS_SET_TRACE_WARP:          /* N, or N,M: the first, then the second */
            ws_cfg.trace_warp = (int)(n & 0xff);
            ws_trace_warp2 = n >> 8 ? (int)(n >> 8) - 1 : -1;
            break;
        case WS_SET_TRACE_STEPS: ws_cfg.trace_steps = (int)n; break;
        case WS_SET_TRACE_HEIGHT: ws_cfg.trace_height = (int)n; break;
        case WS_SET_SUMMARY_FD:
            if (!writable_fd((long)n))
                bad_setting(s->env, v, "no file descriptor open for writing has that number");
            summary_fd = (int)n;
            /* The meaning is this program's: a child it starts inherits
             * neither the variable nor the descriptor. */
            fcntl(summary_fd, F_SETFD, fcntl(summary_fd, F_GETFD) | FD_CLOEXEC);
            unsetenv(s->env);
            break;
        default: ws_cfg.stats = (int)n; break;
        }
    }
    if (ws_cfg.trace && ws_trace_check() != 0)
        exit(2);
}

/* ---- the end of a run ------------------------------------------------- */

static int finished = -1;        /* the final status, once finish() ran */
static int summary_said;

/* What was reported, all kinds. */
static uint64_t reported(void)
{
    return ws_counts[WR_RACE] + ws_counts[WR_HANG] + ws_counts[WR_PRIM] +
           ws_counts[WR_UNINIT] + ws_counts[WR_MEM] + ws_counts[WR_OTHER];
}

/* The summary channel's one line, then the descriptor is closed. */
static void channel(int status)
{
    char line[512];
    int n;
    size_t off = 0;
    if (summary_fd < 0)
        return;
    n = snprintf(line, sizeof line, "warpsim-summary v1 model=%s seed=%llu order=%s races=%llu "
                 "hangs=%llu prim_errors=%llu uninit=%llu mem_errors=%llu other=%llu "
                 "launches=%llu status=%d\n", ws_model_names[ws_cfg.model],
                 (unsigned long long)ws_cfg.seed, ws_order_names[ws_cfg.order],
                 (unsigned long long)ws_counts[WR_RACE], (unsigned long long)ws_counts[WR_HANG],
                 (unsigned long long)ws_counts[WR_PRIM], (unsigned long long)ws_counts[WR_UNINIT],
                 (unsigned long long)ws_counts[WR_MEM], (unsigned long long)ws_counts[WR_OTHER],
                 (unsigned long long)ws.launches, status);
    while (n > 0 && off < (size_t)n) {
        ssize_t w = write(summary_fd, line + off, (size_t)n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    if (summary_fd > 2)
        close(summary_fd);
    summary_fd = -1;
}

/*
 * The end of the run, once: what printf left out of a launch that did not
 * end, the picture, the summary line, and the summary channel. status is
 * what the process would exit with; a run that would exit 0 exits with
 * --error-exitcode N when anything was reported, and with 2 when the
 * picture asked for could not be drawn. Returns the status to exit with.
 */
static int finish(int status)
{
    char order[32] = "", other[48] = "";
    if (finished >= 0)
        return finished;
    fflush(stdout);
    ws_launch_done();
    if (ws_cfg.trace) {
        ws_trace_write();
        if (ws_trace_failed && status == 0)
            status = 2;
    }
    if (!summary_said && ws.launches) {
        summary_said = 1;
        if (ws_cfg.model == WS_ITS && ws_cfg.order != WS_FORWARD)
            snprintf(order, sizeof order, ", order %s", ws_order_names[ws_cfg.order]);
        if (ws_counts[WR_OTHER])
            snprintf(other, sizeof other, ", %llu other error%s",
                     (unsigned long long)ws_counts[WR_OTHER], ws_counts[WR_OTHER] == 1 ? "" : "s");
        if (ws_cfg.stats) {
            double sec = ws.kernel_seconds;
            fprintf(stderr, "warpsim: stats: %llu launches, %llu blocks, %llu memory accesses, "
                    "%llu scheduling steps in %.3f s: %.2f M accesses/s\n",
                    (unsigned long long)ws.launches, (unsigned long long)ws.blocks_run,
                    (unsigned long long)ws.accesses, (unsigned long long)ws.total_steps, sec,
                    sec > 0 ? (double)ws.accesses / sec / 1e6 : 0.0);
        }
        if (ws_counts[WR_NOTE] && ws_cfg.verbose)
            fprintf(stderr, "warpsim: %llu notes (allowed by the CUDA Programming Guide)\n",
                    (unsigned long long)ws_counts[WR_NOTE]);
        fprintf(stderr, "warpsim: %llu race%s, %llu hang%s, %llu warp-primitive error%s, "
                "%llu uninitialized read%s, %llu memory error%s%s (model %s%s, seed %llu)\n",
                (unsigned long long)ws_counts[WR_RACE], ws_counts[WR_RACE] == 1 ? "" : "s",
                (unsigned long long)ws_counts[WR_HANG], ws_counts[WR_HANG] == 1 ? "" : "s",
                (unsigned long long)ws_counts[WR_PRIM], ws_counts[WR_PRIM] == 1 ? "" : "s",
                (unsigned long long)ws_counts[WR_UNINIT], ws_counts[WR_UNINIT] == 1 ? "" : "s",
                (unsigned long long)ws_counts[WR_MEM], ws_counts[WR_MEM] == 1 ? "" : "s",
                other, ws_model_names[ws_cfg.model], order, (unsigned long long)ws_cfg.seed);
        ws_report_close();
    }
    if (status == 0 && ws_cfg.error_exitcode > 0 && reported() > 0)
        status = ws_cfg.error_exitcode;
    fflush(stderr);
    channel(status);
    finished = status;
    return status;
}

/* The summary, from a module that ends the program itself: hang.c, which
 * then exits with status 3. */
static void summary(void)
{
    finish(ws_counts[WR_HANG] ? 3 : ws_cfg.error_exitcode > 0 ? ws_cfg.error_exitcode : 1);
}

void ws_end(int status)
{
    status = finish(status);
    fflush(NULL);
    _exit(status);
}

/* The program called exit(status): the summary, and the status warpsim
 * gives (--error-exitcode, a picture that failed). */
static void at_exit(int status, void *arg)
{
    int final;
    (void)arg;
    final = finish(status);
    if (final != status) {
        fflush(NULL);
        _exit(final);
    }
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
    case SIGABRT: return "abort()";
    default: return "segmentation fault";
    }
}

/*
 * A kernel's lane failed: "warpsim: WHAT in kernel K: lane ... AT", the
 * summary, and the status of a failed kernel (1, or --error-exitcode N):
 * on a GPU the launch fails and the program's CUDA_CHECK stops it. A bad
 * pointer or a bus error counts as a memory error, anything else (an
 * assertion, a trap, abort) as another error. runtime.c's signal handler
 * and the device API end here. After a lane's fault (report.c: an invalid
 * access or a division by zero, held while the launch runs on quietly)
 * the fault is said instead, and the run ends.
 */
static __attribute__((noreturn)) void kernel_stop(const ws_lane *l, const char *what,
                                                 const char *at, int memory)
{
    char who[160];
    fflush(stdout);
    if (ws_faulted()) {          /* after a fault the launch runs on quietly */
        ws_fault_say();
        ws_end(ws_cfg.error_exitcode > 0 ? ws_cfg.error_exitcode : 1);
    }
    if (memory)
        ws_counts[WR_MEM]++;
    else
        ws_counts[WR_OTHER]++;
    fprintf(stderr, "warpsim: %s in kernel %s: %s %s\n", what, ws.kernel,
            ws_who(l, who, sizeof who), at);
    ws_end(ws_cfg.error_exitcode > 0 ? ws_cfg.error_exitcode : 1);
}

void ws_kernel_fault(const ws_lane *l, const char *what, const char *at)
{
    kernel_stop(l, what, at, !strcmp(what, "segmentation fault") || !strcmp(what, "bus error"));
}

/*
 * A signal in a kernel (an integer division by zero, a bad pointer, its
 * stack overflowing into the guard page, abort()) is reported like a
 * memory error: what, the lane, the line, the kernel. A signal outside
 * kernel code, or a second one while reporting, kills the program as
 * usual, after the summary channel's line (status 128 + the signal).
 */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
    static volatile sig_atomic_t busy;
    ws_lane *l = ws.cur;
    char at[240];
    uintptr_t pc = fault_pc(uc);
    if (l && !busy) {
        int n;
        busy = 1;
        if (pc && sig != SIGABRT)
            n = snprintf(at, sizeof at, "at %s", ws_where(pc + 1));
        else
            n = snprintf(at, sizeof at, "after %s", ws_lane_where(l));
        if (sig != SIGFPE && sig != SIGILL && sig != SIGABRT && n > 0 && (size_t)n < sizeof at)
            snprintf(at + n, sizeof at - (size_t)n, " touches address %p", si->si_addr);
        ws_kernel_fault(l, fault_what(sig, si->si_code), at);
    }
    if (!busy) {
        busy = 1;
        channel(128 + sig);
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
    sigaction(SIGABRT, &sa, NULL);
}

static void summary_channel_off(void);

/* Starts the library, once: the hooks through which its lower layers call
 * up (ws_internal.h), the settings, the reports, device memory, the
 * handlers of faults and of exit. */
void ws_init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    ws_sched_install();
    ws_prims_install();
    ws_hang_install();
    ws_trace_install();
    ws_hooks.summary = summary;
    ws_hooks.summary_channel_off = summary_channel_off;
    read_settings();
    ws_report_init();
    ws_shadow_init();
    catch_faults();
    on_exit(at_exit, NULL);
    if (ws_trace_warp2 >= 0)
        ws_trace_fork();
}

/* kernel<<<grid, block, shared_bytes>>>(...) (warpsim.h's WS_LAUNCH):
 * the library's first use initializes it; a configuration CUDA refuses is
 * cudaGetLastError's, as on a GPU. */
void ws_launch(void (*body)(void), dim3 grid, dim3 block, size_t shared_bytes,
               const char *kernel, const char *file, int line)
{
    cudaError_t err;
    ws_init();
    err = ws_sched_launch(body, grid, block, shared_bytes, kernel, file, line);
    if (err != cudaSuccess)
        ws_last_error = err;
}

/* The instrumentation's constructor (before main): the library starts. */
void __tsan_init(void);
void __tsan_init(void)
{
    ws_init();
}

/* The fork of a picture of two warps (trace.c): the first run is no
 * grader's. */
static void summary_channel_off(void)
{
    summary_fd = -1;
}

/* ---- entry ----------------------------------------------------------- */

/* What the driver looks for in a program before it runs it (driver.c). */
__attribute__((used)) const char ws_program_mark[] = "warpsim-program:" "libwarpsim";

/*
 * The program's main, compiled as ws_main (-Dmain=ws_main): as C++, a
 * function of C++ linkage, int ws_main() or int ws_main(int, char **) (or
 * with const char **), whose names the Itanium ABI mangles; as C, ws_main.
 * Whichever the program defines.
 */
#if defined(__APPLE__)
#define CXX_NAME(s) "_" s
#else
#define CXX_NAME(s) s
#endif
int ws_main(int argc, char **argv) __attribute__((weak));
int ws_main_cxx0(void) __asm__(CXX_NAME("_Z7ws_mainv")) __attribute__((weak));
int ws_main_cxx2(int argc, char **argv) __asm__(CXX_NAME("_Z7ws_mainiPPc")) __attribute__((weak));
int ws_main_cxx2c(int argc, const char **argv) __asm__(CXX_NAME("_Z7ws_mainiPPKc"))
    __attribute__((weak));

int main(int argc, char **argv)
{
    int rc;
    ws_init();
    if (ws_main_cxx2)
        rc = ws_main_cxx2(argc, argv);
    else if (ws_main_cxx0)
        rc = ws_main_cxx0();
    else if (ws_main_cxx2c)
        rc = ws_main_cxx2c(argc, (const char **)argv);
    else if (ws_main)
        rc = ws_main(argc, argv);
    else {
        fprintf(stderr, "warpsim: the program has no main of a kind warpsim knows "
                "(int main(), int main(int, char **))\n");
        rc = 2;
    }
    fflush(stdout);
    return finish(rc);
}

/* ---- assert, __trap, __brkpt, errors of the device API --------------- */

static const char *base_name(const char *file)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    return slash ? slash + 1 : file ? file : "?";
}

/*
 * The C library's assert calls this. In a kernel: reported with the lane
 * and file:line, and the program ends with the summary (on a GPU the
 * launch fails with cudaErrorAssert). In host code: what glibc says, then
 * abort().
 */
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function) __attribute__((noreturn));
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function)
{
    char what[300], at[200];
    if (ws.cur) {
        snprintf(what, sizeof what, "assertion `%s' failed", assertion);
        /* (not the function: g++ and clang++ spell its signature
         * differently, and the kernel is named already) */
        snprintf(at, sizeof at, "at %s:%u", base_name(file), line);
        kernel_stop(ws.cur, what, at, 0);
    }
    fflush(stdout);
    fprintf(stderr, "%s: %s:%u: %s%sAssertion `%s' failed.\n", program_invocation_short_name,
            file, line, function ? function : "", function ? ": " : "", assertion);
    abort();
}

void ws_trap(int kind, const char *file, int line)
{
    char at[200];
    snprintf(at, sizeof at, "at %s:%d", base_name(file), line);
    if (!ws.cur) {
        fflush(stdout);
        fprintf(stderr, "warpsim: %s called outside a kernel %s\n",
                kind == WS_BRKPT ? "__brkpt()" : "__trap()", at);
        ws_end(2);
    }
    kernel_stop(ws.cur, kind == WS_BRKPT ? "__brkpt() (a breakpoint, and no debugger)"
                : "__trap()", at, 0);
}

void ws_device_error(const char *what, const char *file, int line)
{
    char at[200];
    snprintf(at, sizeof at, "at %s:%d", base_name(file), line);
    if (!ws.cur) {
        fflush(stdout);
        fprintf(stderr, "warpsim: %s, outside a kernel %s\n", what, at);
        ws_end(2);
    }
    kernel_stop(ws.cur, what, at, 0);
}

/* A launch of large arguments: each lane's thunk (warpsim_device.h) drops
 * its own frame, so that the kernel's is the lane's first. */
void *ws_launch_args;

void ws_launch_args_set(void *args, size_t bytes)
{
    ws_launch_args = args;
    ws_shadow_readable((uintptr_t)args, args ? bytes : 0);
}

void ws_thunk_enter(void)
{
    if (ws.cur)
        ws.cur->depth = 0;
}

/* Instrumented C++ that stores a vtable pointer (a class with virtual
 * functions): not a memory access warpsim watches. */
void __tsan_vptr_update(void **vptr, void *value);
void __tsan_vptr_update(void **vptr, void *value)
{
    (void)vptr;
    (void)value;
}
void __tsan_vptr_read(void **vptr);
void __tsan_vptr_read(void **vptr)
{
    (void)vptr;
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

cudaError_t cudaDeviceReset(void)
{
    return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return fail(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

/* cudaMemcpyToSymbol and cudaMemcpyFromSymbol (warpsim_device.h): a
 * __device__ or __constant__ variable is a host variable here. */
cudaError_t ws_symbol_copy(void *dst, const void *src, size_t bytes, int to_symbol)
{
    (void)to_symbol;
    if (bytes && (!dst || !src))
        return fail(cudaErrorInvalidValue);
    if (bytes)
        memmove(dst, src, bytes);
    return cudaSuccess;
}

/* ---- limits: the device heap and printf's buffer ---------------------- */

/*
 * The device heap (CUDA Programming Guide, "Dynamic Global Memory
 * Allocation and Operations"): malloc and free in a kernel take and give
 * back blocks of one device allocation of cudaLimitMallocHeapSize bytes (8
 * MB by default), made at the first malloc, 16-byte aligned; malloc returns
 * NULL when none is free. The blocks (offset, size, free or not) are kept
 * here, sorted by offset, not in the heap, where a kernel's overrun would
 * overwrite them. Memory from the heap lives until freed, across launches.
 * Fresh space is handed out first, freed blocks only once it is used up:
 * the race detector's records of a freed block's bytes stay, and a block
 * given to another thread would race with them.
 */
typedef struct heap_block { size_t off, size; int used; } heap_block;
static struct {
    size_t limit;                 /* cudaLimitMallocHeapSize */
    char *base;                   /* the allocation, or NULL */
    size_t top;                   /* bytes handed out from the start */
    heap_block *blocks;
    size_t n, cap, nfree;
    int used;                     /* a kernel called malloc or free */
    int failed;                   /* the allocation could not be made */
} heap = { 8u << 20, NULL, 0, NULL, 0, 0, 0, 0, 0 };

/* printf's bound: cudaLimitPrintfFifoSize bytes of output per launch (1
 * MB by default); what does not fit is left out and counted. */
static size_t printf_limit = 1u << 20;
static size_t printf_bytes, printf_dropped;
static int printf_used;

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value)
{
    switch (limit) {
    case cudaLimitStackSize:
        return cudaSuccess;      /* a lane's stack is 508 KiB or more whatever is asked */
    case cudaLimitPrintfFifoSize:
        if (printf_used)
            return fail(cudaErrorInvalidValue);
        printf_limit = value;
        return cudaSuccess;
    case cudaLimitMallocHeapSize:
        if (heap.used)
            return fail(cudaErrorInvalidValue);
        heap.limit = (value + 15) & ~(size_t)15;
        return cudaSuccess;
    default:
        return fail(cudaErrorUnsupportedLimit);
    }
}

cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit)
{
    if (!value)
        return fail(cudaErrorInvalidValue);
    switch (limit) {
    case cudaLimitStackSize: *value = 1024; return cudaSuccess;
    case cudaLimitPrintfFifoSize: *value = printf_limit; return cudaSuccess;
    case cudaLimitMallocHeapSize: *value = heap.limit; return cudaSuccess;
    default: return fail(cudaErrorUnsupportedLimit);
    }
}

/* Inserts block b at index i of the heap's list. */
static int heap_insert(size_t i, heap_block b)
{
    if (heap.n == heap.cap) {
        size_t cap = heap.cap ? 2 * heap.cap : 256;
        heap_block *nb = realloc(heap.blocks, cap * sizeof *nb);
        if (!nb)
            return -1;
        heap.blocks = nb;
        heap.cap = cap;
    }
    memmove(&heap.blocks[i + 1], &heap.blocks[i], (heap.n - i) * sizeof *heap.blocks);
    heap.blocks[i] = b;
    heap.n++;
    return 0;
}

static void *device_malloc(size_t bytes)
{
    size_t need = bytes ? (bytes + 15) & ~(size_t)15 : 16, i;
    heap.used = 1;
    if (bytes > heap.limit)
        return NULL;
    if (!heap.base && !heap.failed) {
        cudaError_t e;
        heap.base = heap.limit ? ws_arena_alloc(heap.limit, &e) : NULL;
        if (!heap.base) {
            heap.failed = 1;
            fflush(stdout);
            fprintf(stderr, "warpsim: the device heap (cudaLimitMallocHeapSize, %zu bytes) "
                    "does not fit in the device memory left (WARPSIM_MEMORY); malloc in a "
                    "kernel returns NULL\n", heap.limit);
        }
    }
    if (!heap.base)
        return NULL;
    if (heap.limit - heap.top >= need) {   /* fresh space first */
        heap_block b = { heap.top, need, 1 };
        if (heap_insert(heap.n, b) != 0)
            return NULL;
        heap.top += need;
        return heap.base + b.off;
    }
    for (i = 0; heap.nfree && i < heap.n; i++) {   /* then the first fit among the freed */
        heap_block *b = &heap.blocks[i];
        if (b->used || b->size < need)
            continue;
        if (b->size > need) {
            heap_block rest = { b->off + need, b->size - need, 0 };
            b->size = need;
            if (heap_insert(i + 1, rest) != 0)
                return NULL;
            b = &heap.blocks[i];
        } else {
            heap.nfree--;
        }
        b->used = 1;
        return heap.base + b->off;
    }
    return NULL;
}

/* Gives block i back, merged with free neighbours. */
static void heap_release(size_t i)
{
    heap.blocks[i].used = 0;
    heap.nfree++;
    if (i + 1 < heap.n && !heap.blocks[i + 1].used) {
        heap.blocks[i].size += heap.blocks[i + 1].size;
        memmove(&heap.blocks[i + 1], &heap.blocks[i + 2], (heap.n - i - 2) * sizeof *heap.blocks);
        heap.n--;
        heap.nfree--;
    }
    if (i > 0 && !heap.blocks[i - 1].used) {
        heap.blocks[i - 1].size += heap.blocks[i].size;
        memmove(&heap.blocks[i], &heap.blocks[i + 1], (heap.n - i - 1) * sizeof *heap.blocks);
        heap.n--;
        heap.nfree--;
    }
}

/* The used block that starts at p, or -1. */
static long heap_find(const void *p)
{
    size_t lo = 0, hi = heap.n, off;
    if (!heap.base || (const char *)p < heap.base || (const char *)p >= heap.base + heap.limit)
        return -1;
    off = (size_t)((const char *)p - heap.base);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (heap.blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < heap.n && heap.blocks[lo].off == off && heap.blocks[lo].used ? (long)lo : -1;
}

void *ws_malloc(size_t bytes)
{
    if (!ws.cur)
        return malloc(bytes);
    return device_malloc(bytes);
}

void ws_free(void *p)
{
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    long i;
    if (!ws.cur) {
        if (p && heap.base && (char *)p >= heap.base && (char *)p < heap.base + heap.limit) {
            fflush(stdout);
            fprintf(stderr, "warpsim: host code calls free() on memory a kernel's malloc "
                    "returned; only a kernel's free() gives it back (ignored)\n");
            return;
        }
        free(p);
        return;
    }
    if (!p)
        return;
    heap.used = 1;
    i = heap_find(p);
    if (i < 0) {
        char at[200];
        snprintf(at, sizeof at, "at %s", ws_where(pc));
        kernel_stop(ws.cur, "free() of a pointer that malloc in a kernel did not return "
                    "(or that was freed before)", at, 1);
    }
    heap_release((size_t)i);
}

/* The number of arguments a printf format names (CUDA's printf returns it). */
static int format_args(const char *fmt)
{
    int n = 0;
    for (; *fmt; fmt++)
        if (*fmt == '%') {
            if (fmt[1] == '%')
                fmt++;
            else
                n++;
        }
    return n;
}

int ws_printf(const char *fmt, ...)
{
    va_list ap;
    int n;
    if (!ws.cur) {
        va_start(ap, fmt);
        n = vprintf(fmt, ap);
        va_end(ap);
        return n;
    }
    printf_used = 1;
    if (!fmt)
        return -1;
    if (!printf_dropped) {
        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n >= 0 && printf_bytes + (size_t)n <= printf_limit) {
            printf_bytes += (size_t)n;
            va_start(ap, fmt);
            vprintf(fmt, ap);
            va_end(ap);
            return format_args(fmt);
        }
    }
    printf_dropped++;
    return format_args(fmt);
}

/* After each launch (and at the end, for one that did not end): printf's
 * calls left out, in one line. */
void ws_launch_done(void)
{
    if (printf_dropped) {
        fflush(stdout);
        fprintf(stderr, "warpsim: printf in kernel %s (launched at %s:%d) printed %zu bytes "
                "and left out %zu more call%s: a launch's output is bounded by "
                "cudaLimitPrintfFifoSize (%zu bytes; cudaDeviceSetLimit changes it)\n",
                ws.kernel, ws.kfile, ws.kline, printf_bytes, printf_dropped,
                printf_dropped == 1 ? "" : "s", printf_limit);
    }
    printf_bytes = printf_dropped = 0;
}
