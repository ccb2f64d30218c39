#!/usr/bin/env bash
# grade.sh LESSON_DIR...: lab grading. Checks each lesson's learner file
# (GRADE_FILE, default mine.cu, in the lesson folder) against the
# expectations sync.cu meets, with `make check SRC=...` (on the GPU when
# there is one, else on warpsim). A lesson is worth 10 points, scaled by the
# share of expectations met; a missing file scores 0. Prints points per
# lesson and "Score X/Y"; exits 0 only at full marks, 1 otherwise, 77 when
# nothing can run here.
set -u
file=${GRADE_FILE:-mine.cu}
make=${MAKE:-make}
score=0 max=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for dir in "$@"; do
    name=$(basename "$dir")
    max=$((max + 10))
    if [ ! -f "$dir/$file" ]; then
        printf '%-24s  0/10  (no %s: copy legacy.cu to %s and fix it)\n' "$name" "$file" "$file"
        continue
    fi
    "$make" --no-print-directory -s -C "$dir" check SRC="$file" >"$log" 2>&1
    rc=$?
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if grep -q '^skipped: ' "$log"; then
        printf '%-24s  -     (not graded: %s)\n' "$name" "$(sed -n 's/^skipped: //p' "$log" | tail -n 1)"
        max=$((max - 10))
        skipped=$((skipped + 1))
        continue
    fi
    if [ -z "$summary" ]; then
        printf '%-24s  0/10  (%s did not build or the checker stopped; make check SRC=%s shows why)\n' \
            "$name" "$file" "$file"
        continue
    fi
    passed=${summary%% passed*}
    failed=${summary#*passed, }; failed=${failed%% failed}
    points=$(( passed * 10 / (passed + failed) ))
    [ "$rc" -eq 0 ] || [ "$points" -lt 10 ] || points=9
    score=$((score + points))
    printf '%-24s %2d/10  (%s)\n' "$name" "$points" "$summary"
done

if [ "$#" -gt 0 ] && [ "$skipped" -eq "$#" ]; then
    echo "grade: nothing could run here (no GPU and no emulator); see make doctor"
    exit 77
fi
echo "Score $score/$max"
[ "$score" -eq "$max" ]
