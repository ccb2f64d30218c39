/*
 * prims.c - warp primitives, __syncthreads, atomics, time and fences.
 *
 * Semantics follow the CUDA Programming Guide to the letter:
 *   - all non-exited threads named in mask must execute the same intrinsic
 *     with the same mask; lanes meet across call sites (a __shfl_sync in the
 *     then-branch meets one in the else-branch), so a collective completes
 *     when every live lane of its mask waits in the same intrinsic with the
 *     same mask, in every scheduling model (Volta semantics);
 *   - a lane absent from its own mask, lanes of one call site passing
 *     different masks, a shuffle that reads a lane that is outside the mask
 *     or has exited, a bad width, lanes named in the mask that went past the
 *     call without making it: each is reported once per call site;
 *   - lanes that exited before the others arrived need not arrive (a
 *     full-mask __syncwarp after an early return is legal): a note only;
 *   - only __syncwarp and __syncthreads order memory; shuffles, votes and
 *     match synchronize execution but order no memory access.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ws_internal.h"

static void prims_recheck_warp(int warp);
static void prims_recheck_block(void);

#define WS_KIND_NAME(id, name) name,
const char *const ws_kind_names[] = { WS_KINDS(WS_KIND_NAME) };
#undef WS_KIND_NAME

#define PC() ((uintptr_t)__builtin_return_address(0))

/* Exited lanes of the mask that went past the collective being completed:
 * their missing-lanes report covers a shuffle that reads them. */
static unsigned went_past_mask;

static uint64_t site_bit(uintptr_t site)
{
    return 1ULL << ((site ^ (site >> 6) ^ (site >> 12)) & 63);
}

/* A lane's place in the kernel's own code: the pc of its last scheduling
 * point there, or the call it is inside of; 0 before its first point. */
static uintptr_t kernel_pc(const ws_lane *l, int level)
{
    if (l->pos_depth > level)
        return l->frames[level];
    if (l->pos_depth == level)
        return l->pc;
    return 0;
}

/*
 * Whether a lane whose last place in the kernel was `from` (0: it had none)
 * can have returned before reaching `at`: a return statement on the source
 * lines between them. 1 yes (or it cannot be told), 0 no. Cached: it reads
 * the source.
 */
static int may_return_between(uintptr_t from, uintptr_t at)
{
    static struct { uintptr_t from, at; int v; } cache[256];
    unsigned h = (unsigned)((from * 31 + at) >> 2) & 255;
    char pa[256], pb[256];
    int la, lb, v;
    uintptr_t key = from;
    if (cache[h].at == at && cache[h].from == key && at)
        return cache[h].v;
    if (!from)
        from = ws_image_func_start(at) + 1;      /* the kernel's first line */
    if (from <= 1 || !ws_where_src(from, pa, sizeof pa, &la) ||
        !ws_where_src(at, pb, sizeof pb, &lb) || strcmp(pa, pb) != 0 || la > lb)
        v = 1;
    else
        v = ws_source_return_between(pa, la, lb) != 0;
    cache[h].from = key;
    cache[h].at = at;
    cache[h].v = v;
    return v;
}

/*
 * Whether exited lane e went past the collective or barrier that l0 calls
 * (an error: it was named and did not come) rather than exiting before it
 * (allowed). Decided from the program point, not from the time it exited:
 * a lane that called this site before (a loop) exited after it; a lane
 * whose last place lies past the call went past it; a lane whose last
 * place lies before the call went past it unless a return statement lies
 * between that place and the call.
 */
static int went_past(const ws_lane *e, const ws_lane *l0)
{
    int level = l0->pos_depth >= 2 ? 2 : 1;
    if (e->sites & site_bit(l0->site))
        return 0;
    if (ws_pos_cmp(e, l0) > 0)
        return 1;
    if (level == 2 && e->pos_depth >= 2 && e->frames[1] != l0->frames[1])
        return 0;                   /* not in the same kernel call: cannot tell */
    return !may_return_between(kernel_pc(e, level), kernel_pc(l0, level));
}

static ws_lane *need_lane(const char *what, const char *file, int line)
{
    ws_lane *l = ws.cur;
    if (!l) {
        const char *slash = strrchr(file, '/');
        fflush(stdout);
        fprintf(stderr, "warpsim: %s called outside a kernel at %s:%d\n", what,
                slash ? slash + 1 : file, line);
        exit(2);
    }
    return l;
}

/* ---- shuffles -------------------------------------------------------- */

/* The source lane of a shuffle, as PTX's shfl.sync computes it; *valid is 0
 * when the lane keeps its own value (past the end of its segment). */
static int shfl_source(int kind, int lane, int arg, int width, int *valid)
{
    int seg = lane & ~(width - 1), maxl = seg + width - 1;
    int b = arg & 31, j;
    switch (kind) {
    case WK_SHFL_UP:
        j = lane - b;
        *valid = j >= seg;
        break;
    case WK_SHFL_DOWN:
        j = lane + b;
        *valid = j <= maxl;
        break;
    case WK_SHFL_XOR:
        j = lane ^ b;
        *valid = j <= maxl;
        break;
    default:
        j = seg | (b & (width - 1));
        *valid = 1;
        break;
    }
    return *valid ? j : lane;
}

static uint64_t poison(int size)
{
    return size == 8 ? WS_POISON64 : WS_POISON32;
}

static void shfl_result(ws_lane *l, unsigned group, const ws_warp *w)
{
    int valid, src = shfl_source(l->kind, l->lane, l->arg, l->width, &valid);
    char who[160], buf[64];
    if (!valid || src == l->lane) {
        l->result = l->val;
        return;
    }
    if (group >> src & 1) {
        l->result = ws.lanes[w->base + src].val;
        return;
    }
    l->result = poison(l->size);
    if ((l->mask >> src & 1) && (went_past_mask >> src & 1))
        return;
    if (!ws_report_once(WR_PRIM, l->site, 0x5f1,
                        !(l->mask >> src & 1) ? 1 : src >= w->n ? 2 : 3))
        return;
    if (!(l->mask >> src & 1)) {
        ws_say("bad shuffle: %s reads lane %d with %s(0x%08x) at %s, but lane %d is "
               "outside the mask; it gets a poison value (0x%llx)",
               ws_who(l, who, sizeof who), src, ws_kind_names[l->kind], l->mask,
               ws_where_fl(l->file, l->line), src, (unsigned long long)l->result);
    } else if (src >= w->n) {
        ws_say("bad shuffle: %s reads lane %d with %s(0x%08x) at %s, but the block "
               "has no thread there; it gets a poison value (0x%llx)",
               ws_who(l, who, sizeof who), src, ws_kind_names[l->kind], l->mask,
               ws_where_fl(l->file, l->line), (unsigned long long)l->result);
    } else {
        ws_lane *e = &ws.lanes[w->base + src];
        if (e->pc)
            snprintf(buf, sizeof buf, "after %s", ws_lane_where(e));
        else
            snprintf(buf, sizeof buf, "it returned early");
        ws_say("bad shuffle: %s reads lane %d with %s(0x%08x) at %s, but lane %d has "
               "exited (%s); it gets a poison value (0x%llx)",
               ws_who(l, who, sizeof who), src, ws_kind_names[l->kind], l->mask,
               ws_where_fl(l->file, l->line), src, buf, (unsigned long long)l->result);
    }
}

/* ---- completing a collective ----------------------------------------- */

/* Lanes o and l called one collective at one site with different masks
 * (whether or not they were there at the same time): reported once per site. */
static void mismatch(const ws_lane *o, const ws_lane *l)
{
    char a[64], b[64];
    if (!ws_report_once(WR_PRIM, l->site, 0x3a5c, 0))
        return;
    ws_say("mask mismatch: in warp %d (block %u) lane %d calls %s(0x%08x) and lane %d "
           "calls it with 0x%08x at %s; lanes that meet in one call must pass the "
           "same mask (lanes %s and %s)", l->warp, ws.block_id, o->lane,
           ws_kind_names[o->kind], o->mask, l->lane, l->mask,
           ws_where_fl(l->file, l->line), ws_ranges(o->mask, a, sizeof a),
           ws_ranges(l->mask, b, sizeof b));
}

/* Lanes named in the mask that exited: those that went past the call
 * without making it are an error, those that exited before it a note. */
static unsigned live_at_start(const ws_warp *w)
{
    return w->n == 32 ? ~0u : (1u << w->n) - 1;
}

static void check_exited(const ws_lane *l0, unsigned group, const ws_warp *w)
{
    unsigned named = l0->mask & w->gone & ~group & live_at_start(w), passed = 0, before = 0;
    int i;
    char who[64], pr[64], ex[128];
    const ws_lane *last = NULL;
    for (i = 0; i < w->n; i++) {
        const ws_lane *e = &ws.lanes[w->base + i];
        if (!(named >> i & 1))
            continue;
        if (went_past(e, l0)) {
            passed |= 1u << i;
            last = e;
        } else {
            before |= 1u << i;
            if (e->site == l0->site && e->kind == l0->kind && e->mask != l0->mask)
                mismatch(e, l0);
        }
    }
    went_past_mask = passed;
    if (passed && ws_report_once(WR_PRIM, l0->site, 0xe817, 0)) {
        if (last->pc)
            snprintf(ex, sizeof ex, "after %s", ws_lane_where(last));
        else
            snprintf(ex, sizeof ex, "without a step in between");
        ws_say("missing lanes: %s %s of warp %d (block %u) %s named in the mask of "
               "%s(0x%08x) that %s %s call%s at %s, but went past it without calling "
               "it (%s the kernel's end %s)",
               __builtin_popcount(passed) > 1 ? "lanes" : "lane",
               ws_ranges(passed, who, sizeof who), l0->warp, ws.block_id,
               __builtin_popcount(passed) > 1 ? "are" : "is",
               ws_kind_names[l0->kind], l0->mask,
               __builtin_popcount(group) > 1 ? "lanes" : "lane",
               ws_ranges(group, pr, sizeof pr), __builtin_popcount(group) > 1 ? "" : "s",
               ws_where_fl(l0->file, l0->line),
               __builtin_popcount(passed) > 1 ? "they reached" : "it reached", ex);
    }
    if (before && ws_cfg.verbose && ws_report_once(WR_NOTE, l0->site, 0xe818, 0))
        ws_note("lanes %s of warp %d had exited before %s(0x%08x) at %s; exited lanes "
                "need not arrive", ws_ranges(before, who, sizeof who), l0->warp,
                ws_kind_names[l0->kind], l0->mask, ws_where_fl(l0->file, l0->line));
}

/*
 * Repeats. A warp that completes a primitive it completed before, with the
 * same lanes, masks, arguments and values in and out, while no memory
 * changed, has not moved on: a loop whose lanes offer the same key for
 * ever, or double a sum that has reached 0, looks so. Each warp keeps the
 * fingerprints of the primitives it completed since the block last
 * progressed otherwise (ws.real_step: a write, a new read, an exit...). A
 * completion not among them is progress; one among them, a repeat, counts
 * as progress only until WS_REPEAT_ALLOWANCE spin limits have passed since
 * the last other progress (a loop that repeats a primitive a bounded number
 * of times, its count in a register warpsim cannot see, still ends). After
 * that, the spin limit runs on and the block hangs as a spin, and hang.c
 * says that the primitives repeat. A warp with more than WS_REPEAT_FPS
 * different completions in that time is taken as moving on.
 */
#define WS_REPEAT_FPS 64
#define WS_REPEAT_ALLOWANCE 4
static struct {
    uint64_t epoch;               /* ws.real_step when fp[] began */
    uint32_t stamp;               /* ws.block_stamp then */
    int n;
    uint64_t fp[WS_REPEAT_FPS];
} repeat_table[WS_MAX_WARPS];

static uint64_t fp_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

/* The fingerprint of l0's primitive as group completed it in warp w. */
static uint64_t completion_fp(const ws_lane *l0, unsigned group, const ws_warp *w)
{
    uint64_t h = fp_mix(fp_mix((uint64_t)l0->site, (uint64_t)l0->kind), group);
    int i;
    for (i = 0; i < w->n; i++) {
        const ws_lane *m = &ws.lanes[w->base + i];
        if (!(group >> i & 1))
            continue;
        h = fp_mix(h, m->val);
        h = fp_mix(h, m->result);
        h = fp_mix(h, ((uint64_t)m->mask << 32) | ((uint64_t)(uint8_t)m->arg << 24) |
                      ((uint64_t)(uint8_t)m->width << 16) | (uint64_t)(m->pred & 1) << 1 |
                      (uint64_t)(m->pred_out & 1));
    }
    return h;
}

/* The block's progress when warp wi completes the primitive fp. */
static void completion_progress(int wi, uint64_t fp)
{
    int i;
    if (repeat_table[wi].epoch != ws.real_step || repeat_table[wi].stamp != ws.block_stamp) {
        repeat_table[wi].epoch = ws.real_step;
        repeat_table[wi].stamp = ws.block_stamp;
        repeat_table[wi].n = 0;
    }
    for (i = 0; i < repeat_table[wi].n; i++)
        if (repeat_table[wi].fp[i] == fp) {
            uint64_t last = ws.fresh_step > ws.real_step ? ws.fresh_step : ws.real_step;
            ws.repeat_step = ws.steps + 1;
            if (ws.steps - last <= WS_REPEAT_ALLOWANCE * ws_cfg.spin_limit)
                ws.progress_step = ws.steps;
            return;
        }
    if (repeat_table[wi].n < WS_REPEAT_FPS) {
        repeat_table[wi].fp[repeat_table[wi].n++] = fp;
        ws.progress_step = ws.fresh_step = ws.steps;
    } else {
        ws_progress();            /* too many to tell: it moves on */
    }
}

static int red_signed_less(unsigned a, unsigned b, int sgn)
{
    return sgn ? (int)a < (int)b : a < b;
}

/* Every live lane of the mask waits here: compute each result, release. */
static void complete(ws_lane *l0, unsigned group)
{
    ws_warp *w = &ws.warps[l0->warp];
    uint64_t when = 0;
    unsigned ballot = 0, acc = 0;
    uint32_t join[32];
    int i, first = 1;

    check_exited(l0, group, w);
    memset(join, 0, sizeof join);
    for (i = 0; i < w->n; i++) {
        ws_lane *m = &ws.lanes[w->base + i];
        int k;
        if (!(group >> i & 1))
            continue;
        if (m->arrived > when)
            when = m->arrived;
        if (m->pred)
            ballot |= 1u << i;
        if (l0->kind == WK_SYNCWARP)
            for (k = 0; k < 32; k++)
                if (m->vc[k] > join[k])
                    join[k] = m->vc[k];
        if (l0->kind >= WK_RED_ADD && l0->kind <= WK_RED_XOR) {
            unsigned v = (unsigned)m->val;
            if (first) {
                acc = v;
                first = 0;
                continue;
            }
            switch (l0->kind) {
            case WK_RED_ADD: acc += v; break;
            case WK_RED_MIN: if (red_signed_less(v, acc, m->op)) acc = v; break;
            case WK_RED_MAX: if (red_signed_less(acc, v, m->op)) acc = v; break;
            case WK_RED_AND: acc &= v; break;
            case WK_RED_OR: acc |= v; break;
            default: acc ^= v; break;
            }
        }
    }
    for (i = 0; i < w->n; i++) {
        ws_lane *m = &ws.lanes[w->base + i];
        int j;
        if (!(group >> i & 1))
            continue;
        switch (l0->kind) {
        case WK_SHFL_IDX: case WK_SHFL_UP: case WK_SHFL_DOWN: case WK_SHFL_XOR:
            shfl_result(m, group, w);
            break;
        case WK_BALLOT:
            m->result = ballot;
            break;
        case WK_ANY:
            m->result = ballot != 0;
            break;
        case WK_ALL:
            m->result = ballot == group;
            break;
        case WK_UNI:
            m->result = ballot == 0 || ballot == group;
            break;
        case WK_MATCH_ANY:
        case WK_MATCH_ALL: {
            unsigned same = 0;
            for (j = 0; j < w->n; j++)
                if ((group >> j & 1) && ws.lanes[w->base + j].val == m->val)
                    same |= 1u << j;
            if (l0->kind == WK_MATCH_ANY) {
                m->result = same;
            } else {
                m->pred_out = same == group;
                m->result = same == group ? group : 0;
            }
            break;
        }
        case WK_SYNCWARP:
            memcpy(m->vc, join, sizeof join);
            m->vc[i] = join[i] + 1;
            m->vclk = m->vc[i];
            break;
        default:
            m->result = acc;
            break;
        }
    }
    if (l0->warp == ws.trace_warp) {
        signed char src[32];
        for (i = 0; i < 32; i++) {
            int valid = 0, s = -1;
            if (i < w->n && (group >> i & 1) && l0->kind >= WK_SHFL_IDX &&
                l0->kind <= WK_SHFL_XOR) {
                const ws_lane *m = &ws.lanes[w->base + i];
                s = shfl_source(m->kind, i, m->arg, m->width, &valid);
            }
            /* a lane outside the group (poison): 32 + the lane */
            src[i] = (signed char)(!valid || s == i || s < 0 ? -1 :
                                   s < w->n && (group >> s & 1) ? s : 32 + s);
        }
        ws_trace_complete(l0, group, src, ballot);
    }
    for (i = 0; i < w->n; i++) {
        ws_lane *m = &ws.lanes[w->base + i];
        if (!(group >> i & 1))
            continue;
        if (m == ws.cur) {
            ws_set_state(m, WS_RUNNING);
            if (m->clock < when)
                m->clock = when;
        } else {
            ws_release(m, when);
        }
    }
    completion_progress(l0->warp, completion_fp(l0, group, w));
}

/* Completes l's collective if every live lane of its mask waits in it. */
static int try_complete(ws_lane *l)
{
    ws_warp *w = &ws.warps[l->warp];
    unsigned need = l->mask & ~w->gone;
    int i;
    if (need & ~w->waiting)             /* someone has not arrived anywhere */
        return 0;
    for (i = 0; i < w->n; i++) {
        const ws_lane *o = &ws.lanes[w->base + i];
        if (!(need >> i & 1))
            continue;
        if (o->state != WS_WAIT_WARP || o->kind != l->kind || o->mask != l->mask ||
            o->size != l->size)
            return 0;
    }
    complete(l, need);
    return 1;
}

static void prims_recheck_warp(int warp)
{
    ws_warp *w = &ws.warps[warp];
    int i;
    for (i = 0; i < w->n; i++) {
        ws_lane *l = &ws.lanes[w->base + i];
        if (l->state == WS_WAIT_WARP && !(l->mask & ~w->gone & ~w->waiting))
            try_complete(l);
    }
}

/* Lanes waiting at the same call site with different masks that name each
 * other: the masks of one call must agree. */
static void check_masks(const ws_lane *l)
{
    ws_warp *w = &ws.warps[l->warp];
    int i;
    if (w->last_site == l->site && w->last_kind == l->kind && w->last_mask == l->mask)
        return;                 /* the common case: lanes arrive alike */
    w->last_site = l->site;
    w->last_kind = l->kind;
    w->last_mask = l->mask;
    for (i = 0; i < w->n; i++) {
        const ws_lane *o = &ws.lanes[w->base + i];
        if (o == l || o->state != WS_WAIT_WARP || o->site != l->site ||
            o->kind != l->kind || o->mask == l->mask)
            continue;
        if (!((o->mask >> l->lane) & 1) && !((l->mask >> o->lane) & 1))
            continue;
        mismatch(o, l);
        return;
    }
}

/* The result of a lane that is not in its own mask: it goes on alone. */
static void alone(ws_lane *l)
{
    unsigned me = 1u << l->lane;
    switch (l->kind) {
    case WK_SHFL_IDX: case WK_SHFL_UP: case WK_SHFL_DOWN: case WK_SHFL_XOR: {
        int valid, src = shfl_source(l->kind, l->lane, l->arg, l->width, &valid);
        l->result = src == l->lane ? l->val : poison(l->size);
        break;
    }
    case WK_BALLOT: l->result = l->pred ? me : 0; break;
    case WK_ANY: case WK_ALL: l->result = l->pred != 0; break;
    case WK_UNI: l->result = 1; break;
    case WK_MATCH_ANY: l->result = me; break;
    case WK_MATCH_ALL: l->result = me; l->pred_out = 1; break;
    case WK_SYNCWARP: break;
    default: l->result = (unsigned)l->val; break;
    }
}

/* Arrives at a warp collective and returns once it completed. */
static void collective(ws_lane *l, int kind, unsigned mask, uint64_t val, int size,
                       int arg, int width, int op, int pred, const char *file,
                       int line, uintptr_t pc)
{
    char who[160];
    ws_point(pc);
    l->kind = kind;
    l->mask = mask;
    l->val = val;
    l->size = size;
    l->arg = arg;
    l->width = width;
    l->op = op;
    l->pred = pred;
    l->pred_out = 0;
    l->file = file;
    l->line = line;
    l->site = pc;
    l->sites |= site_bit(pc);
    l->arrived = ws_lane_clock(l);
    if (l->warp == ws.trace_warp)
        ws_trace_arrive(l);
    if (!(mask >> l->lane & 1)) {
        if (ws_report_once(WR_PRIM, pc, 0x5e1f, 0))
            ws_say("bad mask: %s calls %s(0x%08x) at %s with a mask that does not name "
                   "itself; it goes on alone", ws_who(l, who, sizeof who),
                   ws_kind_names[kind], mask, ws_where_fl(l->file, line));
        alone(l);
        return;
    }
    check_masks(l);
    ws_set_state(l, WS_WAIT_WARP);
    /* Under lockstep the lanes of a step arrive together: the scheduler
     * completes the collective after the step (prims_recheck_warp). */
    if (ws_cfg.model != WS_LOCKSTEP && try_complete(l))
        return;
    ws_block();
}

static int check_width(ws_lane *l, int width, const char *file, int line, uintptr_t pc)
{
    char who[160];
    if (width >= 1 && width <= 32 && (width & (width - 1)) == 0)
        return width;
    if (ws_report_once(WR_PRIM, pc, 0x3d7, 0))
        ws_say("bad width: %s passes width %d at %s; it must be a power of two from "
               "1 to 32 (warpsim uses 32)", ws_who(l, who, sizeof who), width,
               ws_where_fl(file, line));
    return 32;
}

uint64_t ws_shfl_here(int mode, unsigned mask, uint64_t bits, int size, int arg,
                      int width, const char *file, int line)
{
    static const int kinds[] = { WK_SHFL_IDX, WK_SHFL_UP, WK_SHFL_DOWN, WK_SHFL_XOR };
    uintptr_t pc = PC();
    ws_lane *l = need_lane("a warp shuffle", file, line);
    width = check_width(l, width, file, line, pc);
    collective(l, kinds[mode & 3], mask, bits, size, arg, width, 0, 0, file, line, pc);
    return l->result;
}

unsigned ws_vote(int op, unsigned mask, int pred, const char *file, int line)
{
    static const int kinds[] = { WK_BALLOT, WK_ANY, WK_ALL, WK_UNI };
    uintptr_t pc = PC();
    ws_lane *l = need_lane("a warp vote", file, line);
    collective(l, kinds[op & 3], mask, 0, 4, 0, 32, 0, pred, file, line, pc);
    return (unsigned)l->result;
}

unsigned ws_match(int all, unsigned mask, uint64_t bits, int size, int *pred,
                  const char *file, int line)
{
    uintptr_t pc = PC();
    ws_lane *l = need_lane("__match_*_sync", file, line);
    collective(l, all ? WK_MATCH_ALL : WK_MATCH_ANY, mask, bits, size, 0, 32, 0, 0,
               file, line, pc);
    if (all && pred)
        *pred = l->pred_out;
    return (unsigned)l->result;
}

unsigned ws_reduce(int op, int is_signed, unsigned mask, unsigned v,
                   const char *file, int line)
{
    uintptr_t pc = PC();
    ws_lane *l = need_lane("__reduce_*_sync", file, line);
    collective(l, WK_RED_ADD + (op % 6), mask, v, 4, 0, 32, is_signed, 0, file,
               line, pc);
    return (unsigned)l->result;
}

void ws_syncwarp(unsigned mask, const char *file, int line)
{
    uintptr_t pc = PC();
    ws_lane *l = need_lane("__syncwarp", file, line);
    collective(l, WK_SYNCWARP, mask, 0, 4, 0, 32, 0, 0, file, line, pc);
}

/*
 * The lanes that execute this __activemask together: under lockstep, the
 * lanes of the step; otherwise the lanes that stand at this call, ready,
 * when the first of them resumes. Every member of a group gets the same
 * mask (as on the hardware: lanes that run the instruction together see
 * each other), so masks passed on to __match_any_sync or __shfl_sync agree.
 */
unsigned ws_activemask(const char *file, int line)
{
    uintptr_t pc = PC();
    ws_lane *l = need_lane("__activemask", file, line);
    unsigned g;
    int i;
    l->am_group = 0;
    ws_point(pc);
    if (l->am_group) {
        g = l->am_group;
        l->am_group = 0;
        return g;
    }
    g = ws_lanes_at_my_position(l);
    if (ws_cfg.model != WS_LOCKSTEP) {
        const ws_warp *w = &ws.warps[l->warp];
        for (i = 0; i < w->n; i++)          /* lanes promised to another group */
            if ((g >> i & 1) && ws.lanes[w->base + i].am_group)
                g &= ~(1u << i);
        for (i = 0; i < w->n; i++)
            if ((g >> i & 1) && i != l->lane)
                ws.lanes[w->base + i].am_group = g;
    }
    return g;
}

/* ---- __syncthreads --------------------------------------------------- */

static void complete_barrier(ws_lane *l0)
{
    uint64_t when = 0;
    int i, count = 0, all = 1, any = 0;
    const ws_lane *other = NULL;
    unsigned long long passed = 0, before = 0;
    const ws_lane *last = NULL;
    char buf[128], who[64];

    for (i = 0; i < ws.nthreads; i++) {
        const ws_lane *m = &ws.lanes[i];
        if (m->state == WS_WAIT_BLOCK) {
            if (m->site != l0->site && !other)
                other = m;
            if (ws_lane_clock(m) > when)
                when = ws_lane_clock(m);
            count += m->pred != 0;
            all &= m->pred != 0;
            any |= m->pred != 0;
        } else if (m->state == WS_EXITED && m->exit_gen == ws.gen) {
            if (went_past(m, l0) ||
                ((m->sites & site_bit(l0->site)) && ws_lane_left_loop(m, l0))) {
                passed++;
                last = m;
            } else {
                before++;
            }
        }
    }
    if (other && ws_report_once(WR_PRIM, l0->site, other->site, 0x5b)) {
        snprintf(buf, sizeof buf, "%s", ws_where_fl(other->file, other->line));
        ws_say("divergent __syncthreads: in block %u thread %d waits in __syncthreads() "
               "at %s and thread %d at %s; every thread of a block must reach the same "
               "__syncthreads", ws.block_id, l0->tid, ws_where_fl(l0->file, l0->line),
               other->tid, buf);
    }
    if (passed && ws_report_once(WR_PRIM, l0->site, 0x5c, 0)) {
        snprintf(buf, sizeof buf, "%s", last->pc ? ws_lane_where(last) : "");
        ws_say("partial __syncthreads: %llu thread%s of block %u (thread %d is one) went "
               "past __syncthreads() at %s without waiting; %s reached the kernel's end%s%s",
               passed, passed > 1 ? "s" : "", ws.block_id, last->tid,
               ws_where_fl(l0->file, l0->line), passed > 1 ? "they" : "it",
               last->pc ? " after " : "", last->pc ? buf : "");
    }
    if (before && ws_cfg.verbose && ws_report_once(WR_NOTE, l0->site, 0x5d, 0)) {
        snprintf(who, sizeof who, "%llu", before);
        ws_note("%s threads of block %u had exited before __syncthreads() at %s; exited "
                "threads need not arrive", who, ws.block_id, ws_where_fl(l0->file, l0->line));
    }
    if (ws.trace_warp >= 0)
        ws_trace_barrier(l0);
    ws.gen++;
    ws.bar_waiting = 0;
    for (i = 0; i < ws.nthreads; i++) {
        ws_lane *m = &ws.lanes[i];
        if (m->state != WS_WAIT_BLOCK)
            continue;
        m->pred_out = m->op == 0 ? count : m->op == 1 ? all : any;
        if (m == ws.cur)
            ws_set_state(m, WS_RUNNING);
        else
            ws_release(m, when);
    }
    if (ws_cfg.model == WS_LOCKSTEP)
        for (i = 0; i < ws.nwarps; i++)
            ws.warps[i].clock = when;
    else if (l0 == ws.cur && l0->clock < when)
        l0->clock = when;
    ws_progress();
}

static void prims_recheck_block(void)
{
    int i;
    if (ws.bar_waiting == 0 || ws.bar_waiting != ws.live)
        return;
    for (i = 0; i < ws.nthreads; i++)
        if (ws.lanes[i].state == WS_WAIT_BLOCK) {
            complete_barrier(&ws.lanes[i]);
            return;
        }
}

static int barrier(int op, int pred, const char *file, int line, uintptr_t pc)
{
    ws_lane *l = need_lane("__syncthreads", file, line);
    ws_point(pc);
    l->kind = WK_SYNCTHREADS;
    l->op = op;
    l->pred = pred;
    l->mask = 0;
    l->file = file;
    l->line = line;
    l->site = pc;
    l->sites |= site_bit(pc);
    l->arrived = ws_lane_clock(l);
    if (l->warp == ws.trace_warp)
        ws_trace_arrive(l);
    ws_set_state(l, WS_WAIT_BLOCK);
    ws.bar_waiting++;
    if (ws_cfg.model != WS_LOCKSTEP && ws.bar_waiting == ws.live)
        complete_barrier(l);
    else
        ws_block();             /* lockstep: completed after the step */
    return l->pred_out;
}

void ws_syncthreads(const char *file, int line)
{
    barrier(0, 0, file, line, PC());
}

int ws_syncthreads_op(int op, int pred, const char *file, int line)
{
    return barrier(op, pred, file, line, PC());
}

/* ---- time and fences ------------------------------------------------- */

void ws_nanosleep(unsigned ns, const char *file, int line)
{
    uintptr_t pc = PC();
    ws_lane *l = need_lane("__nanosleep", file, line);
    ws_lane_sleep(l, ns);
    ws_point(pc);
    if (l->warp == ws.trace_warp)
        ws_trace_sleep(l, ns);
    if (ws_cfg.model == WS_ITS && ns > 0 && l->state == WS_RUNNING)
        ws_yield();             /* a sleeping lane lets the others go ahead */
}

/*
 * The lane's virtual clock. A lane that reads the clock again and again
 * without touching memory is busy-waiting on time alone, which nothing
 * else can end: each such read moves its clock further (doubling, up to
 * 2^22 cycles), so that a 10^9-cycle delay loop takes a few hundred steps.
 */
static long long lane_clock(ws_lane *l, uintptr_t pc)
{
    ws_point(pc);
    if (++l->clock_polls > 1) {
        unsigned shift = l->clock_polls < 22 ? l->clock_polls : 22;
        if (ws_cfg.model == WS_LOCKSTEP)        /* the warp waits with it */
            ws.warps[l->warp].clock += (uint64_t)WS_STEP_CYCLES << shift;
        else
            ws_lane_sleep(l, (uint64_t)WS_STEP_CYCLES << shift);
        ws_progress();
    }
    return (long long)ws_lane_clock(l);
}

long long ws_clock64(const char *file, int line)
{
    uintptr_t pc = PC();
    ws_lane *l = ws.cur;
    (void)file;
    (void)line;
    if (!l)
        return 0;
    return lane_clock(l, pc);
}

void ws_threadfence(const char *file, int line)
{
    uintptr_t pc = PC();
    (void)file;
    (void)line;
    if (ws.cur) {
        ws_point(pc);
        ws_sync_fence(ws.cur);
    }
}

/* ---- atomics --------------------------------------------------------- */

static int64_t sval(uint64_t b, int type)
{
    return type == 0 ? (int64_t)(int32_t)(uint32_t)b : (int64_t)b;
}

uint64_t ws_atomic(int op, int type, void *addr, uint64_t val, uint64_t cmp,
                   const char *file, int line)
{
    uintptr_t pc = PC();
    int size = (type == 2 || type == 3 || type == 5) ? 8 : 4;
    uint64_t old = 0, nw;
    (void)file;
    (void)line;
    if (ws.cur) {
        ws_point(pc);
        ws_check_access((uintptr_t)addr, (size_t)size, WS_ACC_WRITE | WS_ACC_ATOMIC, pc);
    }
    memcpy(&old, addr, (size_t)size);
    nw = old;
    if (type == 4 || type == 5) {           /* float, double */
        if (type == 4) {
            float a, b;
            uint32_t o32 = (uint32_t)old, v32 = (uint32_t)val, r;
            memcpy(&a, &o32, 4);
            memcpy(&b, &v32, 4);
            if (op == WS_AT_ADD) a += b;
            else if (op == WS_AT_SUB) a -= b;
            else if (op == WS_AT_EXCH) a = b;
            else if (op == WS_AT_CAS) { if (o32 == (uint32_t)cmp) a = b; }
            memcpy(&r, &a, 4);
            nw = r;
        } else {
            double a, b;
            memcpy(&a, &old, 8);
            memcpy(&b, &val, 8);
            if (op == WS_AT_ADD) a += b;
            else if (op == WS_AT_SUB) a -= b;
            else if (op == WS_AT_EXCH) a = b;
            else if (op == WS_AT_CAS) { if (old == cmp) a = b; }
            memcpy(&nw, &a, 8);
        }
    } else {
        int sgn = type == 0 || type == 2;
        uint64_t mask = size == 4 ? 0xffffffffULL : ~0ULL;
        switch (op) {
        case WS_AT_ADD: nw = old + val; break;
        case WS_AT_SUB: nw = old - val; break;
        case WS_AT_EXCH: nw = val; break;
        case WS_AT_MIN:
            if (sgn ? sval(val, type) < sval(old, type) : (val & mask) < (old & mask))
                nw = val;
            break;
        case WS_AT_MAX:
            if (sgn ? sval(val, type) > sval(old, type) : (val & mask) > (old & mask))
                nw = val;
            break;
        case WS_AT_INC: nw = (old & mask) >= (val & mask) ? 0 : old + 1; break;
        case WS_AT_DEC:
            nw = ((old & mask) == 0 || (old & mask) > (val & mask)) ? val : old - 1;
            break;
        case WS_AT_AND: nw = old & val; break;
        case WS_AT_OR: nw = old | val; break;
        case WS_AT_XOR: nw = old ^ val; break;
        case WS_AT_CAS: if ((old & mask) == (cmp & mask)) nw = val; break;
        default: break;
        }
        nw &= mask;
    }
    if ((nw ^ old) & (size == 4 ? 0xffffffffULL : ~0ULL)) {
        memcpy(addr, &nw, (size_t)size);
        ws_progress();
    }
    if (ws.cur && ws_tracked((uintptr_t)addr))
        ws_sync_atomic(ws.cur, (uintptr_t)addr,
                       op != WS_AT_CAS || (old & 0xffffffffULL) == (cmp & 0xffffffffULL) ||
                       (size == 8 && old == cmp));
    return old;
}

/* clock() (warpsim_device.h's macro): in a kernel the lane's virtual
 * clock, as clock64(); in host code the C library's. */
long ws_clock_any(const char *file, int line)
{
    uintptr_t pc = PC();
    ws_lane *l = ws.cur;
    (void)file;
    (void)line;
    if (!l)
        return (long)clock();
    return (long)lane_clock(l, pc);
}

/* Sets ws_hooks.recheck_*: what sched.c calls when a lane exits
 * (runtime.c's ws_init). */
void ws_prims_install(void)
{
    ws_hooks.recheck_warp = prims_recheck_warp;
    ws_hooks.recheck_block = prims_recheck_block;
}
