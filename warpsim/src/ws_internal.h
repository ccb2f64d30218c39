/*
 * ws_internal.h - what warpsim's modules share, by layer from the bottom
 * (src/LAYERS; a file uses only what the files below it define, and calls
 * up only through ws_hooks, below):
 *
 *   settings.c the settings table, number parsing and the values (ws_cfg;
 *              the driver shares the table)
 *   image.c    the executable: load address, __shared__ variables, returns
 *   report.c   source lines, reports, faults held for the launch's end
 *   ctx.c      coroutines: one stack and one saved context per lane; the
 *              launch's recorded call; the run's state (ws) and ws_hooks
 *   sync.c     release and acquire through __threadfence and atomics
 *   shadow.c   device memory, shadow memory, races, uninitialized reads,
 *              invalid accesses; an access's scheduling point
 *   sched.c    blocks, lanes, the three scheduling models
 *   prims.c    warp primitives, __syncthreads, atomics, time
 *   stubs.c    the access hooks' stubs, which switch lanes
 *   tsan.c     the other __tsan_* hooks the compiler's instrumentation calls
 *   hang.c     hang and livelock diagnosis: who waits where for whom
 *   trace.c    the picture of one or two warps' run (--trace FILE.svg)
 *   runtime.c  the host runtime (cudaMalloc ...), the device API's runtime,
 *              reading the settings, faults, the summary, main
 *
 * warpsim's own sources are compiled without instrumentation; only the
 * lesson file calls the hooks.
 */
#ifndef WS_INTERNAL_H
#define WS_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include "warpsim.h"
#include "ws_settings.h"

/* Functions written in assembly inside a C file (ctx.c's switch, stubs.c's
 * access stubs): a symbol's name as the assembler spells it, and a global
 * function's start and end (Mach-O prefixes an underscore and has no .type
 * or .size). */
#if defined(__APPLE__)
#define SYM(name) "_" #name
#define FUNC_BEGIN(name) ".globl " SYM(name) "\n.p2align 4\n" SYM(name) ":\n"
#define FUNC_END(name)
#else
#define SYM(name) #name
#define FUNC_BEGIN(name) ".globl " #name "\n.type " #name ", @function\n" \
                         ".p2align 4\n" #name ":\n"
#define FUNC_END(name) ".size " #name ", .-" #name "\n"
#endif

#define WS_MAX_THREADS 1024
#define WS_MAX_WARPS (WS_MAX_THREADS / 32)
#define WS_MAX_FRAMES 64
#define WS_SHARED_LIMIT (48 * 1024)
#define WS_STEP_CYCLES 4          /* virtual cycles per scheduling step */
#define WS_RANDOM_WINDOW 32       /* random: lanes this close to the earliest may run */
#define WS_SPIN_FROM 64            /* steps without progress before spins are counted */
#define WS_LOOP_SEEN 512           /* steps of every 4096 whose pcs a livelock report shows */
#define WS_ITS_QUANTUM 20000      /* its: steps before a lane that never blocks yields */
#define WS_POISON32 0xdeadbeefu
#define WS_POISON64 0xdeadbeefdeadbeefULL
#define WS_SHARED_POISON_BYTE 0xa5

/* ---- settings (ws_settings.h, settings.c: their values, ws_cfg) ------- */

void ws_init(void);

/* ---- coroutines (ctx.c) --------------------------------------------- */

typedef struct ws_ctx {
    void *sp;
#if !defined(__x86_64__)
    void *uc;                     /* ucontext_t, where there is no assembly */
#endif
} ws_ctx;

void ws_ctx_prepare(ws_ctx *c, void *stack, size_t size, void (*entry)(void));
void ws_ctx_switch(ws_ctx *from, ws_ctx *to);
void ws_call_replay(void (*fn)(void));       /* the launch's recorded call, made again */
void *ws_stack_alloc(size_t size);

/*
 * The access hooks whose scheduling point switches lanes in an assembly
 * stub (ctx.c) rather than in C: X(hook, bytes, flags, code) makes
 * __tsan_HOOK(addr), which calls ws_enter_HOOK(addr, pc) and, when that
 * returns a switch and the lane later runs again, ws_after_HOOK(addr, pc)
 * (shadow.c, where code says how: `fixed`, the check compiled for this
 * size and kind; `any`, the general one).
 */
#define WS_STUB_HOOKS(X)                                                      \
    X(read1, 1, 0, fixed) X(read2, 2, 0, fixed) X(read4, 4, 0, fixed)          \
    X(read8, 8, 0, fixed) X(read16, 16, 0, any)                               \
    X(write1, 1, WS_ACC_WRITE, fixed) X(write2, 2, WS_ACC_WRITE, fixed)       \
    X(write4, 4, WS_ACC_WRITE, fixed) X(write8, 8, WS_ACC_WRITE, fixed)       \
    X(write16, 16, WS_ACC_WRITE, any)                                         \
    WS_STUB_SIZES(X, unaligned_read, 0)                                       \
    WS_STUB_SIZES(X, unaligned_write, WS_ACC_WRITE)                           \
    WS_STUB_SIZES(X, volatile_read, WS_ACC_VOLATILE)                          \
    WS_STUB_SIZES(X, volatile_write, WS_ACC_WRITE | WS_ACC_VOLATILE)          \
    WS_STUB_SIZES(X, unaligned_volatile_read, WS_ACC_VOLATILE)                \
    WS_STUB_SIZES(X, unaligned_volatile_write, WS_ACC_WRITE | WS_ACC_VOLATILE)
#define WS_STUB_SIZES(X, kind, flags)                                         \
    X(kind##1, 1, flags, any) X(kind##2, 2, flags, any)                       \
    X(kind##4, 4, flags, any) X(kind##8, 8, flags, any)                       \
    X(kind##16, 16, flags, any)

/* What ws_enter_* returns: the switch the stub makes, from the running
 * lane's context (the low half, in rax or x0) to another (the high half,
 * rdx or x1), or none (0): the access was checked. One 128-bit number
 * rather than a pair of pointers, so that the compiler passes a call's
 * result on as it is (a tail call) where a path hands an access over. */
typedef unsigned __int128 ws_hop;
#define WS_HOP(from, to) ((ws_hop)(uintptr_t)(from) | (ws_hop)(uintptr_t)(to) << 64)

/* ---- lanes and blocks (sched.c) ------------------------------------- */

enum ws_state { WS_READY, WS_RUNNING, WS_WAIT_WARP, WS_WAIT_BLOCK, WS_EXITED };

/* What a lane waits in: one row per kind, its enum name and the CUDA name
 * reports print (ws_kind_names). */
#define WS_KINDS(X)                                                           \
    X(WK_NONE, "nothing")                                                     \
    X(WK_SHFL_IDX, "__shfl_sync") X(WK_SHFL_UP, "__shfl_up_sync")             \
    X(WK_SHFL_DOWN, "__shfl_down_sync") X(WK_SHFL_XOR, "__shfl_xor_sync")     \
    X(WK_BALLOT, "__ballot_sync") X(WK_ANY, "__any_sync")                     \
    X(WK_ALL, "__all_sync") X(WK_UNI, "__uni_sync")                           \
    X(WK_MATCH_ANY, "__match_any_sync") X(WK_MATCH_ALL, "__match_all_sync")   \
    X(WK_RED_ADD, "__reduce_add_sync") X(WK_RED_MIN, "__reduce_min_sync")     \
    X(WK_RED_MAX, "__reduce_max_sync") X(WK_RED_AND, "__reduce_and_sync")     \
    X(WK_RED_OR, "__reduce_or_sync") X(WK_RED_XOR, "__reduce_xor_sync")       \
    X(WK_SYNCWARP, "__syncwarp") X(WK_SYNCTHREADS, "__syncthreads")

#define WS_KIND_ENUM(id, name) id,
enum ws_kind { WS_KINDS(WS_KIND_ENUM) WK_NKINDS };
#undef WS_KIND_ENUM
extern const char *const ws_kind_names[];

typedef struct ws_lane {
    /* What every scheduling point and access touches comes first, in the
     * first three cache lines, the first frames included (a step of
     * lockstep or random touches a different lane each time). */
    ws_ctx ctx;
    ws_coords coords;             /* threadIdx, blockIdx: what ws_self points at */
    int tid, warp, lane;          /* thread in block, warp in block, lane in warp */
    int state;
    uint64_t clock;               /* virtual time (its, random); lockstep: the warp's */
    unsigned key;                 /* tie-break among equal clocks (--order) */
    uint32_t quantum;             /* its: steps since the lane last yielded */

    /* Position: the call stack (return addresses, outermost first) and the
     * pc of the last scheduling point; frames[0..pos_depth) belong to it.
     * start_block clears every field but frames. */
    int depth, pos_depth;
    uintptr_t pc;

    uint32_t clock_polls;         /* clock64() calls since its last memory access */
    int queued;                   /* its and random: ready, with an entry to be picked */
    uint64_t steps;               /* scheduling points while the block progressed */
    uint64_t steps_next;          /* the next of them with something to do (below;
                                   * its: or where its quantum ends) */
    uintptr_t rd1, rd2;           /* the last two addresses it read */
    uint32_t acq;                 /* sync.c: what it acquired */
    uint32_t vclk;                /* vc[lane], its own entry, where every check reads it */
    uintptr_t frames[WS_MAX_FRAMES];

    /* The hang detector's, touched when the block has not progressed for
     * WS_SPIN_FROM steps, or in a lane's WS_LOOP_SEEN steps of 4096. */
    uint64_t spin_epoch;          /* ws.progress_step when the counts below began */
    uint32_t spin_steps;          /* scheduling points since the block last progressed,
                                   * from the WS_SPIN_FROM-th step of the block on */
    uintptr_t spin_lo, spin_hi;   /* the lowest and highest pc among them */
    uintptr_t loop_lo, loop_hi;   /* the pcs of its points in the last WS_LOOP_SEEN
                                   * steps of every 4096 and of those up to the
                                   * step limit (the latest such steps so far), */
    uintptr_t loop_plo, loop_phi; /* and in the ones before: the loop a livelock
                                   * report shows (0: none yet) */
    uint32_t last_rel;            /* sync.c: its own last release */
    uint32_t acq_last;            /* sync.c: the last release it read */
    int fenced;                   /* a __threadfence since its last release */

    /* The collective the lane waits in (or last waited in). */
    int kind, op, size, arg, width;
    unsigned mask;
    uint64_t val, result;
    int pred, pred_out;
    const char *file;
    int line;
    uintptr_t site;               /* pc of the call */
    uint64_t arrived;             /* clock when it arrived */
    uint64_t sites;               /* collective and barrier sites it called (a Bloom filter) */
    uint32_t exit_gen;            /* ws.gen when the lane exited */
    unsigned am_group;            /* __activemask: the group assigned to it, or 0 */

    uint32_t vc[32];              /* warp vector clock (__syncwarp, __syncthreads) */
} __attribute__((aligned(64))) ws_lane;  /* each lane starts a cache line */

typedef struct ws_warp {
    int base, n;                  /* first thread, lanes that exist */
    unsigned gone;                /* exited or never existing lanes */
    unsigned ready;               /* lanes in state WS_READY */
    uintptr_t last_site;          /* the last arrival's call, kind and mask: */
    int last_kind;                /* check_masks skips arrivals like it */
    unsigned last_mask;
    unsigned waiting;             /* lanes in state WS_WAIT_WARP (not beside
                                     ready: set_state's two updates stay two
                                     stores, which a later load can forward) */
    uint64_t clock;               /* lockstep */
    unsigned step_mask;           /* lockstep: the lanes of the current step */
    int uniform;                  /* lockstep: they all stopped at one position */
} ws_warp;

typedef struct ws_run {
    /* the launch */
    dim3 grid, block;
    int nthreads, nwarps;
    const char *kernel, *kfile;
    int kline;
    uint32_t launch_id, block_id, block_stamp;
    uint3 block_idx;
    /* the block */
    ws_lane *lanes;
    ws_warp warps[WS_MAX_WARPS];
    ws_lane *cur;
    int live;                     /* lanes not exited */
    int bar_waiting;              /* lanes in __syncthreads */
    uint32_t gen;                 /* __syncthreads completed in this block */
    ws_ctx sched;
    uint64_t steps;               /* steps less progress_step: since the block last progressed */
    int trace_warp;               /* the warp being drawn in this block, or -1 */
    uint64_t progress_step;       /* steps when the block last progressed */
    uint64_t real_step;           /* steps when it last progressed other than by
                                     completing a primitive (prims.c's repeats) */
    uint64_t fresh_step;          /* steps when a primitive last completed that
                                     had not completed so before */
    uint64_t repeat_step;         /* 1 + steps when a primitive last repeated */
    int frames_moved;             /* a lane called or left a function (tsan.c) */
    int its_fast;                 /* its, and no warp drawn: shadow.c's enter_its may */
    /* statistics */
    uint64_t accesses, total_steps, launches, blocks_run;
    double kernel_seconds;
} ws_run;

extern ws_run ws;

cudaError_t ws_sched_launch(void (*body)(void), dim3 grid, dim3 block, size_t shared_bytes,
                            const char *kernel, const char *file, int line);
void ws_point(uintptr_t pc);                 /* a scheduling point */
static inline void ws_progress(void)         /* the block did something */
{
    ws.progress_step = ws.real_step = ws.steps;
}
void ws_block(void);                         /* wait until released */
void ws_release(ws_lane *l, uint64_t when);  /* ready again at virtual time when */
void ws_set_state(ws_lane *l, int state);    /* keeps the warp's masks */
void ws_yield(void);
uint64_t ws_lane_clock(const ws_lane *l);
void ws_lane_sleep(ws_lane *l, uint64_t ns);
int ws_pos_cmp(const ws_lane *a, const ws_lane *b);
unsigned ws_lanes_at_my_position(const ws_lane *l);

/* ---- hangs (hang.c) ------------------------------------------------- */

enum { WS_HANG_DEADLOCK, WS_HANG_SPIN, WS_HANG_LIVELOCK, WS_HANG_REPEAT };
void ws_hang_install(void);                  /* sets ws_hooks.hang */

/* ---- primitives (prims.c) ------------------------------------------- */

void ws_prims_install(void);                 /* sets ws_hooks.recheck_* */

/* ---- memory (shadow.c) ---------------------------------------------- */

enum {
    WS_ACC_WRITE = 1, WS_ACC_ATOMIC = 2, WS_ACC_VOLATILE = 4, WS_ACC_RANGE = 8
};

extern uintptr_t ws_shared_lo, ws_shared_len, ws_arena_lo, ws_arena_len;
extern uintptr_t ws_shared_used;              /* ws_shared_len less the red zone */

static inline int ws_tracked(uintptr_t p)
{
    return p - ws_shared_lo < ws_shared_len || p - ws_arena_lo < ws_arena_len;
}

void *ws_zalloc(size_t bytes);
void ws_shadow_init(void);
void ws_shadow_block_start(void);
void ws_access(uintptr_t addr, size_t size, int flags, uintptr_t pc);
/* The halves of a stub hook's access (WS_STUB_HOOKS): ws_enter_* makes the
 * scheduling point and, when the lane goes on, checks the access;
 * ws_after_* checks it when the lane runs again after a switch. */
#define WS_STUB_HALVES(hook, bytes, flags, code)                              \
    ws_hop ws_enter_##hook##_sh(uintptr_t addr, uintptr_t pc);                \
    ws_hop ws_after_##hook##_sh(uintptr_t addr, uintptr_t pc);                \
    ws_hop ws_enter_##hook##_gl(uintptr_t addr, uintptr_t pc);                \
    ws_hop ws_after_##hook##_gl(uintptr_t addr, uintptr_t pc);
WS_STUB_HOOKS(WS_STUB_HALVES)
#undef WS_STUB_HALVES
void ws_check_access(uintptr_t addr, size_t size, int flags, uintptr_t pc);
void *ws_arena_alloc(size_t bytes, cudaError_t *err);
int ws_arena_free(void *p);
int ws_is_device(const void *p, size_t bytes);
int ws_alloc_of(uintptr_t addr, uintptr_t *start, size_t *size);

/* ---- the program's executable (image.c) ------------------------------ */

typedef struct ws_var { uintptr_t addr; size_t size; char name[64]; } ws_var;

void ws_image_init(void);
const char *ws_image_path(void);
uintptr_t ws_image_file_addr(uintptr_t pc);  /* the address addr2line wants */
extern uintptr_t ws_exe_base;
static inline uint32_t ws_pc_offset(uintptr_t pc)
{
    return (uint32_t)(pc - ws_exe_base);
}
uintptr_t ws_pc_from_offset(uint32_t off);
const ws_var *ws_image_vars(int *n);          /* __shared__ variables, by address */
const ws_var *ws_image_var_at(uintptr_t addr);
size_t ws_image_pad_before(uintptr_t addr);
uintptr_t ws_image_func_start(uintptr_t pc);
int ws_source_return_between(const char *path, int from, int to);

/* ---- order through atomics and fences (sync.c) --------------------- */

extern uint32_t ws_sync_count;
static inline uint32_t ws_sync_now(void)   /* releases made so far */
{
    return ws_sync_count;
}
void ws_sync_fence(ws_lane *l);
void ws_sync_atomic(ws_lane *l, uintptr_t addr, int wrote);
int ws_sync_ordered(uint32_t block, uint32_t tid, uint32_t since, const ws_lane *l);

/* ---- the picture (trace.c) ------------------------------------------ */

void ws_trace_install(void);                 /* sets ws_hooks.trace_* */
void ws_trace_write(void);

/* ---- reports (report.c) --------------------------------------------- */

enum ws_report_kind {
    WR_RACE, WR_HANG, WR_PRIM, WR_UNINIT, WR_MEM,
    WR_OTHER,                   /* failed assertions, traps, divisions by zero ... */
    WR_NOTE, WR_NKINDS
};
extern uint64_t ws_counts[WR_NKINDS];

int ws_report_once(int kind, uintptr_t a, uintptr_t b, uintptr_t c);
void ws_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ws_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ws_where(uintptr_t pc);          /* "file.cu:41" for a pc */
const char *ws_where_fl(const char *file, int line);
int ws_where_src(uintptr_t pc, char *path, size_t len, int *line);
const char *ws_lane_where(const ws_lane *l); /* sched.c: where a lane is (last point) */
const char *ws_mem_name(uintptr_t addr, size_t size, char *buf, size_t len); /* shadow.c */
const char *ws_ranges(unsigned mask, char *buf, size_t len);   /* "0-15, 17" */
const char *ws_who(const ws_lane *l, char *buf, size_t len); /* sched.c */
void ws_kernel_fault(const ws_lane *l, const char *what, const char *at)
    __attribute__((noreturn));               /* runtime.c: a lane failed */
void ws_report_init(void);
void ws_report_close(void);

/* ---- hooks: how a lower layer calls up -------------------------------- */

/*
 * warpsim's layers, from the bottom (tests/warpsim-layers.py holds the
 * sources to them, from the objects' symbol tables; src/LAYERS lists them):
 * settings and reports (settings.c, image.c, report.c), context switching
 * (ctx.c, which also holds the run's state, ws, and these hooks), order
 * through fences and atomics (sync.c), shadow memory (shadow.c),
 * scheduling (sched.c), the primitives and the instrumentation's entries
 * (prims.c, stubs.c, tsan.c), hang diagnosis and pictures (hang.c,
 * trace.c), the runtime (runtime.c; the driver, driver.c, is a program of
 * its own). A file calls only into files below it. Where a lower layer
 * must call up (an access's scheduling point, in shadow.c, runs the
 * model's part in sched.c; a scheduling point that finds no progress runs
 * hang diagnosis), it calls through a hook of ws_hooks, which the layer
 * above sets when runtime.c's ws_init starts the library (ws_*_install).
 * The inline functions below name the hooks as the functions were named.
 */
typedef ws_hop ws_check_fn(uintptr_t addr, uintptr_t pc);  /* returns 0 */
typedef struct ws_hooks_t {
    /* scheduling (sched.c), for shadow.c's scheduling points */
    ws_ctx *(*point_model)(ws_lane *l);      /* lockstep and random */
    ws_ctx *(*yield_to)(ws_lane *l);         /* ws_yield's switch, not made */
    ws_hop (*lockstep_hop)(ws_lane *l, uintptr_t addr, uintptr_t pc, ws_check_fn *check);
    ws_hop (*random_hop)(ws_lane *l, uintptr_t addr, uintptr_t pc, ws_check_fn *check);
    ws_hop (*its_hop)(ws_lane *l, uintptr_t addr, uintptr_t pc, ws_check_fn *check);
    void (*lane_fault)(ws_lane *l);          /* does not return */
    /* the primitives (prims.c), for sched.c */
    void (*recheck_warp)(int warp);          /* after a lane exited */
    void (*recheck_block)(void);
    /* hang diagnosis (hang.c), for every scheduling point */
    void (*hang)(int kind);                  /* does not return */
    /* the picture (trace.c) */
    void (*trace_block_start)(void);         /* sets ws.trace_warp */
    void (*trace_point)(const ws_lane *l, uintptr_t pc);
    void (*trace_arrive)(const ws_lane *l);  /* in a collective or __syncthreads */
    void (*trace_sleep)(const ws_lane *l, uint64_t ns);
    void (*trace_complete)(const ws_lane *l0, unsigned group, const signed char *src,
                           unsigned ballot); /* a collective of the traced warp */
    void (*trace_barrier)(const ws_lane *l0);   /* __syncthreads completes */
    void (*trace_race)(unsigned tid_a, unsigned block_a, uint32_t pc_a, int write_a,
                       unsigned tid_b, uint32_t pc_b, int write_b, const char *name);
    /* the end of a run (runtime.c), for hang.c and trace.c */
    void (*summary)(void);                   /* the summary, before an exit */
    void (*summary_channel_off)(void);       /* a run that is no grader's */
} ws_hooks_t;
extern ws_hooks_t ws_hooks;                  /* ctx.c */
void ws_sched_install(void);                 /* sets ws_hooks' scheduling part */

static inline ws_ctx *ws_point_model(ws_lane *l) { return ws_hooks.point_model(l); }
static inline ws_ctx *ws_yield_to(ws_lane *l) { return ws_hooks.yield_to(l); }
static inline __attribute__((noreturn)) void ws_lane_fault(ws_lane *l)
{
    ws_hooks.lane_fault(l);
    __builtin_unreachable();
}
static inline void ws_recheck_warp(int warp) { ws_hooks.recheck_warp(warp); }
static inline void ws_recheck_block(void) { ws_hooks.recheck_block(); }
static inline __attribute__((noreturn)) void ws_hang(int kind)
{
    ws_hooks.hang(kind);
    __builtin_unreachable();
}
static inline void ws_trace_block_start(void)
{
    if (ws_hooks.trace_block_start)
        ws_hooks.trace_block_start();
    else
        ws.trace_warp = -1;
}
/* (the rest are called only for the warp drawn, ws.trace_warp, which
 * trace_block_start set) */
static inline void ws_trace_point(const ws_lane *l, uintptr_t pc) { ws_hooks.trace_point(l, pc); }
static inline void ws_trace_arrive(const ws_lane *l) { ws_hooks.trace_arrive(l); }
static inline void ws_trace_sleep(const ws_lane *l, uint64_t ns) { ws_hooks.trace_sleep(l, ns); }
static inline void ws_trace_complete(const ws_lane *l0, unsigned group, const signed char *src,
                                     unsigned ballot)
{
    ws_hooks.trace_complete(l0, group, src, ballot);
}
static inline void ws_trace_barrier(const ws_lane *l0) { ws_hooks.trace_barrier(l0); }
static inline void ws_trace_race(unsigned tid_a, unsigned block_a, uint32_t pc_a, int write_a,
                                 unsigned tid_b, uint32_t pc_b, int write_b, const char *name)
{
    ws_hooks.trace_race(tid_a, block_a, pc_a, write_a, tid_b, pc_b, write_b, name);
}

/* ---- a scheduling point (sched.c's ws_point, inline for the hooks) ---- */

/* Widens the range [*lo, *hi] of pcs to hold pc. */
static inline void ws_widen(uintptr_t *lo, uintptr_t *hi, uintptr_t pc)
{
    if (pc < *lo)
        *lo = pc;
    if (pc > *hi)
        *hi = pc;
}

/* The bookkeeping of a scheduling point of the running lane l at pc (in
 * the lesson's code), past the picture's: the lane's position moves there,
 * the hang and livelock bounds count it. */
static inline void ws_point_book(ws_lane *l, uintptr_t pc)
{
    uint64_t idle;                /* steps since the block last progressed */
    idle = ++ws.steps - ws.progress_step;
    /* (Each branch stores what it decides and reads back nothing it has
     * just stored: a load of a field that a wider store has just written
     * stalls the processor.) */
    if (__builtin_expect(idle >= WS_SPIN_FROM, 0)) {
        if (l->spin_epoch != ws.progress_step || !l->spin_steps) {
            l->spin_epoch = ws.progress_step;
            l->spin_steps = 1;
            l->spin_lo = l->spin_hi = pc;
        } else if (++l->spin_steps == 64) { /* from here on, the loop it is in */
            l->spin_lo = l->spin_hi = pc;
        } else {
            ws_widen(&l->spin_lo, &l->spin_hi, pc);
        }
        if (__builtin_expect(idle > ws_cfg.spin_limit, 0))
            ws_hang(WS_HANG_SPIN);
    }
    /* Livelock: steps taken while the block keeps making progress (a lane
     * that only polls is the spin limit's business). Between the steps
     * that do something, one comparison with steps_next. */
    if (idle < 4096 && __builtin_expect(++l->steps >= l->steps_next, 0)) {
        uint64_t at = l->steps & 4095, last = ws_cfg.step_limit + 1 - WS_LOOP_SEEN;
        /* The loop it is in: the pcs of the last WS_LOOP_SEEN steps of
         * every 4096 and of those up to the step limit (the latest such
         * steps so far), and of the ones before. */
        if (at >= 4096 - WS_LOOP_SEEN || l->steps >= last) {
            if (at == 4096 - WS_LOOP_SEEN || l->steps == last) {
                l->loop_plo = l->loop_lo;
                l->loop_phi = l->loop_hi;
                l->loop_lo = l->loop_hi = pc;
            } else {
                ws_widen(&l->loop_lo, &l->loop_hi, pc);
            }
            l->steps_next = l->steps + 1;
        } else {
            l->steps_next = l->steps - at + 4096 - WS_LOOP_SEEN;
            if (l->steps_next > last)
                l->steps_next = last;
        }
        if (__builtin_expect(l->steps > ws_cfg.step_limit, 0))
            ws_hang(WS_HANG_LIVELOCK);
    }
}

/* its: brings l->steps_next down to where the lane's quantum ends (the
 * step before), so that shadow.c's enter_its, which adds one to both
 * steps and quantum, need not look at the quantum. After every point
 * under its that did not yield. */
static inline void ws_its_bound(ws_lane *l)
{
    uint64_t end = l->steps + (WS_ITS_QUANTUM - 1 - l->quantum);
    if (l->steps_next > end)
        l->steps_next = end;
}

/* A scheduling point of the running lane l at pc: the bookkeeping, and
 * the model may hand over to another lane. Returns the context to switch
 * to, or NULL when l goes on; the caller switches. */
static inline ws_ctx *ws_point_to(ws_lane *l, uintptr_t pc)
{
    l->pos_depth = l->depth < WS_MAX_FRAMES ? l->depth : WS_MAX_FRAMES;
    l->pc = pc;
    if (__builtin_expect(l->warp == ws.trace_warp, 0))
        ws_trace_point(l, pc);
    ws_point_book(l, pc);
    if (ws_cfg.model != WS_ITS)
        return ws_point_model(l);
    l->clock += WS_STEP_CYCLES;
    if (__builtin_expect(++l->quantum >= WS_ITS_QUANTUM, 0)) {
        l->quantum = 0;
        return ws_yield_to(l);
    }
    ws_its_bound(l);
    return NULL;
}

/* A scheduling point of the running lane at pc, switching where the
 * model says. */
static inline void ws_point_at(uintptr_t pc)
{
    ws_lane *l = ws.cur;
    ws_ctx *c = ws_point_to(l, pc);
    if (c)
        ws_ctx_switch(&l->ctx, c);
}

/* ---- w: the end of a run, the device API's runtime, two warps drawn ---- */
/* (runtime.c, prims.c, trace.c; this block is theirs)                      */

/* Ends the program with the summary, the summary channel's line and
 * status (or --error-exitcode N in its place when status is 0 and anything
 * was reported): for a module that stops the program after a report. */
void ws_end(int status) __attribute__((noreturn));
extern int ws_trace_failed;                  /* trace.c: the picture could not be made */
int ws_trace_check(void);                    /* trace.c: 0, or says why the picture
                                              * cannot be written (one line) */
void ws_trace_fork(void);                    /* trace.c: two warps, two runs */

/* ==== what the rules forbid: faults, wild pointers, device memory nothing
 * wrote, a __syncthreads skipped in a loop (ctx.c, shadow.c, sched.c,
 * report.c, image.c; runtime.c and prims.c call in) ==================== */

/* A lane's stack lies in a slot of its own, 1 << WS_STACK_SHIFT bytes
 * (1 MiB) aligned to its size, the slot's first page its guard (ctx.c):
 * an address in the slot of the stack pointer is the running lane's own
 * stack. */
#define WS_STACK_SHIFT 20
int ws_stack_index(uintptr_t addr);          /* ctx.c: the n-th stack allocated, or -1 */

/* An access hook's address that is neither shared nor device memory nor
 * the running lane's own stack (the stub's third way, ctx.c):
 * ws_untracked_HOOK(addr, pc) lets host code and a lane's reads of the
 * program's image and its own coordinates through, and a lane's writes to
 * the program's global variables; anything else is an invalid access, never
 * made (shadow.c). ws_check_access does the same for such an address. */
#define WS_UNTRACKED_DECL(hook, bytes, flags, code) \
    void ws_untracked_##hook(uintptr_t addr, uintptr_t pc);
WS_STUB_HOOKS(WS_UNTRACKED_DECL)
#undef WS_UNTRACKED_DECL

/* image.c: the program's loaded image [lo, hi), and whether [addr,
 * addr+size) lies in one of the program's own global variables (its
 * __device__ variables among them; not warpsim's). */
void ws_image_span(uintptr_t *lo, uintptr_t *hi);
int ws_image_own_data(uintptr_t addr, size_t size);
/* image.c: the first and last lines of the outermost loop statement
 * (for, while, do) of path that holds line; 0 when none does or the file
 * cannot be read. */
int ws_source_loop_around(const char *path, int line, int *first, int *last);

/* image.c: the parameters of the function `name` defined at `line` of
 * path: their names and how they are passed, 'i' (integer registers:
 * pointers, integers) or 'f' (vector registers: float, double), up to the
 * first of another kind; returns how many. ctx.c: the launched kernel's
 * address, and a word of what its launch passed: integer register i
 * (stack 0) or the stack's i-th 8-byte slot (stack 1); 0 when there is
 * none. WS_ARG_GPRS, WS_ARG_VECS: the integer and the vector registers
 * that carry arguments. shadow.c names device memory by the kernel
 * parameter that points into it. */
typedef struct ws_param { char name[32]; char cls; } ws_param;
int ws_source_params(const char *path, int line, const char *name, ws_param *p, int max);
uintptr_t ws_launched_kernel(void);
int ws_launch_word(int stack, int i, uint64_t *v);
#if defined(__x86_64__)
#define WS_ARG_GPRS 6
#else
#define WS_ARG_GPRS 8
#endif
#define WS_ARG_VECS 8

/*
 * Faults. A lane that divides by zero or makes an invalid access stops
 * there, the access never made (ws_lane_fault, sched.c). Its report is held
 * (ws_report_hold) and the launch goes on, quietly: only a race with an
 * access of the faulting block is still reported, before the held report,
 * since such a race may have caused the fault (a value read before the
 * other block wrote it). At the end of the launch, or at a hang, the held
 * report is printed and the program ends with the summary and a failed
 * kernel's status (ws_fault_finish, report.c).
 */
int ws_faulted(void);                        /* report.c: a lane of this launch faulted */
uint32_t ws_fault_block(void);               /* report.c: the block it belonged to */
void ws_fault_begin(uint32_t block);
void ws_report_hold(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ws_fault_say(void);                     /* report.c: the held report, once */
void ws_fault_finish(void) __attribute__((noreturn));

/* Device memory nothing wrote (shadow.c): cudaMalloc's memory holds no
 * value until cudaMemset, cudaMemcpy or a kernel writes it; runtime.c says
 * what the host wrote. */
void ws_shadow_host_wrote(const void *dst, size_t bytes);
/* [lo, lo+len) may be read by lanes although it is no device memory: a
 * launch's large arguments (runtime.c); len 0 for none. */
void ws_shadow_readable(uintptr_t lo, size_t len);
void ws_shadow_host_copied(void *dst, const void *src, size_t bytes);

/* sched.c: whether exited lane e, which called l0's __syncthreads before,
 * left the loop that holds it without calling it again (1), rather than
 * returning inside that loop (0): prims.c's barrier reports the first. */
int ws_lane_left_loop(const ws_lane *e, const ws_lane *l0);

#endif /* WS_INTERNAL_H */
