/*
 * driver.c - the `warpsim` command: runs a program built for warpsim under
 * a chosen scheduling model.
 *
 *   warpsim [--model M] [--order O] [--seed S] [--error-exitcode N]
 *           [--memory SIZE] [--spin-limit N] [--step-limit N] [--verbose]
 *           [--stats] [--trace FILE.svg [--trace-models M,M]] [--trace-launch N]
 *           [--trace-block N] [--trace-warp N[,M]] [--trace-steps N] [--trace-height N]
 *           [--] PROGRAM [ARGS...]
 *
 * It checks the options against the settings table (settings.c, which it is
 * linked with), sets the WARPSIM_* variables that libwarpsim reads and execs
 * the program, after checking that it was built for warpsim (libwarpsim's
 * mark is in the file: exit 126 if not). --trace-models runs it once per
 * model and puts the pictures side by side in one SVG. A program built for warpsim also
 * runs by itself, with the model its and seed 1 unless the environment says
 * otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "ws_settings.h"

static const char *prog = "warpsim";

#include "help.inc"              /* help_text, from help.txt */

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try --help)\n");
    exit(2);
}

/* Matches argv[*i] against setting s: "-x VALUE", "--name VALUE",
 * "--name=VALUE", or for a flag "-x"/"--name". Returns the value ("1" for a
 * flag, advancing *i past a separate value) or NULL when it is not s. */
static const char *opt(int argc, char **argv, int *i, const ws_setting *s)
{
    const char *a = argv[*i];
    size_t n;
    if (!s->opt)                  /* the environment's only */
        return NULL;
    n = strlen(s->opt);
    if ((s->shrt && !strcmp(a, s->shrt)) || !strcmp(a, s->opt)) {
        if (s->type == WS_T_FLAG)
            return "1";
        if (*i + 1 >= argc)
            usage_error("%s needs a value", a);
        return argv[++*i];
    }
    if (s->type != WS_T_FLAG && !strncmp(a, s->opt, n) && a[n] == '=')
        return a + n + 1;
    return NULL;
}

/* The program's file: as given when it holds a slash, else from PATH. */
static int find_program(const char *name, char *path, size_t len)
{
    const char *p = getenv("PATH"), *e;
    if (strchr(name, '/')) {
        snprintf(path, len, "%s", name);
        return access(path, X_OK) == 0;
    }
    for (; p && *p; p = *e ? e + 1 : e) {
        e = strchr(p, ':');
        if (!e)
            e = p + strlen(p);
        snprintf(path, len, "%.*s/%s", (int)(e - p), e > p ? p : ".", name);
        if (access(path, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* Whether the file holds libwarpsim's mark (runtime.c's ws_program_mark). */
static int built_for_warpsim(const char *path)
{
    char mark[40], buf[1 << 16];
    size_t n, keep = 0, m;
    int found = 0;
    FILE *f = fopen(path, "rb");
    snprintf(mark, sizeof mark, "%s:%s", "warpsim-program", "libwarpsim");
    m = strlen(mark);
    if (!f)
        return 0;
    while (!found && (n = fread(buf + keep, 1, sizeof buf - keep, f)) > 0) {
        n += keep;
        found = memmem(buf, n, mark, m) != NULL;
        keep = n < m ? n : m - 1;
        memmove(buf, buf + n - keep, keep);
    }
    fclose(f);
    return found;
}

/* Whether the picture cannot be written where it is asked for: its folder
 * must exist and take files. Says so in one line. */
static int trace_folder_bad(const char *trace)
{
    char dir[4096];
    const char *slash = strrchr(trace, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == trace)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - trace), trace);
    if (access(dir, W_OK | X_OK) == 0)
        return 0;
    fprintf(stderr, "%s: --trace %s: cannot write the picture there (%s: %s)\n", prog, trace,
            dir, strerror(errno));
    return 1;
}

/* Runs the program once per model of the comma-separated list, each
 * drawing its own picture, then writes them side by side to trace.
 * Returns the first nonzero exit status of the runs, or 0. */
static int trace_models(const char *models, const char *trace, char **argv)
{
    char list[256], *save = NULL, *m, part[8][4096];
    int n = 0, rc = 0, i, width = 0, height = 0, w[8], h[8];
    FILE *out;
    snprintf(list, sizeof list, "%s", models);
    for (m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        unsigned long long v;
        if (++n > 8)
            usage_error("--trace-models %s: at most 8 models", models);
        if (ws_setting_parse(&ws_settings_table[WS_SET_MODEL], m, &v) != 0)
            usage_error("--trace-models: unknown model '%s' (use lockstep, its or random)", m);
    }
    if (!n)
        usage_error("--trace-models '%s': name the models, e.g. lockstep,its", models);
    n = 0;
    snprintf(list, sizeof list, "%s", models);
    for (m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        pid_t pid;
        int st;
        snprintf(part[n], sizeof part[n], "%.*s.%s.part.svg", (int)strlen(trace) - 4, trace, m);
        fflush(stdout);
        pid = fork();
        if (pid < 0) {
            fprintf(stderr, "%s: cannot fork: %s\n", prog, strerror(errno));
            exit(2);
        }
        if (pid == 0) {
            if (n > 0)                /* the summary channel is the first run's */
                unsetenv("WARPSIM_SUMMARY_FD");
            setenv("WARPSIM_MODEL", m, 1);
            setenv("WARPSIM_TRACE", part[n], 1);
            execvp(argv[0], argv);
            fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
            _exit(127);
        }
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        st = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (!rc)
            rc = st;
        n++;
    }
    for (i = 0; i < n; i++) {
        FILE *f = fopen(part[i], "r");
        char line[512];
        w[i] = h[i] = 0;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                       "height=\"%d\"", &w[i], &h[i]) == 2)
                break;
        if (f)
            fclose(f);
        if (!w[i]) {              /* a run that failed said why */
            if (!rc)
                fprintf(stderr, "%s: no picture from the %s run (%s)\n", prog, part[i], argv[0]);
            return rc ? rc : 1;
        }
        width += w[i];
        if (h[i] > height)
            height = h[i];
    }
    out = fopen(trace, "w");
    if (!out) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, trace, strerror(errno));
        return rc ? rc : 1;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/"
            "2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n<rect width=\"%d\" "
            "height=\"%d\" fill=\"#fff\"/>\n", width, height, width, height, width, height);
    for (i = 0, width = 0; i < n; i++) {
        FILE *f = fopen(part[i], "r");
        char line[4096];
        while (f && fgets(line, sizeof line, f)) {
            if (!strncmp(line, "<?xml", 5))
                continue;
            if (!strncmp(line, "<svg ", 5)) {
                fprintf(out, "<svg x=\"%d\" y=\"0\" %s", width, line + 5);
                continue;
            }
            fputs(line, out);
        }
        if (f)
            fclose(f);
        if (i + 1 < n)
            fprintf(out, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
                    width + w[i], width + w[i], height);
        width += w[i];
        remove(part[i]);
    }
    fprintf(out, "</svg>\n");
    fclose(out);
    return rc;
}

int main(int argc, char **argv)
{
    int i, k;
    const char *models = NULL;
    char path[4096];
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        unsigned long long n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(help_text, stdout);
            return 0;
        }
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (!strcmp(a, "--trace-models") || !strncmp(a, "--trace-models=", 15)) {
            if (a[14] == '=')
                models = a + 15;
            else if (i + 1 < argc)
                models = argv[++i];
            else
                usage_error("%s needs a value", a);
            continue;
        }
        for (k = 0; k < WS_NSETTINGS && !v; k++)
            v = opt(argc, argv, &i, &ws_settings_table[k]);
        if (!v)
            usage_error("unknown option '%s'", a);
        k--;
        if (ws_setting_parse(&ws_settings_table[k], v, &n) != 0) {
            fprintf(stderr, "%s: %s: '%s': %s (try --help)\n", prog,
                    ws_settings_table[k].opt, v, ws_settings_table[k].want);
            exit(2);
        }
        setenv(ws_settings_table[k].env, v, 1);
    }
    if (i >= argc)
        usage_error("%s", "no program to run");
    if (models && !getenv("WARPSIM_TRACE"))
        usage_error("%s", "--trace-models needs --trace FILE.svg");
    if (getenv("WARPSIM_TRACE") && trace_folder_bad(getenv("WARPSIM_TRACE")))
        exit(2);
    if (!find_program(argv[i], path, sizeof path)) {
        fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[i],
                strchr(argv[i], '/') ? strerror(errno) : "not found in PATH");
        return 127;
    }
    if (!built_for_warpsim(path)) {
        fprintf(stderr, "%s: %s is not built for warpsim (build it with make emu, or make "
                "check on a machine without a GPU)\n", prog, argv[i]);
        return 126;
    }
    if (models)
        return trace_models(models, getenv("WARPSIM_TRACE"), argv + i);
    execvp(argv[i], argv + i);
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[i], strerror(errno));
    return 127;
}
