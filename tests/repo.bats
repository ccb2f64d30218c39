#!/usr/bin/env bats
# What the repository promises about its own shape.

setup() {
    load helper
}

@test "every lesson folder has its text, both versions, a checker and a Makefile" {
    local n=0
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        for f in README.md legacy.cu sync.cu check.sh Makefile; do
            [ -e "$d$f" ] || fail "$d$f is missing"
        done
        [ -x "$d/check.sh" ] || fail "$d/check.sh is not executable"
        n=$((n + 1))
    done
    [ "$n" -ge 1 ]
}

# The head comment and the part between the lesson markers are stripped; the
# rest (CPU reference, main) must be the same in both twins.
strip_lesson() {
    awk 'NR == 1 && /^\/\*/ { head = 1 }
         head { if (/\*\//) head = 0; next }
         /^\/\* ==== the lesson/ { skip = 1 }
         /^\/\* ==== end of the lesson/ { skip = 0; next }
         !skip' "$1"
}

@test "legacy.cu and sync.cu hold device code only; the host side is the lesson's harness.cu" {
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        if [ ! -f "$d/harness.cu" ]; then
            # not yet on the harness: the twins share their host code
            run diff <(strip_lesson "$d/legacy.cu") <(strip_lesson "$d/sync.cu")
            [ "$status" -eq 0 ] || fail "$(basename "$d"): twins differ outside the lesson:
$output"
            continue
        fi
        grep -q '^int lesson_main(' "$d/harness.cu" || fail "$d/harness.cu has no lesson_main (lesson.h's main runs it)"
        for f in "$d"/legacy.cu "$d"/sync.cu; do
            ! grep -qE '^(int|static int) (lesson_)?main\(' "$f" || fail "$f defines main: the harness owns it"
            ! grep -q 'jitter_sleep' "$f" || fail "$f calls jitter_sleep: the delays come from lesson.h"
        done
    done
}

@test "README shows the two commands and how to check one's own fix" {
    run cat "$REPO/README.md"
    assert_output --partial 'make check'
    assert_output --partial 'make test'
    assert_output --partial 'SRC='
}

@test "make help lists the targets" {
    run make --no-print-directory -C "$REPO" help
    assert_success
    for t in all check test clean; do assert_line --regexp "^  $t "; done
}

@test "the shell scripts pass shellcheck" {
    command -v shellcheck >/dev/null || skip "shellcheck not installed"
    cd "$REPO"
    # A file that sources scripts/checklib.sh (each lesson's check.sh, the
    # checker's test fixtures) is checked as it reads, without checklib.sh
    # again (SC1091: not followed): checklib.sh, checked on its own, takes
    # a second of shellcheck's time each time it is followed. Every other
    # file is checked with what it sources (-x). A few files per
    # shellcheck, one shellcheck per core.
    local f with=() without=()
    for f in scripts/*.sh lessons/*/check.sh tests/fixtures/*.sh .ci/run; do
        if grep -qE '^[[:space:]]*(\.|source) .*checklib\.sh' "$f"; then without+=("$f"); else with+=("$f"); fi
    done
    [ "${#without[@]}" -ge 7 ] || fail "only ${#without[@]} files source checklib.sh: ${without[*]}"
    run bash -c 'printf "%s\n" "$@" | xargs -P "$(nproc)" -n 4 shellcheck -x' sh "${with[@]}"
    echo "$output"
    assert_success
    run bash -c 'printf "%s\n" "$@" | xargs -P "$(nproc)" -n 4 shellcheck -e SC1091' sh "${without[@]}"
    echo "$output"
    assert_success
}

@test "warpsim's make records the same flags whether a lesson names the repository ../.. or its full path" {
    # A lesson's make calls warpsim's with TOP=..; warpsim's tests call it
    # with none (its full path). Flags recorded differently would rebuild
    # libwarpsim.a under programs that other tests are linking against it.
    cd "$REPO"
    local rel full
    # shellcheck disable=SC2016   # make expands it
    rel=$(make -s --no-print-directory -C warpsim TOP=.. --eval 'print-stamp: ; @echo $(WS_CC_STAMP)' print-stamp)
    # shellcheck disable=SC2016
    full=$(make -s --no-print-directory -C warpsim --eval 'print-stamp: ; @echo $(WS_CC_STAMP)' print-stamp)
    assert_equal "$rel" "$full"
    [[ $rel == *-DWARPSIM* ]] || fail "no lesson flags in the stamp: $rel"
}
