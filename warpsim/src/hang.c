/*
 * hang.c - hang diagnosis: when a block can make no progress, who waits
 * where, on which mask, for whom, and what those lanes do instead.
 *
 * Three ways a block stops making progress (sched.c calls ws_hang):
 *   deadlock  every live thread waits in a collective or a barrier and none
 *             can complete;
 *   spin      the block ran --spin-limit steps with no write, no atomic that
 *             changed memory, no read of a new address, no completed
 *             primitive and no exit (lanes poll a flag nothing sets);
 *   livelock  one thread took --step-limit steps: it keeps doing something
 *             (completing primitives, writing memory) and never ends; or
 *             the lanes went on completing primitives that only repeat,
 *             with the same values, what they did before, with nothing
 *             else done (prims.c), until the spin limit ran out.
 * The report names the lanes by groups that do the same, prints the line
 * "HANG detected: ..." that the lessons' checkers look for, then the state
 * of every warp with live threads, the summary, and exits with status 3.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ws_internal.h"

static int hang_kind;


#define IN_SET(set, i) ((set)[(i) / 64] >> ((i) % 64) & 1)

/* Where a spinning lane goes round: "x.cu:25", or "x.cu:25-27" when the
 * scheduling points of its loop are on several lines of one file. */
static const char *range_where(uintptr_t pc_lo, uintptr_t pc_hi)
{
    static char buf[256];
    char lo[128], hi[128];
    const char *a, *b;
    snprintf(lo, sizeof lo, "%s", ws_where(pc_lo));
    snprintf(hi, sizeof hi, "%s", ws_where(pc_hi));
    a = strrchr(lo, ':');
    b = strrchr(hi, ':');
    if (!strcmp(lo, hi) || !a || !b || a - lo != b - hi || strncmp(lo, hi, (size_t)(a - lo)))
        snprintf(buf, sizeof buf, "%s", lo);
    else if (atoi(a + 1) < atoi(b + 1))
        snprintf(buf, sizeof buf, "%s-%s", lo, b + 1);
    else
        snprintf(buf, sizeof buf, "%.*s:%s-%s", (int)(a - lo), lo, b + 1, a + 1);
    return buf;
}

static const char *spin_where(const ws_lane *l)
{
    return range_where(l->spin_lo, l->spin_hi);
}

/* What one lane is doing, for a hang report; plural picks the verb. */
static void describe(const ws_lane *l, const ws_lane *ref, int plural,
                     char *buf, size_t len)
{
    switch (l->state) {
    case WS_WAIT_WARP:
        snprintf(buf, len, "%s in %s(0x%08x) at %s", plural ? "wait" : "waits",
                 ws_kind_names[l->kind], l->mask, ws_where_fl(l->file, l->line));
        break;
    case WS_WAIT_BLOCK:
        snprintf(buf, len, "%s in __syncthreads() at %s", plural ? "wait" : "waits",
                 ws_where_fl(l->file, l->line));
        break;
    case WS_EXITED:
        if (l->pos_depth > 0 || l->pc)
            snprintf(buf, len, "exited after %s", ws_lane_where(l));
        else
            snprintf(buf, len, "exited");
        break;
    default:
        if (hang_kind == WS_HANG_LIVELOCK && l->loop_lo)
            snprintf(buf, len, "%s at %s", plural ? "loop" : "loops",
                     range_where(l->loop_plo && l->loop_plo < l->loop_lo ? l->loop_plo : l->loop_lo,
                                 l->loop_phi > l->loop_hi ? l->loop_phi : l->loop_hi));
        else if (l->spin_epoch == ws.progress_step && l->spin_steps >= 8)
            snprintf(buf, len, "%s at %s", hang_kind == WS_HANG_REPEAT ? plural ? "loop" : "loops" :
                     plural ? "spin" : "spins", spin_where(l));
        else if (ws_cfg.model == WS_LOCKSTEP && ref && ws_pos_cmp(l, ref) > 0)
            snprintf(buf, len, "%s held at %s (lockstep runs the lanes behind first)",
                     plural ? "are" : "is", ws_lane_where(l));
        else
            snprintf(buf, len, "%s ready at %s but %s not run since",
                     plural ? "are" : "is", ws_lane_where(l), plural ? "have" : "has");
        break;
    }
}

/*
 * Writes "lanes 0-15 wait in ...; lane 16 spins at ..." for the members of
 * set among warp w's lanes (the block's threads when w < 0), grouping
 * neighbours that do the same. Returns the number of groups; with one group,
 * *what gets its description alone ("spin at x.cu:25").
 */
static int describe_set(int w, const unsigned long long *set, const ws_lane *ref,
                        char *out, size_t len, char *what, size_t wlen)
{
    int n = w >= 0 ? ws.warps[w].n : ws.nthreads;
    int base = w >= 0 ? ws.warps[w].base : 0;
    int i = 0, groups = 0;
    size_t used = 0;
    out[0] = '\0';
    while (i < n) {
        char d[512], e[512];
        int j, k;
        if (!IN_SET(set, i)) {
            i++;
            continue;
        }
        describe(&ws.lanes[base + i], ref, 1, d, sizeof d);
        for (j = i + 1; j < n && IN_SET(set, j); j++) {
            describe(&ws.lanes[base + j], ref, 1, e, sizeof e);
            if (strcmp(d, e) != 0)
                break;
        }
        if (j - i == 1)
            describe(&ws.lanes[base + i], ref, 0, d, sizeof d);
        if (what && groups == 0)
            snprintf(what, wlen, "%s", d);
        if (j - i > 1)
            k = snprintf(out + used, len - used, "%s%s %d-%d %s", groups ? "; " : "",
                         w >= 0 ? "lanes" : "threads", i, j - 1, d);
        else
            k = snprintf(out + used, len - used, "%s%s %d %s", groups ? "; " : "",
                         w >= 0 ? "lane" : "thread", i, d);
        groups++;
        i = j;
        if (k < 0 || (size_t)k >= len - used)
            break;
        used += (size_t)k;
    }
    return groups;
}

static unsigned live_lanes(const ws_warp *w)
{
    unsigned exist = w->n == 32 ? ~0u : (1u << w->n) - 1;
    return exist & ~w->gone;
}

/* Under lockstep, the ready lane of warp w that runs first (NULL if none). */
static const ws_lane *lockstep_front(int w)
{
    const ws_warp *ww = &ws.warps[w];
    const ws_lane *r = NULL;
    int i;
    if (ws_cfg.model != WS_LOCKSTEP)
        return NULL;
    for (i = 0; i < ww->n; i++) {
        const ws_lane *l = &ws.lanes[ww->base + i];
        if ((l->state == WS_READY || l->state == WS_RUNNING) &&
            (!r || ws_pos_cmp(l, r) < 0))
            r = l;
    }
    return r;
}

/* Reports a hang of the running block (kind: WS_HANG_*), saying who waits
 * where for whom, and ends the program with status 3. After a fault in the
 * launch, which left the other lanes waiting for the one that faulted, it
 * is no hang: the failed launch ends there (report.c). */
static __attribute__((noreturn)) void hang_diagnose(int kind)
{
    static char head[12288], who[4096], whom[4096], what[1024], rng_buf[256];
    unsigned long long set[WS_MAX_THREADS / 64];
    int w, i, found = 0;

    if (ws_faulted())
        ws_fault_finish();

    /* A spin whose lanes went on completing primitives that repeat
     * (prims.c), after the block's last progress, is a livelock: the lanes
     * loop, but nothing changes. (ws.repeat_step is 1 + the step of the
     * last repeat; a repeat still counted as progress leaves it at
     * ws.progress_step + 1.) */
    if (kind == WS_HANG_SPIN && ws.repeat_step > ws.progress_step + 1)
        kind = WS_HANG_REPEAT;
    hang_kind = kind;
    fflush(stdout);
    ws_counts[WR_HANG]++;
    head[0] = '\0';
    /* The first warp collective that waits: who waits, and for whom. */
    for (w = 0; w < ws.nwarps && !found; w++) {
        ws_warp *ww = &ws.warps[w];
        for (i = 0; i < ww->n && !found; i++) {
            ws_lane *l = &ws.lanes[ww->base + i];
            unsigned waiting = 0, missing;
            int j, groups;
            if (l->state != WS_WAIT_WARP)
                continue;
            for (j = 0; j < ww->n; j++) {
                ws_lane *o = &ws.lanes[ww->base + j];
                if (o->state == WS_WAIT_WARP && o->kind == l->kind && o->mask == l->mask)
                    waiting |= 1u << j;
            }
            missing = l->mask & ~ww->gone & ~waiting;
            memset(set, 0, sizeof set);
            set[0] = waiting;
            describe_set(w, set, NULL, who, sizeof who, NULL, 0);
            set[0] = missing;
            groups = describe_set(w, set, lockstep_front(w), whom, sizeof whom,
                                  what, sizeof what);
            ws_ranges(missing, rng_buf, sizeof rng_buf);
            if (groups == 1)
                snprintf(head, sizeof head, "warp %d of block %u: %s for %s %s, which %s",
                         w, ws.block_id, who, __builtin_popcount(missing) > 1 ? "lanes" : "lane",
                         rng_buf, what);
            else if (groups > 1)
                snprintf(head, sizeof head, "warp %d of block %u: %s for lanes %s (%s)",
                         w, ws.block_id, who, rng_buf, whom);
            else
                snprintf(head, sizeof head, "warp %d of block %u: %s", w, ws.block_id, who);
            found = 1;
        }
    }
    if (!found && ws.bar_waiting > 0) {
        memset(set, 0, sizeof set);
        for (i = 0; i < ws.nthreads; i++)
            if (ws.lanes[i].state == WS_WAIT_BLOCK)
                set[i / 64] |= 1ULL << (i % 64);
        describe_set(-1, set, NULL, who, sizeof who, NULL, 0);
        memset(set, 0, sizeof set);
        for (i = 0; i < ws.nthreads; i++)
            if (ws.lanes[i].state != WS_WAIT_BLOCK && ws.lanes[i].state != WS_EXITED)
                set[i / 64] |= 1ULL << (i % 64);
        describe_set(-1, set, NULL, whom, sizeof whom, NULL, 0);
        snprintf(head, sizeof head, "block %u: %s, while %s", ws.block_id, who, whom);
        found = 1;
    }
    for (w = 0; w < ws.nwarps && !found; w++) {
        /* Nobody waits in a primitive: lanes spin (under lockstep, some may
         * be held behind them). */
        unsigned live = live_lanes(&ws.warps[w]);
        if (!live)
            continue;
        memset(set, 0, sizeof set);
        set[0] = live;
        describe_set(w, set, lockstep_front(w), who, sizeof who, NULL, 0);
        snprintf(head, sizeof head, "warp %d of block %u: %s", w, ws.block_id, who);
        found = 1;
    }
    if (kind == WS_HANG_DEADLOCK)
        printf("HANG detected: %s (every live thread waits; none can go on)\n", head);
    else if (kind == WS_HANG_LIVELOCK)
        printf("HANG detected: %s (a livelock: thread %d took %llu steps and goes on; "
               "WARPSIM_STEP_LIMIT raises the bound)\n", head, ws.cur ? ws.cur->tid : 0,
               (unsigned long long)ws_cfg.step_limit);
    else if (kind == WS_HANG_REPEAT)
        printf("HANG detected: %s (a livelock: the warp primitives they complete repeat "
               "with the same values, and no memory changes; WARPSIM_SPIN_LIMIT raises "
               "the bound)\n", head);
    else
        printf("HANG detected: %s (no progress in %llu steps)\n", head,
               (unsigned long long)ws_cfg.spin_limit);
    fflush(stdout);
    fprintf(stderr, "warpsim: hang in %s (launched at %s:%d), block %u, model %s; "
            "the warps with live threads:\n", ws.kernel, ws.kfile, ws.kline,
            ws.block_id, ws_model_names[ws_cfg.model]);
    for (w = 0; w < ws.nwarps; w++) {
        ws_warp *ww = &ws.warps[w];
        if (!live_lanes(ww))
            continue;
        memset(set, 0, sizeof set);
        set[0] = ww->n == 32 ? ~0u : (1u << ww->n) - 1;
        describe_set(w, set, lockstep_front(w), who, sizeof who, NULL, 0);
        fprintf(stderr, "warpsim:   warp %d: %s\n", w, who);
    }
    ws_hooks.summary();
    fflush(NULL);
    _exit(3);
}

/* Sets ws_hooks.hang: what a scheduling point that finds no progress, or
 * a deadlock, calls (runtime.c's ws_init). */
void ws_hang_install(void)
{
    ws_hooks.hang = hang_diagnose;
}
