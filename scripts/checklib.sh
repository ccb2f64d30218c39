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
#   --name NAME             what to call BIN (--sync) in the output, e.g.
#                           mine.cu (default: sync)
#   --verify VERIFY         the lesson's build/verify (lessons with a
#                           harness.cu): every program runs as
#                           `VERIFY PROG ARGS`, and only VERIFY's verdict counts
#   --timeout SECONDS       bound on every run (default: 20 on warpsim, 60 on
#                           the GPU; with --only-sync 15 on both: on an H100
#                           no process of a lesson's check took more than
#                           4.7 s, racecheck's and batches of 55 runs
#                           included (docs/results/make-check.times.tsv),
#                           and a kernel that never ends costs no more)
# DEMO (environment): the demonstrations to run, see demo_select; check_end
# says of each selected one whether it passed (demo_begin).
# It sets SYNC, LEGACY, TARGET, ONLY_SYNC, SYNC_NAME and PRE_VOLTA (1 when
# the programs run the pre-Volta code path: compute_60, `make pascal`) for
# check.sh. check_limit SECONDS changes the bound for the runs that follow.
#
# Time, whatever the programs do:
#   - every run is bounded (CHECK_TIMEOUT); with --only-sync, all runs
#     together too (CHECK_BUDGET: 50 s on warpsim, 60 s on the GPU): a run
#     gets at most what is left, and none is started once it is spent (a
#     run that is not started because a run made first never ended names
#     that run's kernel: check_hung_first);
#   - once a program hangs (its watchdog, warpsim, or the timeout) or
#     crashes (killed by a signal) in an expect_* run, its remaining
#     expect_* runs are not run: the first is reported as one not ok, the
#     rest are counted in a # line at the end;
#   - CHECK_FIRST_FAIL=1 stops at the first failed expectation.
# CHECK_TIME_LOG=FILE appends a line per run (or batch) to FILE: its
# seconds, "alone" or "shared", its command, and when it started, in seconds
# from the check's start: where a check's time goes.
#
# Runs made first, several in one process (on the GPU): a process's start
# costs a GPU context, about a quarter of a second, more than most runs
# take. So check_begin first reads check.sh through without running
# anything (CHECK_PLAN: every run noted, nothing printed) and makes the runs
# of expect_right, run_right and clean sanitize in batches: `PROG --cases
# FILE` (include/lesson.h) runs a list of argument lists one after another
# in one process, each framed in its output and bounded by the run's own
# timeout, and each is judged apart, as its own run, by `VERIFY --judge`.
# Legacy code's runs (expect_wrong, observe) are made in batches too. The
# other runs (expect_hang, flagged sanitizer runs, programs without
# --cases) are made one by one, as they would be anyway, only sooner. What
# may share the GPU runs first, CHECK_JOBS processes side by side; then
# what must have it alone (delays, legacy code), one process at a time,
# while the batches before are judged. Then check.sh runs as always, and
# takes each run from what was made: a run made one by one as it was; a
# run of a batch when it was right, or never ended (its timeout), or, for
# legacy code, when it showed the bug (expect_wrong) or whatever it did
# (observe); any other outcome of a batch is run again on its own, so that
# a failure is always shown, and can be reproduced, as the one command it
# names.
# CHECK_BATCH=0 makes every run in its own process, in turn.
#
# Side by side: a whole lesson's check (not --only-sync, no CHECK_BUDGET,
# not CHECK_FIRST_FAIL) runs its expectations CHECK_JOBS at a time (default:
# one per core; CHECK_JOBS=1 runs them one after another). Their output is
# shown in the order check.sh states them, numbered as if run in turn, and a
# program that hung or crashed skips its later expectations as before. On
# warpsim every run may share the CPU: its verdicts do not depend on time.
# On the GPU only runs whose result does not depend on timing share it:
# expect_right and sanitize runs without delays (-j 0 or no -j). Every
# other run (delays, expect_wrong, expect_hang, observe: the runs that show
# a bug by its timing) waits until the others have ended and runs alone,
# also against other lessons' checks that run side by side at the same
# time (an exclusive lock on CHECK_GPU_LOCK; a check of one run at a time
# takes no lock). A check.sh line that runs or prints by itself
# (run_bounded, ok, diag) first waits for what is pending.
# A failed expectation's # lines start with `# locate: LINE`, the first line
# of the run that locates the problem (warpsim's report with file:line and
# lanes, compute-sanitizer's first hazard, a failed assert, the kernel a
# hang was in, the first mismatch), then what ran and the last lines of its
# output; a failure alike an earlier one (the same words and source lines)
# is one line naming it. `make check SRC=` (--only-sync) that failed ends
# with its first failure again: the locating line, how many were alike, the
# command that makes the run again and the one that draws it.
# On warpsim the model and seed are build/verify's options (--model,
# --seed), and the counts are those of the summary verify read through its
# own channel; WARPSIM_* variables around the check are dropped, with a line.
#
# Output is TAP-like: one `ok N - what` or `not ok N - what` per expectation,
# `# ` detail lines, and last `N passed, N failed`. Exit status: 0 every
# expectation held, 1 one did not, 2 bad usage, 77 skipped (the reason is
# printed).
#
# Lesson programs end with a line `result: ok (...)` or `result: WRONG (...)`
# and exit 0 right, 1 wrong, 2 bad usage, 3 hang caught by their watchdog,
# 77 no GPU (include/lesson.h).
#
# On the emu target the programs are built for warpsim, the CPU emulator,
# which runs them under a scheduling model (WARPSIM_MODEL):
#   expect_right   runs the program under every model of EMU_MODELS
#                  (lockstep its random) and wants each run right AND clean:
#                  no race, hang, bad mask or other report from warpsim;
#   expect_wrong, expect_hang, observe
#                  run it under EMU_MODEL (its, the adversarial model);
#   emulate MODEL EXPECT WHAT CMD...
#                  the emulator's analogue of `sanitize`, see below.
# EMU_SEED (default 1) is the seed of the random model.

CHECK_PASSED=0
CHECK_FAILED=0
CHECK_N=0
CHECK_TIMEOUT=
CHECK_BUDGET=${CHECK_BUDGET:-}
CHECK_FIRST_FAIL=${CHECK_FIRST_FAIL:-0}
SYNC=
LEGACY=
TARGET=
ONLY_SYNC=0
SYNC_NAME=sync
VERIFY=
CHECK_NOT_RUN=0
declare -A CHECK_DEAD=()       # program -> why its remaining runs are not run
declare -A CHECK_DEAD_SAID=()  # program -> 1 once its first skip is reported
RUN_OUT=
RUN_RC=0
CHECK_JOBS=${CHECK_JOBS:-}
CHECK_IN_JOB=          # set in a job's subshell
CHECK_DRAINING=        # set while check_drain merges and runs what is pending
CHECK_SEQ=0            # expectations handed to check_job so far
CHECK_MERGED=0         # of those, shown
CHECK_RUNNING=0        # side-by-side jobs started and not yet waited for
CHECK_JOBDIR=
CHECK_FLOCK=           # 1 when runs on the GPU take CHECK_GPU_LOCK (flock)
CHECK_GPU_LOCK=${CHECK_GPU_LOCK:-${TMPDIR:-/tmp}/warp-lessons-gpu-$(id -u).lock}
declare -A CHECK_SOLO=()       # seq -> the deferred call, to run alone
declare -A CHECK_JOB_DEMO=()   # seq -> the demonstration it was stated in
EMU_MODELS=${EMU_MODELS:-"lockstep its random"}
EMU_MODEL=${EMU_MODEL:-its}
EMU_SEED=${EMU_SEED:-1}
WARPSIM_REPORTED=99     # warpsim's exit status when it reported anything
CHECK_PLAN=${CHECK_PLAN:-}     # set in the pass that notes the runs to batch
CHECK_BATCH=${CHECK_BATCH:-1}
CHECK_BATCH_DIR=
CHECK_T0=
CHECK_ARGV=()
declare -A CHECK_CACHE=()      # command -> the batch files of its run
declare -A CHECK_SINGLE=()     # command -> the files of a run made beforehand
CHECK_PLAN_SOLO=alone          # in the plan pass: how the next run must run

check_usage() {
    printf 'usage: %s --target gpu|emu|none [--why TEXT] --sync BIN [--legacy BIN] [--only-sync] [--name NAME] [--verify VERIFY] [--timeout S]\n' "$0" >&2
    exit 2
}

check_begin() {
    local why=""
    CHECK_ARGV=("$@")
    while [ $# -gt 0 ]; do
        case "$1" in
            --target) TARGET=${2-}; shift 2 || check_usage ;;
            --why) why=${2-}; shift 2 || check_usage ;;
            --sync) SYNC=${2-}; shift 2 || check_usage ;;
            --legacy) LEGACY=${2-}; shift 2 || check_usage ;;
            --only-sync) ONLY_SYNC=1; shift ;;
            --name) SYNC_NAME=${2-}; shift 2 || check_usage ;;
            --verify) VERIFY=${2-}; shift 2 || check_usage ;;
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
    if [ -z "$CHECK_TIMEOUT" ]; then
        case "$TARGET:$ONLY_SYNC" in
            emu:0) CHECK_TIMEOUT=20 ;;
            emu:1) CHECK_TIMEOUT=15 ;;
            gpu:0) CHECK_TIMEOUT=60 ;;
            gpu:1) CHECK_TIMEOUT=15 ;;
        esac
    fi
    case "$CHECK_TIMEOUT" in
        ''|*[!0-9]*|0) printf '%s: --timeout must be a number of seconds\n' "$0" >&2; exit 2 ;;
    esac
    if [ -z "$CHECK_BUDGET" ] && [ "$ONLY_SYNC" = 1 ]; then
        if [ "$TARGET" = emu ]; then CHECK_BUDGET=50; else CHECK_BUDGET=60; fi
    fi
    CHECK_JOBS_ASKED=$CHECK_JOBS
    if [ "$ONLY_SYNC" = 1 ] || [ -n "$CHECK_BUDGET" ] || [ "$CHECK_FIRST_FAIL" = 1 ]; then
        CHECK_JOBS=1
    fi
    [ -n "$CHECK_JOBS" ] || CHECK_JOBS=$(nproc 2>/dev/null || echo 1)
    case "$CHECK_JOBS" in
        ''|*[!0-9]*|0) printf '%s: CHECK_JOBS=%s: how many expectations run at once, a number from 1\n' "$0" "$CHECK_JOBS" >&2; exit 2 ;;
    esac
    CHECK_FLOCK=
    if [ "$TARGET" = gpu ] && [ "$CHECK_JOBS" -gt 1 ] && command -v flock >/dev/null 2>&1 &&
       : 2>/dev/null >>"$CHECK_GPU_LOCK"; then
        CHECK_FLOCK=1
    fi
    if [ -n "$VERIFY" ] && [ ! -x "$VERIFY" ]; then
        printf '%s: %s is not an executable program\n' "$0" "$VERIFY" >&2; exit 2
    fi
    # warpsim's settings decide verdicts: they are the checker's (verify
    # --model, --seed), never the environment's. What was set around the
    # check is dropped here, with one line saying so.
    local v
    CHECK_WS_DROPPED=
    for v in $(compgen -e WARPSIM_); do
        CHECK_WS_DROPPED+=" $v=${!v}"
        unset "$v"
    done
    CHECK_START=$SECONDS
    CHECK_T0=${EPOCHREALTIME:-}
    [ -n "$SYNC" ] || check_usage
    [ -x "$SYNC" ] || { printf '%s: %s is not an executable program\n' "$0" "$SYNC" >&2; exit 2; }
    if [ "$ONLY_SYNC" = 0 ]; then
        [ -n "$LEGACY" ] || check_usage
        [ -x "$LEGACY" ] || { printf '%s: %s is not an executable program\n' "$0" "$LEGACY" >&2; exit 2; }
    fi
    if [ -n "$CHECK_PLAN" ]; then
        CHECK_JOBS=1 PRE_VOLTA=${CHECK_PLAN_PRE_VOLTA:-0}
        return
    fi
    printf '# checking on the %s\n' "$(target_name)"
    if [ "$TARGET" = emu ] && [[ " $EMU_MODELS " == *' lockstep '* ]]; then
        printf "# lockstep, one of warpsim's models, runs each warp's lanes together; it does not model the pre-Volta rules (a shuffle or __syncwarp on both sides of a branch is undefined before 7.0): a pass under it is no pass on a pre-Volta GPU\n"
    fi
    [ -z "$CHECK_WS_DROPPED" ] ||
        printf "# ignored:%s: the checker sets warpsim's settings itself (build/verify --model, --seed)\n" "$CHECK_WS_DROPPED"
    [ "$ONLY_SYNC" = 0 ] || printf '# only-sync: %s must meet what sync.cu meets\n' \
        "$([ "$SYNC_NAME" = sync ] && printf '%s' "$SYNC" || printf '%s' "$SYNC_NAME")"
    find_path
    check_prefetch
}

# find_path: asks the program which code path its kernels run (--path) and
# sets PRE_VOLTA=1 for the pre-Volta one: compute_60 code (make pascal),
# which opts into pre-Volta thread scheduling even on a new GPU. Checkers
# expect legacy code that fails under independent thread scheduling to be
# right there; lockstep was never a promise of the programming model, so a
# right result there is reported, not counted as correctness.
PRE_VOLTA=0
find_path() {
    local line
    [ "$TARGET" = gpu ] || return 0
    line=$(timeout -k 5 "$CHECK_TIMEOUT" "$SYNC" --path 2>&1 | grep -m 1 '^path:')
    printf '# %s\n' "${line:-path: unknown (the program does not print it)}"
    # shellcheck disable=SC2034   # read by the check.sh that sources this file
    case "$line" in *pre-Volta*) PRE_VOLTA=1 ;; esac
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

# demo_select NAME...: the lesson's demonstrations, in order. Sets the
# array DEMO_SELECTED to those that DEMO names (by number from 1 or by
# name, e.g. `make check DEMO="1 shfl"`), all of them when DEMO is empty or
# `all`; an unknown one stops the check with one line and exit 2.
DEMO_SELECTED=()
demo_select() {
    local d i found
    DEMO_SELECTED=()
    if [ -z "${DEMO:-}" ] || [ "$DEMO" = all ]; then
        DEMO_SELECTED=("$@")
        return
    fi
    for d in $DEMO; do
        found=
        for ((i = 1; i <= $#; i++)); do
            if [ "$d" = "$i" ] || [ "$d" = "${!i}" ]; then found=${!i}; fi
        done
        if [ -z "$found" ]; then
            printf '%s: DEMO: no demonstration %s (1-%d or %s)\n' "$0" "$d" "$#" "$*" >&2
            exit 2
        fi
        DEMO_SELECTED+=("$found")
    done
}

# demo_begin NAME: the expectations that follow are the demonstration
# NAME's; demo_end: those that follow belong to every selected one. At the
# end check_end prints, for each of DEMO_SELECTED in order, one line
#   # demo NAME: passed       every expectation of NAME (and of all) held
#   # demo NAME: FAILED       one did not, or was not run
#   # demo NAME: not checked  none was made here (not run on this path, or
#                             the check stopped before it: CHECK_FIRST_FAIL)
# so that a grader gives each part of an exercise its points from one run.
# (The tally goes by the demonstration current when an expectation was
# stated: those run side by side are counted when they are shown.)
CHECK_DEMO=
declare -A CHECK_DEMO_OK=() CHECK_DEMO_BAD=()
demo_begin() { CHECK_DEMO=$1; }
demo_end() { CHECK_DEMO=; }

# demo_tally ok|bad [N]: counts N (default 1) expectations that held (ok)
# or did not or were not run (bad) for the current demonstration.
demo_tally() {
    local k=${CHECK_DEMO:--} n=${2:-1}
    if [ "$1" = ok ]; then
        CHECK_DEMO_OK[$k]=$(( ${CHECK_DEMO_OK[$k]:-0} + n ))
    else
        CHECK_DEMO_BAD[$k]=$(( ${CHECK_DEMO_BAD[$k]:-0} + n ))
    fi
}

# demo_summary: check_end's line for each selected demonstration.
demo_summary() {
    local d ok bad
    for d in "${DEMO_SELECTED[@]}"; do
        ok=$(( ${CHECK_DEMO_OK[$d]:-0} + ${CHECK_DEMO_OK[-]:-0} ))
        bad=$(( ${CHECK_DEMO_BAD[$d]:-0} + ${CHECK_DEMO_BAD[-]:-0} ))
        if [ "$bad" -gt 0 ]; then
            printf '# demo %s: FAILED\n' "$d"
        elif [ "$ok" -gt 0 ]; then
            printf '# demo %s: passed\n' "$d"
        else
            printf '# demo %s: not checked\n' "$d"
        fi
    done
}

# by_target GPU_VALUE EMU_VALUE: the value for where the check runs: sizes
# for the GPU (millions of elements, so that a bad interleaving is likely)
# and for warpsim (thousands: every access is emulated, and its models find
# the bug in a few warps).
by_target() {
    if [ "$TARGET" = gpu ]; then printf '%s\n' "$1"; else printf '%s\n' "$2"; fi
}

# check_limit SECONDS: the bound on each run from here on.
check_limit() {
    CHECK_TIMEOUT=$1
}

# check_gate: with CHECK_FIRST_FAIL=1, ends the check once one expectation
# failed. Every expectation calls it first.
check_gate() {
    if [ "$CHECK_FIRST_FAIL" = 1 ] && [ "$CHECK_FAILED" -gt 0 ]; then
        printf '# stopped at the first failed expectation (CHECK_FIRST_FAIL=1)\n'
        check_end
    fi
}

# ---- expectations side by side (CHECK_JOBS) -----------------------------

# check_solo FUNC ARGS...: whether the call must run alone on the GPU:
# every call but expect_right and sanitize without delays (-j N, N > 0).
# On warpsim nothing must: its verdicts do not depend on time.
check_solo() {
    local f=$1 w prev=
    shift
    [ "$TARGET" = gpu ] || return 1
    case "$f" in expect_right|sanitize) ;; *) return 0 ;; esac
    for w in "$@"; do
        if [ "$prev" = -j ] && [ "$w" != 0 ]; then return 0; fi
        prev=$w
    done
    return 1
}

# check_job FUNC ARGS...: hands an expectation (FUNC ARGS) to the runner.
# Status 0: it was started in the background (its output kept for
# check_drain) or, when it must run alone, kept to run at check_drain;
# status 1: the caller does it itself, now (one job at a time, inside a
# job, or while check_drain runs what was kept).
check_job() {
    if [ -n "$CHECK_PLAN" ]; then
        if check_solo "$@"; then CHECK_PLAN_SOLO=alone; else CHECK_PLAN_SOLO=shared; fi
        return 1
    fi
    [ "$CHECK_JOBS" -gt 1 ] && [ -z "$CHECK_IN_JOB" ] && [ -z "$CHECK_DRAINING" ] || return 1
    if [ -z "$CHECK_JOBDIR" ]; then
        CHECK_JOBDIR=$(mktemp -d "${TMPDIR:-/tmp}/check-jobs.XXXXXX") || return 1
        trap check_cleanup EXIT
        trap 'exit 130' INT TERM
    fi
    CHECK_SEQ=$((CHECK_SEQ + 1))
    CHECK_JOB_DEMO[$CHECK_SEQ]=$CHECK_DEMO
    if check_solo "$@"; then
        # what the call reads that check.sh may change before it runs
        CHECK_SOLO[$CHECK_SEQ]=$(printf 'CHECK_TIMEOUT=%q VERIFY=%q EMU_MODEL=%q EMU_MODELS=%q EMU_SEED=%q SANITIZER=%q' \
            "$CHECK_TIMEOUT" "$VERIFY" "$EMU_MODEL" "$EMU_MODELS" "$EMU_SEED" "$SANITIZER"; printf ' %q' "$@")
        return 0
    fi
    while [ "$CHECK_RUNNING" -ge "$CHECK_JOBS" ]; do
        wait -n 2>/dev/null
        CHECK_RUNNING=$((CHECK_RUNNING - 1))
    done
    check_job_body "$@" >"$CHECK_JOBDIR/$CHECK_SEQ" 2>&1 &
    CHECK_RUNNING=$((CHECK_RUNNING + 1))
    return 0
}

# check_job_body FUNC ARGS...: a job (in its own subshell): the expectation
# with its own counts, then what check_merge reads: its counts and the
# programs that hung or crashed.
check_job_body() {
    local prog
    CHECK_IN_JOB=1 CHECK_N=0 CHECK_PASSED=0 CHECK_FAILED=0 CHECK_NOT_RUN=0
    printf '#@@call\t%s\n' "$*"
    "$@"
    for prog in "${!CHECK_DEAD[@]}"; do printf '#@@dead\t%s\t%s\n' "$prog" "${CHECK_DEAD[$prog]}"; done
    printf '#@@end %d %d %d\n' "$CHECK_PASSED" "$CHECK_FAILED" "$CHECK_NOT_RUN"
}

# check_merge FILE: shows a finished job's output as if it had run in
# turn: numbered on from CHECK_N, its counts added; when its program hung
# or crashed in an expectation before it, the job is reported as not run,
# exactly as a run in turn would have been.
check_merge() {
    local file=$1 line prog mode p f nr what='' call='' end='' n=$CHECK_N re='^(not )?ok [0-9]+ - (.*)$'
    local -a out=() parts=()
    mapfile -t out <"$file"     # no process started: a check merges hundreds
    for line in "${out[@]}"; do
        case "$line" in
            '#@@prog'$'\t'*)
                IFS=$'\t' read -r -a parts <<<"$line"
                prog=${parts[1]} mode=${parts[2]} what=${parts[3]-}
                if [ -n "${CHECK_DEAD[$prog]+x}" ]; then
                    # shellcheck disable=SC2034   # read by program_dead
                    [ "$mode" != report ] || { CHECK_WHAT=$what; program_dead "$prog"; }
                    return
                fi
                break ;;
        esac
    done
    for line in "${out[@]}"; do
        case "$line" in
            '#@@call'$'\t'*) call=${line#*$'\t'} ;;
            '#@@end '*) end=${line#'#@@end '} ;;
            '#@@dead'$'\t'*)
                IFS=$'\t' read -r -a parts <<<"$line"
                [ -n "${CHECK_DEAD[${parts[1]}]+x}" ] || CHECK_DEAD[${parts[1]}]=${parts[2]-} ;;
            '#@@'*) ;;
            *)  if [[ $line =~ $re ]]; then
                    n=$((n + 1))
                    line="${BASH_REMATCH[1]}ok $n - ${BASH_REMATCH[2]}"
                fi
                printf '%s\n' "$line" ;;
        esac
    done
    if [ -z "$end" ]; then
        not_ok "${what:-$call}"
        diag "the checker's job for it ended without a verdict" "call: $call"
        return
    fi
    read -r p f nr <<<"$end"
    CHECK_N=$((CHECK_N + p + f))
    CHECK_PASSED=$((CHECK_PASSED + p))
    CHECK_FAILED=$((CHECK_FAILED + f))
    CHECK_NOT_RUN=$((CHECK_NOT_RUN + nr))
    demo_tally ok "$p"
    demo_tally bad $((f + nr))
}

# check_drain: waits for the jobs running, then shows every expectation
# handed over so far, in order, running those kept to run alone in their
# turn. Everything that prints or runs in check.sh's own shell calls it
# first (check_sync).
check_drain() {
    local seq demo=$CHECK_DEMO
    CHECK_DRAINING=1
    wait
    CHECK_RUNNING=0
    for ((seq = CHECK_MERGED + 1; seq <= CHECK_SEQ; seq++)); do
        CHECK_MERGED=$seq
        CHECK_DEMO=${CHECK_JOB_DEMO[$seq]-}
        if [ -n "${CHECK_SOLO[$seq]+x}" ]; then
            eval "${CHECK_SOLO[$seq]}"
            unset "CHECK_SOLO[$seq]"
        else
            check_merge "$CHECK_JOBDIR/$seq"
        fi
    done
    CHECK_DEMO=$demo
    CHECK_DRAINING=
}

# check_sync: in check.sh's own shell, shows what is pending first.
check_sync() {
    [ -n "$CHECK_IN_JOB" ] || [ -n "$CHECK_DRAINING" ] || [ "$CHECK_MERGED" -ge "$CHECK_SEQ" ] || check_drain
}

check_cleanup() {
    [ -z "$CHECK_JOBDIR$CHECK_BATCH_DIR" ] || [ -n "$CHECK_IN_JOB" ] || {
        # shellcheck disable=SC2046   # one pid per word
        kill $(jobs -p) 2>/dev/null
        rm -rf "$CHECK_JOBDIR" "$CHECK_BATCH_DIR"
    }
}

ok() {
    check_sync
    CHECK_N=$((CHECK_N + 1)); CHECK_PASSED=$((CHECK_PASSED + 1))
    demo_tally ok
    printf 'ok %d - %s\n' "$CHECK_N" "$*"
}

not_ok() {
    check_sync
    CHECK_LAST_WHAT=$*
    CHECK_N=$((CHECK_N + 1)); CHECK_FAILED=$((CHECK_FAILED + 1))
    demo_tally bad
    printf 'not ok %d - %s\n' "$CHECK_N" "$*"
}

diag() {
    local line
    check_sync
    for line in "$@"; do printf '# %s\n' "$line"; done
}

# diag_output [N]: the last N (default 8) lines of the last run, as # lines
# (none when it printed nothing).
diag_output() {
    [ -n "$RUN_OUT" ] || return 0
    printf '%s\n' "$RUN_OUT" | tail -n "${1:-8}" | sed 's/^/#   /'
}

# locate_line: the first line of the last run that locates its problem:
# warpsim's first report (file:line, lanes), a hang, compute-sanitizer's
# first hazard or error, a failed assert (the GPU's and the C library's
# lines name the file:line, the GPU's the thread), verify's word on a crash or missing results, the
# kernel a run that never ended was in, the first mismatch; else its status.
locate_line() {
    local line
    line=$(printf '%s\n' "$RUN_OUT" | grep -E \
        '^warpsim: ([a-z]|HANG)|HANG detected|^=+ +(Error|Warning|Invalid|Barrier|Race|Potential|.*[Hh]azard)|Assertion .* failed|^verify: ' |
        grep -v -E '^warpsim: [0-9]+ race|^verify: warpsim summary: ' | head -n 1)
    if [ -z "$line" ] && [ "$RUN_RC" = 125 ] && [ -n "$CHECK_HUNG_FIRST" ]; then
        line="$CHECK_HUNG_FIRST; then the check's ${CHECK_BUDGET}s ran out"
    elif [ -z "$line" ] && [ "$RUN_RC" = 124 ]; then
        line="stopped after ${RUN_LIMIT:-$CHECK_TIMEOUT}s$(printf '%s\n' "$RUN_OUT" | in_kernel)"
        if [ "${RUN_LIMIT:-$CHECK_TIMEOUT}" -lt "$CHECK_TIMEOUT" ]; then
            line="$line, when the check's ${CHECK_BUDGET}s ran out"
        else
            line="it never ended: $line"
        fi
    fi
    [ -n "$line" ] || line=$(printf '%s\n' "$RUN_OUT" | grep -m 1 -E '^ +[a-z][a-z ]* -?[0-9]+: expected ')
    [ -n "$line" ] || line=$(printf '%s\n' "$RUN_OUT" | grep -m 1 -E '^verify: warpsim summary: ' |
                             grep -v -E ': 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors, 0 other')
    [ -n "$line" ] || line="exit status $RUN_RC: $(describe_rc "$RUN_RC")"
    printf '%s\n' "$line" | sed 's/^=* *//'
}

# in_kernel: " in kernel K<<<B, T>>> (the last it launched)" from the last
# "launch:" line of the output on stdin; nothing when there is none.
in_kernel() {
    local line
    line=$(grep '^launch: ' | tail -n 1)
    [ -z "$line" ] || printf ' in kernel %s (the last it launched)' "${line#launch: }"
}

# diag_failure STATUS_TEXT CMD...: the # lines of a failed expectation:
# the locating line first, then what happened, the command, and the last
# lines of its output (bounded, so that nothing scrolls the first away);
# see fail_report.
diag_failure() {
    local status=$1; shift
    if fail_report "$(locate_line)" "$*" "$DRAW_HINT" "$status"; then diag_output 12; fi
    DRAW_HINT=
}

# fail_report LOCATE AGAIN DRAW LINE...: after a not ok, its # lines: the
# locating line, LINE..., the command that makes the run again (AGAIN) and
# the one that draws it (DRAW); status 0, and the caller adds the run's
# last lines. When an earlier failure had the same locating line, one line
# says so instead (status 1): a wrong file fails many expectations the
# same way. The first failure is kept for check_end's closing block.
declare -A CHECK_SAME_AS=() CHECK_SAME_COUNT=()
CHECK_FIRST_BLOCK=()
CHECK_LAST_WHAT=
CHECK_FIRST_KEY=
fail_report() {
    local locate=$1 again=$2 draw=$3 key; shift 3
    printf '# locate: %s\n' "$locate"
    # alike: the same words and source lines, whatever the lanes, warps,
    # indexes, masks and values
    key=$(printf '%s\n' "$locate" | sed -E 's/(^|[^:0-9])(0x)?[0-9a-f]*[0-9][0-9a-f]*/\1N/g')
    if [ -n "${CHECK_SAME_AS[$key]+x}" ]; then
        CHECK_SAME_COUNT[$key]=$((CHECK_SAME_COUNT[$key] + 1))
        printf '# alike: not ok %s above\n' "${CHECK_SAME_AS[$key]}"
        return 1
    fi
    CHECK_SAME_AS[$key]=$CHECK_N
    CHECK_SAME_COUNT[$key]=1
    if [ ${#CHECK_FIRST_BLOCK[@]} -eq 0 ]; then
        CHECK_FIRST_BLOCK=("not ok $CHECK_N - $CHECK_LAST_WHAT" "$locate" "$again" "$draw")
        CHECK_FIRST_KEY=$key
    fi
    [ $# -eq 0 ] || diag "$@"
    [ -z "$again" ] || diag "command: $again"
    [ -z "$draw" ] || diag "$draw"
    return 0
}

# closing_block: for `make check SRC=` (--only-sync) that failed, the first
# failure again, last, where a student looks: its locating line, how many
# failures were alike, the one command that makes the run again (from the
# lesson folder) and the one that draws it.
closing_block() {
    local locate where top
    [ "$ONLY_SYNC" = 1 ] && [ "$CHECK_FAILED" -gt 0 ] && [ ${#CHECK_FIRST_BLOCK[@]} -gt 0 ] || return 0
    locate=${CHECK_FIRST_BLOCK[1]}
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    where=$(realpath --relative-to="$top" "$PWD" 2>/dev/null || printf '%s' "$PWD")
    printf '# ==== the first failure'
    if [ "$CHECK_FAILED" -gt 1 ]; then
        printf ' of %d; %d alike' "$CHECK_FAILED" "${CHECK_SAME_COUNT[$CHECK_FIRST_KEY]}"
    fi
    printf ' ====\n'
    printf '# %s\n' "${CHECK_FIRST_BLOCK[0]}"
    printf '# locate: %s\n' "$locate"
    if [ "$where" = . ]; then where=''; else where=" (in $where)"; fi
    [ -z "${CHECK_FIRST_BLOCK[2]}" ] || printf '# again%s: %s\n' "$where" "${CHECK_FIRST_BLOCK[2]}"
    [ -z "${CHECK_FIRST_BLOCK[3]}" ] || printf '# %s\n' "${CHECK_FIRST_BLOCK[3]}"
}

# draw_hint MODEL CMD...: sets DRAW_HINT to the one command that draws a
# failing warpsim run of CMD as a picture (warpsim --trace): the warp of its
# first report, or warp 0 of block 0. Empty when the driver is not built.
WS_DRIVER_BIN=${WS_DRIVER_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/warpsim/build/warpsim}
DRAW_HINT=
draw_hint() {
    local model=$1 prog where warp=0 block=0 driver report other='' w2 b2; shift
    DRAW_HINT=
    [ -x "$WS_DRIVER_BIN" ] || return 0
    # the warp of the first report (the locating line), not of a later one
    report=$(locate_line)
    where=$(printf '%s\n' "$report" | grep -oE 'warp [0-9]+ \(thread [0-9]+, block [0-9]+\)' | head -n 1)
    if [ -n "$where" ]; then
        warp=$(printf '%s' "$where" | sed -E 's/^warp ([0-9]+) .*/\1/')
        block=$(printf '%s' "$where" | sed -E 's/.*block ([0-9]+)\)$/\1/')
    else    # a race names its threads as (block B, warp W, lane L)
        where=$(printf '%s\n' "$report" | grep -oE '\(block [0-9]+, warp [0-9]+, lane [0-9]+\)')
        if [ -n "$where" ]; then
            block=$(printf '%s\n' "$where" | head -n 1 | sed -E 's/^\(block ([0-9]+),.*/\1/')
            warp=$(printf '%s\n' "$where" | head -n 1 | sed -E 's/.*warp ([0-9]+),.*/\1/')
            # a race between two warps: the other side's warp, named (the
            # driver draws one warp a picture)
            b2=$(printf '%s\n' "$where" | sed -n 2p | sed -E 's/^\(block ([0-9]+),.*/\1/')
            w2=$(printf '%s\n' "$where" | sed -n 2p | sed -E 's/.*warp ([0-9]+),.*/\1/')
            if [ -n "$w2" ] && { [ "$w2" != "$warp" ] || [ "$b2" != "$block" ]; }; then
                other=" (the race's other side is warp $w2 of block $b2: --trace-block $b2 --trace-warp $w2 draws it)"
            fi
        fi
    fi
    driver=$(realpath --relative-to=. "$WS_DRIVER_BIN" 2>/dev/null || printf '%s' "$WS_DRIVER_BIN")
    case "$driver" in */*) ;; *) driver=./$driver ;; esac               # runnable as typed
    [ "${#driver}" -le "${#WS_DRIVER_BIN}" ] || driver=$WS_DRIVER_BIN     # the shorter
    prog=$(basename "$1")
    DRAW_HINT="draw it: $driver --trace $prog-$model.svg --trace-block $block --trace-warp $warp --model $model --seed $EMU_SEED $*$other"
}

# program_of CMD...: sets PROGRAM_OF to the lesson program in a command
# (the first word that is not compute-sanitizer or one of its options).
program_of() {
    local w
    PROGRAM_OF=
    for w in "$@"; do
        case "$w" in
            "$SANITIZER"|--*|racecheck|memcheck|synccheck|initcheck|all|99) ;;
            *) PROGRAM_OF=$w; return ;;
        esac
    done
}

# run_limited [MODEL] -- CMD...: runs CMD (through VERIFY when there is one),
# bounded by CHECK_TIMEOUT and by what is left of CHECK_BUDGET; on the emu
# target under warpsim's MODEL. Sets RUN_OUT and RUN_RC (124 when stopped,
# 125 when it did not run: the budget was spent).
run_limited() {
    local model=$1 left key f mode lock=(); shift 2
    check_sync
    RUN_LIMIT=$CHECK_TIMEOUT
    if [ -n "$CHECK_PLAN" ]; then     # the pass that runs nothing
        if [ "$TARGET" = gpu ]; then
            if [ -n "$VERIFY" ]; then set -- "$VERIFY" "$@"; fi
            printf -v key '%q ' "$RUN_LIMIT" "$@"
            printf '%s\t%s\t%s\t%s\n' "$CHECK_PLAN_SOLO" "$RUN_LIMIT" "$key" "$(IFS=$'\t'; printf '%s' "$*")" \
                >>"$CHECK_PLAN.runs"
        fi
        CHECK_PLAN_SOLO=alone RUN_OUT='' RUN_RC=0
        return
    fi
    if [ -n "$CHECK_BUDGET" ]; then
        left=$((CHECK_BUDGET - (SECONDS - CHECK_START)))
        if [ "$left" -le 0 ]; then
            RUN_RC=125
            RUN_OUT="not run: the check's ${CHECK_BUDGET}s were spent"
            [ -z "$CHECK_HUNG_FIRST" ] || RUN_OUT+=$'\n'"($CHECK_HUNG_FIRST)"
            return
        fi
        [ "$left" -ge "$RUN_LIMIT" ] || RUN_LIMIT=$left
    fi
    if [ -n "$VERIFY" ]; then set -- "$VERIFY" "$@"; fi
    # The same run, made already by check_prefetch.
    if [ -n "$CHECK_BATCH_DIR" ] && [ -z "$model" ]; then
        printf -v key '%q ' "$RUN_LIMIT" "$@"
        f=${CHECK_SINGLE[$key]-}
        if [ -n "$f" ] && [ -f "$f.rc" ]; then
            read -r RUN_RC <"$f.rc"
            RUN_OUT=$(<"$f.out")
            return
        fi
    fi
    # On the GPU a run in a job shares it with the other jobs' runs; any
    # other run has it alone, other lessons' checks included.
    if [ "$TARGET" = gpu ]; then
        if [ -n "$CHECK_IN_JOB" ]; then check_lock shared; else check_lock alone; fi
        lock=("${CHECK_LOCK[@]}")
    fi
    # The time limit: VERIFY's own (--timeout, as timeout -k 5 would: one
    # process less a run), else timeout's.
    # On warpsim, VERIFY sets the model and seed itself (--model, --seed:
    # it drops every WARPSIM_* variable it inherits); a program judged by
    # itself (a stand-in) gets them in the environment.
    local cmd=(timeout -k 5 "$RUN_LIMIT" "$@") t0=${EPOCHREALTIME:-}
    [ -z "$VERIFY" ] || cmd=("$VERIFY" --timeout "$RUN_LIMIT" "${@:2}")
    if [ -n "$model" ] && [ -n "$VERIFY" ]; then
        cmd=("$VERIFY" --timeout "$RUN_LIMIT" --model "$model" --seed "$EMU_SEED"
             ${CHECK_WS_EXITCODE:+--error-exitcode "$CHECK_WS_EXITCODE"} "${@:2}")
        RUN_OUT=$("${lock[@]}" "${cmd[@]}" 2>&1)
    elif [ -n "$model" ]; then
        RUN_OUT=$(WARPSIM_MODEL=$model WARPSIM_SEED=$EMU_SEED WARPSIM_ERROR_EXITCODE=${CHECK_WS_EXITCODE:-0} \
                  "${lock[@]}" "${cmd[@]}" 2>&1)
    else
        RUN_OUT=$("${lock[@]}" "${cmd[@]}" 2>&1)
    fi
    RUN_RC=$?
    if [ -n "${CHECK_TIME_LOG:-}" ]; then
        if [ -n "$CHECK_IN_JOB" ]; then mode=shared; else mode=alone; fi
        check_time_note "$t0" "$mode" "${model:+$model }$*"
    fi
    [ "$RUN_RC" -ne 137 ] || RUN_RC=124
}

# check_lock alone|shared: sets CHECK_LOCK to the words that run a command
# on the GPU alone (an exclusive lock on CHECK_GPU_LOCK) or beside others
# (a shared one); none where the check takes no lock (CHECK_FLOCK).
CHECK_LOCK=()
check_lock() {
    CHECK_LOCK=()
    [ -n "$CHECK_FLOCK" ] || return 0
    if [ "$1" = shared ]; then CHECK_LOCK=(flock -s "$CHECK_GPU_LOCK"); else CHECK_LOCK=(flock -x "$CHECK_GPU_LOCK"); fi
}

# check_time_note T0 MODE WHAT: CHECK_TIME_LOG's line for a run that
# started at T0 (EPOCHREALTIME) and has just ended.
check_time_note() {
    [ -n "${CHECK_TIME_LOG:-}" ] && [ -n "$1" ] || return 0
    printf '%s\t%s\t%s\t%s\n' "$(awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')" \
        "$2" "$3" "$(awk -v a="$CHECK_T0" -v b="$1" 'BEGIN { printf "%.2f", b - a }')" >>"$CHECK_TIME_LOG"
}

# run_bounded CMD...: runs CMD under the timeout; sets RUN_OUT and RUN_RC
# (124 when the timeout stopped it). On the emu target the program runs
# under warpsim's model EMU_MODEL.
run_bounded() {
    if [ "$TARGET" = emu ]; then
        run_model "$EMU_MODEL" "$@"
        return
    fi
    run_limited '' -- "$@"
}

# run_model MODEL CMD...: runs a program built for warpsim under MODEL
# (lockstep, its or random), bounded like run_bounded.
run_model() {
    local model=$1; shift
    run_limited "$model" -- "$@"
}

# program_dead CMD...: whether the program of CMD hung or crashed before;
# if so, reports the first skipped expectation (WHAT in $CHECK_WHAT) as not
# ok, and counts the others.
program_dead() {
    local prog
    program_of "$@"
    prog=$PROGRAM_OF
    [ -z "$CHECK_IN_JOB" ] || printf '#@@prog\t%s\treport\t%s\n' "$prog" "$CHECK_WHAT"
    [ -n "${CHECK_DEAD[$prog]+x}" ] || return 1
    if [ -z "${CHECK_DEAD_SAID[$prog]+x}" ]; then
        CHECK_DEAD_SAID[$prog]=1
        not_ok "$CHECK_WHAT"
        diag "not run: ${CHECK_DEAD[$prog]}; its remaining runs are not run either"
    else
        CHECK_NOT_RUN=$((CHECK_NOT_RUN + 1))
        demo_tally bad
    fi
    return 0
}

# note_dead CMD...: after a run, marks its program as hung or crashed when
# the last run was (timeout, hang, signal), so that it runs no more.
note_dead() {
    local prog why=
    program_of "$@"
    prog=$PROGRAM_OF
    case "$RUN_RC" in
        3) why="${prog##*/} hung before (its watchdog or warpsim said so)" ;;
        124) if [ "$RUN_LIMIT" -lt "$CHECK_TIMEOUT" ]; then
                 why="the check's ${CHECK_BUDGET}s were spent"
             else
                 why="${prog##*/} never ended before (stopped after ${RUN_LIMIT}s)"
             fi ;;
        125) why="the check's ${CHECK_BUDGET}s were spent" ;;
        126|127) why="${prog##*/} could not be run" ;;
        1[3-9][0-9]|2[0-9][0-9]) why="${prog##*/} crashed before (exit status $RUN_RC)" ;;
    esac
    [ -z "$why" ] || CHECK_DEAD[$prog]=$why
}

# These read the last run's output with the shell's own matching: a check
# reads hundreds of outputs, and starting grep or sed for each costs more
# than the rest of the checker.

# run_says PREFIX: whether a line of the last run's output starts with PREFIX.
run_says() {
    [[ $'\n'$RUN_OUT == *$'\n'"$1"* ]]
}

# last_match REGEX: sets LAST_MATCH to group 1 of the last line of the last
# run's output that matches REGEX (bash's =~), empty when none does.
LAST_MATCH=
last_match() {
    local line
    LAST_MATCH=
    while IFS= read -r line; do
        [[ $line =~ $1 ]] && LAST_MATCH=${BASH_REMATCH[1]}
    done <<<"$RUN_OUT"
    return 0
}

# repro_cmd MODEL CMD...: the one command that makes the run of CMD under
# warpsim's MODEL again, as the checker made it.
repro_cmd() {
    local model=$1; shift
    if [ -n "$VERIFY" ]; then
        printf '%s --model %s --seed %s %s' "$VERIFY" "$model" "$EMU_SEED" "$*"
    else
        printf 'WARPSIM_MODEL=%s WARPSIM_SEED=%s %s' "$model" "$EMU_SEED" "$*"
    fi
}

# warpsim_summary: warpsim's summary line of the last run ("3 races, 0
# hangs, ... (model its, seed 1)"), empty when there is none; WS_SUMMARY
# holds it after warpsim_summary_set.
# Under VERIFY the summary is the one verify read through its own channel
# (`verify: warpsim summary: ...`), never a line the program printed: a
# warpsim that writes no such channel yet (and a stand-in) has its own
# line read instead.
WS_SUMMARY=
warpsim_summary_set() {
    WS_SUMMARY=
    case "$RUN_OUT" in
        *'verify: warpsim summary: '*) last_match '^verify: warpsim summary: ([0-9]+ race.*)$'; WS_SUMMARY=$LAST_MATCH ;;
        *'warpsim: '*) last_match '^warpsim: ([0-9]+ race.*)$'; WS_SUMMARY=$LAST_MATCH ;;
    esac
}
warpsim_summary() {
    warpsim_summary_set
    [ -z "$WS_SUMMARY" ] || printf '%s\n' "$WS_SUMMARY"
}

# warpsim_count KIND: the count of KIND (races, hangs, warp-primitive
# errors, uninitialized reads, memory errors) in the last summary; 0 if none.
# WS_COUNT holds it after warpsim_count_set KIND.
WS_COUNT=0
warpsim_count_set() {
    local re="([0-9]+) ${1%s}s?( |,|$)"
    warpsim_summary_set
    WS_COUNT=0
    if [[ $WS_SUMMARY =~ $re ]]; then WS_COUNT=${BASH_REMATCH[1]}; fi
}
warpsim_count() {
    warpsim_count_set "$1"
    printf '%s\n' "$WS_COUNT"
}

# warpsim_clean: whether the last run's summary reports nothing.
warpsim_clean() {
    warpsim_summary_set
    [[ $WS_SUMMARY == '0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors'* ]] &&
        [[ $WS_SUMMARY != *' other report'* || $WS_SUMMARY == *', 0 other reports'* ]]
}

# result_of: the detail of the last run's `result:` line; RESULT_OF holds
# it after result_of_set (no subshell: a check reads hundreds).
RESULT_OF=
result_of_set() {
    last_match '^result: [A-Za-z]* \((.*)\)$'
    RESULT_OF=$LAST_MATCH
}
result_of() {
    result_of_set
    [ -z "$RESULT_OF" ] || printf '%s\n' "$RESULT_OF"
}

# expect_right WHAT CMD...: the program must match the CPU (exit 0, result: ok);
# on the emu target under every model of EMU_MODELS, with nothing reported.
expect_right() {
    check_job expect_right "$@" && return
    local what=$1 model; shift
    check_gate
    CHECK_WHAT=$what
    if [ -n "$CHECK_PLAN" ]; then
        check_plan_note - "$@"
        return
    fi
    program_dead "$@" && return
    if [ "$TARGET" = emu ]; then
        for model in $EMU_MODELS; do
            CHECK_WS_EXITCODE=$WARPSIM_REPORTED
            run_limited "$model" -- "$@"
            CHECK_WS_EXITCODE=
            if [ "$RUN_RC" -ne 0 ] || ! run_says 'result: ok'; then
                note_dead "$@"
                not_ok "$what"
                draw_hint "$model" "$@"
                diag_failure "under warpsim's $model model: exit status $RUN_RC: $(describe_rc "$RUN_RC")" \
                     "$(repro_cmd "$model" "$@")"
                return
            fi
        done
        ok "$what"
        return
    fi
    check_cached - "$VERIFY" "$@" || run_bounded "$@"
    if [ "$RUN_RC" -eq 0 ] && run_says 'result: ok'; then
        ok "$what"
    else
        note_dead "$@"
        not_ok "$what"
        diag_failure "exit status $RUN_RC: $(describe_rc "$RUN_RC")" "${VERIFY:+$VERIFY }$*"
    fi
}

# expect_wrong WHAT CMD...: a legacy program whose bug shows as a wrong
# result. ok with the evidence when it is wrong; not ok when it matched the
# CPU (the lesson failed to show its point on this run).
expect_wrong() {
    check_job expect_wrong "$@" && return
    local what=$1; shift
    check_gate
    CHECK_WHAT=$what
    if [ -n "$CHECK_PLAN" ]; then
        CHECK_NOTE_SOLO=alone check_plan_note - "$@"
        return
    fi
    program_dead "$@" && return
    check_cached_as 1 - "$VERIFY" "$@" || run_bounded "$@"
    case "$RUN_RC" in 3) ;; *) note_dead "$@" ;; esac
    case "$RUN_RC" in
        1)  if run_says 'result: WRONG'; then
                ok "$what"
                result_of_set
                diag "$RESULT_OF"
                return
            fi ;;
        0)  not_ok "$what"
            result_of_set
            diag "it matched the CPU ($RESULT_OF): the bug did not show on this run"
            return ;;
    esac
    not_ok "$what"
    diag_failure "exit status $RUN_RC: $(describe_rc "$RUN_RC")" "$*"
}

# expect_its_bug SUBJECT BUG CMD...: a legacy bug that needs independent
# thread scheduling to show. On the Volta-and-newer path (and on warpsim's
# its model) it is `expect_wrong "SUBJECT BUG"`. On the pre-Volta path
# (PRE_VOLTA=1: compute_60 code, which opts into pre-Volta scheduling even
# on a new GPU) nothing is expected: the programming model promises this
# code right there no more than it promises it wrong (implicit warp
# synchronicity was never part of it), and no Pascal GPU's run is recorded;
# the run is made and what it did is said (observe). The recorded compute_60
# runs on an H100 were right (docs/results/*.compute_60.txt).
expect_its_bug() {
    local subject=$1 bug=$2; shift 2
    if [ "$PRE_VOLTA" = 1 ]; then
        observe "${subject%:} on the pre-Volta path (${*:2})" "$@"
    else
        expect_wrong "$subject $bug" "$@"
    fi
}

# expect_hang WHAT CMD...: a program whose bug is a hang. ok when its own
# watchdog caught it (exit 3 and a "HANG detected" line); not ok when it
# finished, or hung until the checker's timeout stopped it.
expect_hang() {
    check_job expect_hang "$@" && return
    local what=$1; shift
    check_gate
    CHECK_WHAT=$what
    program_dead "$@" && return
    run_bounded "$@"
    case "$RUN_RC" in 3) ;; *) note_dead "$@" ;; esac
    if [ "$RUN_RC" -eq 3 ] && printf '%s\n' "$RUN_OUT" | grep -q 'HANG detected'; then
        ok "$what"
        printf '%s\n' "$RUN_OUT" | grep -m 3 'HANG detected' | sed 's/^/# /'
        return
    fi
    not_ok "$what"
    case "$RUN_RC" in
        0|1) diag "it finished (exit status $RUN_RC): the hang did not show on this run" ;;
        124) diag "it hung until the checker's timeout (${RUN_LIMIT}s) stopped it: the watchdog did not fire" ;;
        *) diag "exit status $RUN_RC: $(describe_rc "$RUN_RC")" ;;
    esac
    diag_output 12
}

# observe WHAT CMD...: runs a legacy program with no expectation (no ok
# line) and says plainly what happened, luck included. On the pre-Volta
# path a right result is what pre-Volta scheduling gives, which is no more
# a promise.
observe() {
    check_job observe "$@" && return
    local what=$1 why='that is luck, not correctness'; shift
    program_of "$@"
    [ -z "$CHECK_IN_JOB" ] || printf '#@@prog\t%s\tsilent\t\n' "$PROGRAM_OF"
    [ -z "${CHECK_DEAD[$PROGRAM_OF]+x}" ] || return 0
    if [ -n "$CHECK_PLAN" ]; then
        CHECK_NOTE_SOLO=alone check_plan_note - "$@"
        return
    fi
    check_cached_as any - "$VERIFY" "$@" || run_bounded "$@"
    [ "$TARGET" != emu ] || what="$what (warpsim, model $EMU_MODEL)"
    [ "$PRE_VOLTA" = 0 ] || why='right on this run of the pre-Volta path, which the programming model does not promise either: not correctness'
    result_of_set
    case "$RUN_RC" in
        0) diag "$what: matched the CPU ($RESULT_OF); $why" ;;
        1) diag "$what: wrong ($RESULT_OF)" ;;
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
        "$WARPSIM_REPORTED") printf 'warpsim or the sanitizer reported a hazard (the locate line is the first report)' ;;
        124) printf 'still running after %ss: stopped by the timeout' "${RUN_LIMIT:-$CHECK_TIMEOUT}" ;;
        125) printf 'not run: the time for the whole check was spent' ;;
        126|127) printf 'the program could not be run' ;;
        1[3-9][0-9]|2[0-9][0-9]) printf 'crashed: killed by signal %d (%s)' "$(($1 - 128))" "$(kill -l "$(($1 - 128))" 2>/dev/null || echo '?')" ;;
        *) printf 'unexpected exit status' ;;
    esac
}

# ---- several runs in one process (GPU) ----------------------------------

# check_plan_note TOOL CMD...: in the pass that runs nothing, notes a run
# that a batch can make: on the GPU, judged by VERIFY (or, where VERIFY is
# empty, by the program itself), under compute-sanitizer's TOOL (- for
# none). A line of the plan: alone|shared, the timeout, the cache key,
# VERIFY (- for none), TOOL, CMD (words between tabs). Alone when the run
# has delays, or when CHECK_NOTE_SOLO=alone says so (legacy code).
check_plan_note() {
    local tool=$1 a key solo=shared; shift
    [ "$TARGET" = gpu ] && { [ -n "$VERIFY" ] || [ "$tool" = - ]; } || return 0
    for a in "$@"; do case "$a" in ''|*$'\t'*|*$'\n'*) return 0 ;; esac; done
    if [ "${CHECK_NOTE_SOLO:-}" = alone ] || check_solo expect_right "$@"; then solo=alone; fi
    printf -v key '%q ' "$tool" "$VERIFY" "$@"
    a=$(IFS=$'\t'; printf '%s' "$*")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$solo" "$CHECK_TIMEOUT" "$key" "${VERIFY:--}" "$tool" "$a" >>"$CHECK_PLAN"
}

# check_weight CMD...: a run's cost in elements, for sharing runs out among
# batches: its -n (K, M and G suffixes read) plus 100,000 for the run itself.
CHECK_WEIGHT=0
check_weight() {
    local prev='' w n=0
    for w in "$@"; do
        if [ "$prev" = -n ]; then
            case "$w" in
                *K) n=$(( ${w%K} << 10 )) ;;
                *M) n=$(( ${w%M} << 20 )) ;;
                *G) n=$(( ${w%G} << 30 )) ;;
                *[!0-9]*) n=0 ;;
                *) n=$w ;;
            esac
        fi
        prev=$w
    done 2>/dev/null
    CHECK_WEIGHT=$((n + 100000))
}

# check_prefetch: makes, before check.sh asks for them, the runs it will
# ask for (see the top of this file): those of expect_right, run_right and
# clean sanitize in batches, the others one process each, as they would
# run anyway; keeps the outcomes in CHECK_CACHE (check_cached) and
# CHECK_SINGLE (run_limited).
declare -a CHECK_PLAN_KEY=() CHECK_PLAN_LIMIT=() CHECK_PLAN_VERIFY=() CHECK_PLAN_TOOL=() CHECK_PLAN_CMD=()
declare -a CHECK_RUN_KEY=() CHECK_RUN_LIMIT=() CHECK_RUN_CMD=()
check_prefetch() {
    local solo limit key verify tool cmd prog group k n=0 m=0 c batch weight extra jobs=$CHECK_JOBS
    local -A members=() takes=() seen=()
    local -a groups=() alone=() shared=() runs=() cmdw=() alone_runs=() shared_runs=()
    [ "$TARGET" = gpu ] && [ "$CHECK_BATCH" = 1 ] || return 0
    # The expectations of a student's check (--only-sync, a time budget,
    # CHECK_FIRST_FAIL) are taken one at a time, in order; the runs made
    # first for them that may share the GPU are made side by side all the
    # same (up to 4 processes, or CHECK_JOBS when set): each is kept until
    # its expectation takes it.
    if [ "$jobs" -eq 1 ] && [ -z "$CHECK_JOBS_ASKED" ]; then
        jobs=$(nproc 2>/dev/null || echo 1)
        [ "$jobs" -le 4 ] || jobs=4
    fi
    CHECK_PREFETCH_JOBS=$jobs
    CHECK_BATCH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/check-batch.XXXXXX") || return 0
    trap check_cleanup EXIT
    trap 'exit 130' INT TERM
    CHECK_PLAN=$CHECK_BATCH_DIR/plan CHECK_PLAN_PRE_VOLTA=$PRE_VOLTA \
        "${BASH:-bash}" "$0" "${CHECK_ARGV[@]}" >/dev/null 2>&1 </dev/null
    touch "$CHECK_BATCH_DIR/plan" "$CHECK_BATCH_DIR/plan.runs"
    while IFS=$'\t' read -r solo limit key verify tool cmd; do
        [ "$verify" != - ] || verify=
        # A program that judges itself makes runs in batches only if it says
        # it can: a compiled program with --cases in its --help (which starts
        # no GPU context). Else its runs are made one by one.
        prog=${cmd%%$'\t'*}
        if [ -z "$verify" ] && [ -z "${takes[$prog]+x}" ]; then
            takes[$prog]=no
            if [ "$(head -c 4 "$prog" 2>/dev/null | tr -d '\177')" = ELF ] &&
               [[ $(timeout -k 1 5 "$prog" --help 2>/dev/null) == *'--cases FILE'* ]]; then
                takes[$prog]=yes
            fi
        fi
        if [ -z "$verify" ] && [ "${takes[$prog]}" = no ]; then
            IFS=$'\t' read -r -a cmdw <<<"$cmd"
            printf -v key '%q ' "$limit" "${cmdw[@]}"
            printf '%s\t%s\t%s\t%s\n' "$solo" "$limit" "$key" "$cmd" >>"$CHECK_BATCH_DIR/plan.runs"
            continue
        fi
        n=$((n + 1))
        CHECK_PLAN_KEY[n]=$key CHECK_PLAN_LIMIT[n]=$limit CHECK_PLAN_VERIFY[n]=$verify
        CHECK_PLAN_TOOL[n]=$tool CHECK_PLAN_CMD[n]=$cmd
        group="$solo"$'\t'"$tool"$'\t'"$verify"$'\t'"${cmd%%$'\t'*}"
        [ -n "${members[$group]+x}" ] || groups+=("$group")
        members[$group]+=" $n"
    done <"$CHECK_BATCH_DIR/plan"
    # The runs made one by one, each once; none under a time budget, where
    # each run's bound depends on when it starts (run_limited makes them).
    [ -z "$CHECK_BUDGET" ] || : >"$CHECK_BATCH_DIR/plan.runs"
    while IFS=$'\t' read -r solo limit key cmd; do
        [ -z "${seen[$key]+x}" ] || continue
        seen[$key]=1
        m=$((m + 1))
        CHECK_RUN_KEY[m]=$key CHECK_RUN_LIMIT[m]=$limit CHECK_RUN_CMD[m]=$cmd
        if [ "$solo" = alone ]; then alone_runs+=("$m"); else shared_runs+=("$m"); fi
    done <"$CHECK_BATCH_DIR/plan.runs"
    [ $((n + m)) -gt 0 ] || return 0
    # A process for each program's runs that must be alone; the others in
    # batches of at most 64M elements' work each (a run of more alone).
    # What may share the GPU is started the costliest first (by elements,
    # a process under compute-sanitizer or of a benchmark counting as 64M
    # more), so that the long ones do not start last.
    for group in "${groups[@]}"; do
        read -r -a runs <<<"${members[$group]}"
        if [ "${group%%$'\t'*}" = alone ]; then
            alone+=("${runs[*]}")
            continue
        fi
        extra=0
        [ "${CHECK_PLAN_TOOL[${runs[0]}]}" = - ] || extra=$((64 << 20))
        batch='' weight=0
        for k in "${runs[@]}"; do
            IFS=$'\t' read -r -a cmdw <<<"${CHECK_PLAN_CMD[k]}"
            check_weight "${cmdw[@]}"
            if [ -n "$batch" ] && [ $((weight + CHECK_WEIGHT)) -gt $((64 << 20)) ]; then
                shared+=("$((weight + extra))"$'\t'"$batch")
                batch='' weight=0
            fi
            batch+="${batch:+ }$k" weight=$((weight + CHECK_WEIGHT))
        done
        shared+=("$((weight + extra))"$'\t'"$batch")
    done
    for k in "${shared_runs[@]}"; do
        IFS=$'\t' read -r -a cmdw <<<"${CHECK_RUN_CMD[k]}"
        check_weight "${cmdw[@]}"
        shared+=("$((CHECK_WEIGHT + (64 << 20)))"$'\t'"run $k")
    done
    [ ${#shared[@]} -eq 0 ] ||
        mapfile -t shared < <(printf '%s\n' "${shared[@]}" | sort -t $'\t' -k 1,1 -rn | cut -f 2-)
    # First what may share the GPU, CHECK_JOBS processes at a time, each
    # batch judged as soon as it ends; then, one at a time, what must have
    # it alone (with a lock, that waits only for the shared runs, not for
    # their judging), each batch judged while the next runs.
    c=0
    for batch in "${shared[@]}"; do
        while [ "$c" -ge "$jobs" ]; do wait -n; c=$((c - 1)); done
        # shellcheck disable=SC2086   # one run number a word
        case "$batch" in
            run\ *) check_single_run shared "${batch#run }" & ;;
            *) { check_batch_run shared $batch; check_batch_judge $batch; } & ;;
        esac
        c=$((c + 1))
    done
    [ -n "$CHECK_FLOCK" ] || wait
    for batch in "${alone[@]}"; do
        # shellcheck disable=SC2086
        check_batch_run alone $batch
        # shellcheck disable=SC2086
        check_batch_judge $batch &
    done
    for k in "${alone_runs[@]}"; do check_single_run alone "$k"; done
    wait
    for ((k = 1; k <= n; k++)); do
        [ ! -f "$CHECK_BATCH_DIR/$k.rc" ] || CHECK_CACHE[${CHECK_PLAN_KEY[k]}]=$CHECK_BATCH_DIR/$k
    done
    for ((k = 1; k <= m; k++)); do
        [ ! -f "$CHECK_BATCH_DIR/run$k.rc" ] || CHECK_SINGLE[${CHECK_RUN_KEY[k]}]=$CHECK_BATCH_DIR/run$k
    done
    check_hung_first "$n"
    diag "made first: $n runs in $((${#shared[@]} - ${#shared_runs[@]} + ${#alone[@]})) processes (batches, each run judged as its own), $m runs one by one (CHECK_BATCH=0: a process each, in turn)"
}

# check_hung_first N: after check_prefetch's N batch runs, sets
# CHECK_HUNG_FIRST to what the first of them that never ended (in the
# plan's order; under compute-sanitizer too) says of it ("sync never ended
# in a run made first (under racecheck): stopped after 15s in kernel
# K<<<B, T>>> (the last it launched)"), empty when none did. A check whose
# time runs out after such a run (CHECK_BUDGET, under which no run is made
# one by one: its remaining runs not run) names it.
CHECK_HUNG_FIRST=
check_hung_first() {
    local k limit under
    local -a cmd
    for ((k = 1; k <= $1; k++)); do
        # (N.limit: the run's own bound stopped it; a tool's batch that did
        # not end clean keeps no N.status, but keeps that)
        [ -f "$CHECK_BATCH_DIR/$k.limit" ] || continue
        read -r limit <"$CHECK_BATCH_DIR/$k.limit" || limit=${CHECK_PLAN_LIMIT[k]}
        IFS=$'\t' read -r -a cmd <<<"${CHECK_PLAN_CMD[k]}"
        under=''
        [ "${CHECK_PLAN_TOOL[k]}" = - ] || under=" (under ${CHECK_PLAN_TOOL[k]})"
        program_of "${cmd[@]}"
        CHECK_HUNG_FIRST="${PROGRAM_OF##*/} never ended in a run made first$under: stopped after ${limit}s"
        CHECK_HUNG_FIRST+=$(in_kernel 2>/dev/null <"$CHECK_BATCH_DIR/$k.log")
        return
    done
}

# check_single_run alone|shared N: the run N that check_prefetch makes one
# by one, exactly as run_limited would: runN.out and runN.rc.
check_single_run() {
    local mode=$1 k=$2 rc t0=${EPOCHREALTIME:-}
    local -a cmd
    IFS=$'\t' read -r -a cmd <<<"${CHECK_RUN_CMD[k]}"
    check_lock "$mode"
    "${CHECK_LOCK[@]}" timeout -k 5 "${CHECK_RUN_LIMIT[k]}" "${cmd[@]}" >"$CHECK_BATCH_DIR/run$k.out" 2>&1
    rc=$?
    [ "$rc" -ne 137 ] || rc=124
    check_time_note "$t0" "$mode" "${cmd[*]}"
    echo "$rc" >"$CHECK_BATCH_DIR/run$k.rc"
}

# check_batch_run alone|shared N...: the runs N... of the plan (one
# program's, under one tool) in one process, PROG --cases, on the GPU
# alone or beside other batches; leaves N.log (its output), N.status (its
# exit status, 124 when it never ended) and N.dump (its results) for each
# run made. Under compute-sanitizer, only when it reported nothing at all,
# with N.tool naming the file that holds its summary.
check_batch_run() {
    local mode=$1 dir=$CHECK_BATCH_DIR k tag prog tool total=10 left='' limit rc wrap=() t0=${EPOCHREALTIME:-}; shift
    local name=$dir/batch-$1 args
    tag=b$1x$RANDOM$RANDOM
    prog=${CHECK_PLAN_CMD[$1]%%$'\t'*} tool=${CHECK_PLAN_TOOL[$1]}
    # Under a time budget, a run may take what is left of it, and the
    # process 2 s more, so that a run that never ends is stopped by its own
    # bound (and its marker says so) rather than with the process.
    if [ -n "$CHECK_BUDGET" ]; then
        left=$((CHECK_BUDGET - (SECONDS - CHECK_START)))
        [ "$left" -gt 0 ] || return 0
    fi
    {
        printf 'lesson-cases 1 %s\n' "$tag"
        for k; do
            args='' limit=${CHECK_PLAN_LIMIT[k]}
            [ -z "$left" ] || [ "$limit" -le "$left" ] || limit=$left
            [[ ${CHECK_PLAN_CMD[k]} != *$'\t'* ]] || args=${CHECK_PLAN_CMD[k]#*$'\t'}$'\t'
            if [ -n "${CHECK_PLAN_VERIFY[k]}" ]; then
                printf '%s\t%s--dump\t%s\n' "$limit" "$args" "$dir/$k.dump"
            else
                printf '%s\t%s\n' "$limit" "$args"
            fi
            total=$((total + limit))
        done
    } >"$name.cases"
    [ -z "$left" ] || [ "$total" -le $((left + 2)) ] || total=$((left + 2))
    check_lock "$mode"
    if [ "$tool" != - ]; then
        find_sanitizer || return 0
        wrap=("$SANITIZER" --tool "$tool" --error-exitcode 99)
        [ "$tool" != racecheck ] || wrap+=(--racecheck-report all)
    fi
    "${CHECK_LOCK[@]}" timeout -k 5 "$total" "${wrap[@]}" "$prog" --cases "$name.cases" >"$name.out" 2>&1
    rc=$?
    awk -v tag="@@$tag" -v dir="$dir" -v map="$*" '
        BEGIN { split(map, run, " ") }
        $1 == tag && $2 == "case" { file = dir "/" run[$3] ".log"; printf "" >file; next }
        $1 == tag && $2 == "status" { print $4 >(dir "/" run[$3] ".status"); close(file); file = ""; next }
        index($0, tag " timeout ") {    # after what the run left unfinished
            i = index($0, tag " timeout ")
            if (i > 1 && file != "") print substr($0, 1, i - 1) >file
            split(substr($0, i), f, " ")
            print 124 >(dir "/" run[f[3]] ".status"); print f[4] >(dir "/" run[f[3]] ".limit")
            file = ""; next }
        file != "" { print >file }' "$name.out"
    if [ "$tool" != - ]; then
        if [ "$rc" -eq 0 ]; then
            { grep -E '(RACECHECK|ERROR) SUMMARY' "$name.out" | tail -n 1
              printf 'compute-sanitizer made this run and %d others in one process: its summary is theirs too\n' $(($# - 1))
            } >"$name.summary"
            for k; do printf '%s\n' "$name.summary" >"$dir/$k.tool"; done
        else
            for k; do rm -f "$dir/$k.status"; done
        fi
    fi
    check_time_note "$t0" "$mode" "${wrap[*]:+${wrap[*]} }$prog --cases ($# runs)"
}

# check_batch_judge N...: for each run N of a batch that was made, VERIFY's
# verdict (or, with no VERIFY, the program's own) in N.out and N.rc, as if
# it had run alone (and, under a tool, the tool's summary after it); up to
# CHECK_JOBS runs at a time.
check_batch_judge() {
    local k c=0 jobs=${CHECK_PREFETCH_JOBS:-$CHECK_JOBS}
    for k; do
        [ -f "$CHECK_BATCH_DIR/$k.status" ] || continue
        while [ "$c" -ge "$jobs" ]; do wait -n; c=$((c - 1)); done
        check_batch_judge_one "$k" &
        c=$((c + 1))
    done
    wait
}

# check_batch_judge_one N: the verdict on run N alone; N.rc comes last, when
# N.out is whole.
check_batch_judge_one() {
    local dir=$CHECK_BATCH_DIR k=$1 status
    local -a cmd
    IFS=$'\t' read -r -a cmd <<<"${CHECK_PLAN_CMD[k]}"
    read -r status <"$dir/$k.status"
    if [ -z "${CHECK_PLAN_VERIFY[k]}" ]; then
        cp "$dir/$k.log" "$dir/$k.out"
        echo "$status" >"$dir/$k.rc.new"
    else
        "${CHECK_PLAN_VERIFY[k]}" --judge "$dir/$k.log" "$status" "$dir/$k.dump" "${cmd[@]}" >"$dir/$k.out" 2>&1
        echo "$?" >"$dir/$k.rc.new"
    fi
    if [ -f "$dir/$k.tool" ]; then cat "$(cat "$dir/$k.tool")" >>"$dir/$k.out"; fi
    mv "$dir/$k.rc.new" "$dir/$k.rc"
}

# run_right CMD...: run_bounded for a run that must be right, where
# check.sh reads the outcome itself (a count, a line of the output) rather
# than through expect_right: on the GPU, a batch's run when it was right
# (check_cached), else the run made now.
run_right() {
    if [ -n "$CHECK_PLAN" ]; then
        check_plan_note - "$@"
        RUN_OUT='' RUN_RC=0
        return
    fi
    check_cached - "$VERIFY" "$@" || run_bounded "$@"
}

# check_cached_as STATUSES|any TOOL CMD...: when a batch made CMD (under
# TOOL, - for none) and it ended with one of the exit statuses STATUSES
# (any: whatever it ended with), sets RUN_OUT, RUN_RC and RUN_LIMIT from
# that run; else status 1. Legacy code takes a batch's run where it showed
# the bug (expect_wrong: 1) or whatever it saw (observe), so that a legacy
# run that did not show its bug is made again alone, as before.
check_cached_as() {
    local want=$1 key f; shift
    [ -n "$CHECK_BATCH_DIR" ] || return 1
    printf -v key '%q ' "$@"
    f=${CHECK_CACHE[$key]-}
    [ -n "$f" ] && [ -f "$f.rc" ] || return 1
    read -r RUN_RC <"$f.rc"
    [ "$want" = any ] || [[ " $want " == *" $RUN_RC "* ]] || return 1
    RUN_LIMIT=$CHECK_TIMEOUT
    [ "$RUN_RC" != 124 ] || read -r RUN_LIMIT <"$f.limit" || return 1
    RUN_OUT=$(<"$f.out")
}

# check_cached TOOL CMD...: check_cached_as for a run that must be right:
# taken when it was, or, with no tool, when it never ended.
check_cached() {
    local statuses=0
    [ "$1" != - ] || statuses="0 124"
    check_cached_as "$statuses" "$@"
}

# ---- warpsim (emu target only) ------------------------------------------

# emulate MODEL EXPECT WHAT CMD...: runs CMD under warpsim's MODEL (lockstep,
# its, random, or all: each of them in turn) and checks what happened:
#   right    the result matches the CPU (whatever warpsim reported)
#   wrong    the result is wrong
#   clean    warpsim reported nothing (and the program ran to its end)
#   race, hang, primitive, uninit, memory
#            warpsim reported at least one race, hang, warp-primitive error,
#            uninitialized shared read, or invalid global access
#   flagged  warpsim reported anything
# One ok/not ok line; # lines give warpsim's summary and its first report.
emulate() {
    check_job emulate "$@" && return
    local models=$1 expect=$2 what=$3 model fail=0 summary line='' pattern; shift 3
    local summaries=()
    check_gate
    [ "$models" = all ] && models="lockstep its random"
    for model in $models; do
        run_model "$model" "$@"
        warpsim_summary_set
        summary=$WS_SUMMARY
        summaries+=("warpsim: ${summary:-no summary}")
        case "$expect" in
            right) run_says 'result: ok' && [ "$RUN_RC" -eq 0 ] || fail=1
                   pattern='^warpsim: [a-z]' ;;
            wrong) [ "$RUN_RC" -eq 1 ] && run_says 'result: WRONG' || fail=1
                   pattern='^warpsim: [a-z]' ;;
            clean) { [ "$RUN_RC" -eq 0 ] || [ "$RUN_RC" -eq 1 ]; } && warpsim_clean || fail=1
                   pattern='^warpsim: [a-z]' ;;
            race) warpsim_count_set races; [ "$WS_COUNT" -gt 0 ] || fail=1; pattern='^warpsim: race ' ;;
            hang) warpsim_count_set hangs; [ "$RUN_RC" -eq 3 ] && [ "$WS_COUNT" -gt 0 ] || fail=1
                  pattern='HANG detected' ;;
            primitive) warpsim_count_set 'warp-primitive errors'; [ "$WS_COUNT" -gt 0 ] || fail=1
                       pattern='^warpsim: (bad|missing|mask|divergent|partial)' ;;
            uninit) warpsim_count_set 'uninitialized reads'; [ "$WS_COUNT" -gt 0 ] || fail=1
                    pattern='^warpsim: uninitialized' ;;
            memory) warpsim_count_set 'memory errors'; [ "$WS_COUNT" -gt 0 ] || fail=1
                    pattern='^warpsim: invalid' ;;
            flagged) [ -n "$summary" ] && ! warpsim_clean || fail=1
                     pattern='^warpsim: [a-z]' ;;
            *) printf '%s: emulate: unknown expectation %s\n' "$0" "$expect" >&2; exit 2 ;;
        esac
        if [ -z "$summary" ] && [ "$expect" != hang ]; then
            fail=1
        fi
        if [ "$fail" = 1 ]; then
            not_ok "$what"
            draw_hint "$model" "$@"
            if fail_report "$(locate_line)" "$(repro_cmd "$model" "$@")" "$DRAW_HINT" \
                   "under warpsim's $model model: exit status $RUN_RC ($(describe_rc "$RUN_RC"))" \
                   "warpsim: ${summary:-no summary}"; then
                diag_output 12
            fi
            DRAW_HINT=
            return
        fi
        if [ -z "$line" ]; then     # the first model's evidence
            case "$expect" in
                right|wrong) line=$(printf '%s\n' "$RUN_OUT" | grep -m 1 '^result: ') ;;
                *) line=$(printf '%s\n' "$RUN_OUT" | grep -m 1 -E "$pattern") ;;
            esac
        fi
    done
    ok "$what"
    diag "${summaries[@]}"
    [ -z "$line" ] || printf '#   %s\n' "$line"
}

# ---- compute-sanitizer (GPU only) ---------------------------------------

SANITIZER=${SANITIZER:-}     # compute-sanitizer to use; none: do not run it
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
    check_job sanitize "$@" && return
    local tool=$1 expect=$2 what=$3 summary count w saved=$VERIFY; shift 3
    local args=(--tool "$tool" --error-exitcode 99)
    check_gate
    CHECK_WHAT=$what
    if [ -n "$CHECK_PLAN" ] && [ "$expect" = clean ] && [ -n "$VERIFY" ]; then
        check_plan_note "$tool" "$@"
        return
    fi
    program_dead "$@" && return
    [ "$tool" != racecheck ] || args+=(--racecheck-report all)
    if [ "$expect" = clean ] && [ -n "$VERIFY" ] && check_cached "$tool" "$VERIFY" "$@"; then
        :
    elif [ -n "$VERIFY" ]; then
        # verify runs the sanitizer with the program under it.
        local wrap=()
        for w in "$SANITIZER" "${args[@]}"; do wrap+=(--wrap "$w"); done
        VERIFY=
        run_bounded "$saved" "${wrap[@]}" "$@"
        VERIFY=$saved
    else
        run_bounded "$SANITIZER" "${args[@]}" "$@"
    fi
    case "$RUN_RC" in 0|1|99) ;; *) note_dead "$@" ;; esac
    summary=$(printf '%s\n' "$RUN_OUT" | grep -E '(RACECHECK|ERROR) SUMMARY' | tail -n 1 | sed 's/^=* *//')
    count=$(printf '%s\n' "$summary" | grep -oE '[0-9]+ (hazards|errors)' | head -n 1 | cut -d' ' -f1)
    if [ "$RUN_RC" -eq 124 ] || [ -z "$summary" ]; then
        not_ok "$what"
        ! fail_report "$(locate_line)" "" "" "compute-sanitizer gave no summary (exit status $RUN_RC)" ||
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
        ! fail_report "$(locate_line)" "" "" "$summary (exit status $RUN_RC)" || diag_output 12
    fi
}

# check_end: the summary line and the exit status.
check_end() {
    [ -z "$CHECK_PLAN" ] || exit 0
    check_sync
    [ "$CHECK_NOT_RUN" -eq 0 ] ||
        printf '# %d more runs not run after a program hung or crashed (see the not ok above)\n' "$CHECK_NOT_RUN"
    demo_summary
    closing_block
    printf '%d passed, %d failed\n' "$CHECK_PASSED" "$CHECK_FAILED"
    [ "$CHECK_FAILED" -eq 0 ] && [ "$CHECK_PASSED" -gt 0 ]
    exit $?
}
