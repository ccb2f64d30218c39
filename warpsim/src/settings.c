/*
 * settings.c - warpsim's settings, their names, ranges and parsing, once.
 *
 * One table: each setting's environment variable (what libwarpsim reads),
 * the driver's option for it, and what a value may be. The library
 * (runtime.c) reads the environment through it; the driver (driver.c, a
 * separate program linked with this file alone) checks its options through
 * it before it sets the same variables. A bad value is one line naming the
 * setting and what it must be.
 *
 * Depends on nothing but the C library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ws_settings.h"

ws_settings ws_cfg = {
    WS_ITS, WS_FORWARD, 1, -1, (uint64_t)1 << 22, (uint64_t)1 << 20, (size_t)1 << 30, 0, 0,
    NULL, 1, 0, 0, 400, 0
};
int ws_trace_warp2 = -1;

const char *const ws_model_names[] = { "lockstep", "its", "random", NULL };
const char *const ws_order_names[] = { "forward", "reverse", "alternate", NULL };

const ws_setting ws_settings_table[WS_NSETTINGS] = {
    [WS_SET_MODEL] = { "WARPSIM_MODEL", "--model", "-m", WS_T_NAME, ws_model_names,
                       0, 0, 0, "unknown model (use lockstep, its or random)" },
    [WS_SET_ORDER] = { "WARPSIM_ORDER", "--order", "-o", WS_T_NAME, ws_order_names,
                       0, 0, 0, "unknown order (use forward, reverse or alternate)" },
    [WS_SET_SEED] = { "WARPSIM_SEED", "--seed", "-s", WS_T_COUNT, NULL, 0, ~0ULL, 0,
                      "the seed must be a number from 0 to 2^64-1" },
    [WS_SET_ERROR_EXITCODE] = { "WARPSIM_ERROR_EXITCODE", "--error-exitcode", "-e",
                                WS_T_COUNT, NULL, 0, 255, 0,
                                "the exit code must be from 0 to 255" },
    [WS_SET_MEMORY] = { "WARPSIM_MEMORY", "--memory", NULL, WS_T_COUNT, NULL, 1,
                        1ULL << 40, 1,
                        "the device memory must be from 1 byte to 1024G (K, M, G suffixes)" },
    [WS_SET_SPIN_LIMIT] = { "WARPSIM_SPIN_LIMIT", "--spin-limit", NULL, WS_T_COUNT, NULL,
                            1000, ~0ULL, 1, "the spin limit must be 1000 steps or more" },
    [WS_SET_STEP_LIMIT] = { "WARPSIM_STEP_LIMIT", "--step-limit", NULL, WS_T_COUNT, NULL,
                            1000, ~0ULL, 1, "the step limit must be 1000 steps or more" },
    [WS_SET_VERBOSE] = { "WARPSIM_VERBOSE", "--verbose", "-v", WS_T_FLAG, NULL, 0, 1, 0,
                         "use 0 or 1" },
    [WS_SET_STATS] = { "WARPSIM_STATS", "--stats", NULL, WS_T_FLAG, NULL, 0, 1, 0,
                       "use 0 or 1" },
    [WS_SET_TRACE] = { "WARPSIM_TRACE", "--trace", NULL, WS_T_TEXT, NULL, 0, 0, 0,
                       "the picture's file name must end in .svg" },
    [WS_SET_TRACE_LAUNCH] = { "WARPSIM_TRACE_LAUNCH", "--trace-launch", NULL, WS_T_COUNT,
                              NULL, 1, ~0ULL, 0, "the launch must be a number from 1" },
    [WS_SET_TRACE_BLOCK] = { "WARPSIM_TRACE_BLOCK", "--trace-block", NULL, WS_T_COUNT,
                             NULL, 0, 0x7fffffffULL, 0,
                             "the block must be a number from 0 (blockIdx, x fastest)" },
    [WS_SET_TRACE_WARP] = { "WARPSIM_TRACE_WARP", "--trace-warp", NULL, WS_T_WARPS, NULL,
                            0, 31, 0,
                            "the warp must be a number from 0 to 31, or two different ones "
                            "(N,M) to draw side by side" },
    [WS_SET_TRACE_STEPS] = { "WARPSIM_TRACE_STEPS", "--trace-steps", NULL, WS_T_COUNT,
                             NULL, 16, 20000, 1, "the steps drawn must be from 16 to 20000" },
    [WS_SET_TRACE_HEIGHT] = { "WARPSIM_TRACE_HEIGHT", "--trace-height", NULL, WS_T_COUNT,
                              NULL, 160, 1400, 0,
                              "the rows' height must be from 160 to 1400 px" },
    [WS_SET_SUMMARY_FD] = { "WARPSIM_SUMMARY_FD", NULL, NULL, WS_T_COUNT, NULL, 0,
                            0x7fffffffULL, 0,
                            "the summary channel must be the number of a file descriptor "
                            "open for writing" },
};

/* Parses an unsigned number with an optional K, M or G suffix (binary) when
 * suffixes is set; 0 on success, -1 if s is not such a number. */
int ws_parse_count(const char *s, int suffixes, unsigned long long *out)
{
    char *end;
    unsigned long long v, scale = 1;
    if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (end == s || errno == ERANGE)
        return -1;
    if (suffixes && (*end == 'K' || *end == 'k')) { scale = 1ULL << 10; end++; }
    else if (suffixes && *end == 'M') { scale = 1ULL << 20; end++; }
    else if (suffixes && *end == 'G') { scale = 1ULL << 30; end++; }
    if (*end != '\0' || v > ~0ULL / scale)
        return -1;
    *out = v * scale;
    return 0;
}

/* Checks value for setting s: 0 and *out (a number, or an index into the
 * names) when it is good, -1 when not. A flag is 0 or 1; a pair of warps
 * is N,M (*out = N | (M + 1) << 8). */
int ws_setting_parse(const ws_setting *s, const char *value, unsigned long long *out)
{
    int i;
    switch (s->type) {
    case WS_T_NAME:
        for (i = 0; s->names[i]; i++)
            if (!strcmp(value, s->names[i])) {
                *out = (unsigned long long)i;
                return 0;
            }
        return -1;
    case WS_T_FLAG:
        if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
            return -1;
        *out = value[0] == '1';
        return 0;
    case WS_T_WARPS: {
        char first[24];
        const char *comma = strchr(value, ',');
        unsigned long long a, b;
        size_t n = comma ? (size_t)(comma - value) : strlen(value);
        if (n >= sizeof first)
            return -1;
        memcpy(first, value, n);
        first[n] = '\0';
        if (ws_parse_count(first, 0, &a) != 0 || a > s->max)
            return -1;
        *out = a;
        if (!comma)
            return 0;
        if (ws_parse_count(comma + 1, 0, &b) != 0 || b > s->max || b == a)
            return -1;
        *out = a | (b + 1) << 8;
        return 0;
    }
    case WS_T_TEXT: {
        size_t n = strlen(value);
        *out = 0;
        return n > 4 && !strcmp(value + n - 4, ".svg") ? 0 : -1;
    }
    default:
        if (ws_parse_count(value, s->suffixes, out) != 0 || *out < s->min || *out > s->max)
            return -1;
        return 0;
    }
}
