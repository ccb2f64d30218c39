# helper.bash - loaded by every test file.
# shellcheck shell=bash
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
FIXTURES=$BATS_TEST_DIRNAME/fixtures

have_gpu() { nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }
have_nvcc() { command -v nvcc >/dev/null 2>&1; }

need_nvcc() { have_nvcc || skip "nvcc not found"; }
need_gpu() { have_gpu || skip "no GPU here (nvidia-smi lists none)"; }

# one_sm: "SM=90" where no GPU answers, so that the lesson test files build
# for one architecture (with a GPU, make builds for that GPU's alone). The
# build for every major architecture, what `make` does with no GPU, is
# make compat's (every lesson, every program, no warning); tests/toolkit.bats
# checks its commands for every lesson and builds one program that way.
one_sm() { have_gpu || echo SM=90; }

# build_lesson NAME: builds the warpsim programs of lessons/NAME and its
# build/verify; where nvcc is, also lessons/NAME on its own, once per test
# file, in a clean copy of the working tree (no build outputs): make with no
# target, for one architecture where no GPU answers (see one_sm). Its output and
# exit status are kept for assert_builds_alone; G is the lesson folder in
# the copy, where the tests find the GPU programs (build/sync, ...). The
# programs built for warpsim stay in the working tree, where make check and
# make docs build and share them.
build_lesson() {
    local copy=$BATS_FILE_TMPDIR/clean
    make -s --no-print-directory -C "$REPO/lessons/$1" emu build/verify >/dev/null
    have_nvcc || return 0
    copy_repo "$copy"
    export G=$copy/lessons/$1
    # shellcheck disable=SC2046
    make --no-print-directory -C "$G" $(one_sm) >"$BATS_FILE_TMPDIR/build.log" 2>&1
    echo $? >"$BATS_FILE_TMPDIR/build.rc"
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

# assert_builds_alone NAME PROG...: the build of build_lesson (lessons/NAME
# alone, from a clean copy) succeeded, printed no warning, and made each
# build/PROG.
assert_builds_alone() {
    local prog; shift
    need_nvcc
    [ -f "$BATS_FILE_TMPDIR/build.rc" ] || fail "setup_file did not call build_lesson"
    output=$(cat "$BATS_FILE_TMPDIR/build.log")
    echo "$output"
    assert_equal "$(cat "$BATS_FILE_TMPDIR/build.rc")" 0
    refute_output --partial warning
    for prog in "$@"; do
        [ -x "$G/build/$prog" ] || fail "no build/$prog"
    done
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
    cp "$REPO/lessons/$1/sync.cu" "$BATS_TEST_TMPDIR/mine.cu"
    assert_check_passes "$1" SRC="$BATS_TEST_TMPDIR/mine.cu"
    refute_line --partial 'legacy'
}

# ---- lessons on the harness (harness.cu + device-only lesson files) -------

# assert_device_only NAME: legacy.cu and sync.cu of lessons/NAME include
# lesson.h and hold device code only: no main, no host calls, no jitter.
assert_device_only() {
    local f
    for f in legacy.cu sync.cu; do
        run grep -nE 'main *\(|cudaMalloc|cudaMemcpy|LAUNCH|jitter|printf|lesson_parse' "$REPO/lessons/$1/$f"
        echo "$f: $output"
        assert_failure 1
        grep -q '^#include "lesson.h"' "$REPO/lessons/$1/$f" || fail "$f does not include lesson.h"
    done
}

# assert_wrong_fixes_rejected NAME: lessons/NAME/wrong/ holds at least five
# wrong fixes, each with its /* wrong: ... */ first line, and make
# check-wrong on warpsim rejects every one within 60 s, with the line that
# locates the problem.
assert_wrong_fixes_rejected() {
    local dir=$REPO/lessons/$1 n f
    n=$(find "$dir/wrong" -name '*.cu' | wc -l)
    [ "$n" -ge 5 ] || fail "only $n wrong fixes in $dir/wrong"
    for f in "$dir"/wrong/*.cu; do
        head -n 1 "$f" | grep -qE '^/\* wrong: .+ \*/$' || fail "$f: no /* wrong: ... */ first line"
    done
    run make --no-print-directory -C "$dir" check-wrong EMU=1 JOBS="${TEST_JOBS:-2}"
    echo "$output"
    assert_success
    assert_line "1..$n"
    assert_line "$n passed, 0 failed"
    refute_line --regexp '^not ok'
    # each within the bound, its ok line followed by the locating line
    assert_equal "$(grep -cE '^ok [0-9]+ - wrong/.* rejected in ([0-9]|[1-5][0-9])s ' <<<"$output")" "$n"
    assert_equal "$(grep -A1 '^ok ' <<<"$output" | grep -cE '^# .')" "$n"
}
