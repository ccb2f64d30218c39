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

@test "legacy.cu and sync.cu differ only in their head comment and the marked lesson" {
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        grep -q '^/\* ==== the lesson' "$d/sync.cu" || fail "$d/sync.cu has no lesson marker"
        grep -q '^/\* ==== the lesson' "$d/legacy.cu" || fail "$d/legacy.cu has no lesson marker"
        run diff <(strip_lesson "$d/legacy.cu") <(strip_lesson "$d/sync.cu")
        [ "$status" -eq 0 ] || fail "$(basename "$d"): twins differ outside the lesson:
$output"
    done
}

@test "every other marked source of a lesson (cg.cu) shares sync.cu's host code too" {
    for f in "$REPO"/lessons/[0-9][0-9]-*/*.cu; do
        case "$(basename "$f")" in legacy.cu|sync.cu) continue ;; esac
        grep -q '^/\* ==== the lesson' "$f" || continue
        run diff <(strip_lesson "$(dirname "$f")/sync.cu") <(strip_lesson "$f")
        [ "$status" -eq 0 ] || fail "$f differs from sync.cu outside the lesson:
$output"
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
    run shellcheck -x scripts/*.sh lessons/*/check.sh tests/fixtures/*.sh .ci/run
    echo "$output"
    assert_success
}
