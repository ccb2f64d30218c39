/*
 * driver.c - the `warpsim` command: runs a program built for warpsim under
 * a chosen scheduling model.
 *
 *   warpsim [--model M] [--order O] [--seed S] [--error-exitcode N]
 *           [--memory SIZE] [--spin-limit N] [--step-limit N] [--verbose]
 *           [--stats] [--] PROGRAM [ARGS...]
 *
 * It checks the options against the settings table (settings.c, which it is
 * linked with), sets the WARPSIM_* variables that libwarpsim reads and execs
 * the program. A program built for warpsim also
 * runs by itself, with the model its and seed 1 unless the environment says
 * otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
    size_t n = strlen(s->opt);
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

int main(int argc, char **argv)
{
    int i, k;
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
    execvp(argv[i], argv + i);
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[i], strerror(errno));
    return 127;
}
