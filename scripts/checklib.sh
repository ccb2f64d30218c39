# checklib.sh - the checker contract every lesson's check.sh follows.
# shellcheck shell=bash
#
# A lesson's check.sh sources this file, calls `check_begin "$@"`, states its
# expectations with the functions below and ends with `check_end`.
#
# Options check_begin understands (mk/lesson.mk passes them):
#   --target gpu|emu|none   where the programs run; none: skip with a reason
#   --why TEXT              the reason for --target none
#   --sync BIN              the corrected program
#   --legacy BIN            the legacy program
#   --only-sync             check BIN (--sync) against the sync expectations
#                           alone: `make check SRC=mine.cu`
#   --timeout SECONDS       bound on every run (default 60)
# It sets SYNC, LEGACY, TARGET, ONLY_SYNC for check.sh.
#
# Output is TAP-like: one `ok N - what` or `not ok N - what` per expectation,
# `# ` detail lines, and last `N passed, N failed`. Exit status: 0 every
# expectation held, 1 one did not, 2 bad usage, 77 skipped (the reason is
# printed).
#
# Lesson programs end with a line `result: ok (...)` or `result: WRONG (...)`
# and exit 0 right, 1 wrong, 2 bad usage, 3 hang caught by their watchdog,
# 77 no GPU (include/lesson.h).

CHECK_PASSED=0
CHECK_FAILED=0
CHECK_N=0
CHECK_TIMEOUT=60
SYNC=
LEGACY=
TARGET=
ONLY_SYNC=0
RUN_OUT=
RUN_RC=0

check_usage() {
    printf 'usage: %s --target gpu|emu|none [--why TEXT] --sync BIN [--legacy BIN] [--only-sync] [--timeout S]\n' "$0" >&2
    exit 2
}

check_begin() {
    local why=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --target) TARGET=${2-}; shift 2 || check_usage ;;
            --why) why=${2-}; shift 2 || check_usage ;;
            --sync) SYNC=${2-}; shift 2 || check_usage ;;
            --legacy) LEGACY=${2-}; shift 2 || check_usage ;;
            --only-sync) ONLY_SYNC=1; shift ;;
            --timeout) CHECK_TIMEOUT=${2-}; shift 2 || check_usage ;;
            -h|--help)
                sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
                exit 0 ;;
            *) printf '%s: unknown option %s\n' "$0" "$1" >&2; check_usage ;;
        esac
    done
    case "$TARGET" in
        gpu|emu) ;;
        none)
            printf '# SKIP %s\n' "${why:-no GPU and no emulator to run on}"
            printf 'skipped: %s\n' "${why:-no GPU and no emulator to run on}"
            exit 77 ;;
        *) printf '%s: --target must be gpu, emu or none\n' "$0" >&2; exit 2 ;;
    esac
    case "$CHECK_TIMEOUT" in
        ''|*[!0-9]*) printf '%s: --timeout must be a number of seconds\n' "$0" >&2; exit 2 ;;
    esac
    [ -n "$SYNC" ] || check_usage
    [ -x "$SYNC" ] || { printf '%s: %s is not an executable program\n' "$0" "$SYNC" >&2; exit 2; }
    if [ "$ONLY_SYNC" = 0 ]; then
        [ -n "$LEGACY" ] || check_usage
        [ -x "$LEGACY" ] || { printf '%s: %s is not an executable program\n' "$0" "$LEGACY" >&2; exit 2; }
    fi
    printf '# checking on the %s\n' "$(target_name)"
    [ "$ONLY_SYNC" = 0 ] || printf '# only-sync: %s must meet what sync.cu meets\n' "$SYNC"
}

target_name() {
    if [ "$TARGET" = gpu ]; then
        local gpu
        gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
        printf 'GPU (%s)' "${gpu:-unknown}"
    else
        printf 'CPU emulator (warpsim)'
    fi
}

ok() {
    CHECK_N=$((CHECK_N + 1)); CHECK_PASSED=$((CHECK_PASSED + 1))
    printf 'ok %d - %s\n' "$CHECK_N" "$*"
}

not_ok() {
    CHECK_N=$((CHECK_N + 1)); CHECK_FAILED=$((CHECK_FAILED + 1))
    printf 'not ok %d - %s\n' "$CHECK_N" "$*"
}

diag() {
    local line
    for line in "$@"; do printf '# %s\n' "$line"; done
}

# diag_output [N]: the last N (default 8) lines of the last run, as # lines.
diag_output() {
    printf '%s\n' "$RUN_OUT" | tail -n "${1:-8}" | sed 's/^/#   /'
}

# run_bounded CMD...: runs CMD under the timeout; sets RUN_OUT and RUN_RC
# (124 when the timeout stopped it).
run_bounded() {
    RUN_OUT=$(timeout -k 5 "$CHECK_TIMEOUT" "$@" 2>&1)
    RUN_RC=$?
    [ "$RUN_RC" -ne 137 ] || RUN_RC=124
}

# result_of: the detail of the last run's `result:` line.
result_of() {
    printf '%s\n' "$RUN_OUT" | sed -n 's/^result: [A-Za-z]* (\(.*\))$/\1/p' | tail -n 1
}

# expect_right WHAT CMD...: the program must match the CPU (exit 0, result: ok).
expect_right() {
    local what=$1; shift
    run_bounded "$@"
    if [ "$RUN_RC" -eq 0 ] && printf '%s\n' "$RUN_OUT" | grep -q '^result: ok'; then
        ok "$what"
    else
        not_ok "$what"
        diag "exit status $RUN_RC: $(describe_rc "$RUN_RC")" "command: $*"
        diag_output 12
    fi
}

# expect_wrong WHAT CMD...: a legacy program whose bug shows as a wrong
# result. ok with the evidence when it is wrong; not ok when it matched the
# CPU (the lesson failed to show its point on this run).
expect_wrong() {
    local what=$1; shift
    run_bounded "$@"
    case "$RUN_RC" in
        1)  if printf '%s\n' "$RUN_OUT" | grep -q '^result: WRONG'; then
                ok "$what"
                diag "$(result_of)"
                return
            fi ;;
        0)  not_ok "$what"
            diag "it matched the CPU ($(result_of)): the bug did not show on this run"
            return ;;
    esac
    not_ok "$what"
    diag "exit status $RUN_RC: $(describe_rc "$RUN_RC")" "command: $*"
    diag_output 12
}

# expect_hang WHAT CMD...: a program whose bug is a hang. ok when its own
# watchdog caught it (exit 3 and a "HANG detected" line); not ok when it
# finished, or hung until the checker's timeout stopped it.
expect_hang() {
    local what=$1; shift
    run_bounded "$@"
    if [ "$RUN_RC" -eq 3 ] && printf '%s\n' "$RUN_OUT" | grep -q 'HANG detected'; then
        ok "$what"
        printf '%s\n' "$RUN_OUT" | grep -m 3 'HANG detected' | sed 's/^/# /'
        return
    fi
    not_ok "$what"
    case "$RUN_RC" in
        0|1) diag "it finished (exit status $RUN_RC): the hang did not show on this run" ;;
        124) diag "it hung until the checker's timeout (${CHECK_TIMEOUT}s) stopped it: the watchdog did not fire" ;;
        *) diag "exit status $RUN_RC: $(describe_rc "$RUN_RC")" ;;
    esac
    diag_output 12
}

# observe WHAT CMD...: runs a legacy program with no expectation (no ok
# line) and says plainly what happened, luck included.
observe() {
    local what=$1; shift
    run_bounded "$@"
    case "$RUN_RC" in
        0) diag "$what: matched the CPU ($(result_of)); that is luck, not correctness" ;;
        1) diag "$what: wrong ($(result_of))" ;;
        *) diag "$what: exit status $RUN_RC ($(describe_rc "$RUN_RC"))" ;;
    esac
}

describe_rc() {
    case "$1" in
        0) printf 'matched the CPU' ;;
        1) printf 'wrong result or CUDA error' ;;
        2) printf 'bad usage' ;;
        3) printf 'hang caught by the watchdog' ;;
        77) printf 'no usable GPU' ;;
        124) printf 'still running after %ss: stopped by the timeout' "$CHECK_TIMEOUT" ;;
        *) printf 'crashed or unexpected' ;;
    esac
}

# ---- compute-sanitizer (GPU only) ---------------------------------------

SANITIZER=
find_sanitizer() {
    if [ -z "$SANITIZER" ]; then
        SANITIZER=$(command -v compute-sanitizer 2>/dev/null ||
                    { [ -x /usr/local/cuda/bin/compute-sanitizer ] && echo /usr/local/cuda/bin/compute-sanitizer; } ||
                    echo none)
    fi
    [ "$SANITIZER" != none ]
}

# sanitize TOOL EXPECT WHAT CMD...: runs compute-sanitizer's TOOL (racecheck,
# memcheck, synccheck) on CMD. EXPECT is "clean" (no hazard or error,
# warnings included) or "flagged" (at least one hazard reported).
sanitize() {
    local tool=$1 expect=$2 what=$3 summary count; shift 3
    local args=(--tool "$tool" --error-exitcode 99)
    [ "$tool" != racecheck ] || args+=(--racecheck-report all)
    run_bounded "$SANITIZER" "${args[@]}" "$@"
    summary=$(printf '%s\n' "$RUN_OUT" | grep -E '(RACECHECK|ERROR) SUMMARY' | tail -n 1 | sed 's/^=* *//')
    count=$(printf '%s\n' "$summary" | grep -oE '[0-9]+ (hazards|errors)' | head -n 1 | cut -d' ' -f1)
    if [ "$RUN_RC" -eq 124 ] || [ -z "$summary" ]; then
        not_ok "$what"
        diag "compute-sanitizer gave no summary (exit status $RUN_RC)"
        diag_output 12
    elif [ "$expect" = clean ] && [ "$RUN_RC" -eq 0 ] && [ "${count:-0}" -eq 0 ]; then
        ok "$what"
        diag "$summary"
    elif [ "$expect" = flagged ] && [ "${count:-0}" -gt 0 ]; then
        ok "$what"
        diag "$summary"
        printf '%s\n' "$RUN_OUT" | grep -m 2 -E 'Potential|Race reported|hazard detected' | sed 's/^=* */#   /'
    else
        not_ok "$what"
        diag "$summary (exit status $RUN_RC)"
        diag_output 12
    fi
}

# check_end: the summary line and the exit status.
check_end() {
    printf '%d passed, %d failed\n' "$CHECK_PASSED" "$CHECK_FAILED"
    [ "$CHECK_FAILED" -eq 0 ] && [ "$CHECK_PASSED" -gt 0 ]
    exit $?
}
