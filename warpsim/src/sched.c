/*
 * sched.c - blocks, lanes and the three scheduling models.
 *
 * A launch runs its blocks one after another (the race detector still
 * treats them as concurrent). The threads of a block are coroutines; each
 * runs until its next scheduling point (a memory access to shared or device
 * memory, a primitive, a barrier, __nanosleep, clock64) and the model says
 * who runs next:
 *
 *   lockstep  pre-Volta SIMT. Within a warp, the ready lanes at the lowest
 *             position (call stack outermost first, then pc) advance one
 *             step together, in lane order; the others wait. With code laid
 *             out in source order this is the reconvergence stack of old
 *             GPUs: a branch's lanes run first, the warp reconverges after
 *             it, and a loop runs until its last lane leaves. Among warps,
 *             the one with the lowest virtual clock steps next. The lanes
 *             of a step stay READY while they run (ws.cur is the one
 *             running); when they all stopped at one pc and called or left
 *             no function, the warp's next step needs no comparison of
 *             positions.
 *   its       independent thread scheduling, adversarial: a lane runs until
 *             it blocks, sleeps or exits (or WS_ITS_QUANTUM steps pass), then
 *             the ready lane with the lowest virtual clock runs, ties broken
 *             by --order (forward: lowest thread first; reverse; alternate:
 *             even warps forward, odd warps reverse).
 *   random    at every scheduling point a random lane among those whose
 *             virtual clock is within WS_RANDOM_WINDOW of the earliest.
 *
 * A lane that faults (sched_lane_fault) leaves its block as if it had exited,
 * and the first fault of a launch ends the program when the launch ends.
 *
 * Virtual time: a step costs WS_STEP_CYCLES; __nanosleep(ns) adds ns (1
 * cycle = 1 ns), so a sleeping lane runs after the others have gone ahead;
 * under lockstep the whole warp sleeps, which changes no order. clock64()
 * reads this clock, so in-kernel watchdogs work.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ws_internal.h"

static ws_ctx *sched_yield_to(ws_lane *l);
static __attribute__((noreturn)) void sched_lane_fault(ws_lane *l);

ws_coords *ws_self;
static ws_coords host_coords;
dim3 ws_block_dim, ws_grid_dim;

static void (*body_fn)(void);
static void *stacks[WS_MAX_THREADS];
static const size_t stack_size = (size_t)1 << WS_STACK_SHIFT;  /* a slot, its guard page first */

/* ---- ready lanes --------------------------------------------------- */

/* its keeps its ready lanes in a sorted queue: an entry is one 128-bit
 * number, the lane's clock in the high half, its key and thread below:
 * keys are distinct, so comparing two entries as numbers orders them by
 * (clock, key), and sorting touches no lane. */
typedef unsigned __int128 heap_entry;

/* random keeps its ready lanes in no order: rq_clock[i] and rq_tid[i],
 * i < rq_n, the clock and thread of each (a lane's clock does not change
 * while it waits there). A pick draws a place; a lane leaves by the last
 * entry taking its place. rq_min is the least clock and rq_min_n the
 * number of entries that have it; rq_min_n 0 means it is to be counted
 * again (the lanes that had it all left). */
static uint64_t rq_clock[WS_MAX_THREADS];
static uint16_t rq_tid[WS_MAX_THREADS];
static const char *rq_sp[WS_MAX_THREADS];  /* where the lane's stack was when it last stopped */
static int rq_n;
static uint64_t rq_min;
static int rq_min_n;
static uint64_t rq_ver;         /* changes of rq so far */

/* its: the ready lanes' entries in increasing order, queue[q_lo..q_hi), in
 * the middle third of the buffer when it last was empty. Taking the first
 * is one step, and a lane that arrives later than all the others (a
 * barrier releases its lanes in order) goes to the end with one
 * comparison; a lane that arrives in between moves the shorter side. */
static heap_entry queue[3 * WS_MAX_THREADS];
static int q_lo = WS_MAX_THREADS, q_hi = WS_MAX_THREADS;

static inline heap_entry entry_of(const ws_lane *l)
{
    return (heap_entry)l->clock << 64 | (heap_entry)((uint64_t)l->key << 32 | (uint32_t)l->tid);
}

static inline int entry_tid(heap_entry e)
{
    return (int)(uint32_t)e;
}

/* its: puts e in its place in the queue (out of line: random's heap_push
 * stays small). */
static __attribute__((noinline)) void queue_insert(heap_entry e)
{
    int lo, hi;
    if (q_lo == q_hi)
        q_lo = q_hi = WS_MAX_THREADS;
    if (q_hi == 3 * WS_MAX_THREADS) {   /* (it moved right, one lane at a time) */
        memmove(&queue[WS_MAX_THREADS], &queue[q_lo], (size_t)(q_hi - q_lo) * sizeof *queue);
        q_hi -= q_lo - WS_MAX_THREADS;
        q_lo = WS_MAX_THREADS;
    }
    lo = q_lo;
    hi = q_hi;
    if (lo == hi || !(e < queue[hi - 1])) {
        queue[q_hi++] = e;              /* after all the others */
        return;
    }
    while (lo < hi) {                   /* the first entry above e */
        int mid = (lo + hi) / 2;
        if (queue[mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo - q_lo < q_hi - lo && q_lo > 0) {
        memmove(&queue[q_lo - 1], &queue[q_lo], (size_t)(lo - q_lo) * sizeof *queue);
        q_lo--;
        queue[lo - 1] = e;
    } else {
        memmove(&queue[lo + 1], &queue[lo], (size_t)(q_hi - lo) * sizeof *queue);
        q_hi++;
        queue[lo] = e;
    }
}

/* its: takes the first lane of the queue, or NULL. */
static __attribute__((noinline)) ws_lane *queue_pop(void)
{
    int t;
    if (q_lo == q_hi)
        return NULL;
    t = entry_tid(queue[q_lo++]);
    ws.lanes[t].queued = 0;
    return &ws.lanes[t];
}

/* random: adds l's entry. */
static inline __attribute__((always_inline)) void rq_append(const ws_lane *l)
{
    rq_ver++;
    rq_clock[rq_n] = l->clock;
    rq_sp[rq_n] = l->ctx.sp;
    rq_tid[rq_n++] = (uint16_t)l->tid;
    if (rq_min_n && l->clock <= rq_min) {
        rq_min_n = l->clock == rq_min ? rq_min_n + 1 : 1;
        rq_min = l->clock;
    } else if (rq_n == 1) {
        rq_min = l->clock;
        rq_min_n = 1;
    }
}

/* Makes l ready to be picked (its and random); a lane that is already
 * is left where it is. */
static inline __attribute__((always_inline)) void heap_push(ws_lane *l)
{
    if (l->queued)
        return;
    l->queued = 1;
    if (ws_cfg.model == WS_ITS) {
        queue_insert(entry_of(l));
        return;
    }
    rq_append(l);
}

/* random: makes l, which is running, ready to be picked. */
static inline __attribute__((always_inline)) void rq_push(ws_lane *l)
{
    l->queued = 1;
    rq_append(l);
}

/* random: removes the entry at place i. */
static inline __attribute__((always_inline)) void rq_remove_at(int i)
{
    rq_ver++;
    ws.lanes[rq_tid[i]].queued = 0;
    if (rq_min_n && rq_clock[i] == rq_min)
        rq_min_n--;                 /* (0: to be counted again) */
    rq_n--;
    rq_clock[i] = rq_clock[rq_n];   /* the last entry fills the hole */
    rq_sp[i] = rq_sp[rq_n];
    rq_tid[i] = rq_tid[rq_n];
}

/* random: finds the least clock of the ready lanes again, and how many
 * have it (rq_n > 0). */
static __attribute__((noinline)) void rq_recount(void)
{
    uint64_t m = rq_clock[0];
    int i, k = 0;
    for (i = 1; i < rq_n; i++)
        m = rq_clock[i] < m ? rq_clock[i] : m;
    for (i = 0; i < rq_n; i++)
        k += rq_clock[i] == m;
    rq_min = m;
    rq_min_n = k;
}

/* random: the least clock of the ready lanes (rq_n > 0). */
static inline uint64_t rq_least(void)
{
    if (__builtin_expect(!rq_min_n, 0))
        rq_recount();
    return rq_min;
}

/* random: the first place whose lane has the least clock. */
static __attribute__((noinline)) int rq_first_least(void)
{
    uint64_t m = rq_least();
    int i = 0;
    while (rq_clock[i] != m)
        i++;
    return i;
}

static uint64_t rng_state = 1;

/* The next number of the sequence at *state. */
static inline uint64_t rng(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* random: draws a place among rq's (and, with self, the place rq_n of a
 * lane at self_clock) whose lane's clock is within WS_RANDOM_WINDOW of
 * the least, up to 8 times, else takes the earliest lane. The numbers
 * come from *state. Returns the place (rq_n > 0). */
static inline __attribute__((always_inline)) int
rq_draw(int self, uint64_t self_clock, uint64_t *state)
{
    uint64_t lo = rq_least(), places = (uint64_t)rq_n + (self != 0);
    int tries;
    if (self && self_clock < lo)
        lo = self_clock;
    for (tries = 0; tries < 8; tries++) {
        uint64_t i = (uint64_t)(((unsigned __int128)rng(state) * places) >> 64);
        uint64_t c = i == (uint64_t)rq_n ? self_clock : rq_clock[i];
        if (c <= lo + WS_RANDOM_WINDOW)
            return (int)i;
    }
    if (self && self_clock <= rq_min)
        return rq_n;
    return rq_first_least();
}

/* Takes the next ready lane (its: the earliest; random: a draw), or
 * NULL. */
static ws_lane *heap_pop(void)
{
    ws_lane *l;
    int i;
    if (ws_cfg.model == WS_ITS)
        return queue_pop();
    if (rq_n == 0)
        return NULL;
    i = rq_draw(0, 0, &rng_state);
    l = &ws.lanes[rq_tid[i]];
    rq_remove_at(i);
    return l;
}

/* Marks a lane ready or not in its warp's ready mask. */
static void set_state(ws_lane *l, int state)
{
    ws_warp *w = &ws.warps[l->warp];
    l->state = state;
    if (state == WS_READY)
        w->ready |= 1u << l->lane;
    else
        w->ready &= ~(1u << l->lane);
    if (state == WS_WAIT_WARP)
        w->waiting |= 1u << l->lane;
    else
        w->waiting &= ~(1u << l->lane);
}

void ws_set_state(ws_lane *l, int state)
{
    set_state(l, state);
}

/* set_state between READY and RUNNING (its and random), where the lane
 * waits neither before nor after. Only the state changes: the warp's
 * ready mask is lockstep's alone (lockstep_step reads it), and lockstep
 * keeps the lanes of a step READY while they run. */
static inline void set_running(ws_lane *l, int running)
{
    l->state = running ? WS_RUNNING : WS_READY;
}

uint64_t ws_lane_clock(const ws_lane *l)
{
    return ws_cfg.model == WS_LOCKSTEP ? ws.warps[l->warp].clock : l->clock;
}

/* ---- positions ----------------------------------------------------- */

/*
 * Compares the positions of two lanes: <0 when a is behind b (would run
 * first under lockstep), 0 when they are at the same point, >0 when ahead.
 */
static inline int pos_cmp(const ws_lane *a, const ws_lane *b)
{
    int n = a->pos_depth < b->pos_depth ? a->pos_depth : b->pos_depth;
    int i;
    uintptr_t xa, xb;
    if (a->pos_depth == b->pos_depth) {     /* (the common case, shorter) */
        for (i = 0; i < n; i++)
            if (a->frames[i] != b->frames[i])
                return a->frames[i] < b->frames[i] ? -1 : 1;
        return a->pc == b->pc ? 0 : a->pc < b->pc ? -1 : 1;
    }
    for (i = 0; i < n; i++)
        if (a->frames[i] != b->frames[i])
            return a->frames[i] < b->frames[i] ? -1 : 1;
    xa = a->pos_depth > n ? a->frames[n] : a->pc;
    xb = b->pos_depth > n ? b->frames[n] : b->pc;
    if (xa != xb)
        return xa < xb ? -1 : 1;
    if (a->pos_depth != b->pos_depth)       /* still inside the call: behind */
        return a->pos_depth > b->pos_depth ? -1 : 1;
    return 0;
}

int ws_pos_cmp(const ws_lane *a, const ws_lane *b)
{
    return pos_cmp(a, b);
}

/* Lanes of l's warp that stand where l stands and could run with it. */
unsigned ws_lanes_at_my_position(const ws_lane *l)
{
    const ws_warp *w = &ws.warps[l->warp];
    unsigned m = 1u << l->lane;
    int i;
    if (ws_cfg.model == WS_LOCKSTEP)
        return w->step_mask | m;
    for (i = 0; i < w->n; i++) {
        const ws_lane *o = &ws.lanes[w->base + i];
        if (o != l && (o->state == WS_READY || o->state == WS_RUNNING) &&
            ws_pos_cmp(o, l) == 0)
            m |= 1u << i;
    }
    return m;
}

/* ---- switching ----------------------------------------------------- */

/*
 * Control passes from lane to lane directly, without a round trip through
 * the scheduler's context: the lane that stops picks the next one exactly
 * as the scheduler would (the next lane of the lockstep step; the
 * earliest ready lane under its, the one random draws) and switches to it. Only
 * when there is none (a lockstep step is over, or no lane is ready) does
 * control go back to the scheduler (run_block).
 */
static unsigned step_left;        /* lockstep: lanes of the step not yet run */

static int step_base;             /* lockstep: the step's warp's first thread */
static uint64_t step_sleep;       /* lockstep: the longest sleep of the step */
static uintptr_t step_pc_or, step_pc_and; /* lockstep: the pcs its lanes stopped at */

/* What the scheduler does for a lane of its or random that gave control
 * back. */
static inline void lane_stopped(ws_lane *l)
{
    if (l->state == WS_RUNNING) {
        set_running(l, 0);
        heap_push(l);
    }
}

/* Asks for the cache lines that a lane's next step touches first, its hot
 * fields, before it runs. */
static inline void prefetch_lane(const ws_lane *l)
{
    __builtin_prefetch(l, 1);
    __builtin_prefetch((const char *)l + 64, 1);
    __builtin_prefetch((const char *)l + 128, 1);
}

/* Asks for the top of a lane's stack, which the switch to it pops, and
 * the frames its return to the hook's check pops next. */
static inline void prefetch_stack(const ws_lane *l)
{
    __builtin_prefetch(l->ctx.sp);
    __builtin_prefetch((const char *)l->ctx.sp + 64);
    __builtin_prefetch((const char *)l->ctx.sp + 128);
    __builtin_prefetch((const char *)l->ctx.sp + 192);
}

/* The same from where the stack was when the lane last stopped, which
 * random keeps beside the lane's clock (a lane that stops again where it
 * stopped before has its stack where it had it): the lines the switch
 * pops and, below them, those that the check's calls write. */
static inline void prefetch_sp(const char *sp)
{
    __builtin_prefetch(sp - 128, 1);
    __builtin_prefetch(sp - 64, 1);
    __builtin_prefetch(sp);
    __builtin_prefetch(sp + 64);
}

/* The lane to run next, or NULL when control goes back to the scheduler. */
static inline ws_lane *lockstep_next(void)
{
    ws_lane *n;
    while (step_left) {
        n = &ws.lanes[step_base + __builtin_ctz(step_left)];
        step_left &= step_left - 1;
        if (n->state == WS_READY) {
            prefetch_stack(n);
            return n;
        }
        step_pc_and = 0;            /* a lane of the step stays behind */
        step_pc_or = ~(uintptr_t)0;
    }
    return NULL;
}

/* its and random: the lane to run next, or NULL. */
static inline ws_lane *next_lane(void)
{
    if (ws.live <= 0)
        return NULL;
    return heap_pop();
}

static inline void lane_start(ws_lane *l)
{
    set_running(l, 1);
    ws.cur = l;
    ws_self = &l->coords;
}

/* The end of a scheduling point: the running lane l goes on (n == l), or
 * hands over to n, or, with no lane ready (n NULL), to the scheduler.
 * Returns the context to switch to (n's or the scheduler's), NULL when l
 * goes on; the caller switches. */
static inline __attribute__((always_inline)) ws_ctx *hand_over(ws_lane *l, ws_lane *n)
{
    if (n == l) {
        lane_start(l);
        return NULL;
    }
    if (n) {
        lane_start(n);
        return &n->ctx;
    }
    ws.cur = NULL;
    ws_self = &host_coords;
    return &ws.sched;
}

/* ws_yield under lockstep: the lane stops (its state says whether it
 * waits), the next lane of the step starts. Returns the context to switch
 * to: that lane's, or the scheduler's at the end of the step. */
static inline __attribute__((always_inline)) ws_ctx *lockstep_yield(ws_lane *l)
{
    ws_lane *n;
    step_pc_or |= l->pc;
    step_pc_and &= l->pc;
    n = lockstep_next();
    if (!n) {
        ws.cur = NULL;
        ws_self = &host_coords;
        return &ws.sched;
    }
    ws.cur = n;
    ws_self = &n->coords;
    return &n->ctx;
}

/* ws_yield for its and random (l: the running lane); returns the context
 * to switch to, as hand_over. */
static inline __attribute__((always_inline)) ws_ctx *heap_yield(ws_lane *l)
{
    lane_stopped(l);
    return hand_over(l, next_lane());
}

static ws_ctx *sched_yield_to(ws_lane *l)
{
    if (ws_cfg.model == WS_LOCKSTEP)
        return lockstep_yield(l);
    return heap_yield(l);
}

void ws_yield(void)
{
    ws_lane *l = ws.cur;
    ws_ctx *c = sched_yield_to(l);
    if (c)
        ws_ctx_switch(&l->ctx, c);
}

/* Called by a lane that set its state to a wait: returns once released. */
void ws_block(void)
{
    ws_lane *l = ws.cur;
    ws.warps[l->warp].ready &= ~(1u << l->lane);
    ws_yield();
}

void ws_release(ws_lane *l, uint64_t when)
{
    set_state(l, WS_READY);
    if (ws_cfg.model != WS_LOCKSTEP) {
        if (l->clock < when)
            l->clock = when;
        heap_push(l);
    }
}

void ws_lane_sleep(ws_lane *l, uint64_t ns)
{
    if (ws_cfg.model != WS_LOCKSTEP)
        l->clock += ns;
    else if (step_sleep < ns)
        step_sleep = ns;
}

/* random: the draw of a lane's next scheduling point, made when the lane
 * was picked, so that the lane it names can be asked for a step ahead. It
 * stands when nothing it was drawn from changed: the lane is at the clock
 * it was expected at, the ready lanes are those of then (rq_ver counts
 * their changes), the random numbers have not moved on. */
static struct {
    const ws_lane *self;
    uint64_t clock, ver, rng_from, rng_to;
    int place;
} plan;

/* random: at a scheduling point of l, a random ready lane whose clock is
 * within WS_RANDOM_WINDOW of the earliest runs next (l itself, maybe).
 * Returns the context to switch to, as hand_over. */
static inline __attribute__((always_inline)) ws_ctx *random_point(ws_lane *l)
{
    ws_lane *c;
    uint64_t clock, st;
    int i;
    l->clock += WS_STEP_CYCLES;
    if (rq_n == 0)
        return NULL;
    if (plan.self == l && plan.clock == l->clock && plan.ver == rq_ver &&
        plan.rng_from == rng_state) {
        i = plan.place;
        rng_state = plan.rng_to;
    } else {
        i = rq_draw(1, l->clock, &rng_state);
        if (i < rq_n) {             /* (while the ready lanes change) */
            prefetch_lane(&ws.lanes[rq_tid[i]]);
            prefetch_sp(rq_sp[i]);
        }
    }
    plan.self = NULL;
    if (i == rq_n)
        return NULL;
    clock = rq_clock[i];
    c = &ws.lanes[rq_tid[i]];
    rq_remove_at(i);
    set_running(l, 0);
    rq_push(l);
    /* c's next point, drawn now: the lane it picks is asked for while c
     * runs (its hot fields and the top of its stack). */
    st = rng_state;
    i = rq_draw(1, clock + WS_STEP_CYCLES, &st);
    plan.self = c;
    plan.clock = clock + WS_STEP_CYCLES;
    plan.ver = rq_ver;
    plan.rng_from = rng_state;
    plan.rng_to = st;
    plan.place = i;
    if (i < rq_n) {
        prefetch_lane(&ws.lanes[rq_tid[i]]);
        prefetch_sp(rq_sp[i]);
    }
    lane_start(c);
    return &c->ctx;
}

/* The model's part of a scheduling point, under lockstep and random (its
 * is ws_point_to's own): the context to switch to, or NULL. */
static ws_ctx *sched_point_model(ws_lane *l)
{
    if (ws_cfg.model == WS_LOCKSTEP)
        return lockstep_yield(l);
    return random_point(l);
}

/* The model's part of a stub hook's scheduling point, past ws_point_book,
 * one function for each model (its: only where the lane's quantum is
 * over): the switch the stub makes, or none, when check(addr, pc) checks
 * the access. The hook's path hands over to it as its last call, and it
 * hands over to check as its own, so that nothing is kept across calls
 * (under lockstep, there are none). */
static ws_hop sched_lockstep_hop(ws_lane *l, uintptr_t addr, uintptr_t pc, ws_check_fn *check)
{
    ws_ctx *to = lockstep_yield(l);
    if (to)
        return WS_HOP(&l->ctx, to);
    return check(addr, pc);
}

static ws_hop sched_random_hop(ws_lane *l, uintptr_t addr, uintptr_t pc, ws_check_fn *check)
{
    ws_ctx *to = random_point(l);
    if (to)
        return WS_HOP(&l->ctx, to);
    return check(addr, pc);
}

static ws_hop sched_its_hop(ws_lane *l, uintptr_t addr, uintptr_t pc, ws_check_fn *check)
{
    ws_ctx *to;
    l->quantum = 0;
    to = sched_yield_to(l);
    if (to)
        return WS_HOP(&l->ctx, to);
    return check(addr, pc);
}

void ws_point(uintptr_t pc)
{
    ws_point_at(pc);
}

/* ---- lanes --------------------------------------------------------- */

/* Lane l leaves the block (gen: the exit_gen it keeps) and never runs
 * again. */
static __attribute__((noreturn)) void lane_exit(ws_lane *l, uint32_t gen)
{
    ws_warp *w = &ws.warps[l->warp];
    set_state(l, WS_EXITED);
    l->exit_gen = gen;
    w->gone |= 1u << l->lane;
    ws.live--;
    ws_progress();
    if (ws.live > 0) {
        ws_recheck_warp(l->warp);
        ws_recheck_block();
    }
    for (;;)
        ws_yield();
}

static void lane_entry(void)
{
    ws_lane *l = ws.cur;
    body_fn();
    lane_exit(l, ws.gen);
}

/*
 * The running lane l divided by zero or made an invalid access (its report
 * is held, report.c): it stops here, the access never made, and leaves the
 * block as if it had exited, except that no collective or __syncthreads
 * blames it for not arriving (prims.c's went_past takes a lane that called
 * every site as one that exited after them, and a barrier looks only at
 * lanes whose exit_gen is the block's generation). The first fault of the
 * launch makes the rest of it quiet (report.c).
 */
static void sched_lane_fault(ws_lane *l)
{
    if (!ws_faulted())
        ws_fault_begin(ws.block_id);
    l->sites = ~0ULL;
    lane_exit(l, ws.gen ^ 0x80000000u);
}

/* Runs l, and the lanes it hands control to, until control comes back
 * (under lockstep, the step's lanes run as READY). */
static void run_lane(ws_lane *l)
{
    if (ws_cfg.model != WS_LOCKSTEP)
        set_running(l, 1);
    ws.cur = l;
    ws_self = &l->coords;
    ws_ctx_switch(&ws.sched, &l->ctx);
}

/* lockstep: one step of the warp with the lowest clock; 0 if none can. */
static int lockstep_step(void)
{
    int i, best = -1;
    ws_warp *w;
    ws_lane *min = NULL;
    unsigned group = 0;
    uint64_t sleep = 0;
    for (i = 0; i < ws.nwarps; i++)
        if (ws.warps[i].ready && (best < 0 || ws.warps[i].clock < ws.warps[best].clock))
            best = i;
    if (best < 0)
        return 0;
    w = &ws.warps[best];
    if (w->uniform && !(w->ready & ~w->step_mask)) {
        group = w->ready;           /* all at one position, as they stopped */
    } else {
        for (i = 0; i < w->n; i++) {
            ws_lane *l = &ws.lanes[w->base + i];
            int c;
            if (!(w->ready & (1u << i)))
                continue;
            c = min ? pos_cmp(l, min) : -1;
            if (c < 0) {
                min = l;
                group = 1u << i;
            } else if (c == 0) {
                group |= 1u << i;
            }
        }
    }
    w->step_mask = group;
    step_left = group;
    step_base = w->base;
    step_sleep = 0;
    step_pc_or = 0;
    step_pc_and = ~(uintptr_t)0;
    ws.frames_moved = 0;
    min = lockstep_next();          /* the step's lanes run in lane order */
    if (min)
        run_lane(min);
    /* The lanes that ran stopped at one position when they stopped at one
     * pc and called or left no function on the way (their call stacks
     * were one). */
    w->uniform = step_pc_or == step_pc_and && !ws.frames_moved;
    sleep = step_sleep;
    w->clock += WS_STEP_CYCLES + sleep;
    /* Collectives and barriers that the step's lanes reached complete now. */
    if (group & ~w->ready & ~w->gone) {
        ws_recheck_warp(best);
        ws_recheck_block();
    }
    return 1;
}

static void run_block(void)
{
    while (ws.live > 0) {
        ws_lane *n;
        if (ws_cfg.model == WS_LOCKSTEP) {
            if (!lockstep_step())
                ws_hang(WS_HANG_DEADLOCK);
            continue;
        }
        n = heap_pop();
        if (!n)
            ws_hang(WS_HANG_DEADLOCK);
        run_lane(n);
    }
}

static unsigned order_key(int tid, int nthreads)
{
    int warp = tid / 32, lane = tid % 32;
    switch (ws_cfg.order) {
    case WS_REVERSE:
        return (unsigned)(nthreads - 1 - tid);
    case WS_ALTERNATE:
        return (unsigned)(warp * 32 + (warp & 1 ? 31 - lane : lane));
    default:
        return (unsigned)tid;
    }
}

static void start_block(void)
{
    int t;
    rq_n = 0;
    rq_min_n = 0;
    rq_ver++;
    plan.self = NULL;
    q_lo = q_hi;
    ws.live = ws.nthreads;
    ws.bar_waiting = 0;
    ws.gen = 0;
    ws.progress_step = ws.real_step = ws.fresh_step = ws.steps;
    ws.repeat_step = 0;
    for (t = 0; t < ws.nwarps; t++) {
        ws_warp *w = &ws.warps[t];
        w->base = t * 32;
        w->n = ws.nthreads - w->base < 32 ? ws.nthreads - w->base : 32;
        w->gone = w->n == 32 ? 0 : ~((1u << w->n) - 1);
        w->ready = 0;
        w->waiting = 0;
        w->last_site = 0;
        w->clock = 0;
        w->step_mask = 0;
        w->uniform = 0;
    }
    for (t = 0; t < ws.nthreads; t++) {
        ws_lane *l = &ws.lanes[t];
        unsigned bx = ws.block.x, by = ws.block.y;
        ws_ctx keep = l->ctx;             /* the ucontext fallback reuses its buffer */
        memset(l, 0, offsetof(ws_lane, frames));
        memset((char *)l + offsetof(ws_lane, frames) + sizeof l->frames, 0,
               sizeof *l - offsetof(ws_lane, frames) - sizeof l->frames);
        l->ctx = keep;
        l->coords.thread_idx.x = (unsigned)t % bx;
        l->coords.thread_idx.y = ((unsigned)t / bx) % by;
        l->coords.thread_idx.z = (unsigned)t / (bx * by);
        l->coords.block_idx = ws.block_idx;
        l->tid = t;
        l->warp = t / 32;
        l->lane = t % 32;
        l->key = order_key(t, ws.nthreads);
        l->vc[l->lane] = 1;
        l->vclk = 1;
        if (!stacks[t])
            stacks[t] = ws_stack_alloc(stack_size);     /* the t-th stack (ws_stack_index) */
        /* Each stack's top at its own offset within its slot, so that the
         * lanes' top lines spread over the cache sets and their top pages
         * over the TLB's sets: the line within a page, and the page among
         * 128 (the slots are aligned alike). With 16 pages in 512 KiB
         * slots, every model ran 4 to 6% slower (tests/bench, 10 runs of
         * each build in turn); the stack left is 508 KiB at the least. */
        ws_ctx_prepare(&l->ctx, stacks[t],
                       stack_size - (size_t)(t % 64) * 64 - (size_t)(t % 128) * 4096, lane_entry);
        set_state(l, WS_READY);
        if (ws_cfg.model != WS_LOCKSTEP)
            heap_push(l);
    }
    ws.block_stamp++;
    ws_shadow_block_start();
    ws_trace_block_start();
    ws.its_fast = ws_cfg.model == WS_ITS && ws.trace_warp < 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs a launch (runtime.c's ws_launch, after ws_init); returns
 * cudaSuccess, or cudaErrorInvalidConfiguration for a grid or block CUDA
 * refuses. Exits with status 2 for what warpsim does not run. */
cudaError_t ws_sched_launch(void (*body)(void), dim3 grid, dim3 block, size_t shared_bytes,
                            const char *kernel, const char *file, int line)
{
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    unsigned bx, by, bz;
    double t0;
    const char *slash = strrchr(file, '/');
    file = slash ? slash + 1 : file;

    if (!ws_self)
        ws_self = &host_coords;
    if (threads > WS_MAX_THREADS) {
        fprintf(stderr, "warpsim: %s launched at %s:%d with %llu threads per block; "
                "a block may have at most %d\n", kernel, file, line, threads,
                WS_MAX_THREADS);
        exit(2);
    }
    if (shared_bytes > 0) {
        fprintf(stderr, "warpsim: %s launched at %s:%d asks for %zu bytes of dynamic "
                "shared memory, which warpsim does not support: declare shared "
                "arrays with a constant size\n", kernel, file, line, shared_bytes);
        exit(2);
    }
    if (ws_shared_used > WS_SHARED_LIMIT) {
        fprintf(stderr, "warpsim: %s launched at %s:%d: the program's __shared__ "
                "arrays take %zu bytes, more than the %d a block may have\n",
                kernel, file, line, (size_t)ws_shared_used, WS_SHARED_LIMIT);
        exit(2);
    }
    if (threads == 0 || blocks == 0 || block.z > 64 || grid.y > 65535 ||
        grid.z > 65535 || grid.x > 0x7fffffffu) {
        return cudaErrorInvalidConfiguration;
    }

    body_fn = body;
    ws.grid = grid;
    ws.block = block;
    ws_grid_dim = grid;
    ws_block_dim = block;
    ws.nthreads = (int)threads;
    ws.nwarps = (int)((threads + 31) / 32);
    ws.kernel = kernel;
    ws.kfile = file;
    ws.kline = line;
    ws.launch_id++;
    ws.launches++;
    if (!ws.lanes) {
        ws.lanes = ws_zalloc(WS_MAX_THREADS * sizeof *ws.lanes);  /* the lanes a block uses */
        if (!ws.lanes) {
            fprintf(stderr, "warpsim: out of host memory\n");
            exit(2);
        }
    }
    rng_state = ws_cfg.seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
    if (!rng_state)
        rng_state = 1;
    t0 = now_seconds();
    for (bz = 0; bz < grid.z; bz++)
        for (by = 0; by < grid.y; by++)
            for (bx = 0; bx < grid.x; bx++) {
                ws.block_idx.x = bx;
                ws.block_idx.y = by;
                ws.block_idx.z = bz;
                ws.block_id = (bz * grid.y + by) * grid.x + bx;
                start_block();
                run_block();
                ws.blocks_run++;
            }
    ws.its_fast = 0;
    ws.kernel_seconds += now_seconds() - t0;
    ws.total_steps += ws.steps;
    ws.steps = 0;
    if (ws_faulted())               /* a lane faulted: the launch failed */
        ws_fault_finish();
    return cudaSuccess;
}

/* ---- a barrier skipped in a loop ----------------------------------------- */

/*
 * Exited lane e called l0's __syncthreads before, as every lane of the
 * block did, and left without calling it again while the others wait in it
 * (a later trip of a loop). Returns 1 when e left the loop: its last place
 * lies past the outermost loop that holds the barrier, or inside it with no
 * return statement in the loop, so that it went on to the kernel's end and
 * skipped the barrier that the others reach (the Programming Guide allows
 * __syncthreads in conditional code only where the condition is the same
 * for the whole block, and a loop's condition is a condition). Returns 0
 * when it may have returned inside the loop (an exited thread holds up no
 * barrier: the PTX ISA's exit), when its last place lies before the loop,
 * or when the source cannot tell. Places are compared in the deepest
 * function call that e and l0 share. Cached: it reads the source.
 */
int ws_lane_left_loop(const ws_lane *e, const ws_lane *l0)
{
    static struct { uintptr_t from, at; int v; } cache[256];
    int level = 2, v = 0, first, last, la, lb;
    uintptr_t from, at;
    unsigned h;
    char pa[256], pb[256];
    if (e->pos_depth < 2 || l0->pos_depth < 2)
        return 0;
    /* (frames[0..level) is the call that the places at level are in; the
     * kernel is at level 2, below the launch's frames) */
    while (level < l0->pos_depth && level < e->pos_depth && level + 1 < WS_MAX_FRAMES &&
           e->frames[level] == l0->frames[level])
        level++;
    from = e->pos_depth > level ? e->frames[level] : e->pc;
    at = l0->pos_depth > level ? l0->frames[level] : l0->site;
    h = (unsigned)((from * 31 + at) >> 2) & 255;
    if (cache[h].from == from && cache[h].at == at && at)
        return cache[h].v;
    if (from && at && ws_where_src(from, pa, sizeof pa, &la) &&
        ws_where_src(at, pb, sizeof pb, &lb) && !strcmp(pa, pb) &&
        ws_source_loop_around(pb, lb, &first, &last) && la >= first)
        v = la > last || ws_source_return_between(pb, first, last + 1) == 0;
    cache[h].from = from;
    cache[h].at = at;
    cache[h].v = v;
    return v;
}

/* ---- naming lanes ---------------------------------------------------- */

const char *ws_lane_where(const ws_lane *l)
{
    if (!l->pc)
        return "its start";
    return ws_where(l->pc);
}

/* Sets ws_hooks' scheduling part: what shadow.c's scheduling points and
 * its faults call (runtime.c's ws_init). */
void ws_sched_install(void)
{
    ws_hooks.point_model = sched_point_model;
    ws_hooks.yield_to = sched_yield_to;
    ws_hooks.lockstep_hop = sched_lockstep_hop;
    ws_hooks.random_hop = sched_random_hop;
    ws_hooks.its_hop = sched_its_hop;
    ws_hooks.lane_fault = sched_lane_fault;
}
