#!/usr/bin/env bash
# each-lesson.sh TARGET LESSON_DIR...: runs `make TARGET` in every lesson,
# going on past failures; ends with one line per lesson and a total.
# Exit status 1 if any lesson failed; a skipped check (no GPU) is no failure.
set -u
target=${1:?usage: each-lesson.sh TARGET LESSON_DIR...}
shift
make=${MAKE:-make}
lines=()
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for dir in "$@"; do
    name=$(basename "$dir")
    printf '\n==== %s: make %s\n' "$name" "$target"
    "$make" --no-print-directory -C "$dir" "$target" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    last=$(grep -E '^(skipped: |[0-9]+ passed, [0-9]+ failed)' "$log" | tail -n 1)
    if [ "$rc" -ne 0 ]; then
        failed=$((failed + 1)); lines+=("$name: FAILED${last:+ ($last)}")
    elif [ "${last#skipped: }" != "$last" ]; then
        skipped=$((skipped + 1)); lines+=("$name: skipped (${last#skipped: })")
    else
        passed=$((passed + 1)); lines+=("$name: ok${last:+ ($last)}")
    fi
done

printf '\n==== make %s, lesson by lesson\n' "$target"
printf '%s\n' "${lines[@]}"
printf 'lessons: %d ok, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
[ "$failed" -eq 0 ]
