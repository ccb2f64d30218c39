/*
 * shadow.c - emulated device memory, shadow memory and the detectors that
 * read it: data races (happens-before), reads of uninitialized shared
 * memory, and accesses outside any allocation.
 *
 * Tracked memory:
 *   shared  the section ws_shared (every __shared__ variable), poisoned with
 *           0xa5 bytes at each block start;
 *   global  an arena that cudaMalloc carves, each allocation page-aligned
 *           and followed by an unmapped-for-us gap, so that a page says
 *           which allocation an address belongs to.
 *
 * Every 4-byte granule has a shadow: the last write and up to WS_NREADS
 * reads since, each as (stamp, block, barrier generation, thread, the
 * thread's warp clock, pc, flags). Two accesses conflict when one writes and
 * not both are atomic; they are ordered when made by the same thread, or in
 * one block with a __syncthreads between them (generation), or in one warp
 * when the later lane's warp vector clock has seen the earlier lane's clock
 * (__syncwarp joins clocks). Blocks of one launch are concurrent even though
 * warpsim runs them one after another; launches are ordered (the stamp).
 * This decides races from the order the program promises, not from the
 * interleaving that happened to run.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "ws_internal.h"

#define WS_NREADS 3
#define CHUNK_SHIFT 16
#define PAGE_SHIFT 12
#define ARENA_SLACK ((size_t)256 << 20)

typedef struct rec {
    uint32_t stamp;               /* launch (global) or block run (shared); 0 none */
    uint32_t block, gen, clk, pc;
    uint16_t tid, flags;
} rec;

typedef struct gran {
    rec w;
    rec r[WS_NREADS];
} gran;

typedef struct alloc {
    uintptr_t start;
    size_t size, span;            /* bytes asked for; pages it owns */
    int freed;                    /* 1 freed, 2 freed and its pages reused */
} alloc;

uintptr_t ws_shared_lo, ws_shared_len, ws_arena_lo, ws_arena_len;
extern char __start_ws_shared[] __attribute__((weak));
extern char __stop_ws_shared[] __attribute__((weak));

static gran *sh_shadow;
static gran **chunks;
static uint32_t *page_alloc;      /* allocation number + 1 for each arena page */
static alloc *allocs;
static int nallocs, cap_allocs;
static size_t arena_size, bump, live_bytes;

void ws_shadow_init(void)
{
    if (__start_ws_shared && (uintptr_t)__stop_ws_shared > (uintptr_t)__start_ws_shared) {
        ws_shared_lo = (uintptr_t)__start_ws_shared;
        ws_shared_len = (uintptr_t)__stop_ws_shared - ws_shared_lo;
    }
    sh_shadow = calloc(ws_shared_len / 4 + 1, sizeof *sh_shadow);
    if (!sh_shadow) {
        fprintf(stderr, "warpsim: out of host memory\n");
        exit(2);
    }
}

void ws_shadow_block_start(void)
{
    if (ws_shared_len)
        memset((void *)ws_shared_lo, WS_SHARED_POISON_BYTE, ws_shared_len);
}

/* ---- the arena ------------------------------------------------------- */

static int arena_reserve(void)
{
    void *p;
    if (arena_size)
        return 0;
    arena_size = ws_cfg.memory_limit + ARENA_SLACK;
    arena_size = (arena_size + ((size_t)1 << CHUNK_SHIFT) - 1) &
                 ~(((size_t)1 << CHUNK_SHIFT) - 1);
    p = mmap(NULL, arena_size, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    chunks = calloc(arena_size >> CHUNK_SHIFT, sizeof *chunks);
    page_alloc = calloc(arena_size >> PAGE_SHIFT, sizeof *page_alloc);
    if (p == MAP_FAILED || !chunks || !page_alloc) {
        arena_size = 0;
        return -1;
    }
    ws_arena_lo = (uintptr_t)p;
    ws_arena_len = arena_size;
    bump = 0;
    return 0;
}

void *ws_arena_alloc(size_t bytes, cudaError_t *err)
{
    size_t page = (size_t)1 << PAGE_SHIFT, span, i;
    uintptr_t start;
    *err = cudaSuccess;
    if (arena_reserve() != 0) {
        *err = cudaErrorMemoryAllocation;
        return NULL;
    }
    if (bytes > ws_cfg.memory_limit || live_bytes + bytes > ws_cfg.memory_limit) {
        *err = cudaErrorMemoryAllocation;
        return NULL;
    }
    span = (bytes + page - 1) / page * page;
    if (span == 0)
        span = page;
    if (nallocs == cap_allocs) {
        int cap = cap_allocs ? 2 * cap_allocs : 64;
        alloc *a = realloc(allocs, (size_t)cap * sizeof *a);
        if (!a) {
            *err = cudaErrorMemoryAllocation;
            return NULL;
        }
        allocs = a;
        cap_allocs = cap;
    }
    if (bump + span + page <= arena_size) {
        start = ws_arena_lo + bump;
        bump += span + page;        /* one page of gap after each allocation */
    } else {
        /* Fresh space is used up: take the pages of a freed allocation
         * (until then, touching freed memory is reported as such). */
        int a;
        for (a = 0; a < nallocs; a++)
            if (allocs[a].freed == 1 && allocs[a].span >= span)
                break;
        if (a == nallocs) {
            *err = cudaErrorMemoryAllocation;
            return NULL;
        }
        allocs[a].freed = 2;
        start = allocs[a].start;
        span = allocs[a].span;
    }
    allocs[nallocs].start = start;
    allocs[nallocs].size = bytes;
    allocs[nallocs].span = span;
    allocs[nallocs].freed = 0;
    nallocs++;
    for (i = 0; i < span; i += page)
        page_alloc[(start - ws_arena_lo + i) >> PAGE_SHIFT] = (uint32_t)nallocs;
    live_bytes += bytes;
    /* cudaMalloc's memory holds whatever it holds; make it recognizable */
    memset((void *)start, 0xcd, bytes);
    return (void *)start;
}

/* Returns the allocation number (from 1) holding addr, with its bounds. */
int ws_alloc_of(uintptr_t addr, uintptr_t *start, size_t *size)
{
    uint32_t a;
    if (addr - ws_arena_lo >= ws_arena_len)
        return 0;
    a = page_alloc[(addr - ws_arena_lo) >> PAGE_SHIFT];
    if (!a)
        return 0;
    *start = allocs[a - 1].start;
    *size = allocs[a - 1].size;
    return (int)a;
}

int ws_arena_free(void *p)
{
    uintptr_t s;
    size_t n;
    int a = ws_alloc_of((uintptr_t)p, &s, &n);
    if (!a || s != (uintptr_t)p || allocs[a - 1].freed)
        return -1;              /* not an allocation's start, or freed already */
    allocs[a - 1].freed = 1;
    live_bytes -= n;
    if (n >= ((size_t)1 << 20))
        madvise((void *)s, n & ~(((size_t)1 << PAGE_SHIFT) - 1), MADV_DONTNEED);
    return 0;
}

/* 1 when [p, p+bytes) lies in one live allocation, -1 when p is device
 * memory but the range is not, 0 when p is not device memory. */
int ws_is_device(const void *p, size_t bytes)
{
    uintptr_t s;
    size_t n;
    int a = ws_alloc_of((uintptr_t)p, &s, &n);
    if ((uintptr_t)p - ws_arena_lo >= ws_arena_len)
        return 0;
    if (!a || allocs[a - 1].freed || (uintptr_t)p + bytes > s + n)
        return -1;
    return 1;
}

/* ---- reports --------------------------------------------------------- */

static const char *verb(int flags)
{
    if (flags & WS_ACC_ATOMIC)
        return "updates it atomically";
    if (flags & WS_ACC_WRITE)
        return flags & WS_ACC_VOLATILE ? "writes it (volatile)" : "writes it";
    return flags & WS_ACC_VOLATILE ? "reads it (volatile)" : "reads it";
}

/* Reports a race once per pair of pcs (in either order), the writer first. */
static void report_race(const rec *prev, const rec *cur, uintptr_t addr, size_t size,
                        int shared)
{
    char name[160], a[64], b[64];
    const char *why;
    const rec *x = prev, *y = cur;
    uint32_t lo = prev->pc < cur->pc ? prev->pc : cur->pc;
    uint32_t hi = prev->pc < cur->pc ? cur->pc : prev->pc;
    if (!ws_report_once(WR_RACE, lo, hi, 0))
        return;
    if (ws_counts[WR_RACE] > 10 && !ws_cfg.verbose) {
        if (ws_counts[WR_RACE] == 11)
            ws_say("more races are counted but not shown (WARPSIM_VERBOSE=1 shows them all)");
        return;
    }
    if (!(x->flags & WS_ACC_WRITE)) {       /* name the write first */
        x = cur;
        y = prev;
    }
    ws_mem_name(addr, size, name, sizeof name);
    snprintf(a, sizeof a, "%s", ws_where(ws_pc_from_offset(x->pc)));
    snprintf(b, sizeof b, "%s", ws_where(ws_pc_from_offset(y->pc)));
    if (x->block != y->block)
        why = "different blocks of one launch, which nothing orders";
    else if (x->tid / 32 != y->tid / 32)
        why = "different warps, and no __syncthreads between them";
    else
        why = "same warp, and no __syncwarp or __syncthreads between them "
              "(lockstep is not promised)";
    ws_say("race on %s %s: thread %u (block %u, warp %u, lane %u) %s at %s and "
           "thread %u (block %u, warp %u, lane %u) %s at %s; %s",
           shared ? "shared" : "global", name, x->tid, x->block, x->tid / 32u,
           x->tid % 32u, verb(x->flags), a, y->tid, y->block, y->tid / 32u, y->tid % 32u,
           verb(y->flags), b, why);
}

static void report_uninit(const ws_lane *l, uintptr_t addr, size_t size, uintptr_t pc)
{
    char name[160], who[160];
    if (!ws_report_once(WR_UNINIT, pc, 0, 0))
        return;
    ws_mem_name(addr, size, name, sizeof name);
    ws_say("uninitialized read: %s reads shared %s at %s before any thread of its block "
           "wrote it (it holds 0x%02x bytes, warpsim's poison)", ws_who(l, who, sizeof who),
           name, ws_where(pc), WS_SHARED_POISON_BYTE);
}

static void report_bad_global(const ws_lane *l, uintptr_t addr, size_t size, int flags,
                              uintptr_t pc)
{
    char who[160], what[200];
    uintptr_t s;
    size_t n;
    int a = ws_alloc_of(addr, &s, &n);
    if (!ws_report_once(WR_MEM, pc, 0, 0))
        return;
    if (!a && addr - ws_arena_lo >= ((uintptr_t)1 << PAGE_SHIFT))
        a = ws_alloc_of(addr - ((uintptr_t)1 << PAGE_SHIFT), &s, &n);  /* the gap after one */
    if (a && allocs[a - 1].freed)
        snprintf(what, sizeof what, "allocation %d (%zu bytes), which was freed", a, n);
    else if (a && addr >= s + n)
        snprintf(what, sizeof what, "%zu bytes past the end of allocation %d (%zu bytes)",
                 (size_t)(addr + size - (s + n)), a, n);
    else if (a)
        snprintf(what, sizeof what, "the end of allocation %d (%zu bytes): %zu bytes past it",
                 a, n, (size_t)(addr + size - (s + n)));
    else
        snprintf(what, sizeof what, "no allocation (a gap between allocations)");
    if (l)
        ws_say("invalid %s of %zu bytes on global memory: %s at %s touches %s",
               flags & WS_ACC_WRITE ? "write" : "read", size, ws_who(l, who, sizeof who),
               ws_where(pc), what);
    else
        ws_say("invalid %s of %zu bytes: host code at %s touches device memory (%s); "
               "a GPU program would crash here", flags & WS_ACC_WRITE ? "write" : "read",
               size, ws_where(pc), a ? "a cudaMalloc allocation" : what);
}

/* ---- the check ------------------------------------------------------- */

static int conflict(const rec *a, int flags)
{
    return ((a->flags | flags) & WS_ACC_WRITE) &&
           !((a->flags & flags) & WS_ACC_ATOMIC);
}

/* Whether access p happens before the running lane's current access. */
static int ordered(const rec *p, const ws_lane *l)
{
    if (p->block != ws.block_id)
        return 0;
    if (p->tid == l->tid || p->gen < ws.gen)
        return 1;
    return p->tid / 32 == l->warp && l->vc[p->tid % 32] >= p->clk;
}

static gran *global_gran(uintptr_t off)
{
    gran **c = &chunks[off >> CHUNK_SHIFT];
    if (!*c) {
        *c = calloc((size_t)1 << (CHUNK_SHIFT - 2), sizeof(gran));
        if (!*c) {
            fprintf(stderr, "warpsim: out of host memory for shadow memory\n");
            exit(2);
        }
    }
    return &(*c)[(off & (((uintptr_t)1 << CHUNK_SHIFT) - 1)) >> 2];
}

/* Checks and records one access by the running lane (after its scheduling
 * point, right before the access happens). */
void ws_check_access(uintptr_t addr, size_t size, int flags, uintptr_t pc)
{
    ws_lane *l = ws.cur;
    int shared = addr - ws_shared_lo < ws_shared_len;
    uintptr_t off, end, g;
    rec cur;
    int reported = 0;

    ws.accesses++;
    if (size == 0)
        return;
    if (shared) {
        off = addr - ws_shared_lo;
        end = off + size;
        if (end > ws_shared_len)
            end = ws_shared_len;
        cur.stamp = ws.block_stamp;
    } else {
        if (ws_is_device((void *)addr, size) != 1) {
            report_bad_global(l, addr, size, flags, pc);
            return;
        }
        off = addr - ws_arena_lo;
        end = off + size;
        cur.stamp = ws.launch_id;
    }
    /* Progress, for the hang detector: a plain write (atomics count when
     * they change memory), or a read of an address other than the lane's
     * last two: a spinning lane polls the same flag, a lane streaming
     * through an array does not. */
    l->clock_polls = 0;
    if ((flags & (WS_ACC_WRITE | WS_ACC_ATOMIC)) == WS_ACC_WRITE) {
        ws_progress();
    } else if (!(flags & WS_ACC_WRITE) && addr != l->rd1 && addr != l->rd2) {
        l->rd2 = l->rd1;
        l->rd1 = addr;
        ws_progress();
    }
    cur.block = ws.block_id;
    cur.gen = ws.gen;
    cur.clk = l->vc[l->lane];
    cur.pc = ws_pc_offset(pc);
    cur.tid = (uint16_t)l->tid;
    cur.flags = (uint16_t)flags;

    for (g = off & ~(uintptr_t)3; g < end; g += 4) {
        gran *s = shared ? &sh_shadow[g >> 2] : global_gran(g);
        int i, w_valid = s->w.stamp == cur.stamp;
        if (w_valid) {
            if (!reported && conflict(&s->w, flags) && !ordered(&s->w, l)) {
                report_race(&s->w, &cur, addr, size, shared);
                reported = 1;
            }
        } else if (shared && (!(flags & WS_ACC_WRITE) || (flags & WS_ACC_ATOMIC))) {
            if (!reported)
                report_uninit(l, addr, size, pc);
            reported = 1;
        }
        if (!(flags & WS_ACC_WRITE)) {
            int slot = -1;
            for (i = 0; i < WS_NREADS; i++) {
                rec *r = &s->r[i];
                if (r->stamp != cur.stamp || ordered(r, l)) {
                    r->stamp = 0;
                    if (slot < 0)
                        slot = i;
                }
            }
            if (slot < 0)
                slot = (int)(cur.tid % WS_NREADS);
            s->r[slot] = cur;
        } else {
            for (i = 0; i < WS_NREADS; i++) {
                rec *r = &s->r[i];
                if (r->stamp != cur.stamp)
                    continue;
                if (!reported && conflict(r, flags) && !ordered(r, l)) {
                    report_race(r, &cur, addr, size, shared);
                    reported = 1;
                }
                r->stamp = 0;
            }
            s->w = cur;
        }
    }
}

/* A hook's access: host code touching device memory is an error; a lane's
 * access is a scheduling point, then checked. */
void ws_access(uintptr_t addr, size_t size, int flags, uintptr_t pc)
{
    if (!ws.cur) {
        if (addr - ws_arena_lo < ws_arena_len)
            report_bad_global(NULL, addr, size, flags, pc);
        return;
    }
    ws_point(pc);
    ws_check_access(addr, size, flags, pc);
}
