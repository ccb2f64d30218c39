/*
 * sync.c - order through atomics and fences: the release/acquire of the
 * lock and message-passing idioms.
 *
 * CUDA's atomics are relaxed: by themselves they order no other memory
 * access. A fence makes them order: a thread that runs __threadfence() and
 * then writes a location with an atomic (atomicExch, a successful atomicCAS,
 * any read-modify-write) releases; a thread whose atomic then reads that
 * location acquires, and everything the releasing thread did before its
 * fence happens before everything the acquiring thread does after its
 * atomic. (The CUDA memory model asks for a fence after the acquiring
 * atomic too; warpsim takes the atomic alone as the acquire, so it may miss
 * a race there, never invent one.)
 *
 * Releases are numbered in the order they happen (ws_sync_now); each access
 * in shadow memory keeps the number current when it was made. A release
 * remembers its thread, the thread's previous release and what the thread
 * had acquired; an acquire makes the lane's `acq` that release (or, when it
 * already held another, a join of both). Access p of thread T happens before
 * the running lane's access when a release by T numbered after p is among
 * what the lane has acquired, directly or through a chain: ws_sync_ordered
 * walks that graph backwards, never below p's number.
 */
#include <stdio.h>
#include <stdlib.h>
#include "ws_internal.h"

typedef struct release {
    uint32_t block;               /* the releasing thread; UINT32_MAX: a join */
    uint32_t tid;
    uint32_t prev;                /* the thread's release before (program order) */
    uint32_t acq;                 /* what the thread had acquired */
} release;

static release *log_;             /* log_[1..ws_sync_count]: releases, in order */
uint32_t ws_sync_count;           /* releases made so far */
static uint32_t cap;

typedef struct loc { uintptr_t addr; uint32_t rel; } loc;
static loc *locs;                 /* atomically written locations -> last release */
static size_t nlocs, cap_locs;

static uint32_t append(uint32_t block, uint32_t tid, uint32_t prev, uint32_t acq)
{
    if (ws_sync_count + 1 >= cap) {
        uint32_t ncap = cap ? 2 * cap : 1024;
        release *r = realloc(log_, (size_t)ncap * sizeof *r);
        if (!r) {
            fprintf(stderr, "warpsim: out of host memory\n");
            exit(2);
        }
        log_ = r;
        cap = ncap;
    }
    ws_sync_count++;
    log_[ws_sync_count].block = block;
    log_[ws_sync_count].tid = tid;
    log_[ws_sync_count].prev = prev;
    log_[ws_sync_count].acq = acq;
    return ws_sync_count;
}

static size_t hash(uintptr_t a, size_t m)
{
    return (size_t)((a >> 2) * 0x9e3779b97f4a7c15ULL >> 17) & (m - 1);
}

static loc *find(uintptr_t addr, int add)
{
    size_t h;
    if (!add && !nlocs)
        return NULL;
    if (add && (nlocs + 1) * 2 > cap_locs) {
        size_t ncap = cap_locs ? 2 * cap_locs : 256, i;
        loc *t = calloc(ncap, sizeof *t);
        if (!t) {
            fprintf(stderr, "warpsim: out of host memory\n");
            exit(2);
        }
        for (i = 0; i < cap_locs; i++) {
            if (!locs[i].addr)
                continue;
            h = hash(locs[i].addr, ncap);
            while (t[h].addr)
                h = (h + 1) & (ncap - 1);
            t[h] = locs[i];
        }
        free(locs);
        locs = t;
        cap_locs = ncap;
    }
    h = hash(addr, cap_locs);
    while (locs[h].addr && locs[h].addr != addr)
        h = (h + 1) & (cap_locs - 1);
    if (!locs[h].addr) {
        if (!add)
            return NULL;
        locs[h].addr = addr;
        nlocs++;
    }
    return &locs[h];
}

void ws_sync_fence(ws_lane *l)
{
    l->fenced = 1;
}

/*
 * The running lane l does an atomic on addr that wrote memory (wrote) or
 * only read it: it acquires the location's last release, then releases if
 * it wrote after a fence.
 */
void ws_sync_atomic(ws_lane *l, uintptr_t addr, int wrote)
{
    loc *c = find(addr, 0);
    if (c && c->rel && c->rel != l->acq && c->rel != l->acq_last) {
        if (!l->acq)
            l->acq = c->rel;
        else                        /* hold both: a join of the two */
            l->acq = append(UINT32_MAX, UINT32_MAX, l->acq, c->rel);
        l->acq_last = c->rel;
    }
    if (wrote && l->fenced) {
        l->fenced = 0;
        l->last_rel = append(ws.block_id, (uint32_t)l->tid, l->last_rel, l->acq);
        find(addr, 1)->rel = l->last_rel;
    }
}

/*
 * Whether the access of thread (block, tid) made when the release count
 * was `since` happens before the running lane l's access through releases
 * l acquired: 1 yes, 0 not found (within a bounded search).
 */
int ws_sync_ordered(uint32_t block, uint32_t tid, uint32_t since, const ws_lane *l)
{
    uint32_t stack[64];
    int sp = 0, visits = 0;
    if (l->acq <= since)
        return 0;
    stack[sp++] = l->acq;
    while (sp > 0 && visits < 256) {
        uint32_t r = stack[--sp];
        const release *e;
        visits++;
        if (r <= since || r > ws_sync_count)
            continue;
        e = &log_[r];
        if (e->block == block && e->tid == tid)
            return 1;
        if (e->prev > since && sp < 64)
            stack[sp++] = e->prev;
        if (e->acq > since && sp < 64)
            stack[sp++] = e->acq;
    }
    return 0;
}
