# helper.bash - loaded by every test file.
# shellcheck shell=bash
bats_require_minimum_version 1.5.0
# bats-support and bats-assert, from BATS_LIB_PATH: their src/*.bash
# sourced here, as their load.bash does, without its `dirname` process per
# file (about 30 ms a test, ten seconds of make test); bats_load_library
# where a library has no src/ folder.
load_bats_library() {
    local d f
    for d in ${BATS_LIB_PATH//:/ } /usr/lib/bats; do
        [ -f "$d/$1/load.bash" ] && [ -d "$d/$1/src" ] || continue
        for f in "$d/$1"/src/*.bash; do
            # shellcheck disable=SC1090
            source "$f"
        done
        return 0
    done
    bats_load_library "$1"
}
load_bats_library bats-support
load_bats_library bats-assert

# (bats gives the test file's folder as a full path: no process to find it)
if [[ $BATS_TEST_DIRNAME == /* && $BATS_TEST_DIRNAME != *.* ]]; then
    REPO=${BATS_TEST_DIRNAME%/*}
else
    REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
fi
FIXTURES=$BATS_TEST_DIRNAME/fixtures

# A student's check is bounded as a whole (CHECK_BUDGET, checklib.sh: 50 s
# on warpsim, 60 s on a GPU). The tests judge what a check says, not how
# fast a loaded machine makes it (the benchmarks and the recorded times
# do): three test files side by side on two cores took a correct copy's
# check past 50 s. Each run is still bounded by its own timeout; the tests
# of the budget itself set it.
export CHECK_BUDGET=${CHECK_BUDGET:-600}

have_gpu() { nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }
have_nvcc() { command -v nvcc >/dev/null 2>&1; }

need_nvcc() { have_nvcc || skip "nvcc not found"; }
need_gpu() { have_gpu || skip "no GPU here (nvidia-smi lists none)"; }

# one_sm: "SM=90" where no GPU answers, so that the lessons' clean-copy
# builds (scripts/test-prep.sh --alone, which decides the same way) are
# for one architecture (with a GPU, make builds for that GPU's alone). The
# build for every major architecture, what `make` does with no GPU, is
# make compat's (every lesson, every program, no warning); tests/toolkit.bats
# checks its commands for every lesson and builds one program that way.
one_sm() { have_gpu || echo SM=90; }

# LESSONS_ALONE: where every lesson is built alone with nvcc, from a clean
# copy of the working tree (no build outputs): make with no target, for one
# architecture where no GPU answers (see one_sm), lessons side by side
# (scripts/test-prep.sh --alone, which keeps each lesson's output and exit
# status for assert_builds_alone). The tests find a lesson's GPU programs in
# $LESSONS_ALONE/lessons/NAME/build/ (gpu_dir NAME).
LESSONS_ALONE=$REPO/tests/build/alone

# build_lessons: every lesson's programs for warpsim and its build/verify
# in the working tree, where make check and make docs build and share
# them; where nvcc is, also every lesson alone (LESSONS_ALONE), once: not
# again while it is newer than the sources (make test builds both first,
# in scripts/test-prep.sh).
build_lessons() {
    local name
    for name in $(lessons); do
        make -s --no-print-directory -C "$REPO/lessons/$name" emu build/verify >/dev/null || return 1
    done
    "$REPO/scripts/test-prep.sh" --alone
}

# gpu_dir NAME: the folder of lessons/NAME in LESSONS_ALONE.
gpu_dir() { echo "$LESSONS_ALONE/lessons/$1"; }

# lessons: the names of the lesson folders (lessons/NN-*/), in order;
# TEST_LESSONS="NN ..." keeps only those numbers (to run a few).
lessons() {
    local d n
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        d=${d%/}; d=${d##*/}
        if [ -n "${TEST_LESSONS:-}" ]; then
            for n in $TEST_LESSONS; do [ "${d%%-*}" != "$n" ] || echo "$d"; done
        else
            echo "$d"
        fi
    done
}

# lesson_name NN: the folder name of lesson NN (01 -> 01-shfl-reduction).
lesson_name() {
    local d
    for d in "$REPO"/lessons/"$1"-*/; do d=${d%/}; echo "${d##*/}"; return; done
    return 1
}

# exercise_solution NAME OUTPUT: the reference solution of lessons/NAME's
# exercise, made into OUTPUT (- standard output) from
# tests/fixtures/exercises/NAME.patch, a patch of the exercise's starter
# (EXERCISE_STARTER in the lesson's exercise.mk), by scripts/apply-fix.sh:
# its /* right: ... */ line, then the starter fixed. Fails in one line
# naming the patch where there is none or it no longer applies.
exercise_solution() {
    local patch=$FIXTURES/exercises/$1.patch starter
    [ -f "$patch" ] || { echo "$1: no reference solution tests/fixtures/exercises/$1.patch" >&2; return 1; }
    starter=$(sed -n 's/^EXERCISE_STARTER := //p' "$REPO/lessons/$1/exercise.mk")
    [ -n "$starter" ] || { echo "$1: exercise.mk names no EXERCISE_STARTER" >&2; return 1; }
    "$REPO/scripts/apply-fix.sh" "$patch" "$REPO/lessons/$1/$starter" "$2"
}

# each_lesson [-j N] FUNC ARGS...: runs `FUNC NAME ARGS...` for every lesson
# (see lessons), N lessons at a time (default: one per core), each in a
# subshell under set -e, its output kept apart. Then prints, lesson by
# lesson in order, a line "---- NAME: ok" or "---- NAME: FAILED (exit
# status N)" and what that lesson's FUNC printed, and fails naming the
# lessons that failed. FUNC uses run, assert_* and fail as a test does, on
# its own lesson; it sees the lesson's folder as $L, its GPU programs'
# folder as $G, its warpsim programs' as $E.
each_lesson() {
    local jobs name rc bad=() out=$BATS_TEST_TMPDIR/each
    jobs=$(nproc 2>/dev/null || echo 1)
    if [ "$1" = -j ]; then jobs=$2; shift 2; fi
    mkdir -p "$out"
    for name in $(lessons); do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
        # (set -e holds in FUNC only where its subshell's status is not
        # tested: no `|| ...` after it)
        {
            set +e
            (
                set -e
                # shellcheck disable=SC2034   # for FUNC
                L=$REPO/lessons/$name G=$(gpu_dir "$name") E=$REPO/lessons/$name/build/emu
                "$@" "$name"
            ) >"$out/$name.out" 2>&1 </dev/null
            echo "$?" >"$out/$name.rc"
        } &
    done
    wait
    for name in $(lessons); do
        rc=$(cat "$out/$name.rc" 2>/dev/null || echo "none")
        if [ "$rc" = 0 ]; then
            echo "---- $name: ok"
        else
            echo "---- $name: FAILED (exit status $rc)"
            bad+=("$name")
        fi
        sed 's/^/  /' "$out/$name.out"
    done
    [ "${#bad[@]}" -eq 0 ] || fail "failed for ${bad[*]}"
}

# copy_repo DIR: a clean copy of the working tree (no build outputs) in DIR.
copy_repo() {
    mkdir -p "$1"
    (cd "$REPO" && tar --exclude=build --exclude=.git --exclude=_build -cf - .) | tar -xf - -C "$1"
}

# build_docs: `make docs`, unless a build newer than every source of the
# site is there; one build at a time across test files running side by
# side (flock), so that one never reads a site another is writing.
# Status 1 when the docs tools are missing and cannot be installed.
build_docs() {
    "$REPO/scripts/need-tools.sh" docs >/dev/null || return 1
    (
        flock 9
        local built=$REPO/docs/_build/search-index.js stale=yes
        if [ -f "$built" ]; then
            stale=$(find "$REPO/docs" "$REPO/lessons" "$REPO/include" "$REPO/warpsim/src" \
                         "$REPO/warpsim/include" "$REPO/scripts" \
                         \( -path "$REPO/docs/_build" -o -name build \) -prune \
                         -o -type f -newer "$built" -print -quit)
        fi
        [ -z "$stale" ] || make -s --no-print-directory -C "$REPO" docs >/dev/null
    ) 9>"$BATS_RUN_TMPDIR/docs.lock"
}

# lesson_sandbox DIR NAME...: a tree in DIR whose lessons/NAME are copies of
# the lessons (no build outputs) and whose include, mk, scripts and warpsim
# are links to the working tree's: builds and checks there touch nothing
# another test file uses at the same time (make test runs files side by
# side). warpsim is built beforehand (scripts/test-prep.sh).
lesson_sandbox() {
    local dir=$1 name; shift
    mkdir -p "$dir/lessons"
    for name in include mk scripts warpsim; do ln -sfn "$REPO/$name" "$dir/$name"; done
    for name in "$@"; do
        (cd "$REPO/lessons" && tar --exclude=build -cf - "$name") | tar -xf - -C "$dir/lessons"
    done
}

# assert_builds_alone NAME: lessons/NAME built alone from a clean copy
# (LESSONS_ALONE) succeeded, printed no warning, and made every program
# `make` builds there (the prerequisites of its target all, e.g.
# build/legacy build/sync) and one for every top-level .cu file but
# harness.cu, a starter (exercise.cu) and the parts programs are built
# from (PARTS, from the lesson Makefile's P_PARTS).
assert_builds_alone() {
    local name=$1 g prog progs parts db f
    g=$(gpu_dir "$name")
    [ -f "$LESSONS_ALONE/$name.rc" ] || fail "$name: no build in $LESSONS_ALONE (scripts/test-prep.sh --alone)"
    output=$(cat "$LESSONS_ALONE/$name.log")
    echo "$output"
    assert_equal "$(cat "$LESSONS_ALONE/$name.rc")" 0
    refute_output --partial warning
    # shellcheck disable=SC2046
    db=$(make --no-print-directory -C "$g" -pq all $(one_sm) 2>/dev/null)
    progs=$(sed -n 's/^all: //p' <<<"$db")
    [[ " $progs " == *" build/legacy "* && " $progs " == *" build/sync "* ]] ||
        fail "$name: make all would not build build/legacy and build/sync (it builds: $progs)"
    # every top-level .cu is a program, but the harness, the exercise's
    # starter and the parts programs are built from (mk/lesson.mk's PARTS)
    parts=$(sed -n 's/^PARTS := //p' <<<"$db")
    for f in "$g"/*.cu; do
        f=$(basename "$f" .cu)
        case "$f" in harness|exercise) continue ;; esac
        [[ " $parts " != *" $f "* ]] || continue
        [[ " $progs " == *" build/$f "* ]] || fail "$name: make all does not build build/$f from $f.cu"
    done
    for prog in $progs; do
        [ -x "$g/$prog" ] || fail "$name: no $prog"
    done
    echo "built: $progs"
}

# assert_check_passes NAME [ARGS...]: make check in lessons/NAME passes, on
# the GPU where there is one, else on warpsim, which ships here: a skip is
# a failure.
assert_check_passes() {
    local name=$1; shift
    run make --no-print-directory -C "$REPO/lessons/$name" check "$@"
    echo "$output"
    assert_success
    if have_gpu; then
        assert_line --regexp '^# checking on the GPU'
    else
        assert_line '# checking on the CPU emulator (warpsim)'
    fi
    assert_line --regexp '^[1-9][0-9]* passed, 0 failed$'
}

# assert_src_check_passes NAME: make check SRC= passes a learner's copy of
# sync.cu, with the sync expectations only.
assert_src_check_passes() {
    mkdir -p "$BATS_TEST_TMPDIR/$1"
    cp "$REPO/lessons/$1/sync.cu" "$BATS_TEST_TMPDIR/$1/mine.cu"
    assert_check_passes "$1" SRC="$BATS_TEST_TMPDIR/$1/mine.cu"
    refute_line --partial 'legacy'
}

# ---- lessons on the harness (harness.cu + device-only lesson files) -------

# assert_device_only NAME: legacy.cu and sync.cu of lessons/NAME include
# lesson.h, and they, every other lesson file built with the harness (a
# top-level .cu that includes lesson.h: cg.cu, the starter exercise.cu) and
# every .cuh hold device code only: no main, no host calls, no jitter.
assert_device_only() {
    local d=$REPO/lessons/$1 f files=()
    for f in legacy.cu sync.cu; do
        grep -q '^#include "lesson.h"' "$d/$f" || fail "$1: $f does not include lesson.h"
    done
    for f in "$d"/*.cu "$d"/*.cuh; do
        [ -f "$f" ] || continue
        case "$f" in
            */harness.cu) continue ;;
            *.cu) grep -q '^#include "lesson.h"' "$f" || continue ;;
        esac
        files+=("${f##*/}")
        run grep -nE 'main *\(|cudaMalloc|cudaMemcpy|LAUNCH|jitter|printf|lesson_parse' "$f"
        echo "${f##*/}: $output"
        assert_failure 1
    done
    echo "device code only: ${files[*]}"
}

# never_ends NAME: the wrong fixes of lessons/NAME whose kernel never ends
# (wrong/never-ends*.patch, wrong/hang*.patch).
never_ends() {
    local f
    for f in "$REPO/lessons/$1"/wrong/never-ends*.patch "$REPO/lessons/$1"/wrong/hang*.patch; do
        [ ! -f "$f" ] || echo "$f"
    done
}

# assert_wrong_fixes_rejected NAME: lessons/NAME/wrong/ holds at least five
# wrong fixes, each a patch of sync.cu with its /* wrong: ... */ first line,
# and make check-wrong on warpsim rejects every one within 60 s, with the
# line that locates the problem. The fixes whose kernel never ends
# (never_ends) are tests/lessons.bats's check_never_ends's: a plain make
# check SRC= of each, stricter, already run (warpsim takes a second or more
# to call a loop that never ends one); here the others, named in WRONG.
assert_wrong_fixes_rejected() {
    local dir=$REPO/lessons/$1 n f wrong=() skip
    n=$(find "$dir/wrong" -name '*.patch' | wc -l)
    [ "$n" -ge 5 ] || fail "only $n wrong fixes in $dir/wrong"
    skip=" $(never_ends "$1" | tr '\n' ' ')"
    for f in "$dir"/wrong/*.patch; do
        head -n 1 "$f" | grep -qE '^/\* wrong: .+ \*/$' || fail "$f: no /* wrong: ... */ first line"
        [[ $skip == *" $f "* ]] || wrong+=("wrong/${f##*/}")
    done
    n=${#wrong[@]}
    run make --no-print-directory -C "$dir" check-wrong EMU=1 JOBS="${TEST_JOBS:-2}" WRONG="${wrong[*]}"
    echo "$output"
    assert_success
    assert_line "1..$n"
    assert_line "$n passed, 0 failed"
    refute_line --regexp '^not ok'
    # each within the bound, its ok line followed by the locating line
    assert_equal "$(grep -cE '^ok [0-9]+ - wrong/.*\.patch rejected in ([0-9]|[1-5][0-9])s ' <<<"$output")" "$n"
    assert_equal "$(grep -A1 '^ok ' <<<"$output" | grep -cE '^# .')" "$n"
    # each locating line names the file and line, the lanes, or the first
    # mismatch, not only the exit status
    refute_line --regexp '^# exit status '
    refute_output --partial 'jobserver'       # the fixes' makes share the jobs
}
