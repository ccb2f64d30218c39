/*
 * shadow.c - emulated device memory, shadow memory and the detectors that
 * read it: data races (happens-before), reads of uninitialized shared and
 * device memory, accesses outside any allocation or __shared__ variable,
 * and a lane's accesses to anything else (a null or wild pointer, another
 * thread's stack, host memory), which stop it before they are made.
 *
 * Tracked memory:
 *   shared  the section ws_shared (every __shared__ variable, then a red
 *           zone of libwarpsim's own; the padding before it is one too),
 *           poisoned with 0xa5 bytes at each block start; each byte knows
 *           its variable, and each access site the variable it uses;
 *   global  an arena that cudaMalloc carves, each allocation page-aligned
 *           and followed by an unmapped-for-us gap, so that a page says
 *           which allocation an address belongs to; poisoned with 0xcd
 *           bytes, which hold no value until cudaMemset, cudaMemcpy or a
 *           kernel writes them (init_page and each granule's init bits).
 *
 * Every 4-byte granule has a shadow: the last plain write, the last atomics
 * of two threads and up to WS_NREADS plain reads since, each as (stamp,
 * block, barrier generation, thread, the thread's warp clock, the releases
 * made before it, pc, flags, the bytes of the granule it touched). Two
 * accesses conflict when they touch a common byte, one writes and not both
 * are atomic; they are ordered when made by the same thread, or in one
 * block with a __syncthreads between them (generation), or in one warp when
 * the later lane's warp vector clock has seen the earlier lane's clock
 * (__syncwarp joins clocks), or through a release the later thread acquired
 * (sync.c). Blocks of one launch are concurrent even though warpsim runs
 * them one after another; launches are ordered (the stamp). Atomics never
 * clear the plain records, so a plain access meets the atomics of other
 * threads whichever ran first. This decides races from the order the
 * program promises, not from the interleaving that happened to run.
 *
 * Speed: a plain access that needs no report (or only a race already
 * reported) takes fast_gran's short path, which reads the granule's newest
 * atomic stamp instead of its atomic records; check_gran decides the rest.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "ws_internal.h"

#define WS_NREADS 3
#define CHUNK_SHIFT 16
#define PAGE_SHIFT 12
#define ARENA_SLACK ((size_t)256 << 20)
#define CHUNK_GRANS ((size_t)1 << (CHUNK_SHIFT - 2))

typedef struct rec {
    uint32_t stamp;               /* launch (global) or block run (shared); 0 none */
    uint32_t block, gen, clk, pc;
    uint32_t rel;                 /* releases made before it (sync.c) */
    uint16_t tid;
    uint8_t flags;
    uint8_t bytes;                /* which bytes of the granule it touched */
} rec;

/* The last plain write and up to WS_NREADS plain reads since, with the
 * stamp of the granule's last atomic: two cache lines, which are all that
 * a plain access's short path touches. The atomics of up to two threads
 * live apart (agran), in a parallel array. Atomics never replace or clear
 * the plain records: a plain access conflicts with atomics of other
 * threads whatever order they ran in. */
typedef struct gran {
    uint32_t astamp;              /* the stamp of the last atomic: the agran's newest */
    rec w;
    rec r[WS_NREADS];
    uint32_t init;                /* device memory: the bytes written since cudaMalloc
                                   * (with init_page, below) */
} __attribute__((aligned(64))) gran;

typedef struct agran {
    rec a[2];
} agran;

typedef struct alloc {
    uintptr_t start;
    size_t size, span;            /* bytes asked for; pages it owns */
    int freed;                    /* 1 freed, 2 freed and its pages reused */
} alloc;

uintptr_t ws_shared_lo, ws_shared_len, ws_shared_used, ws_arena_lo, ws_arena_len;

/* A red zone after the program's __shared__ variables: libwarpsim is linked
 * after the program, so its part of the section comes last, and an access
 * running off the last variable lands here (reported) instead of in
 * whatever follows the section. */
#define TAIL_BYTES 256
static char ws_shared_tail[TAIL_BYTES]
    __attribute__((section(WS_SHARED_SECTION), aligned(16), used));

/* For each byte of the section, the __shared__ variable holding it (its
 * index + 1 in image.c's table), 0 for a gap or the red zone. */
static uint16_t *sh_owner;
static const ws_var *sh_vars;
static int sh_nvars;
/* For each variable, its bytes [lo, hi) as offsets in the section when
 * every one of them is its own (sh_owner), else an empty range. */
static uint32_t *sh_var_lo, *sh_var_hi;
extern char shared_start[] WS_SHARED_START __attribute__((weak));
extern char ws_shared_head[256] __attribute__((weak));     /* shared_head.c */
extern char shared_stop[] WS_SHARED_STOP __attribute__((weak));

static gran *sh_shadow;
static agran *sh_atoms;           /* sh_shadow's atomics, granule by granule */
static gran **chunks;             /* each: CHUNK_GRANS grans, then their agrans */
static uint32_t *page_alloc;      /* allocation number + 1 for each arena page */
/* For each arena page: 1 when the host wrote all of it (cudaMemset,
 * cudaMemcpy) since its cudaMalloc, so that every byte holds a value; 0
 * when only the granules' init bits say which bytes do. A plain read of a
 * byte that neither says was written is an uninitialized read. */
static uint8_t *init_page;
static alloc *allocs;
static int nallocs, cap_allocs;
static size_t arena_size, bump, live_bytes;

/* Zeroed memory that starts a page (pages nobody touches cost nothing), or
 * NULL. */
void *ws_zalloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* The program's loaded image (ws_shadow_init). */
static uintptr_t img_lo, img_len;

void ws_shadow_init(void)
{
    int i;
    if (shared_start && (uintptr_t)shared_stop > (uintptr_t)shared_start) {
        ws_shared_lo = (uintptr_t)shared_start;
        ws_shared_len = (uintptr_t)shared_stop - ws_shared_lo;
    }
    ws_shared_used = ws_shared_len;
    if ((uintptr_t)ws_shared_tail + TAIL_BYTES == ws_shared_lo + ws_shared_len)
        ws_shared_used = (uintptr_t)ws_shared_tail - ws_shared_lo;
    if (ws_shared_len && (uintptr_t)ws_shared_head == ws_shared_lo)    /* shared_head.c */
        ws_shared_used -= sizeof ws_shared_head;
    if (ws_shared_len) {            /* padding before the section: a red zone too */
        size_t pad = ws_image_pad_before(ws_shared_lo);
        ws_shared_lo -= pad;
        ws_shared_len += pad;
    }
    sh_shadow = ws_zalloc((ws_shared_len / 4 + 1) * sizeof *sh_shadow);
    sh_atoms = calloc(ws_shared_len / 4 + 1, sizeof *sh_atoms);
    sh_owner = calloc(ws_shared_len + 1, sizeof *sh_owner);
    if (!sh_shadow || !sh_atoms || !sh_owner) {
        fprintf(stderr, "warpsim: out of host memory\n");
        exit(2);
    }
    sh_vars = ws_image_vars(&sh_nvars);
    for (i = 0; i < sh_nvars && i < 65535; i++) {
        uintptr_t a = sh_vars[i].addr, e = a + sh_vars[i].size;
        if (a < ws_shared_lo)
            continue;
        for (; a < e && a < ws_shared_lo + ws_shared_len; a++)
            sh_owner[a - ws_shared_lo] = (uint16_t)(i + 1);
    }
    {
        uintptr_t lo, hi;
        ws_image_span(&lo, &hi);
        img_lo = lo;
        img_len = hi - lo;
    }
    sh_var_lo = calloc((size_t)sh_nvars + 1, sizeof *sh_var_lo);
    sh_var_hi = calloc((size_t)sh_nvars + 1, sizeof *sh_var_hi);
    if (!sh_var_lo || !sh_var_hi) {
        fprintf(stderr, "warpsim: out of host memory\n");
        exit(2);
    }
    for (i = 0; i < sh_nvars && i < 65535; i++) {
        uintptr_t a = sh_vars[i].addr, e = a + sh_vars[i].size, b;
        if (a < ws_shared_lo || e > ws_shared_lo + ws_shared_len || e <= a)
            continue;
        for (b = a; b < e && sh_owner[b - ws_shared_lo] == (uint16_t)(i + 1); b++)
            ;
        if (b == e) {
            sh_var_lo[i] = (uint32_t)(a - ws_shared_lo);
            sh_var_hi[i] = (uint32_t)(e - ws_shared_lo);
        }
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
    init_page = ws_zalloc(arena_size >> PAGE_SHIFT);
    if (p == MAP_FAILED || !chunks || !page_alloc || !init_page) {
        arena_size = 0;
        return -1;
    }
    ws_arena_lo = (uintptr_t)p;
    ws_arena_len = arena_size;
    bump = 0;
    return 0;
}

#define WS_DEVICE_POISON_BYTE 0xcd

#define CHUNK_MASK (((uintptr_t)1 << CHUNK_SHIFT) - 1)

/* Pages [off, off + span) of the arena (a freed allocation's, taken again)
 * hold no written byte any more. */
static void forget_writes(uintptr_t off, size_t span)
{
    uintptr_t o = off, end = off + span;
    size_t i;
    for (i = 0; i < span >> PAGE_SHIFT; i++)
        init_page[(off >> PAGE_SHIFT) + i] = 0;
    while (o < end) {               /* the granules that have a shadow */
        uintptr_t stop = (o | CHUNK_MASK) + 1;
        gran *c = chunks[o >> CHUNK_SHIFT];
        if (stop > end)
            stop = end;
        for (; c && o < stop; o += 4)
            c[(o & CHUNK_MASK) >> 2].init = 0;
        o = stop;
    }
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
        forget_writes(start - ws_arena_lo, span);
    }
    allocs[nallocs].start = start;
    allocs[nallocs].size = bytes;
    allocs[nallocs].span = span;
    allocs[nallocs].freed = 0;
    nallocs++;
    for (i = 0; i < span; i += page)
        page_alloc[(start - ws_arena_lo + i) >> PAGE_SHIFT] = (uint32_t)nallocs;
    live_bytes += bytes;
    /* cudaMalloc's memory holds whatever it holds; make it recognizable
     * (and nothing wrote it: init_page and the init bits are 0) */
    memset((void *)start, WS_DEVICE_POISON_BYTE, bytes);
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

/* The live allocation that the last access checked landed in, [lo, hi):
 * most accesses land in the same one, and need no look-up. */
static uintptr_t live_lo, live_hi;

int ws_arena_free(void *p)
{
    uintptr_t s;
    size_t n;
    int a = ws_alloc_of((uintptr_t)p, &s, &n);
    if (!a || s != (uintptr_t)p || allocs[a - 1].freed)
        return -1;              /* not an allocation's start, or freed already */
    allocs[a - 1].freed = 1;
    live_lo = live_hi = 0;
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

/* ws_is_device(p, bytes) == 1, for a lane's access. */
static inline int device_access(uintptr_t p, size_t bytes)
{
    uintptr_t s;
    size_t n;
    if (p >= live_lo && p + bytes <= live_hi)
        return 1;
    if (ws_is_device((void *)p, bytes) != 1)
        return 0;
    ws_alloc_of(p, &s, &n);
    live_lo = s;
    live_hi = s + n;
    return 1;
}

/* ---- naming memory -------------------------------------------------- */

/* The running launch's kernel parameters that point into device memory,
 * by name, read from the source (image.c) and from what the launch passed
 * (ctx.c), once per launch: device memory is named as the kernel names it. */
#define MAX_PARAMS 16
static struct {
    uint32_t launch;
    int n;
    char name[MAX_PARAMS][32];
    uintptr_t value[MAX_PARAMS];
} kparams;

/* The kernel's name in what the launch wrote (`kernel`, `(kernel)`,
 * `ns::kernel<int>`): its last identifier before any template arguments. */
static void kernel_name(const char *text, char *out, size_t len)
{
    size_t end = strcspn(text, "<"), start;
    while (end > 0 && !(isalnum((unsigned char)text[end - 1]) || text[end - 1] == '_'))
        end--;
    for (start = end; start > 0 && (isalnum((unsigned char)text[start - 1]) ||
                                    text[start - 1] == '_'); start--)
        ;
    snprintf(out, len, "%.*s", (int)(end - start), text + start);
}

static void load_params(void)
{
    ws_param p[MAX_PARAMS];
    char path[256], name[64];
    uintptr_t k = ws_launched_kernel(), s;
    size_t sz;
    int line, n, i, ints = 0, vecs = 0, slots = 0;
    kparams.launch = ws.launch_id;
    kparams.n = 0;
    if (!k || !ws.kernel || !ws_where_src(k + 1, path, sizeof path, &line))
        return;
    kernel_name(ws.kernel, name, sizeof name);
    n = ws_source_params(path, line, name, p, MAX_PARAMS);
    for (i = 0; i < n; i++) {
        uint64_t v;
        int ok;
        if (p[i].cls == 'f') {      /* a vector register, or a stack slot */
            slots += vecs++ >= WS_ARG_VECS;
            continue;
        }
        ok = ints < WS_ARG_GPRS ? ws_launch_word(0, ints++, &v) : ws_launch_word(1, slots++, &v);
        if (ok && ws_alloc_of((uintptr_t)v, &s, &sz)) {
            memcpy(kparams.name[kparams.n], p[i].name, sizeof kparams.name[0]);
            kparams.value[kparams.n++] = (uintptr_t)v;
        }
    }
}

/* The kernel parameter that points into allocation a at or below addr,
 * nearest to it, while a lane runs; -1 for none. */
static int param_of(uintptr_t addr, int a)
{
    int i, best = -1;
    uintptr_t s;
    size_t sz;
    if (!ws.cur)
        return -1;
    if (kparams.launch != ws.launch_id)
        load_params();
    for (i = 0; i < kparams.n; i++)
        if (kparams.value[i] <= addr && ws_alloc_of(kparams.value[i], &s, &sz) == a &&
            (best < 0 || kparams.value[i] > kparams.value[best]))
            best = i;
    return best;
}

/* Names the memory at addr: "r[17]" for a shared array; for device memory
 * "out[17]" after the kernel parameter that points into it, else
 * "cudaMalloc#2[17]" (element index in units of the access size). */
const char *ws_mem_name(uintptr_t addr, size_t size, char *buf, size_t len)
{
    uintptr_t start;
    size_t n, unit = size ? size : 1;
    int a, k;
    if (addr - ws_shared_lo < ws_shared_len) {
        const ws_var *v = ws_image_var_at(addr);
        if (v) {
            if (v->size <= unit)
                snprintf(buf, len, "%s", v->name);
            else if ((addr - v->addr) % unit == 0)
                snprintf(buf, len, "%s[%zu]", v->name, (size_t)(addr - v->addr) / unit);
            else
                snprintf(buf, len, "%s+%zu", v->name, (size_t)(addr - v->addr));
            return buf;
        }
        snprintf(buf, len, "shared+%zu", (size_t)(addr - ws_shared_lo));
        return buf;
    }
    a = ws_alloc_of(addr, &start, &n);
    k = a ? param_of(addr, a) : -1;
    if (k >= 0 && (addr - kparams.value[k]) % unit == 0)
        snprintf(buf, len, "%s[%zu]", kparams.name[k], (size_t)(addr - kparams.value[k]) / unit);
    else if (k >= 0)
        snprintf(buf, len, "%s+%zu", kparams.name[k], (size_t)(addr - kparams.value[k]));
    else if (a && (addr - start) % unit == 0)
        snprintf(buf, len, "cudaMalloc#%d[%zu]", a, (size_t)(addr - start) / unit);
    else if (a)
        snprintf(buf, len, "cudaMalloc#%d+%zu", a, (size_t)(addr - start));
    else
        snprintf(buf, len, "device+%zu", (size_t)(addr - ws_arena_lo));
    return buf;
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

/* Pairs of pcs already reported as a race, direct-mapped (a pair it forgets
 * goes to ws_report_once again, which remembers them all). */
static struct { uint32_t lo, hi; } seen_races[64];

/* Whether the race of the accesses at pc offsets a and b (either order) was
 * reported before, as far as seen_races remembers. */
static inline int race_seen(uint32_t a, uint32_t b)
{
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    return seen_races[(lo * 31 + hi) & 63].lo == lo && seen_races[(lo * 31 + hi) & 63].hi == hi;
}

/* Reports a race once per pair of pcs (in either order), the writer first.
 * After a fault in this launch, only a race with an access of the faulting
 * block: one that may have caused the fault (report.c says it first). */
__attribute__((noinline, cold)) static void report_race(const rec *prev, const rec *cur, uintptr_t addr, size_t size,
                        int shared)
{
    char name[160], a[64], b[64];
    const char *why;
    const rec *x = prev, *y = cur;
    uint32_t lo = prev->pc < cur->pc ? prev->pc : cur->pc;
    uint32_t hi = prev->pc < cur->pc ? cur->pc : prev->pc;
    if (ws_faulted() && prev->block != ws_fault_block() && cur->block != ws_fault_block())
        return;
    if (ws.trace_warp >= 0) {
        ws_mem_name(addr, size, name, sizeof name);
        ws_trace_race(prev->tid, prev->block, prev->pc, prev->flags & WS_ACC_WRITE,
                      cur->tid, cur->pc, cur->flags & WS_ACC_WRITE, name);
    }
    if (race_seen(lo, hi))
        return;
    seen_races[(lo * 31 + hi) & 63].lo = lo;    /* ws_report_once remembers it now */
    seen_races[(lo * 31 + hi) & 63].hi = hi;
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

__attribute__((noinline, cold)) static void report_uninit(const ws_lane *l, uintptr_t addr, size_t size, uintptr_t pc,
                                                          int shared)
{
    char name[160], who[160];
    if (!ws_report_once(WR_UNINIT, pc, 0, 0))
        return;
    ws_mem_name(addr, size, name, sizeof name);
    if (shared)
        ws_say("uninitialized read: %s reads shared %s at %s before any thread of its block "
               "wrote it (it holds 0x%02x bytes, warpsim's poison)", ws_who(l, who, sizeof who),
               name, ws_where(pc), WS_SHARED_POISON_BYTE);
    else
        ws_say("uninitialized read: %s reads global %s at %s, which no cudaMemset, "
               "cudaMemcpy or kernel wrote since its cudaMalloc (it holds 0x%02x bytes, "
               "warpsim's poison)", ws_who(l, who, sizeof who), name, ws_where(pc),
               WS_DEVICE_POISON_BYTE);
}

/* Device memory touched outside every live allocation: by lane l, a fault
 * (the access is not made, the lane stops); by host code (l NULL), a report
 * (the access goes ahead, on memory warpsim owns). */
__attribute__((noinline, cold)) static void report_bad_global(ws_lane *l, uintptr_t addr, size_t size, int flags,
                              uintptr_t pc)
{
    char who[160], what[200];
    uintptr_t s;
    size_t n;
    int a = ws_alloc_of(addr, &s, &n);
    if (!ws_report_once(WR_MEM, pc, 0, 0)) {
        if (l)
            ws_lane_fault(l);
        return;
    }
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
    if (l) {
        ws_report_hold("invalid %s of %zu bytes on global memory: %s at %s touches %s",
                       flags & WS_ACC_WRITE ? "write" : "read", size,
                       ws_who(l, who, sizeof who), ws_where(pc), what);
        ws_lane_fault(l);
    }
    ws_say("invalid %s of %zu bytes: host code at %s touches device memory (%s); "
           "a GPU program would crash here", flags & WS_ACC_WRITE ? "write" : "read",
           size, ws_where(pc), a ? "a cudaMalloc allocation" : what);
}

/* A lane touched memory that is neither device memory, nor shared memory,
 * nor its own stack, nor the program's own global variables (for a read:
 * nor its image): a null or wild pointer, another thread's stack, host
 * memory. A fault: the access is not made, the lane stops. */
__attribute__((noinline, cold, noreturn)) static void report_wild(ws_lane *l, uintptr_t addr, size_t size,
                                                                  int flags, uintptr_t pc)
{
    char who[160], what[512];
    int t = ws_stack_index(addr);
    if (ws_report_once(WR_MEM, pc, 0, 0)) {
        if (t >= 0)
            snprintf(what, sizeof what, "on local memory: %s at %s touches the stack of "
                     "thread %d (a thread's local memory is its own)",
                     ws_who(l, who, sizeof who), ws_where(pc), t);
        else if (addr < 4096)
            snprintf(what, sizeof what, "on global memory: %s at %s touches address 0x%lx, "
                     "a null pointer%s", ws_who(l, who, sizeof who), ws_where(pc),
                     (unsigned long)addr, addr ? " plus an offset" : "");
        else
            snprintf(what, sizeof what, "on global memory: %s at %s touches address %p, "
                     "which is no device allocation, no __shared__ or __device__ variable "
                     "and not the thread's own stack", ws_who(l, who, sizeof who),
                     ws_where(pc), (void *)addr);
        ws_report_hold("invalid %s of %zu bytes %s", flags & WS_ACC_WRITE ? "write" : "read",
                       size, what);
    }
    ws_lane_fault(l);
}

/* ---- out of bounds of a __shared__ variable --------------------------- */

/*
 * Which variable each access site uses: a site (the pc and the call it is
 * in) that touched variable v at least twice in this launch and now touches
 * something else ran off v. A direct-mapped table; a site it forgets is
 * learned again, and so is a site in a later launch (a device function
 * that two kernels call, each with its own __shared__ array).
 */
typedef struct site_var {
    uintptr_t pc, caller;
    uint16_t var, hits;
    uint32_t launch;              /* when it learned var: a later launch learns again */
} site_var;
static site_var site_vars[4096];

/* A fault: the access is not made, the lane stops. */
__attribute__((noinline, cold, noreturn)) static void report_bad_shared(ws_lane *l, uintptr_t addr, size_t size,
                                                                        int flags, uintptr_t pc, const ws_var *v)
{
    char who[160], what[256];
    size_t unit = size ? size : 1;
    if (!ws_report_once(WR_MEM, pc, 0x5a, 0))
        ws_lane_fault(l);
    if (v && addr >= v->addr + v->size)
        snprintf(what, sizeof what, "%s[%zu], %zu bytes past the end of %s (%zu bytes)",
                 v->name, (size_t)(addr - v->addr) / unit,
                 (size_t)(addr + size - (v->addr + v->size)), v->name, v->size);
    else if (v && addr < v->addr)
        snprintf(what, sizeof what, "%s[-%zu], %zu bytes before the start of %s (%zu bytes)",
                 v->name, (size_t)(v->addr - addr + unit - 1) / unit,
                 (size_t)(v->addr - addr), v->name, v->size);
    else if (v)
        snprintf(what, sizeof what, "bytes of %s (%zu bytes) and past its end", v->name,
                 v->size);
    else
        snprintf(what, sizeof what, "shared+%zu, which belongs to no __shared__ variable",
                 (size_t)(addr - ws_shared_lo));
    ws_report_hold("invalid %s of %zu bytes on shared memory: %s at %s touches %s",
                   flags & WS_ACC_WRITE ? "write" : "read", size, ws_who(l, who, sizeof who),
                   ws_where(pc), what);
    ws_lane_fault(l);
}

/* Whether a shared access at off (size bytes) stays inside one variable,
 * and the one its site uses; when not, reports it and the lane stops. */
static inline __attribute__((always_inline)) int
shared_in_bounds(ws_lane *l, uintptr_t off, size_t size, int flags, uintptr_t pc)
{
    unsigned v0, v1;
    uintptr_t caller = l->depth > 0 && l->depth <= WS_MAX_FRAMES ? l->frames[l->depth - 1] : 0;
    site_var *sv = &site_vars[((pc ^ (caller << 3)) >> 1) & 4095];
    const ws_var *want;
    /* A site that used its variable at least twice, inside it again: in
     * bounds, and nothing to learn (hits only tells 1 from 2 or more). */
    if (sv->pc == pc && sv->caller == caller && sv->hits >= 2 &&
        off >= sh_var_lo[sv->var - 1] && off + size <= sh_var_hi[sv->var - 1])
        return 1;
    if (!sh_nvars)
        return 1;
    v0 = off < ws_shared_len ? sh_owner[off] : 0;
    v1 = off + size - 1 < ws_shared_len ? sh_owner[off + size - 1] : 0;
    if (sv->pc != pc || sv->caller != caller || sv->launch != ws.launch_id) {
        sv->pc = pc;
        sv->caller = caller;
        sv->var = 0;
        sv->hits = 0;
        sv->launch = ws.launch_id;
    }
    if (v0 && v0 == v1) {
        if (!sv->var || (sv->var != v0 && sv->hits < 2)) {
            sv->var = (uint16_t)v0;
            sv->hits = 1;
            return 1;
        }
        if (sv->var == v0) {
            if (sv->hits < 0xffff)
                sv->hits++;
            return 1;
        }
    }
    /* In a gap, across two variables, or in another one than the site's. */
    want = sv->var && sv->hits >= 2 ? &sh_vars[sv->var - 1]
         : v0 ? &sh_vars[v0 - 1] : v1 ? &sh_vars[v1 - 1] : NULL;
    if (!want) {                    /* the nearest variable, before or after it */
        uintptr_t b = off < ws_shared_len ? off : ws_shared_len - 1, a = b;
        while (b > 0 && !sh_owner[b])
            b--;
        while (a + 1 < ws_shared_len && !sh_owner[a])
            a++;
        if (sh_owner[b] && (!sh_owner[a] || off - b <= a - off))
            want = &sh_vars[sh_owner[b] - 1];
        else if (sh_owner[a])
            want = &sh_vars[sh_owner[a] - 1];
    }
    report_bad_shared(l, ws_shared_lo + off, size, flags, pc, want);
}

/* ---- the check ------------------------------------------------------- */

/* The running lane as the check sees it, read once per access (nothing
 * the check stores into shadow memory changes it). */
typedef struct view {
    uint32_t block, gen;          /* ws.block_id, ws.gen */
    int tid, warp;
    uint32_t acq;                 /* l->acq */
    const uint32_t *vc;           /* l->vc */
    const ws_lane *l;
} view;

static inline __attribute__((always_inline)) int conflict(const rec *a, int flags)
{
    return ((a->flags | flags) & WS_ACC_WRITE) &&
           !((a->flags & flags) & WS_ACC_ATOMIC);
}

/* Whether access p happens before the running lane's current access. */
static inline __attribute__((always_inline)) int ordered(const rec *p, const view *me)
{
    if (p->block == me->block) {
        if (p->tid == me->tid || p->gen < me->gen)
            return 1;
        if (p->tid / 32 == me->warp && me->vc[p->tid % 32] >= p->clk)
            return 1;
    }
    return __builtin_expect(p->rel < me->acq, 0) &&
           ws_sync_ordered(p->block, p->tid, p->rel, me->l);
}

/* Whether p, a record of this launch or block run, races with the access. */
static inline __attribute__((always_inline)) int
races(const rec *p, const rec *cur, int flags, const view *me)
{
    return p->stamp == cur->stamp && (p->bytes & cur->bytes) && conflict(p, flags) &&
           !ordered(p, me);
}

_Static_assert(((CHUNK_GRANS * sizeof(gran)) & (CHUNK_GRANS * sizeof(gran) - 1)) == 0,
               "a chunk's granules fill a power of two of bytes, the boundary chunk_alloc aligns to");

/* A chunk's shadow: its granules, CHUNK_GRANS * sizeof(gran) = 2 MiB, then
 * their agrans (atomics only). For an allocation of a chunk or more, the
 * granules lie on a 2 MiB boundary, on a huge page where the system gives
 * one: one page fault instead of 512, each of which costs more than the
 * checks of the accesses that touch the page. A smaller allocation's shadow
 * is a few small pages (a huge page would be 2 MiB to clear). */
static gran *chunk_alloc(int huge_pages)
{
    const size_t huge = CHUNK_GRANS * sizeof(gran), bytes = huge + CHUNK_GRANS * sizeof(agran);
    char *p, *q;
    if (!huge_pages)
        return ws_zalloc(bytes);
    p = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    q = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
    if (q > p)
        munmap(p, (size_t)(q - p));
    munmap(q + bytes, (size_t)(p + huge - q));
#ifdef MADV_HUGEPAGE
    madvise(q, huge, MADV_HUGEPAGE);
#endif
    return (gran *)q;
}

/* The chunk of off, made on its first access (out of line: the caller's
 * short path stays short). */
static __attribute__((noinline, cold)) gran *chunk_new(uintptr_t off)
{
    uint32_t a = page_alloc[off >> PAGE_SHIFT];
    gran *c = chunk_alloc(a && allocs[a - 1].size >= ((size_t)1 << CHUNK_SHIFT));
    if (!c) {
        fprintf(stderr, "warpsim: out of host memory for shadow memory\n");
        exit(2);
    }
    chunks[off >> CHUNK_SHIFT] = c;
    return c;
}

static inline __attribute__((always_inline)) gran *global_gran(uintptr_t off)
{
    gran *c = chunks[off >> CHUNK_SHIFT];
    if (__builtin_expect(!c, 0))
        c = chunk_new(off);
    return &c[(off & (((uintptr_t)1 << CHUNK_SHIFT) - 1)) >> 2];
}

/* The atomics of the granule at off (global_gran made its chunk). */
static inline agran *global_atoms(uintptr_t off)
{
    return (agran *)(chunks[off >> CHUNK_SHIFT] + CHUNK_GRANS) +
           ((off & (((uintptr_t)1 << CHUNK_SHIFT) - 1)) >> 2);
}

/*
 * Checks the access cur (its bytes of granule s) against s's records and
 * reports the first race or uninitialized read, unless `quiet` (one report
 * per access is enough); then records it. Returns 1 when it reported.
 */
static inline __attribute__((always_inline)) int
check_gran(gran *s, agran *at, const rec *cur, int flags, const view *me, int quiet,
           int shared, uintptr_t addr, size_t size, uintptr_t pc)
{
    int i, reported = 0;
    /* whether an atomic of this launch or block run is recorded: else the
     * agran holds none to check (stamps only grow), and is not read (its
     * pages are touched by atomics only) */
    int atoms = s->astamp == cur->stamp;
    if (!quiet) {
        const rec *hit = NULL;
        if (races(&s->w, cur, flags, me))
            hit = &s->w;
        for (i = 0; i < 2 && !hit && atoms; i++)
            if (races(&at->a[i], cur, flags, me))
                hit = &at->a[i];
        for (i = 0; i < WS_NREADS && !hit && (flags & WS_ACC_WRITE); i++)
            if (races(&s->r[i], cur, flags, me))
                hit = &s->r[i];
        if (hit) {
            if (ws.trace_warp >= 0 || !race_seen(hit->pc, cur->pc))
                report_race(hit, cur, addr, size, shared);
            reported = 1;
        } else if (shared && !(flags & WS_ACC_WRITE) && s->w.stamp != cur->stamp &&
                   (!atoms || (at->a[0].stamp != cur->stamp && at->a[1].stamp != cur->stamp))) {
            report_uninit(me->l, addr, size, pc, 1);
            reported = 1;
        } else if (!shared && !(flags & (WS_ACC_WRITE | WS_ACC_ATOMIC)) &&
                   (s->init & cur->bytes) != cur->bytes) {
            report_uninit(me->l, addr, size, pc, 0);
            reported = 1;
        }
    }
    if (!shared && (flags & (WS_ACC_WRITE | WS_ACC_ATOMIC)))
        s->init |= cur->bytes;      /* (an atomic writes, or reads what is there) */
    if (flags & WS_ACC_ATOMIC) {
        int k;                      /* keep the atomics of two threads */
        if (at->a[0].stamp != cur->stamp || at->a[0].tid == cur->tid)
            k = 0;
        else if (at->a[1].stamp != cur->stamp || at->a[1].tid == cur->tid)
            k = 1;
        else
            k = cur->tid & 1;
        at->a[k] = *cur;
        s->astamp = cur->stamp;
    } else if (!(flags & WS_ACC_WRITE)) {
        int slot = -1;
        for (i = 0; i < WS_NREADS; i++) {
            rec *r = &s->r[i];
            if (r->stamp != cur->stamp ||
                ((r->bytes & ~cur->bytes) == 0 && (r->tid == cur->tid || ordered(r, me)))) {
                r->stamp = 0;
                if (slot < 0)
                    slot = i;
            }
        }
        if (slot < 0)
            slot = (int)(cur->tid % WS_NREADS);
        s->r[slot] = *cur;
    } else {
        for (i = 0; i < WS_NREADS; i++)     /* reads the write covers */
            if ((s->r[i].bytes & ~cur->bytes) == 0)
                s->r[i].stamp = 0;
        s->w = *cur;
    }
    return reported;
}

/* Whether access p happens before the running lane's current access as far
 * as this block's barriers and warp clocks tell: 1 yes, 0 no, -1 only the
 * releases it acquired can tell (fast_gran leaves that to check_gran). */
#define QUICK_ORDERED(p, block, gen, tid, l)                                   \
    ((p)->block == (block) &&                                               \
     ((p)->tid == (tid) || (p)->gen < (gen) ||                              \
      ((p)->tid / 32 == (l)->warp && (l)->vc[(p)->tid % 32] >= (p)->clk))    \
     ? 1 : (p)->rel < (l)->acq ? -1 : 0)

/*
 * The common case of check_gran, for a plain access when no picture is
 * drawn: no atomic of this launch or block run on the granule, every
 * record's order decided by a barrier, a warp clock or its own thread, and
 * nothing to report but a race already reported. Records the access as
 * check_gran would and returns 1; or returns 0, having changed nothing,
 * and check_gran decides.
 */
static inline __attribute__((always_inline)) int
fast_gran(gran *s, uint32_t stamp, unsigned bytes, int flags, const ws_lane *l, int shared,
          uintptr_t pc, uintptr_t off)
{
    uint32_t block = ws.block_id, gen = ws.gen, cpc = ws_pc_offset(pc);
    int tid = l->tid, i, o[WS_NREADS];
    rec *w = &s->w;
    const rec *hit = NULL;
    if (s->astamp == stamp)         /* (stamps only grow: then no agran has it) */
        return 0;
    if (w->stamp == stamp) {
        if ((w->bytes & bytes) && conflict(w, flags)) {
            int q = QUICK_ORDERED(w, block, gen, tid, l);
            if (q < 0)
                return 0;
            if (!q)
                hit = w;
        }
        /* (a read of device memory whose bytes this launch wrote reads
         * values; of others, check_gran decides) */
        if (!shared && !(flags & WS_ACC_WRITE) && (w->bytes & bytes) != bytes &&
            (s->init & bytes) != bytes)
            return 0;
    } else if (!(flags & WS_ACC_WRITE)) {
        if (shared)
            return 0;               /* an uninitialized read */
        if ((s->init & bytes) != bytes) {
            if (!init_page[off >> PAGE_SHIFT])
                return 0;           /* an uninitialized read */
            s->init = 0xf;          /* the host wrote the page: the granule holds values */
        }
    }
    if (flags & WS_ACC_WRITE) {
        for (i = 0; i < WS_NREADS && !hit; i++) {
            const rec *r = &s->r[i];
            if (r->stamp == stamp && (r->bytes & bytes) && conflict(r, flags)) {
                int q = QUICK_ORDERED(r, block, gen, tid, l);
                if (q < 0)
                    return 0;
                if (!q)
                    hit = r;
            }
        }
        if (hit && !race_seen(hit->pc, cpc))
            return 0;
        for (i = 0; i < WS_NREADS; i++)     /* reads the write covers */
            if ((s->r[i].bytes & ~bytes) == 0)
                s->r[i].stamp = 0;
        if (!shared)
            s->init |= bytes;
    } else {
        int slot = -1;
        if (hit && !race_seen(hit->pc, cpc))
            return 0;
        for (i = 0; i < WS_NREADS; i++) {   /* which read records it replaces */
            const rec *r = &s->r[i];
            if (r->stamp != stamp)
                o[i] = 1;
            else if ((r->bytes & ~bytes) != 0)
                o[i] = 0;
            else if (r->tid == tid)
                o[i] = 1;
            else if ((o[i] = QUICK_ORDERED(r, block, gen, tid, l)) < 0)
                return 0;
        }
        for (i = 0; i < WS_NREADS; i++)
            if (o[i]) {
                s->r[i].stamp = 0;
                if (slot < 0)
                    slot = i;
            }
        if (slot < 0)
            slot = tid % WS_NREADS;
        w = &s->r[slot];
    }
    w->stamp = stamp;
    w->block = block;
    w->gen = gen;
    w->clk = l->vclk;
    w->pc = cpc;
    w->rel = ws_sync_now();
    w->tid = (uint16_t)tid;
    w->flags = (uint8_t)flags;
    w->bytes = (uint8_t)bytes;
    return 1;
}

/* What ws_check_access does past the bounds check, for every access. */
static void check_general(ws_lane *l, uintptr_t addr, size_t size, int flags, uintptr_t pc,
                          int shared, uintptr_t off, uintptr_t end, uint32_t stamp)
{
    uintptr_t g;
    rec cur;
    view me;
    int reported = 0;
    me.block = ws.block_id;
    me.gen = ws.gen;
    me.tid = l->tid;
    me.warp = l->warp;
    me.acq = l->acq;
    me.vc = l->vc;
    me.l = l;
    cur.stamp = stamp;
    cur.block = me.block;
    cur.gen = me.gen;
    cur.clk = l->vclk;
    cur.pc = ws_pc_offset(pc);
    cur.rel = ws_sync_now();
    cur.tid = (uint16_t)l->tid;
    cur.flags = (uint8_t)flags;
    for (g = off & ~(uintptr_t)3; g < end; g += 4) {
        uintptr_t lo = off > g ? off : g, hi = end < g + 4 ? end : g + 4;
        cur.bytes = (uint8_t)(((1u << (hi - lo)) - 1) << (lo - g));
        gran *s = shared ? &sh_shadow[g >> 2] : global_gran(g);
        agran *at = shared ? &sh_atoms[g >> 2] : global_atoms(g);
        if (!shared && init_page[g >> PAGE_SHIFT])
            s->init = 0xf;          /* the host wrote the page */
        reported |= check_gran(s, at, &cur, flags, &me, reported, shared, addr, size, pc);
    }
}

/* Checks and records one access by the running lane (after its scheduling
 * point, right before the access happens). */
static inline __attribute__((always_inline)) void
check_access_in(uintptr_t addr, size_t size, int flags, uintptr_t pc, int shared)
{
    ws_lane *l = ws.cur;
    uintptr_t off, end;
    uint32_t stamp;

    ws.accesses++;
    if (size == 0)
        return;
    if (shared) {
        off = addr - ws_shared_lo;
        if (!shared_in_bounds(l, off, size, flags, pc))
            return;
        end = off + size;
        if (end > ws_shared_len)
            end = ws_shared_len;
        stamp = ws.block_stamp;
    } else {
        if (!device_access(addr, size)) {
            report_bad_global(l, addr, size, flags, pc);
            return;
        }
        off = addr - ws_arena_lo;
        end = off + size;
        stamp = ws.launch_id;
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
    if ((off & 3) + size <= 4 && end == off + size && !(flags & WS_ACC_ATOMIC) &&
        ws.trace_warp < 0 &&
        fast_gran(shared ? &sh_shadow[off >> 2] : global_gran(off), stamp,
                  ((1u << size) - 1) << (off & 3), flags, l, shared, pc, off))
        return;
    check_general(l, addr, size, flags, pc, shared, off, end, stamp);
}

/* The same, for an address that the caller knows to be shared memory
 * (shared 1) or not (0). */
static inline __attribute__((always_inline)) void
check_access(uintptr_t addr, size_t size, int flags, uintptr_t pc)
{
    check_access_in(addr, size, flags, pc, addr - ws_shared_lo < ws_shared_len);
}

static void untracked(uintptr_t addr, size_t size, int flags, uintptr_t pc);

/* Bytes outside device memory that lanes may read (a launch's large
 * arguments, ws_shadow_readable). */
static uintptr_t readable_lo;
static size_t readable_len;

void ws_shadow_readable(uintptr_t lo, size_t len)
{
    readable_lo = lo;
    readable_len = len;
}

/* Checks one access of the running lane at any address (prims.c's
 * atomics), after its scheduling point; an invalid one stops the lane. */
void ws_check_access(uintptr_t addr, size_t size, int flags, uintptr_t pc)
{
    if (!ws_tracked(addr)) {
        if ((addr ^ (uintptr_t)__builtin_frame_address(0)) >> WS_STACK_SHIFT)
            untracked(addr, size, flags, pc);   /* not its own stack */
        return;
    }
    check_access(addr, size, flags, pc);
}

/* check_access_in for any size and kind, compiled once. */
static __attribute__((noinline)) void
check_access_any(uintptr_t addr, size_t size, int flags, uintptr_t pc, int shared)
{
    check_access_in(addr, size, flags, pc, shared);
}

/* ---- memory that is neither shared nor device memory ------------------ */


/*
 * An access to an address outside shared and device memory and outside the
 * running lane's own stack (the stubs test that first). Host code may touch
 * anything; a lane may read the program's image (its code and constants,
 * its global variables, warpsim's coordinates that blockDim and gridDim
 * read) and the lanes' coordinates (threadIdx and blockIdx read its own),
 * and write the program's own global variables, where its __device__
 * variables live. Anything else stops the lane (report_wild).
 */
static __attribute__((noinline)) void untracked(uintptr_t addr, size_t size, int flags, uintptr_t pc)
{
    ws_lane *l = ws.cur;
    if (!l)
        return;
    if (!(flags & WS_ACC_WRITE)) {
        if (addr - img_lo < img_len ||
            addr - (uintptr_t)ws.lanes < (uintptr_t)WS_MAX_THREADS * sizeof *ws.lanes ||
            addr - readable_lo < readable_len)
            return;
    } else if (ws_image_own_data(addr, size)) {
        return;
    }
    report_wild(l, addr, size, flags, pc);
}

#define UNTRACKED(hook, bytes, flags, code)                                 \
    void ws_untracked_##hook(uintptr_t addr, uintptr_t pc)                  \
    {                                                                       \
        untracked(addr, bytes, flags, pc);                                  \
    }
WS_STUB_HOOKS(UNTRACKED)

/* ---- what the host wrote to device memory ------------------------------ */

#define PAGE_MASK (((uintptr_t)1 << PAGE_SHIFT) - 1)

/* Whether the byte at arena offset o holds a value (written since its
 * cudaMalloc). */
static int byte_written(uintptr_t o)
{
    gran *c = chunks[o >> CHUNK_SHIFT];
    return init_page[o >> PAGE_SHIFT] ||
           (c && (c[(o & CHUNK_MASK) >> 2].init >> (o & 3) & 1));
}

/* Marks the bytes [o, e) of one page as written, granule by granule. */
static void mark_bytes(uintptr_t o, uintptr_t e)
{
    uintptr_t g;
    for (g = o & ~(uintptr_t)3; g < e; g += 4) {
        uintptr_t lo = o > g ? o : g, hi = e < g + 4 ? e : g + 4;
        global_gran(g)->init |= (uint8_t)(((1u << (hi - lo)) - 1) << (lo - g));
    }
}

/* The host wrote [dst, dst + bytes) of device memory (cudaMemset,
 * cudaMemcpy to the device): whole pages are marked in init_page,
 * the ends granule by granule. */
void ws_shadow_host_wrote(const void *dst, size_t bytes)
{
    uintptr_t off = (uintptr_t)dst - ws_arena_lo, end, p;
    if (!bytes || off >= ws_arena_len || bytes > ws_arena_len - off)
        return;
    end = off + bytes;
    for (p = off; p < end;) {
        uintptr_t next = (p | PAGE_MASK) + 1, e = next < end ? next : end;
        if (!(p & PAGE_MASK) && e == next)
            init_page[p >> PAGE_SHIFT] = 1;
        else if (!init_page[p >> PAGE_SHIFT])
            mark_bytes(p, e);
        p = e;
    }
}

/* Marks the byte at arena offset o as holding a value (v) or not. */
static void set_byte(uintptr_t o, int v)
{
    uintptr_t g;
    gran *c;
    if (v) {
        if (!init_page[o >> PAGE_SHIFT])
            global_gran(o)->init |= (uint8_t)(1u << (o & 3));
        return;
    }
    if (init_page[o >> PAGE_SHIFT]) {       /* the page's granules say from now on */
        init_page[o >> PAGE_SHIFT] = 0;
        for (g = o & ~PAGE_MASK; g <= (o | PAGE_MASK); g += 4)
            global_gran(g)->init = 0xf;
    }
    c = chunks[o >> CHUNK_SHIFT];
    if (c)
        c[(o & CHUNK_MASK) >> 2].init &= (uint8_t)~(1u << (o & 3));
}

/* cudaMemcpy copied bytes from src to dst: device memory written from the
 * host holds values; copied from device memory, each byte holds a value
 * where its source did. */
void ws_shadow_host_copied(void *dst, const void *src, size_t bytes)
{
    uintptr_t d = (uintptr_t)dst - ws_arena_lo, s = (uintptr_t)src - ws_arena_lo, i;
    int all = 1;
    if (!bytes || d >= ws_arena_len || bytes > ws_arena_len - d)
        return;
    if (s >= ws_arena_len || bytes > ws_arena_len - s) {
        ws_shadow_host_wrote(dst, bytes);
        return;
    }
    for (i = 0; i < bytes && all; i++)
        if (!init_page[(s + i) >> PAGE_SHIFT])
            all = byte_written(s + i);
        else
            i = ((s + i) | PAGE_MASK) - s;  /* (the rest of that page holds values) */
    if (all) {
        ws_shadow_host_wrote(dst, bytes);
        return;
    }
    if (d <= s) {                   /* as memmove copies: overlap allowed */
        for (i = 0; i < bytes; i++)
            set_byte(d + i, byte_written(s + i));
    } else {
        for (i = bytes; i-- > 0;)
            set_byte(d + i, byte_written(s + i));
    }
}

/* Host code touching device memory is an error (a hook's access with no
 * running lane). */
static inline __attribute__((always_inline)) void
host_access(uintptr_t addr, size_t size, int flags, uintptr_t pc)
{
    if (addr - ws_arena_lo < ws_arena_len)
        report_bad_global(NULL, addr, size, flags, pc);
}

/* A hook's access: a lane's access is a scheduling point, then checked. */
void ws_access(uintptr_t addr, size_t size, int flags, uintptr_t pc)
{
    if (!ws.cur) {
        host_access(addr, size, flags, pc);
        return;
    }
    ws_point_at(pc);
    check_access(addr, size, flags, pc);
}

/* A stub hook's access up to its switch: the scheduling point, and the
 * check when the running lane goes on. Returns the switch the stub makes
 * (ctx.c), after which ws_after_* checks the access. */
static inline __attribute__((always_inline)) ws_hop
enter(uintptr_t addr, size_t size, int flags, uintptr_t pc, int shared)
{
    ws_lane *l = ws.cur;
    ws_ctx *to;
    if (!l) {
        host_access(addr, size, flags, pc);
        return 0;
    }
    to = ws_point_to(l, pc);
    if (to)
        return WS_HOP(&l->ctx, to);
    check_access_in(addr, size, flags, pc, shared);
    return 0;
}

/* enter for any size and kind, compiled once. */
static __attribute__((noinline)) ws_hop
enter_any(uintptr_t addr, size_t size, int flags, uintptr_t pc, int shared)
{
    return enter(addr, size, flags, pc, shared);
}

/* enter for a plain access of a stub hook, whose check is the hook's
 * after half. A lane of the picture takes enter_any. Past the bookkeeping,
 * every call is the path's last (a tail call), so that the path keeps
 * nothing across calls and saves no registers: the model's part
 * (ws_lockstep_hop, ws_random_hop, and ws_its_hop at the end of a quantum)
 * or, under its, the check. */
static inline __attribute__((always_inline)) ws_hop
enter_full(uintptr_t addr, size_t size, int flags, uintptr_t pc, int shared,
           ws_check_fn *after)
{
    ws_lane *l = ws.cur;
    if (!l || l->warp == ws.trace_warp)
        return enter_any(addr, size, flags, pc, shared);
    l->pos_depth = l->depth < WS_MAX_FRAMES ? l->depth : WS_MAX_FRAMES;
    l->pc = pc;
    ws_point_book(l, pc);
    if (ws_cfg.model == WS_LOCKSTEP)
        return ws_hooks.lockstep_hop(l, addr, pc, after);
    if (ws_cfg.model != WS_ITS)
        return ws_hooks.random_hop(l, addr, pc, after);
    l->clock += WS_STEP_CYCLES;
    if (__builtin_expect(++l->quantum >= WS_ITS_QUANTUM, 0))
        return ws_hooks.its_hop(l, addr, pc, after);
    ws_its_bound(l);
    return after(addr, pc);
}

/*
 * The whole of a plain access under its when nothing out of the ordinary
 * happens: no picture is drawn, the block progressed in the last
 * WS_SPIN_FROM steps, the lane reaches no step that the livelock
 * bookkeeping acts on or that ends its quantum (steps_next), the site is
 * known to stay inside its __shared__ variable (or the address inside the
 * device allocation touched last), and fast_gran takes the access.
 * Each part is decided before it changes anything: a point that is not
 * the common case goes, untouched, to full (the point and the check as
 * for the other models), a check to the hook's after half, both with a
 * tail call.
 */
static inline __attribute__((always_inline)) ws_hop
enter_its(uintptr_t addr, size_t size, int flags, uintptr_t pc, int shared,
          ws_hop (*full)(uintptr_t, uintptr_t), ws_check_fn *after)
{
    ws_lane *l = ws.cur;
    uintptr_t off;
    uint32_t stamp;
    gran *g;
    /* (While its_fast is set, a launch runs and ws.cur is a lane: a hook
     * finds no lane only in host code. steps_next is no further than the
     * end of the quantum.) */
    if (!ws.its_fast || ws.steps + 1 - ws.progress_step >= WS_SPIN_FROM ||
        l->steps + 1 >= l->steps_next)
        return full(addr, pc);
    /* The point, as enter_full makes it here. */
    ws.steps++;
    l->pos_depth = l->depth < WS_MAX_FRAMES ? l->depth : WS_MAX_FRAMES;
    l->pc = pc;
    l->steps++;
    l->clock += WS_STEP_CYCLES;
    l->quantum++;
    /* The check; where it is not the common case, the hook's after half
     * makes it. */
    if (shared) {
        uintptr_t caller;
        const site_var *sv;
        off = addr - ws_shared_lo;
        caller = l->depth > 0 && l->depth <= WS_MAX_FRAMES ? l->frames[l->depth - 1] : 0;
        sv = &site_vars[((pc ^ (caller << 3)) >> 1) & 4095];
        if (!(sv->pc == pc && sv->caller == caller && sv->hits >= 2 &&
              off >= sh_var_lo[sv->var - 1] && off + size <= sh_var_hi[sv->var - 1]))
            return after(addr, pc);
        stamp = ws.block_stamp;
        g = &sh_shadow[off >> 2];
    } else {
        gran *c;
        if (!(addr >= live_lo && addr + size <= live_hi))
            return after(addr, pc);
        off = addr - ws_arena_lo;
        c = chunks[off >> CHUNK_SHIFT];
        if (!c)
            return after(addr, pc);
        stamp = ws.launch_id;
        g = &c[(off & (((uintptr_t)1 << CHUNK_SHIFT) - 1)) >> 2];
    }
    if ((off & 3) + size > 4 ||
        !fast_gran(g, stamp, ((1u << size) - 1) << (off & 3), flags, l, shared, pc, off))
        return after(addr, pc);
    /* What the check does besides (fast_gran changed nothing else). */
    ws.accesses++;
    l->clock_polls = 0;
    if (flags & WS_ACC_WRITE) {
        ws_progress();
    } else if (addr != l->rd1 && addr != l->rd2) {
        l->rd2 = l->rd1;
        l->rd1 = addr;
        ws_progress();
    }
    return 0;
}

/* The halves of each stub hook (WS_STUB_HOOKS), two of each: the stub
 * calls the _sh ones for shared memory and the _gl ones for device memory,
 * so that a lane that runs again after a switch goes on in code made for
 * its kind of memory (under random, the lane before it made the other
 * kind as often as not). For the plain reads and writes of 1, 2, 4 and 8
 * bytes (`fixed`) the point and the check are compiled for their own
 * size, kind and memory, where most of the check's branches fold away;
 * the others (`any`) share one general copy. */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define NO_SLP
#endif
#define CHECK_fixed check_access_in
#define CHECK_any check_access_any
#define FAST_fixed(hook, bytes, flags, mem, shared)                         \
    static __attribute__((noinline)) ws_hop                                 \
    enter_full_##hook##_##mem(uintptr_t addr, uintptr_t pc)                 \
    {                                                                       \
        return enter_full(addr, bytes, flags, pc, shared,                   \
                          ws_after_##hook##_##mem);                         \
    }                                                                       \
    NO_SLP ws_hop ws_enter_##hook##_##mem(uintptr_t addr, uintptr_t pc)     \
    {                                                                       \
        return enter_its(addr, bytes, flags, pc, shared,                    \
                         enter_full_##hook##_##mem, ws_after_##hook##_##mem); \
    }
#define FAST_any(hook, bytes, flags, mem, shared)                           \
    NO_SLP ws_hop ws_enter_##hook##_##mem(uintptr_t addr, uintptr_t pc)     \
    {                                                                       \
        return enter_any(addr, bytes, flags, pc, shared);                   \
    }
#define HALVES_IN(hook, bytes, flags, code, mem, shared)                    \
    FAST_##code(hook, bytes, flags, mem, shared)                            \
    NO_SLP ws_hop ws_after_##hook##_##mem(uintptr_t addr, uintptr_t pc)     \
    {                                                                       \
        CHECK_##code(addr, bytes, flags, pc, shared);                       \
        return 0;                                                           \
    }
#define HALVES(hook, bytes, flags, code)                                    \
    HALVES_IN(hook, bytes, flags, code, sh, 1)                              \
    HALVES_IN(hook, bytes, flags, code, gl, 0)
WS_STUB_HOOKS(HALVES)
