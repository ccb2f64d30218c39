/*
 * ws_settings.h - the table of warpsim's settings (settings.c), shared by
 * the library and the driver, and the values the library runs with
 * (ws_cfg, also settings.c's; runtime.c reads them). Depends on nothing.
 */
#ifndef WS_SETTINGS_H
#define WS_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

enum ws_model { WS_LOCKSTEP, WS_ITS, WS_RANDOM };
enum ws_order { WS_FORWARD, WS_REVERSE, WS_ALTERNATE };

enum ws_setting_id {
    WS_SET_MODEL, WS_SET_ORDER, WS_SET_SEED, WS_SET_ERROR_EXITCODE, WS_SET_MEMORY,
    WS_SET_SPIN_LIMIT, WS_SET_STEP_LIMIT, WS_SET_VERBOSE, WS_SET_STATS, WS_SET_TRACE,
    WS_SET_TRACE_LAUNCH, WS_SET_TRACE_BLOCK, WS_SET_TRACE_WARP, WS_SET_TRACE_STEPS,
    WS_SET_TRACE_HEIGHT, WS_SET_SUMMARY_FD, WS_NSETTINGS
};

/* WS_T_WARPS: a warp, or two (N,M): N | (M + 1) << 8 */
enum ws_setting_type { WS_T_NAME, WS_T_COUNT, WS_T_FLAG, WS_T_TEXT, WS_T_WARPS };

typedef struct ws_setting {
    const char *env;              /* WARPSIM_MODEL */
    const char *opt, *shrt;       /* the driver's --model and -m (or NULL; opt NULL:
                                   * the environment only) */
    int type;
    const char *const *names;     /* WS_T_NAME: the values, NULL-terminated */
    unsigned long long min, max;  /* WS_T_COUNT: the range */
    int suffixes;                 /* WS_T_COUNT: K, M, G allowed */
    const char *want;             /* what a value must be, for the error line */
} ws_setting;

extern const char *const ws_model_names[];
extern const char *const ws_order_names[];
extern const ws_setting ws_settings_table[WS_NSETTINGS];

/* What the library runs with (runtime.c reads the environment into it). */
typedef struct ws_settings {
    int model, order;
    uint64_t seed;
    int error_exitcode;           /* -1: none */
    uint64_t spin_limit;          /* steps without progress before a hang */
    uint64_t step_limit;          /* steps of one thread before a livelock */
    size_t memory_limit;
    int verbose, stats;
    const char *trace;            /* the picture's file, or NULL */
    uint64_t trace_launch, trace_block;   /* which launch (from 1) and block */
    int trace_warp, trace_steps;  /* which warp; how many lane steps are drawn */
    int trace_height;             /* the rows' height at most in px; 0: from the steps */
} ws_settings;
extern ws_settings ws_cfg;
extern int ws_trace_warp2;        /* WARPSIM_TRACE_WARP=N,M: M, or -1 */

int ws_parse_count(const char *s, int suffixes, unsigned long long *out);
int ws_setting_parse(const ws_setting *s, const char *value, unsigned long long *out);

#endif /* WS_SETTINGS_H */
