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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "ws_internal.h"

enum { EV_STEP, EV_DONE, EV_BAR };

typedef struct tev {
    int type, lane, row;
    uint64_t t;                   /* the lane's virtual clock */
    uintptr_t pc;
    int line;                     /* source line of pc, 0 unknown */
    int waits, kind;              /* arrived in a collective (kind) here */
    unsigned mask;
    uint64_t sleep;               /* __nanosleep(sleep) here */
    int race;                     /* index+1 of a race marked here */
    /* EV_DONE, EV_BAR: the lanes that met, their first row, results */
    unsigned group, ballot;
    int first_row, last_lane;
    signed char src[32];
    char where[48];
} tev;

typedef struct trace_race { int a, b; char text[200]; } trace_race;

static tev *evs;
static int nev, cap, steps, stopped, active, seen;
static int lastrow[32], currow, lastev[32];
static trace_race races[16];
static int nraces, races_out;
static char kname[64];

void ws_trace_block_start(void)
{
    ws.trace_warp = -1;
    if (!ws_cfg.trace || seen || ws.launch_id != ws_cfg.trace_launch ||
        ws.block_id != ws_cfg.trace_block || ws_cfg.trace_warp >= ws.nwarps)
        return;
    seen = active = 1;
    ws.trace_warp = ws_cfg.trace_warp;
    snprintf(kname, sizeof kname, "%s", ws.kernel);
    memset(lastrow, -1, sizeof lastrow);
    memset(lastev, -1, sizeof lastev);
    currow = 0;
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
    return e;
}

static void stop(void)
{
    stopped = 1;
    ws.trace_warp = -1;
}

void ws_trace_point(const ws_lane *l, uintptr_t pc)
{
    tev *e;
    char path[8];
    int row = lastrow[l->lane] + 1;
    if (++steps > ws_cfg.trace_steps) {
        stop();
        return;
    }
    if (row < currow)
        row = currow;
    e = add(EV_STEP, l->lane);
    e->row = currow = lastrow[l->lane] = row;
    e->t = ws_lane_clock(l);
    e->pc = pc;
    if (!ws_where_src(pc, path, sizeof path, &e->line))
        e->line = 0;
    snprintf(e->where, sizeof e->where, "%s", ws_where(pc));
    lastev[l->lane] = nev - 1;
}

void ws_trace_arrive(const ws_lane *l)
{
    if (lastev[l->lane] < 0)
        return;
    evs[lastev[l->lane]].waits = 1;
    evs[lastev[l->lane]].kind = l->kind;
    evs[lastev[l->lane]].mask = l->mask;
}

void ws_trace_sleep(const ws_lane *l, uint64_t ns)
{
    if (lastev[l->lane] >= 0 && ns)
        evs[lastev[l->lane]].sleep += ns;
}

/* A completion below every arrival of group; the lanes go on below it. */
static tev *done(int type, const ws_lane *l0, unsigned group)
{
    tev *e;
    int i, row = currow, first = -1, last = -1;
    for (i = 0; i < 32; i++) {
        if (!(group >> i & 1) || lastev[i] < 0)
            continue;
        if (lastrow[i] + 1 > row)
            row = lastrow[i] + 1;
        if (first < 0 || lastrow[i] < first)
            first = lastrow[i];
        if (last < 0 || lastev[i] > lastev[last])   /* the latest arrival */
            last = i;
    }
    e = add(type, -1);
    e->row = currow = row;
    e->group = group;
    e->first_row = first < 0 ? row : first;
    e->last_lane = last;
    e->kind = l0->kind;
    e->mask = l0->mask;
    snprintf(e->where, sizeof e->where, "%s", ws_where_fl(l0->file, l0->line));
    for (i = 0; i < 32; i++)
        if (group >> i & 1)
            lastrow[i] = row;
    return e;
}

void ws_trace_complete(const ws_lane *l0, unsigned group, const signed char *src,
                       unsigned ballot)
{
    tev *e;
    if (!active || stopped || ws.trace_warp < 0)
        return;
    e = done(EV_DONE, l0, group);
    memcpy(e->src, src, sizeof e->src);
    e->ballot = ballot;
}

void ws_trace_barrier(const ws_lane *l0)
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

void ws_trace_race(unsigned tid_a, unsigned block_a, uint32_t pc_a, int write_a,
                   unsigned tid_b, uint32_t pc_b, int write_b, const char *name)
{
    int i, a = -1, b = -1, base;
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

/* ---- drawing ---------------------------------------------------------- */

#define LEFT 64                   /* the clock column */
#define COLW 20                   /* a lane's column */
#define RIGHT 300                 /* the line labels */
#define ROWH 13
#define TOP 64
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
 * them; the lanes' last events (lastev) are those left. */
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
    for (i = 0; i < 32; i++)
        lastev[i] = -1;
    for (i = 0; i < n; i++)
        if (evs[i].type == EV_STEP)
            lastev[evs[i].lane] = i;
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

/* Writes the picture; called once, from the summary. */
void ws_trace_write(void)
{
    FILE *f;
    int i, rows = 0, width, height, y, lane, cut, ngaps = 0;
    char *keep;
    struct { int y, first, last, steps; } *gaps;
    const char *id = ws_model_names[ws_cfg.model];
    char buf[64], hatch[32], note[128];
    if (!ws_cfg.trace)
        return;
    snprintf(hatch, sizeof hatch, "url(#%s-hatch)", id);
    f = fopen(ws_cfg.trace, "w");
    if (!f) {
        fprintf(stderr, "warpsim: cannot write the picture %s\n", ws_cfg.trace);
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
    width = LEFT + 32 * COLW + RIGHT;
    height = y + 20 + 16 * (nraces + 2) + 110;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
            width, height, width, height);
    fprintf(f, "<title>warpsim: warp %d of block %llu, launch %llu (%s), model %s</title>\n",
            ws_cfg.trace_warp, (unsigned long long)ws_cfg.trace_block,
            (unsigned long long)ws_cfg.trace_launch, seen ? kname : "none", id);
    fprintf(f, "<defs><pattern id=\"%s-hatch\" width=\"6\" height=\"6\" "
            "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" "
            "height=\"6\" fill=\"#f4f4f4\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
            "stroke=\"#999\" stroke-width=\"2\"/></pattern><g id=\"%s-race\"><circle r=\"6\" "
            "fill=\"#fff\" stroke=\"#000\" stroke-width=\"2\"/><path d=\"M-4,-4 L4,4 M4,-4 L-4,4\" "
            "stroke=\"#000\" stroke-width=\"2\"/></g></defs>\n", id, id);
    fprintf(f, "<style>.c{font-size:8px;text-anchor:end}</style>\n");
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", width, height);
    fprintf(f, "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">model %s: "
            "warp %d of block %llu in ", id, ws_cfg.trace_warp,
            (unsigned long long)ws_cfg.trace_block);
    esc(f, seen ? kname : "(no such launch, block or warp ran)");
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
    for (lane = 0; lane < 32; lane++)
        fprintf(f, "<text x=\"%d\" y=\"%d\">%d</text>", lx(lane), TOP - 8, lane);
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
        /* the band is the completion's row: the waits up to it are the
         * lanes' dotted lines above */
        y0 = rowy[e->row] + 1;
        y1 = rowy[e->row] + rowh[e->row] - 1;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                "fill-opacity=\"0.8\" stroke=\"#000\"%s/>\n", LEFT + lo * COLW + 1, y0,
                (hi - lo + 1) * COLW - 2, y1 - y0, e->type == EV_BAR ? hatch : "#e4e4e4",
                e->type == EV_BAR ? " stroke-dasharray=\"4,2\"" : "");
        ws_ranges(e->group, rg, sizeof rg);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\">", LEFT + 32 * COLW + 8,
                rowy[e->row] + 10);
        if (e->type == EV_BAR)
            fprintf(f, "__syncthreads() at ");
        else
            fprintf(f, "%s(0x%08x) at ", ws_kind_names[e->kind], e->mask);
        esc(f, e->where);
        fprintf(f, "</text><text x=\"%d\" y=\"%d\" font-size=\"9\">lanes %s met; last in: "
                "lane %d", LEFT + 32 * COLW + 8, rowy[e->row] + 21, rg, e->last_lane);
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
            for (lane = 0; lane < 32; lane++) {
                int prev = -1;
                for (i = 0; i < nev; i++) {
                    const tev *e = &evs[i], *p;
                    if (e->type != EV_STEP || e->lane != lane)
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
                "<text x=\"%d\" y=\"%d\" font-size=\"9\">", LEFT, gaps[i].y + 2, 32 * COLW,
                ROWH - 4, LEFT + 32 * COLW + 8, gaps[i].y + ROWH - 3);
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
    for (lane = 0; lane < 32; lane++) {
        int prevline = -1;
        for (i = 0; i < nev; i++) {
            const tev *e = &evs[i];
            if (e->type != EV_STEP || e->lane != lane)
                continue;
            if (e->line == prevline)
                fprintf(f, "M%d %dh3v3h-3z", lx(lane) - 1, rowy[e->row] + ROWH / 2 - 1);
            prevline = e->line;
        }
    }
    fprintf(f, "\"/>\n<path fill=\"#fff\" d=\"");
    for (lane = 0; lane < 32; lane++) {
        int prevline = -1;
        for (i = 0; i < nev; i++) {
            const tev *e = &evs[i];
            if (e->type != EV_STEP || e->lane != lane)
                continue;
            if (e->line != prevline)
                fprintf(f, "M%d %dh14v8h-14z", lx(lane) - 7, rowy[e->row] + ROWH / 2 - 4);
            prevline = e->line;
        }
    }
    fprintf(f, "\"/>\n<g font-size=\"7\" text-anchor=\"middle\">\n");
    for (lane = 0; lane < 32; lane++) {
        int prevline = -1;
        for (i = 0; i < nev; i++) {
            const tev *e = &evs[i];
            if (e->type != EV_STEP || e->lane != lane)
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
        if (e->last_lane >= 0 && lastev[e->last_lane] >= 0)
            fprintf(f, "<path d=\"M%d,%d l4,-7 l4,7 z\" fill=\"#000\"/>\n",
                    lx(e->last_lane) - 4, yc + 8);
        for (b = 0; b < 32; b++) {
            if (!(e->group >> b & 1))
                continue;
            if (e->src[b] >= 0 && e->type == EV_DONE && e->kind >= WK_SHFL_IDX &&
                e->kind <= WK_SHFL_XOR)
                arrow(f, lx(e->src[b] & 31), yc + 10, lx(b), yc + rowh[e->row] - 3,
                      e->src[b] >= 32);
            if (e->type == EV_DONE && e->kind == WK_BALLOT)
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"8\" fill=\"%s\" "
                        "stroke=\"#000\"/>\n", lx(b) - 5, yc + 12,
                        e->ballot >> b & 1 ? "#000" : "#fff");
        }
    }
    /* the clock at the left; at the right, the line that lanes move to */
    {
        int cur[32];
        char said[48] = "";
        for (i = 0; i < 32; i++)
            cur[i] = -1;
        for (i = 0; i < rows; i++) {
            int j, first = -1, line = 0;
            unsigned moved = 0;
            const char *where = NULL;
            for (j = 0; j < nev; j++) {
                const tev *e = &evs[j];
                if (e->row != i || e->type != EV_STEP)
                    continue;
                if (first < 0)
                    first = j;
                if (e->line != cur[e->lane] && (!where || e->line == line)) {
                    where = e->where;
                    line = e->line;
                    moved |= 1u << e->lane;
                }
                cur[e->lane] = e->line;
            }
            if (first < 0)
                continue;
            fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"c\">%llu</text>\n", LEFT - 6,
                    rowy[i] + ROWH / 2 + 3, (unsigned long long)evs[first].t);
            if (busy_row_kind(i) || !moved || !strcmp(said, where))
                continue;             /* the lanes' own columns show the rest */
            snprintf(said, sizeof said, "%s", where);
            ws_ranges(moved, buf, sizeof buf);
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"8\" fill=\"#333\">",
                    LEFT + 32 * COLW + 8, rowy[i] + ROWH / 2 + 3);
            esc(f, where);
            fprintf(f, " (lane%s %s)</text>\n", strchr(buf, '-') || strchr(buf, ',') ? "s" : "",
                    buf);
        }
    }
    /* races: a mark at both accesses, a dashed line between them, the list */
    for (i = 0; i < nraces; i++) {
        const trace_race *r = &races[i];
        const tev *a = &evs[r->a], *b = &evs[r->b];
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\" "
                "stroke-dasharray=\"3,3\" stroke-width=\"1.5\"/>\n", lx(a->lane),
                rowy[a->row] + ROWH / 2, lx(b->lane), rowy[b->row] + ROWH / 2);
        fprintf(f, "<use href=\"#%s-race\" x=\"%d\" y=\"%d\"/><use href=\"#%s-race\" x=\"%d\" "
                "y=\"%d\"/>\n", id, lx(a->lane), rowy[a->row] + ROWH / 2, id, lx(b->lane),
                rowy[b->row] + ROWH / 2);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" font-weight=\"bold\">%d</text>\n",
                lx(a->lane) + 7, rowy[a->row] + ROWH / 2 - 4, i + 1);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" font-weight=\"bold\">%d</text>\n",
                lx(b->lane) + 7, rowy[b->row] + ROWH / 2 - 4, i + 1);
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
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\">no race reported on this warp%s"
                "</text>\n", LEFT, y, cut || stopped ? " in the steps drawn" : "");
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
