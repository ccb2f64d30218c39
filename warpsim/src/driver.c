/*
 * driver.c - the `warpsim` command: runs a program built for warpsim under
 * a chosen scheduling model.
 *
 *   warpsim [--model M] [--order O] [--seed S] [--error-exitcode N]
 *           [--memory SIZE] [--spin-limit N] [--verbose] [--stats]
 *           [--] PROGRAM [ARGS...]
 *
 * It checks the options, sets the WARPSIM_* variables that libwarpsim reads
 * (src/runtime.c) and execs the program. A program built for warpsim also
 * runs by itself, with the model its and seed 1 unless the environment says
 * otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "warpsim";

#include "help.inc"              /* help_text, from help.txt */

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try --help)\n");
    exit(2);
}

static int is_count(const char *s, int suffixes, unsigned long long max, unsigned long long min)
{
    char *end;
    unsigned long long v, scale = 1;
    if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (end == s || errno == ERANGE)
        return 0;
    if (suffixes && (*end == 'K' || *end == 'k')) { scale = 1ULL << 10; end++; }
    else if (suffixes && *end == 'M') { scale = 1ULL << 20; end++; }
    else if (suffixes && *end == 'G') { scale = 1ULL << 30; end++; }
    if (*end || v > ~0ULL / scale)
        return 0;
    v *= scale;
    return v >= min && v <= max;
}

/* Matches "-x VALUE", "--name VALUE" and "--name=VALUE"; returns the value
 * (and advances *i) or NULL when argv[*i] is not this option. */
static const char *opt(int argc, char **argv, int *i, const char *shrt, const char *lng)
{
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if ((shrt && !strcmp(a, shrt)) || !strcmp(a, lng)) {
        if (*i + 1 >= argc)
            usage_error("%s needs a value", a);
        return argv[++*i];
    }
    if (!strncmp(a, lng, n) && a[n] == '=')
        return a + n + 1;
    return NULL;
}

int main(int argc, char **argv)
{
    int i;
    const char *v;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
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
        if ((v = opt(argc, argv, &i, "-m", "--model"))) {
            if (strcmp(v, "lockstep") && strcmp(v, "its") && strcmp(v, "random"))
                usage_error("unknown model '%s': use lockstep, its or random", v);
            setenv("WARPSIM_MODEL", v, 1);
        } else if ((v = opt(argc, argv, &i, "-o", "--order"))) {
            if (strcmp(v, "forward") && strcmp(v, "reverse") && strcmp(v, "alternate"))
                usage_error("unknown order '%s': use forward, reverse or alternate", v);
            setenv("WARPSIM_ORDER", v, 1);
        } else if ((v = opt(argc, argv, &i, "-s", "--seed"))) {
            if (!is_count(v, 0, ~0ULL, 0))
                usage_error("--seed: '%s' is not a number from 0 to 2^64-1", v);
            setenv("WARPSIM_SEED", v, 1);
        } else if ((v = opt(argc, argv, &i, "-e", "--error-exitcode"))) {
            if (!is_count(v, 0, 255, 0))
                usage_error("--error-exitcode: '%s' is not a number from 0 to 255", v);
            setenv("WARPSIM_ERROR_EXITCODE", v, 1);
        } else if ((v = opt(argc, argv, &i, NULL, "--memory"))) {
            if (!is_count(v, 1, 1ULL << 40, 1))
                usage_error("--memory: '%s' is not a size from 1 to 1024G", v);
            setenv("WARPSIM_MEMORY", v, 1);
        } else if ((v = opt(argc, argv, &i, NULL, "--spin-limit"))) {
            if (!is_count(v, 1, ~0ULL, 1000))
                usage_error("--spin-limit: '%s' is not a number of steps from 1000 up", v);
            setenv("WARPSIM_SPIN_LIMIT", v, 1);
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            setenv("WARPSIM_VERBOSE", "1", 1);
        } else if (!strcmp(a, "--stats")) {
            setenv("WARPSIM_STATS", "1", 1);
        } else {
            usage_error("unknown option '%s'", a);
        }
    }
    if (i >= argc)
        usage_error("%s", "no program to run");
    execvp(argv[i], argv + i);
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[i], strerror(errno));
    return 127;
}
