/*
 * trace.c - the picture of one warp's run: WARPSIM_TRACE=FILE.svg (warpsim
 * --trace FILE.svg) draws warp WARPSIM_TRACE_WARP of block
 * WARPSIM_TRACE_BLOCK in launch WARPSIM_TRACE_LAUNCH, as a plain SVG.
 *
 * A column per lane; rows go down in the order warpsim ran the steps (a row
 * holds the steps of several lanes when no step of the warp ran between
 * them, as under lockstep), with the lane's virtual clock at the left.
 * Drawn: each lane's source line where it moves to a new one; sleeps
 * (dashed); waits in a collective or __syncthreads (dotted) under a band
 * across the lanes that met there, the last to arrive marked; shuffles as
 * arrows from the source lane to the reading lane; ballots as a 32-cell
 * strip; each race reported on this warp marked at both accesses. The
 * recording stops after WARPSIM_TRACE_STEPS lane steps, so that the file
 * stays small; when the rows would be taller than WARPSIM_TRACE_HEIGHT px
 * (default 1400, less for fewer steps: max_height), rows are left out, each
 * run of them a grey band, keeping those around the races first and then
 * those from the top, so that the picture stays readable. Shapes and dash
 * patterns carry every meaning (greyscale-safe).
 *
 * The driver's --trace-models runs a program once per model and puts the
 * pictures side by side (driver.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <sys/wait.h>
#include "ws_internal.h"

enum { EV_STEP, EV_DONE, EV_BAR };

/* An event of the picture. Recorded per run with its warp's lane; the
 * layout (rows, and with two warps the column slot * 32 + lane) is made
 * when the picture is written. */
typedef struct tev {
    int type, lane, row, slot;    /* slot: 0, or 1 for the second of two warps */
    uint64_t key;                 /* ws.steps when it happened: the order */
    uint64_t t;                   /* the lane's virtual clock */
    uintptr_t pc;
    int line;                     /* source line of pc, 0 unknown */
    int waits, kind;              /* arrived in a collective (kind) here */
    unsigned mask;
    uint64_t sleep;               /* __nanosleep(sleep) here */
    int race;                     /* index+1 of a race marked here */
    /* EV_DONE, EV_BAR: the lanes that met, their first row, results */
    unsigned group, ballot;
    int first_row, last_lane;     /* last_lane: a column */
    signed char src[32];
    char where[48];
} tev;

typedef struct trace_race { int a, b; char text[200]; } trace_race;

/* Half of a race between the two warps drawn: the access in this run's
 * warp (event ev), and the other warp's lane and pc. */
typedef struct half_race {
    int ev, other_lane, mine_first, write_mine, write_other;
    uint32_t pc_mine, pc_other;
    char name[96];
} half_race;

static tev *evs;
static int nev, cap, steps, stopped, active, seen;
static int lastev[32];            /* while recording: each lane's last step */
static trace_race races[16];
static int nraces, races_out;
static half_race halves[16];
static int nhalves;
static char kname[64];
int ws_trace_failed;

/* What the launch asked for looked like, for the line that says a block
 * or warp never ran. */
static int launch_seen, launch_warps;
static unsigned long long launch_blocks;
static char launch_kernel[64];

/* Two warps: the first run draws the first warp into a dump (dump_path),
 * the second draws the second and merges the dump in (merge_path). */
static int first_warp = -1, two = 0;
static const char *dump_path, *merge_path;
static char part_path[4096];
static int first_status = -1;

static void trace_block_start(void)
{
    ws.trace_warp = -1;
    if (!ws_cfg.trace || ws.launch_id != ws_cfg.trace_launch)
        return;
    if (!launch_seen) {
        launch_seen = 1;
        launch_blocks = (unsigned long long)ws.grid.x * ws.grid.y * ws.grid.z;
        launch_warps = ws.nwarps;
        snprintf(launch_kernel, sizeof launch_kernel, "%s", ws.kernel);
    }
    if (seen || ws.block_id != ws_cfg.trace_block || ws_cfg.trace_warp >= ws.nwarps)
        return;
    seen = active = 1;
    ws.trace_warp = ws_cfg.trace_warp;
    snprintf(kname, sizeof kname, "%s", ws.kernel);
    memset(lastev, -1, sizeof lastev);
}

static tev *add(int type, int lane)
{
    tev *e;
    if (nev == cap) {
        cap = cap ? 2 * cap : 256;
        evs = realloc(evs, (size_t)cap * sizeof *evs);
        if (!evs) {
            fprintf(stderr, "warpsim: out of host memory\n");
            exit(2);
        }
    }
    e = &evs[nev++];
    memset(e, 0, sizeof *e);
    e->type = type;
    e->lane = lane;
    e->key = ws.steps;
    return e;
}

static void stop(void)
{
    stopped = 1;
    ws.trace_warp = -1;
}

static void trace_point(const ws_lane *l, uintptr_t pc)
{
    tev *e;
    char path[8];
    if (++steps > ws_cfg.trace_steps) {
        stop();
        return;
    }
    e = add(EV_STEP, l->lane);
    e->t = ws_lane_clock(l);
    e->pc = pc;
    if (!ws_where_src(pc, path, sizeof path, &e->line))
        e->line = 0;
    snprintf(e->where, sizeof e->where, "%s", ws_where(pc));
    lastev[l->lane] = nev - 1;
}

static void trace_arrive(const ws_lane *l)
{
    if (lastev[l->lane] < 0)
        return;
    evs[lastev[l->lane]].waits = 1;
    evs[lastev[l->lane]].kind = l->kind;
    evs[lastev[l->lane]].mask = l->mask;
}

static void trace_sleep(const ws_lane *l, uint64_t ns)
{
    if (lastev[l->lane] >= 0 && ns)
        evs[lastev[l->lane]].sleep += ns;
}

/* A completion of group's collective (rows come at layout). */
static tev *done(int type, const ws_lane *l0, unsigned group)
{
    tev *e = add(type, -1);
    e->group = group;
    e->kind = l0->kind;
    e->mask = l0->mask;
    snprintf(e->where, sizeof e->where, "%s", ws_where_fl(l0->file, l0->line));
    return e;
}

static void trace_complete(const ws_lane *l0, unsigned group, const signed char *src,
                       unsigned ballot)
{
    tev *e;
    if (!active || stopped || ws.trace_warp < 0)
        return;
    e = done(EV_DONE, l0, group);
    memcpy(e->src, src, sizeof e->src);
    e->ballot = ballot;
}

static void trace_barrier(const ws_lane *l0)
{
    const ws_warp *w;
    unsigned group = 0;
    int i;
    if (!active || stopped || ws.trace_warp < 0)
        return;
    w = &ws.warps[ws.trace_warp];
    for (i = 0; i < w->n; i++)
        if (ws.lanes[w->base + i].state == WS_WAIT_BLOCK)
            group |= 1u << i;
    if (group)
        done(EV_BAR, l0, group);
}

/* The latest step of lane whose pc has offset off, or -1. */
static int find(int lane, uint32_t off)
{
    int i;
    for (i = nev - 1; i >= 0; i--)
        if (evs[i].type == EV_STEP && evs[i].lane == lane && ws_pc_offset(evs[i].pc) == off)
            return i;
    return -1;
}

/* The warp the other run of two draws, or -1. */
static int other_warp(void)
{
    if (!two)
        return -1;
    return dump_path ? ws_trace_warp2 : first_warp;
}

static void trace_race_at(unsigned tid_a, unsigned block_a, uint32_t pc_a, int write_a,
                   unsigned tid_b, uint32_t pc_b, int write_b, const char *name)
{
    int i, a = -1, b = -1, base, ow = other_warp();
    trace_race *r;
    if (!active || stopped || nraces == 16)
        return;
    base = ws.trace_warp * 32;
    for (i = 0; i < nraces; i++)          /* once per pair of lines */
        if ((races[i].a >= 0 && races[i].b >= 0) &&
            ((ws_pc_offset(evs[races[i].a].pc) == pc_a &&
              ws_pc_offset(evs[races[i].b].pc) == pc_b) ||
             (ws_pc_offset(evs[races[i].a].pc) == pc_b &&
              ws_pc_offset(evs[races[i].b].pc) == pc_a)))
            return;
    if (tid_b / 32 == (unsigned)ws.trace_warp)
        b = find((int)tid_b - base, pc_b);
    if (block_a == ws.block_id && tid_a / 32 == (unsigned)ws.trace_warp)
        a = find((int)tid_a - base, pc_a);
    if ((a < 0) != (b < 0) && ow >= 0 && nhalves < 16) {
        /* one access in this warp, the other in the other warp drawn */
        unsigned other = a < 0 ? tid_a : tid_b;
        half_race *h;
        if ((a < 0 && block_a != ws.block_id) || other / 32 != (unsigned)ow)
            return;
        for (i = 0; i < nhalves; i++)
            if (halves[i].pc_mine == (a < 0 ? pc_b : pc_a) &&
                halves[i].pc_other == (a < 0 ? pc_a : pc_b))
                return;
        h = &halves[nhalves++];
        h->ev = a < 0 ? b : a;
        h->other_lane = (int)(other % 32);
        h->mine_first = a >= 0;
        h->write_mine = a >= 0 ? write_a : write_b;
        h->write_other = a >= 0 ? write_b : write_a;
        h->pc_mine = a >= 0 ? pc_a : pc_b;
        h->pc_other = a >= 0 ? pc_b : pc_a;
        snprintf(h->name, sizeof h->name, "%s", name);
        return;
    }
    if (a < 0 || b < 0)
        return;
    r = &races[nraces++];
    r->a = a;
    r->b = b;
    snprintf(r->text, sizeof r->text, "on %s: lane %d %s at %s, lane %d %s at %s", name,
             evs[a].lane, write_a ? "writes" : "reads", evs[a].where, evs[b].lane,
             write_b ? "writes" : "reads", evs[b].where);
    evs[a].race = evs[b].race = nraces;
}

/* ---- two warps: two runs, one picture --------------------------------- */

/* What the first run hands the second, after the events and races. */
typedef struct dump_head {
    char magic[16];
    int nev, nraces, nhalves, seen, stopped, launch_seen, launch_warps;
    unsigned long long launch_blocks;
    char kname[64];
} dump_head;
#define DUMP_MAGIC "warpsim-trace-1"

/*
 * WARPSIM_TRACE_WARP=N,M: the program runs twice, from here (ws_init,
 * before its main): a child draws warp N into FILE.warpN.part, with its
 * output thrown away and no summary channel; then this process draws warp
 * M and puts both in one picture, warp N's lanes left of warp M's, their
 * steps in the order the block ran them (the same model and seed run the
 * same way). A race between the two warps is marked at both accesses.
 */
void ws_trace_fork(void)
{
    pid_t pid;
    int st, fd;
    size_t n = strlen(ws_cfg.trace);
    two = 1;
    first_warp = ws_cfg.trace_warp;
    snprintf(part_path, sizeof part_path, "%.*s.warp%d.part", (int)(n - 4), ws_cfg.trace,
             first_warp);
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "warpsim: WARPSIM_TRACE_WARP=%d,%d: cannot start the run that draws "
                "warp %d: %s\n", first_warp, ws_trace_warp2, first_warp, strerror(errno));
        exit(2);
    }
    if (pid == 0) {
        dump_path = part_path;
        ws_hooks.summary_channel_off();
        fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            if (fd > 2)
                close(fd);
        }
        return;
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    first_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    merge_path = part_path;
    ws_cfg.trace_warp = ws_trace_warp2;
}

static int dump_write(void)
{
    dump_head h;
    FILE *f = fopen(dump_path, "wb");
    int ok;
    if (!f)
        return -1;
    memset(&h, 0, sizeof h);
    snprintf(h.magic, sizeof h.magic, "%s", DUMP_MAGIC);
    h.nev = nev;
    h.nraces = nraces;
    h.nhalves = nhalves;
    h.seen = seen;
    h.stopped = stopped;
    h.launch_seen = launch_seen;
    h.launch_warps = launch_warps;
    h.launch_blocks = launch_blocks;
    memcpy(h.kname, kname, sizeof h.kname);
    ok = fwrite(&h, sizeof h, 1, f) == 1 &&
         (size_t)nev == fwrite(evs, sizeof *evs, (size_t)nev, f) &&
         (size_t)nraces == fwrite(races, sizeof *races, (size_t)nraces, f) &&
         (size_t)nhalves == fwrite(halves, sizeof *halves, (size_t)nhalves, f);
    return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 * Reads the first run's dump and merges it in: its events in slot 0 and
 * this run's in slot 1, in the order of their keys (at one key, steps
 * before completions: a completion follows the step that made it), its
 * races and this run's, and the halves of races between the warps joined.
 * Returns 0, or -1 with *why saying what went wrong.
 */
static int merge(const char **why)
{
    dump_head h;
    tev *a, *m;
    trace_race ra[16];
    half_race ha[16];
    int i, j, k, k2, na, nr, *map_a, *map_b;
    FILE *f = fopen(merge_path, "rb");
    *why = "it made no picture";
    if (!f)
        return -1;
    if (fread(&h, sizeof h, 1, f) != 1 || strcmp(h.magic, DUMP_MAGIC) != 0 || h.nev < 0 ||
        h.nraces < 0 || h.nraces > 16 || h.nhalves < 0 || h.nhalves > 16) {
        fclose(f);
        return -1;
    }
    a = malloc(((size_t)h.nev + 1) * sizeof *a);
    m = malloc(((size_t)h.nev + (size_t)nev + 1) * sizeof *m);
    map_a = malloc(((size_t)h.nev + 1) * sizeof *map_a);
    map_b = malloc(((size_t)nev + 1) * sizeof *map_b);
    if (!a || !m || !map_a || !map_b) {
        fprintf(stderr, "warpsim: out of host memory\n");
        exit(2);
    }
    if (fread(a, sizeof *a, (size_t)h.nev, f) != (size_t)h.nev ||
        fread(ra, sizeof *ra, (size_t)h.nraces, f) != (size_t)h.nraces ||
        fread(ha, sizeof *ha, (size_t)h.nhalves, f) != (size_t)h.nhalves) {
        fclose(f);
        return -1;
    }
    fclose(f);
    remove(merge_path);
    if (!h.seen) {
        *why = NULL;              /* the caller says which warp never ran */
        seen = 0;
        return -1;
    }
    if (strcmp(h.kname, kname) != 0) {
        *why = "its run drew another kernel";
        return -1;
    }
    na = h.nev;
    for (i = j = k = 0; i < na || j < nev;) {
        int take_a;
        if (i >= na)
            take_a = 0;
        else if (j >= nev)
            take_a = 1;
        else if (a[i].key != evs[j].key)
            take_a = a[i].key < evs[j].key;
        else
            take_a = a[i].type == EV_STEP || evs[j].type != EV_STEP;
        if (take_a) {
            map_a[i] = k;
            m[k] = a[i++];
            m[k++].slot = 0;
        } else {
            map_b[j] = k;
            m[k] = evs[j++];
            m[k++].slot = 1;
        }
    }
    /* the races of each warp, renumbered */
    nr = 0;
    for (i = 0; i < h.nraces && nr < 16; i++, nr++) {
        races[nr] = ra[i];
        races[nr].a = map_a[ra[i].a];
        races[nr].b = map_a[ra[i].b];
    }
    for (i = 0; i < nraces && nr < 16; i++, nr++) {
        races[nr] = races[i];
        races[nr].a = map_b[races[i].a];
        races[nr].b = map_b[races[i].b];
    }
    /* races between them: this run's half meets the first run's */
    for (i = 0; i < nhalves && nr < 16; i++)
        for (j = 0; j < h.nhalves; j++) {
            const half_race *x = &ha[j], *y = &halves[i];
            const tev *ex = &a[x->ev], *ey = &evs[y->ev];
            trace_race *r;
            int seen_pair = 0;
            if (x->pc_mine != y->pc_other || x->pc_other != y->pc_mine ||
                ex->lane != y->other_lane || ey->lane != x->other_lane)
                continue;
            for (k2 = 0; k2 < nr; k2++)   /* once per pair of lines, as reported */
                seen_pair |= (ws_pc_offset(m[races[k2].a].pc) == x->pc_mine &&
                              ws_pc_offset(m[races[k2].b].pc) == y->pc_mine) ||
                             (ws_pc_offset(m[races[k2].a].pc) == y->pc_mine &&
                              ws_pc_offset(m[races[k2].b].pc) == x->pc_mine);
            if (seen_pair)
                break;
            r = &races[nr++];
            r->a = x->mine_first ? map_a[x->ev] : map_b[y->ev];
            r->b = x->mine_first ? map_b[y->ev] : map_a[x->ev];
            snprintf(r->text, sizeof r->text, "on %s: warp %d lane %d %s at %s, warp %d lane %d "
                     "%s at %s", x->name, x->mine_first ? first_warp : ws_trace_warp2,
                     m[r->a].lane, (x->mine_first ? x->write_mine : y->write_mine) ? "writes"
                     : "reads", m[r->a].where, x->mine_first ? ws_trace_warp2 : first_warp,
                     m[r->b].lane, (x->mine_first ? y->write_mine : x->write_mine) ? "writes"
                     : "reads", m[r->b].where);
            break;
        }
    for (i = 0; i < k; i++)
        m[i].race = 0;
    for (i = 0; i < nr; i++)
        m[races[i].a].race = m[races[i].b].race = i + 1;
    /* the bound on lane steps, over both */
    for (i = j = 0; i < k; i++)
        if (m[i].type == EV_STEP && ++j > ws_cfg.trace_steps)
            break;
    if (i < k) {
        stopped = 1;
        for (j = 0; j < nr; j++)
            if (races[j].a >= i || races[j].b >= i)
                races[j].a = races[j].b = -1;
        for (j = k = 0; j < nr; j++)
            if (races[j].a >= 0)
                races[k++] = races[j];
        nr = k;
        k = i;
    } else {
        stopped |= h.stopped;
    }
    free(evs);
    free(a);
    free(map_a);
    free(map_b);
    evs = m;
    nev = k;
    cap = k;
    nraces = nr;
    return 0;
}

/* ---- layout ------------------------------------------------------------ */

static int ncols = 32;            /* lanes drawn: 32, or 64 for two warps */
static int lastcol[64];           /* while laying out: each column's last step */

static int col_of(const tev *e) { return e->slot * 32 + e->lane; }

/*
 * Each event's row, in the order they happened: a lane's step goes below
 * its own last one and not above the latest row; a completion goes below
 * the last steps of the lanes that met, and they go on below it.
 */
static void layout(void)
{
    int lastrow[64], currow = 0, i, c;
    memset(lastrow, -1, sizeof lastrow);
    memset(lastcol, -1, sizeof lastcol);
    for (i = 0; i < nev; i++) {
        tev *e = &evs[i];
        if (e->type == EV_STEP) {
            int row = lastrow[col_of(e)] + 1;
            if (row < currow)
                row = currow;
            e->row = currow = lastrow[col_of(e)] = row;
            lastcol[col_of(e)] = i;
        } else {
            int row = currow, first = -1, last = -1;
            for (c = 0; c < 32; c++) {
                int col = e->slot * 32 + c;
                if (!(e->group >> c & 1) || lastcol[col] < 0)
                    continue;
                if (lastrow[col] + 1 > row)
                    row = lastrow[col] + 1;
                if (first < 0 || lastrow[col] < first)
                    first = lastrow[col];
                if (last < 0 || lastcol[col] > lastcol[last])   /* the latest arrival */
                    last = col;
            }
            e->row = currow = row;
            e->first_row = first < 0 ? row : first;
            e->last_lane = last;
            for (c = 0; c < 32; c++)
                if (e->group >> c & 1)
                    lastrow[e->slot * 32 + c] = row;
        }
    }
}

/* ---- drawing ---------------------------------------------------------- */

#define LEFT 64                   /* the clock column */
#define COLW 20                   /* a lane's column */
#define RIGHT 300                 /* the line labels */
#define ROWH 13
#define TOP (two ? 78 : 64)     /* two warps: their numbers above the lanes' */
#define MAXH 1400                 /* the rows' height at most: the rest left out */

/* The rows' height at most: --trace-height (WARPSIM_TRACE_HEIGHT, 160 to
 * MAXH px, checked with the other settings) if given, else MAXH at the
 * default 400 lane steps and less for fewer steps (3.5 px a step, at least
 * 160), so that a short recording makes a short picture. */
static int max_height(void)
{
    int h = (int)(ws_cfg.trace_steps * 7 / 2);
    if (ws_cfg.trace_height)
        return ws_cfg.trace_height;
    return h < 160 ? 160 : h > MAXH ? MAXH : h;
}

static int *rowy;                 /* each row's top */
static int *rowh;

static int lx(int lane) { return LEFT + lane * COLW + COLW / 2; }

/* A line from (x1,y1) to (x2,y2) with its head drawn as a triangle (no SVG
 * marker: WeasyPrint does not turn them). */
static void arrow(FILE *f, int x1, int y1, int x2, int y2, int dashed)
{
    double dx = x2 - x1, dy = y2 - y1, n = sqrt(dx * dx + dy * dy), ux, uy;
    if (n < 1)
        n = 1;
    ux = dx / n;
    uy = dy / n;
    fprintf(f, "<path d=\"M%d %dL%.1f %.1f\" stroke=\"#000\" stroke-width=\"0.7\"%s/>"
            "<path d=\"M%d %dL%.1f %.1fL%.1f %.1fz\"/>\n", x1, y1, x2 - 5 * ux, y2 - 5 * uy,
            dashed ? " stroke-dasharray=\"3,2\"" : "", x2, y2,
            x2 - 6 * ux - 2.5 * uy, y2 - 6 * uy + 2.5 * ux, x2 - 6 * ux + 2.5 * uy,
            y2 - 6 * uy - 2.5 * ux);
}

static void esc(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

/* 0: the row holds steps only; 1: a completion; 2: one that draws
 * arrows or a ballot strip. */
static int busy_row_kind(int row)
{
    int i, k = 0;
    for (i = 0; i < nev; i++) {
        const tev *e = &evs[i];
        if (e->row != row || e->type == EV_STEP)
            continue;
        if (e->type == EV_DONE && e->kind >= WK_SHFL_IDX && e->kind <= WK_BALLOT)
            k = 2;
        else if (!k)
            k = 1;
    }
    return k;
}

static void legend(FILE *f, const char *id, int y)
{
    int x = LEFT;
    fprintf(f, "<g font-size=\"10\"><text x=\"%d\" y=\"%d\" font-weight=\"bold\">Legend"
            "</text>\n", x, y);
    y += 14;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>"
            "<text x=\"%d\" y=\"%d\">running (a number: the lane moves to that line)</text>\n",
            x, y - 4, x + 24, y - 4, x + 30, y);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\" "
            "stroke-dasharray=\"6,3\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">asleep "
            "(__nanosleep)</text>\n", x + 330, y - 4, x + 354, y - 4, x + 360, y);
    y += 14;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\" "
            "stroke-dasharray=\"1,2\"/><text x=\"%d\" y=\"%d\">waiting in a collective "
            "or __syncthreads</text>\n", x, y - 4, x + 24, y - 4, x + 30, y);
    fprintf(f, "<path d=\"M%d,%d l4,-7 l4,7 z\" fill=\"#000\"/><text x=\"%d\" y=\"%d\">"
            "the last lane to arrive: the others waited for it</text>\n",
            x + 338, y - 1, x + 360, y);
    y += 16;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"10\" fill=\"#e4e4e4\" "
            "stroke=\"#000\"/><text x=\"%d\" y=\"%d\">warp collective completes (band over "
            "the lanes that met)</text>\n", x, y - 9, x + 30, y);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"10\" fill=\"url(#%s-hatch)\" "
            "stroke=\"#000\" stroke-dasharray=\"4,2\"/><text x=\"%d\" y=\"%d\">__syncthreads"
            "</text>\n", x + 330, y - 9, id, x + 360, y);
    y += 16;
    arrow(f, x, y - 4, x + 22, y - 4, 0);
    fprintf(f, "<text x=\"%d\" y=\"%d\">shuffle: from the source lane to the lane that "
            "reads it; dashed: a lane outside the mask or exited (a poison value)</text>\n",
            x + 30, y);
    y += 16;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"7\" height=\"8\" fill=\"#000\"/>"
            "<rect x=\"%d\" y=\"%d\" width=\"7\" height=\"8\" fill=\"#fff\" stroke=\"#000\"/>"
            "<text x=\"%d\" y=\"%d\">ballot bit 1 / 0 (a strip over the lanes)</text>\n", x, y - 9,
            x + 10, y - 9, x + 30, y);
    y += 16;
    fprintf(f, "<use href=\"#%s-race\" x=\"%d\" y=\"%d\"/><text x=\"%d\" y=\"%d\">a race "
            "warpsim reported, at both accesses (numbered; listed above)</text></g>\n",
            id, x + 10, y - 4, x + 30, y);
}

/* Drops the events in rows that keep does not hold, and the races marked on
 * them; the lanes' last events (lastcol) are those left. */
static void clip(const char *keep)
{
    int i, j, n = 0, *map = malloc((size_t)(nev ? nev : 1) * sizeof *map);
    if (!map) {
        fprintf(stderr, "warpsim: out of host memory\n");
        exit(2);
    }
    for (i = 0; i < nev; i++) {
        map[i] = keep[evs[i].row] ? n : -1;
        if (map[i] >= 0)
            evs[n++] = evs[i];
    }
    for (i = j = 0; i < nraces; i++) {
        trace_race r = races[i];
        if (map[r.a] < 0 || map[r.b] < 0)
            continue;
        r.a = map[r.a];
        r.b = map[r.b];
        races[j++] = r;
    }
    nev = n;
    races_out = nraces - j;
    nraces = j;
    for (i = 0; i < n; i++)
        evs[i].race = 0;
    for (i = 0; i < nraces; i++)
        evs[races[i].a].race = evs[races[i].b].race = i + 1;
    for (i = 0; i < 64; i++)
        lastcol[i] = -1;
    for (i = 0; i < n; i++)
        if (evs[i].type == EV_STEP)
            lastcol[col_of(&evs[i])] = i;
    free(map);
}

/* Chooses the rows drawn when all would be taller than max_height(): the
 * rows around each race's two accesses (up to two thirds of it), then rows
 * from the top while they fit. Returns the number of rows left out. */
static int choose_rows(int rows, char *keep)
{
    int i, k, d, total = 0, out = 0, maxh = max_height();
    for (i = 0; i < rows; i++)
        total += rowh[i];
    if (total <= maxh) {
        memset(keep, 1, (size_t)rows);
        return 0;
    }
    memset(keep, 0, (size_t)rows);
    total = 0;
    for (i = 0; i < nraces; i++)
        for (k = 0; k < 2; k++) {
            int r = evs[k ? races[i].b : races[i].a].row;
            for (d = -1; d <= 1; d++)
                if (r + d >= 0 && r + d < rows && !keep[r + d] &&
                    total + rowh[r + d] + ROWH <= maxh * 2 / 3) {
                    keep[r + d] = 1;
                    total += rowh[r + d] + (d == -1 ? ROWH : 0);   /* and a band above */
                }
        }
    for (i = 0; i < rows; i++) {
        if (keep[i])
            continue;
        if (total + rowh[i] > maxh)
            break;
        keep[i] = 1;
        total += rowh[i];
    }
    for (i = 0; i < rows; i++)
        out += !keep[i];
    return out;
}

/* Says in one line why warp never ran in the block and launch asked for;
 * returns 1. */
static int never_ran(int warp)
{
    fflush(stdout);
    if (!launch_seen)
        fprintf(stderr, "warpsim: nothing drawn in %s: launch %llu (WARPSIM_TRACE_LAUNCH, "
                "--trace-launch) never ran; the program made %llu launch%s\n", ws_cfg.trace,
                (unsigned long long)ws_cfg.trace_launch, (unsigned long long)ws.launches,
                ws.launches == 1 ? "" : "es");
    else if (ws_cfg.trace_block >= launch_blocks)
        fprintf(stderr, "warpsim: nothing drawn in %s: block %llu (WARPSIM_TRACE_BLOCK, "
                "--trace-block) of launch %llu never ran; %s's grid has %llu block%s\n",
                ws_cfg.trace, (unsigned long long)ws_cfg.trace_block,
                (unsigned long long)ws_cfg.trace_launch, launch_kernel, launch_blocks,
                launch_blocks == 1 ? "" : "s");
    else
        fprintf(stderr, "warpsim: nothing drawn in %s: warp %d (WARPSIM_TRACE_WARP, "
                "--trace-warp) of block %llu in launch %llu never ran; %s's blocks have %d "
                "warp%s\n", ws_cfg.trace, warp, (unsigned long long)ws_cfg.trace_block,
                (unsigned long long)ws_cfg.trace_launch, launch_kernel, launch_warps,
                launch_warps == 1 ? "" : "s");
    return 1;
}

/*
 * Whether the picture's file can be written, asked before the program
 * runs: its folder must exist and take files. 0, or one line and -1.
 */
int ws_trace_check(void)
{
    char dir[4096];
    const char *slash = strrchr(ws_cfg.trace, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == ws_cfg.trace)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - ws_cfg.trace), ws_cfg.trace);
    if (access(dir, W_OK | X_OK) != 0) {
        fflush(stdout);
        fprintf(stderr, "warpsim: WARPSIM_TRACE=%s: cannot write the picture there (%s: %s)\n",
                ws_cfg.trace, dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Writes the picture; called once, at the end of the run. A launch, block
 * or warp that never ran, or a file that cannot be written, is one line
 * and ws_trace_failed. */
void ws_trace_write(void)
{
    FILE *f;
    int i, rows = 0, width, height, y, lane, cut, ngaps = 0;
    char *keep;
    struct { int y, first, last, steps; } *gaps;
    const char *id = ws_model_names[ws_cfg.model];
    char buf[64], hatch[32], note[128];
    static int written;
    if (!ws_cfg.trace || written)
        return;
    written = 1;
    if (dump_path) {              /* the first run of two warps */
        if (seen && dump_write() != 0)
            ws_trace_failed = 1;
        if (!seen)
            ws_trace_failed = never_ran(ws_cfg.trace_warp);
        return;
    }
    if (merge_path && seen) {
        const char *why;
        if (merge(&why) != 0) {
            if (why) {
                fflush(stdout);
                fprintf(stderr, "warpsim: nothing drawn in %s: the run that draws warp %d "
                        "(WARPSIM_TRACE_WARP=%d,%d) %s (exit status %d)\n", ws_cfg.trace,
                        first_warp, first_warp, ws_trace_warp2, why, first_status);
                ws_trace_failed = 1;
                return;
            }
            ws_trace_failed = never_ran(first_warp);
            return;
        }
        ncols = 64;
    }
    if (!seen) {
        ws_trace_failed = never_ran(ws_cfg.trace_warp);
        return;
    }
    layout();
    snprintf(hatch, sizeof hatch, "url(#%s-hatch)", id);
    f = fopen(ws_cfg.trace, "w");
    if (!f) {
        fflush(stdout);
        fprintf(stderr, "warpsim: cannot write the picture %s: %s\n", ws_cfg.trace,
                strerror(errno));
        ws_trace_failed = 1;
        return;
    }
    for (i = 0; i < nev; i++)
        if (evs[i].row + 1 > rows)
            rows = evs[i].row + 1;
    rowy = calloc((size_t)rows + 1, sizeof *rowy);
    rowh = calloc((size_t)rows + 1, sizeof *rowh);
    keep = malloc((size_t)rows + 1);
    gaps = malloc(((size_t)rows + 1) * sizeof *gaps);
    if (!rowy || !rowh || !keep || !gaps) {
        fprintf(stderr, "warpsim: out of host memory\n");
        exit(2);
    }
    for (i = 0; i < rows; i++) {
        int k = busy_row_kind(i);
        rowh[i] = k == 2 ? 3 * ROWH : k ? 2 * ROWH : ROWH;
    }
    /* Taller than max_height(): some rows are left out, each run of them drawn as a
     * grey band that says how many lane steps it hides, so that the picture
     * stays readable and still shows every race it can. */
    cut = choose_rows(rows, keep);
    y = TOP;
    for (i = 0; i < rows; i++) {
        if (keep[i]) {
            rowy[i] = y;
            y += rowh[i];
            continue;
        }
        if (i == 0 || keep[i - 1]) {
            gaps[ngaps].y = y;
            gaps[ngaps].first = i;
            gaps[ngaps].steps = 0;
            ngaps++;
            y += ROWH;
        }
        gaps[ngaps - 1].last = i;
        rowy[i] = gaps[ngaps - 1].y;
        rowh[i] = 0;
    }
    for (i = 0; i < nev; i++)
        if (!keep[evs[i].row] && evs[i].type == EV_STEP)
            for (lane = 0; lane < ngaps; lane++)
                if (evs[i].row >= gaps[lane].first && evs[i].row <= gaps[lane].last)
                    gaps[lane].steps++;
    if (cut)
        clip(keep);
    rowy[rows] = y;
    width = LEFT + ncols * COLW + RIGHT;
    height = y + 20 + 16 * (nraces + 2) + 110;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
            width, height, width, height);
    if (two)
        snprintf(buf, sizeof buf, "warps %d and %d", first_warp, ws_trace_warp2);
    else
        snprintf(buf, sizeof buf, "warp %d", ws_cfg.trace_warp);
    fprintf(f, "<title>warpsim: %s of block %llu, launch %llu (%s), model %s</title>\n",
            buf, (unsigned long long)ws_cfg.trace_block,
            (unsigned long long)ws_cfg.trace_launch, kname, id);
    fprintf(f, "<defs><pattern id=\"%s-hatch\" width=\"6\" height=\"6\" "
            "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" "
            "height=\"6\" fill=\"#f4f4f4\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
            "stroke=\"#999\" stroke-width=\"2\"/></pattern><g id=\"%s-race\"><circle r=\"6\" "
            "fill=\"#fff\" stroke=\"#000\" stroke-width=\"2\"/><path d=\"M-4,-4 L4,4 M4,-4 L-4,4\" "
            "stroke=\"#000\" stroke-width=\"2\"/></g></defs>\n", id, id);
    fprintf(f, "<style>.c{font-size:8px;text-anchor:end}</style>\n");
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", width, height);
    fprintf(f, "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">model %s: "
            "%s of block %llu in ", id, buf, (unsigned long long)ws_cfg.trace_block);
    esc(f, kname);
    fprintf(f, " (launch %llu)</text>\n", (unsigned long long)ws_cfg.trace_launch);
    snprintf(note, sizeof note, "%s", stopped ? "; stopped after --trace-steps lane steps" : "");
    if (cut)
        snprintf(note + strlen(note), sizeof note - strlen(note), "; %d of %d rows drawn "
                 "(grey: left out)", rows - cut, rows);
    fprintf(f, "<text x=\"8\" y=\"34\" font-size=\"10\">rows: the order warpsim ran the steps "
            "in, going down; left: the lane's virtual clock (cycles)%s</text>\n",
            note);
    /* lane numbers */
    fprintf(f, "<g font-size=\"9\" text-anchor=\"middle\">");
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"start\">lane</text>", 8, TOP - 8);
    for (lane = 0; lane < ncols; lane++)
        fprintf(f, "<text x=\"%d\" y=\"%d\">%d</text>", lx(lane), TOP - 8, lane % 32);
    if (two)
        for (i = 0; i < 2; i++)
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">warp %d</text>",
                    lx(i * 32 + 16), TOP - 22, i ? ws_trace_warp2 : first_warp);
    fprintf(f, "</g>\n");
    /* bands: collectives and barriers */
    for (i = 0; i < nev; i++) {
        const tev *e = &evs[i];
        int lo = 32, hi = -1, b, y0, y1;
        char rg[96];
        if (e->type == EV_STEP)
            continue;
        for (b = 0; b < 32; b++)
            if (e->group >> b & 1) {
                if (b < lo)
                    lo = b;
                hi = b;
            }
        lo += e->slot * 32;
        hi += e->slot * 32;
        /* the band is the completion's row: the waits up to it are the
         * lanes' dotted lines above */
        y0 = rowy[e->row] + 1;
        y1 = rowy[e->row] + rowh[e->row] - 1;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                "fill-opacity=\"0.8\" stroke=\"#000\"%s/>\n", LEFT + lo * COLW + 1, y0,
                (hi - lo + 1) * COLW - 2, y1 - y0, e->type == EV_BAR ? hatch : "#e4e4e4",
                e->type == EV_BAR ? " stroke-dasharray=\"4,2\"" : "");
        ws_ranges(e->group, rg, sizeof rg);
        if (i > 0 && e->type == EV_BAR && evs[i - 1].type == EV_BAR &&
            evs[i - 1].row == e->row && evs[i - 1].slot != e->slot) {
            /* one __syncthreads, both warps: one label */
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\">warp %d: lanes %s met</text>\n",
                    LEFT + ncols * COLW + 8, rowy[e->row] + 32, ws_trace_warp2, rg);
            continue;
        }
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\">", LEFT + ncols * COLW + 8,
                rowy[e->row] + 10);
        if (e->type == EV_BAR)
            fprintf(f, "__syncthreads() at ");
        else
            fprintf(f, "%s(0x%08x) at ", ws_kind_names[e->kind], e->mask);
        esc(f, e->where);
        if (two)
            fprintf(f, "</text><text x=\"%d\" y=\"%d\" font-size=\"9\">warp %d: lanes %s met; "
                    "last in: lane %d", LEFT + ncols * COLW + 8, rowy[e->row] + 21,
                    e->slot ? ws_trace_warp2 : first_warp, rg, e->last_lane % 32);
        else
            fprintf(f, "</text><text x=\"%d\" y=\"%d\" font-size=\"9\">lanes %s met; last in: "
                    "lane %d", LEFT + ncols * COLW + 8, rowy[e->row] + 21, rg, e->last_lane);
        if (e->kind == WK_BALLOT && e->type == EV_DONE)
            fprintf(f, "; ballot 0x%08x", e->ballot);
        fprintf(f, "</text>\n");
    }
    /* lane lines (one path per style), then the steps over them */
    {
        static const char *const style[3] = {
            "", " stroke-dasharray=\"6,3\" stroke-width=\"2\"", " stroke-dasharray=\"1,2\""
        };
        int st;
        for (st = 0; st < 3; st++) {
            fprintf(f, "<path fill=\"none\" stroke=\"#000\"%s d=\"", style[st]);
            for (lane = 0; lane < ncols; lane++) {
                int prev = -1;
                for (i = 0; i < nev; i++) {
                    const tev *e = &evs[i], *p;
                    if (e->type != EV_STEP || col_of(e) != lane)
                        continue;
                    p = prev >= 0 ? &evs[prev] : NULL;
                    if (p && (p->sleep ? 1 : p->waits ? 2 : 0) == st)
                        fprintf(f, "M%d %dV%d", lx(lane), rowy[p->row] + ROWH / 2,
                                rowy[e->row] + ROWH / 2);
                    prev = i;
                }
                if (st == 2 && prev >= 0 && evs[prev].waits)  /* still waiting at the end */
                    fprintf(f, "M%d %dV%d", lx(lane), rowy[evs[prev].row] + ROWH / 2,
                            rowy[rows] - 2);
            }
            fprintf(f, "\"/>\n");
        }
    }
    /* the rows left out */
    for (i = 0; i < ngaps; i++) {
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#d8d8d8\"/>"
                "<text x=\"%d\" y=\"%d\" font-size=\"9\">", LEFT, gaps[i].y + 2, ncols * COLW,
                ROWH - 4, LEFT + ncols * COLW + 8, gaps[i].y + ROWH - 3);
        if (gaps[i].first == gaps[i].last)
            fprintf(f, "row %d", gaps[i].first + 1);
        else
            fprintf(f, "rows %d-%d", gaps[i].first + 1, gaps[i].last + 1);
        fprintf(f, " left out: %d lane step%s</text>\n", gaps[i].steps,
                gaps[i].steps == 1 ? "" : "s");
    }
    /* a step on the lane's line: a dot; one that moves to a new line: its
     * number on a white patch (no paint-order halo: WeasyPrint lacks it) */
    fprintf(f, "<path fill=\"#000\" d=\"");
    for (lane = 0; lane < ncols; lane++) {
        int prevline = -1;
        for (i = 0; i < nev; i++) {
            const tev *e = &evs[i];
            if (e->type != EV_STEP || col_of(e) != lane)
                continue;
            if (e->line == prevline)
                fprintf(f, "M%d %dh3v3h-3z", lx(lane) - 1, rowy[e->row] + ROWH / 2 - 1);
            prevline = e->line;
        }
    }
    fprintf(f, "\"/>\n<path fill=\"#fff\" d=\"");
    for (lane = 0; lane < ncols; lane++) {
        int prevline = -1;
        for (i = 0; i < nev; i++) {
            const tev *e = &evs[i];
            if (e->type != EV_STEP || col_of(e) != lane)
                continue;
            if (e->line != prevline)
                fprintf(f, "M%d %dh14v8h-14z", lx(lane) - 7, rowy[e->row] + ROWH / 2 - 4);
            prevline = e->line;
        }
    }
    fprintf(f, "\"/>\n<g font-size=\"7\" text-anchor=\"middle\">\n");
    for (lane = 0; lane < ncols; lane++) {
        int prevline = -1;
        for (i = 0; i < nev; i++) {
            const tev *e = &evs[i];
            if (e->type != EV_STEP || col_of(e) != lane)
                continue;
            if (e->line != prevline)
                fprintf(f, "<text x=\"%d\" y=\"%d\">%d</text>\n", lx(lane),
                        rowy[e->row] + ROWH / 2 + 3, e->line);
            if (e->sleep)
                fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"start\">zz %llu</text>\n",
                        lx(lane) + 3, rowy[e->row] + ROWH + 2, (unsigned long long)e->sleep);
            prevline = e->line;
        }
    }
    fprintf(f, "</g>\n");
    /* waits up to their completion, the last arrival, shuffles and ballots */
    for (i = 0; i < nev; i++) {
        const tev *e = &evs[i];
        int b, yc;
        if (e->type == EV_STEP)
            continue;
        yc = rowy[e->row];
        if (e->last_lane >= 0 && lastcol[e->last_lane] >= 0)
            fprintf(f, "<path d=\"M%d,%d l4,-7 l4,7 z\" fill=\"#000\"/>\n",
                    lx(e->last_lane) - 4, yc + 8);
        for (b = 0; b < 32; b++) {
            if (!(e->group >> b & 1))
                continue;
            if (e->src[b] >= 0 && e->type == EV_DONE && e->kind >= WK_SHFL_IDX &&
                e->kind <= WK_SHFL_XOR)
                arrow(f, lx(e->slot * 32 + (e->src[b] & 31)), yc + 10, lx(e->slot * 32 + b),
                      yc + rowh[e->row] - 3, e->src[b] >= 32);
            if (e->type == EV_DONE && e->kind == WK_BALLOT)
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"8\" fill=\"%s\" "
                        "stroke=\"#000\"/>\n", lx(e->slot * 32 + b) - 5, yc + 12,
                        e->ballot >> b & 1 ? "#000" : "#fff");
        }
    }
    /* the clock at the left; at the right, the line that lanes move to */
    {
        int cur[64];
        char said[48] = "";
        for (i = 0; i < 64; i++)
            cur[i] = -1;
        for (i = 0; i < rows; i++) {
            int j, first = -1, line = 0;
            unsigned moved = 0, moved2 = 0;
            const char *where = NULL;
            for (j = 0; j < nev; j++) {
                const tev *e = &evs[j];
                if (e->row != i || e->type != EV_STEP)
                    continue;
                if (first < 0)
                    first = j;
                if (e->line != cur[col_of(e)] && (!where || e->line == line)) {
                    where = e->where;
                    line = e->line;
                    if (e->slot)
                        moved2 |= 1u << e->lane;
                    else
                        moved |= 1u << e->lane;
                }
                cur[col_of(e)] = e->line;
            }
            if (first < 0)
                continue;
            fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"c\">%llu</text>\n", LEFT - 6,
                    rowy[i] + ROWH / 2 + 3, (unsigned long long)evs[first].t);
            if (busy_row_kind(i) || !(moved | moved2) || !strcmp(said, where))
                continue;             /* the lanes' own columns show the rest */
            snprintf(said, sizeof said, "%s", where);
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"8\" fill=\"#333\">",
                    LEFT + ncols * COLW + 8, rowy[i] + ROWH / 2 + 3);
            esc(f, where);
            if (!two) {
                ws_ranges(moved, buf, sizeof buf);
                fprintf(f, " (lane%s %s)</text>\n",
                        strchr(buf, '-') || strchr(buf, ',') ? "s" : "", buf);
                continue;
            }
            fprintf(f, " (");
            for (j = 0; j < 2; j++) {
                unsigned mv = j ? moved2 : moved;
                if (!mv)
                    continue;
                ws_ranges(mv, buf, sizeof buf);
                fprintf(f, "%swarp %d lane%s %s", j && moved ? "; " : "",
                        j ? ws_trace_warp2 : first_warp,
                        strchr(buf, '-') || strchr(buf, ',') ? "s" : "", buf);
            }
            fprintf(f, ")</text>\n");
        }
    }
    /* races: a mark at both accesses, a dashed line between them, the list */
    for (i = 0; i < nraces; i++) {
        const trace_race *r = &races[i];
        const tev *a = &evs[r->a], *b = &evs[r->b];
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\" "
                "stroke-dasharray=\"3,3\" stroke-width=\"1.5\"/>\n", lx(col_of(a)),
                rowy[a->row] + ROWH / 2, lx(col_of(b)), rowy[b->row] + ROWH / 2);
        fprintf(f, "<use href=\"#%s-race\" x=\"%d\" y=\"%d\"/><use href=\"#%s-race\" x=\"%d\" "
                "y=\"%d\"/>\n", id, lx(col_of(a)), rowy[a->row] + ROWH / 2, id, lx(col_of(b)),
                rowy[b->row] + ROWH / 2);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" font-weight=\"bold\">%d</text>\n",
                lx(col_of(a)) + 7, rowy[a->row] + ROWH / 2 - 4, i + 1);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" font-weight=\"bold\">%d</text>\n",
                lx(col_of(b)) + 7, rowy[b->row] + ROWH / 2 - 4, i + 1);
    }
    y = rowy[rows] + 18;
    for (i = 0; i < nraces; i++, y += 16) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\">", LEFT, y);
        fprintf(f, "race %d ", i + 1);
        esc(f, races[i].text);
        fprintf(f, "</text>\n");
    }
    if (races_out) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\">and %d more race%s in rows left "
                "out</text>\n", LEFT, y, races_out, races_out == 1 ? "" : "s");
        y += 16;
    }
    if (!nraces) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\">no race reported on %s%s"
                "</text>\n", LEFT, y, two ? "these warps" : "this warp",
                cut || stopped ? " in the steps drawn" : "");
        y += 16;
    }
    legend(f, id, y + 8);
    fprintf(f, "</svg>\n");
    fclose(f);
    free(rowy);
    free(rowh);
    free(keep);
    free(gaps);
}

/* Sets ws_hooks.trace_*: what scheduling, the primitives and the race
 * detector call for the warp drawn (runtime.c's ws_init). */
void ws_trace_install(void)
{
    ws_hooks.trace_block_start = trace_block_start;
    ws_hooks.trace_point = trace_point;
    ws_hooks.trace_arrive = trace_arrive;
    ws_hooks.trace_sleep = trace_sleep;
    ws_hooks.trace_complete = trace_complete;
    ws_hooks.trace_barrier = trace_barrier;
    ws_hooks.trace_race = trace_race_at;
}
