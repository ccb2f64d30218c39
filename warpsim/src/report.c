/*
 * report.c - how reports are said: source lines, lane ranges, once per
 * place, the counts. It knows nothing of lanes, blocks or memory (the
 * modules that do format those); it asks image.c where the executable is.
 *
 * A pc becomes file:line through addr2line (binutils), run once as a
 * co-process on the program's own executable and asked one address at a
 * time; the answers are cached. Shared variables are named from the
 * executable's ELF symbol table (static locals lose gcc's ".N" suffix).
 * Each report is printed once per place (a pair of pcs for a race) and
 * counted; the summary at exit gives the counts, in the spirit of
 * compute-sanitizer's. A fault's report is held until its launch has run
 * on, so that a race that may have caused it comes first, and ends the
 * program.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ws_internal.h"

extern char **environ;

uint64_t ws_counts[WR_NKINDS];

void ws_report_init(void)
{
    ws_image_init();
}

/* ---- printing -------------------------------------------------------- */

void ws_say(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("warpsim: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void ws_note(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("warpsim: note: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- once per place -------------------------------------------------- */

typedef struct seen { uint64_t key[4]; } seen;
static seen *seen_tab;
static size_t seen_cap, seen_n;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

/* After a fault (below), the launch goes on only to find races that may
 * have caused it: every other report is left unsaid and uncounted. */
static int fault_on;
static uint32_t fault_blk;

/* Returns 1 (and counts the report) the first time (kind, a, b, c) is seen;
 * 0 for a report already made, or one that a fault leaves unsaid. */
int ws_report_once(int kind, uintptr_t a, uintptr_t b, uintptr_t c)
{
    uint64_t k[4] = { (uint64_t)kind + 1, a, b, c };
    size_t i, h;
    if (fault_on && kind != WR_RACE)
        return 0;
    if (seen_n * 2 >= seen_cap) {
        size_t ncap = seen_cap ? 2 * seen_cap : 256, j;
        seen *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return 0;
        for (j = 0; j < seen_cap; j++) {
            if (!seen_tab[j].key[0])
                continue;
            h = (size_t)mix(mix(mix(seen_tab[j].key[0], seen_tab[j].key[1]),
                                seen_tab[j].key[2]), seen_tab[j].key[3]) & (ncap - 1);
            while (nt[h].key[0])
                h = (h + 1) & (ncap - 1);
            nt[h] = seen_tab[j];
        }
        free(seen_tab);
        seen_tab = nt;
        seen_cap = ncap;
    }
    h = (size_t)mix(mix(mix(k[0], k[1]), k[2]), k[3]) & (seen_cap - 1);
    for (i = 0; seen_tab[h].key[0]; i++) {
        if (!memcmp(seen_tab[h].key, k, sizeof k))
            return 0;
        h = (h + 1) & (seen_cap - 1);
    }
    memcpy(seen_tab[h].key, k, sizeof k);
    seen_n++;
    ws_counts[kind]++;
    return 1;
}

/* ---- a fault's report ------------------------------------------------- */

/*
 * A lane faulted (sched.c's ws_lane_fault): its report waits (ws_report_hold)
 * until the launch has run on, so that a race that may have caused the
 * fault is said first; then ws_fault_finish says it and ends the program as
 * a failed launch ends a GPU program: the summary (printed at exit by
 * runtime.c's handler) and status 1, or --error-exitcode N.
 */
static char held[1024];

int ws_faulted(void)
{
    return fault_on;
}

uint32_t ws_fault_block(void)
{
    return fault_blk;
}

void ws_fault_begin(uint32_t block)
{
    fault_on = 1;
    fault_blk = block;
}

/* Keeps the report of a fault, the first one only, to be said at the end
 * of the launch. */
void ws_report_hold(const char *fmt, ...)
{
    va_list ap;
    if (held[0])
        return;
    va_start(ap, fmt);
    vsnprintf(held, sizeof held, fmt, ap);
    va_end(ap);
}

void ws_fault_say(void)
{
    fflush(stdout);
    if (held[0])
        fprintf(stderr, "warpsim: %s\n", held);
    held[0] = 0;
}

void ws_fault_finish(void)
{
    ws_fault_say();
    exit(ws_cfg.error_exitcode > 0 ? ws_cfg.error_exitcode : 1);
}

/* ---- source lines ---------------------------------------------------- */

static pid_t a2l_pid;
static FILE *a2l_in, *a2l_out;
static int a2l_failed;

static int a2l_start(void)
{
    int to[2], from[2];
    posix_spawn_file_actions_t fa;
    char *argv[] = { "addr2line", "-i", "-e", (char *)ws_image_path(), NULL };
    if (a2l_failed || !ws_image_path()[0])
        return -1;
    if (a2l_in)
        return 0;
    if (pipe(to) != 0 || pipe(from) != 0) {
        a2l_failed = 1;
        return -1;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    posix_spawn_file_actions_addclose(&fa, to[1]);
    posix_spawn_file_actions_addclose(&fa, from[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&a2l_pid, "addr2line", &fa, NULL, argv, environ) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        a2l_failed = 1;
        close(to[0]); close(to[1]); close(from[0]); close(from[1]);
        return -1;
    }
    posix_spawn_file_actions_destroy(&fa);
    close(to[0]);
    close(from[1]);
    fcntl(to[1], F_SETFD, FD_CLOEXEC);
    fcntl(from[0], F_SETFD, FD_CLOEXEC);
    a2l_in = fdopen(to[1], "w");
    a2l_out = fdopen(from[0], "r");
    if (!a2l_in || !a2l_out) {
        a2l_failed = 1;
        return -1;
    }
    return 0;
}

typedef struct line_entry {
    uintptr_t pc;
    char text[120];               /* "file.cu:41", or "pc 0x..." */
    char path[256];               /* the source file as the debug info names it */
    int line;                     /* 0 when unknown */
} line_entry;
static line_entry lines[1024];

/* Turns one addr2line answer ("/dir/file.cu:41 (discriminator 2)") into
 * its path and line; returns 0 for "??:0" and the like. */
static int parse_location(char *buf, char *path, size_t len, int *line)
{
    char *colon, *end;
    buf[strcspn(buf, "\n")] = '\0';
    end = strstr(buf, " (discriminator");
    if (end)
        *end = '\0';
    colon = strrchr(buf, ':');
    if (!colon || buf[0] == '?' || colon[1] == '?' || colon[1] == '0')
        return 0;
    *colon = '\0';
    if (strlen(buf) >= len)
        return 0;
    memcpy(path, buf, strlen(buf) + 1);
    *line = atoi(colon + 1);
    return *line > 0;
}

static int is_header(const char *path)
{
    size_t n = strlen(path);
    return n >= 2 && path[n - 2] == '.' && path[n - 1] == 'h';
}

/*
 * Looks pc up (a return address: the call before it is what is looked up).
 * With inlining, addr2line -i gives the chain from the innermost function
 * out; the innermost frame that is not in a header (warpsim.h's wrappers,
 * lesson.h's helpers) is the line a reader wants. Each query is followed by
 * the address 0, whose "??:0" answer ends the chain.
 */
static const line_entry *lookup(uintptr_t pc)
{
    line_entry *e = &lines[(pc >> 1) % 1024];
    char buf[4096], path[256], first[256] = "", pick[256] = "";
    int n, line, first_line = 0, pick_line = 0;
    struct sigaction ign, old;
    if (e->pc == pc && e->text[0])
        return e;
    e->pc = pc;
    e->path[0] = '\0';
    e->line = 0;
    snprintf(e->text, sizeof e->text, "pc 0x%lx", (unsigned long)ws_pc_offset(pc));
    if (!pc || a2l_start() != 0)
        return e;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old);
    fprintf(a2l_in, "0x%lx\n0\n", (unsigned long)(ws_image_file_addr(pc) - 1));
    fflush(a2l_in);
    sigaction(SIGPIPE, &old, NULL);
    for (n = 0;; n++) {
        if (!fgets(buf, sizeof buf, a2l_out)) {
            a2l_failed = 1;
            return e;
        }
        if (buf[0] == '?') {
            if (n == 0 && !fgets(buf, sizeof buf, a2l_out))   /* the 0's answer */
                a2l_failed = 1;
            break;
        }
        if (!parse_location(buf, path, sizeof path, &line))
            continue;
        if (!first[0]) {
            snprintf(first, sizeof first, "%s", path);
            first_line = line;
        }
        if (!pick[0] && !is_header(path)) {
            snprintf(pick, sizeof pick, "%s", path);
            pick_line = line;
        }
    }
    if (!pick[0] && first[0]) {
        snprintf(pick, sizeof pick, "%s", first);
        pick_line = first_line;
    }
    if (pick[0]) {
        const char *slash = strrchr(pick, '/');
        snprintf(e->path, sizeof e->path, "%s", pick);
        e->line = pick_line;
        snprintf(e->text, sizeof e->text, "%.80s:%d", slash ? slash + 1 : pick, pick_line);
    }
    return e;
}

/* "file.cu:41" for a pc in the lesson's code. */
const char *ws_where(uintptr_t pc)
{
    static char ring[8][160];
    static int r;
    const line_entry *e = lookup(pc);
    r = (r + 1) % 8;
    snprintf(ring[r], sizeof ring[r], "%s", e->text);
    return ring[r];
}

/* The source file (as the debug info names it) and line of pc; 0 if unknown. */
int ws_where_src(uintptr_t pc, char *path, size_t len, int *line)
{
    const line_entry *e = lookup(pc);
    if (!e->line)
        return 0;
    snprintf(path, len, "%s", e->path);
    *line = e->line;
    return 1;
}

const char *ws_where_fl(const char *file, int line)
{
    static char ring[8][160];
    static int r;
    const char *slash = strrchr(file, '/');
    r = (r + 1) % 8;
    snprintf(ring[r], sizeof ring[r], "%s:%d", slash ? slash + 1 : file, line);
    return ring[r];
}

/* ---- names ----------------------------------------------------------- */

const char *ws_ranges(unsigned mask, char *buf, size_t len)
{
    int i = 0;
    size_t used = 0;
    buf[0] = '\0';
    while (i < 32) {
        int j, k;
        if (!(mask >> i & 1)) {
            i++;
            continue;
        }
        for (j = i; j + 1 < 32 && (mask >> (j + 1) & 1); j++)
            ;
        if (j > i)
            k = snprintf(buf + used, len - used, "%s%d-%d", used ? ", " : "", i, j);
        else
            k = snprintf(buf + used, len - used, "%s%d", used ? ", " : "", i);
        if (k < 0 || (size_t)k >= len - used)
            break;
        used += (size_t)k;
        i = j + 1;
    }
    return buf;
}

/* Ends the addr2line co-process (at the end of the program). */
void ws_report_close(void)
{
    if (a2l_in) {
        fclose(a2l_in);
        a2l_in = NULL;
        if (a2l_out)
            fclose(a2l_out);
        waitpid(a2l_pid, NULL, 0);
    }
}
