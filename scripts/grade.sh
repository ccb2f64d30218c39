#!/usr/bin/env bash
# grade.sh LESSON_DIR...: lab grading. Checks each lesson's learner file
# (GRADE_FILE, default mine.cu, in the lesson folder; or an absolute path,
# the same file for every lesson) against the
# expectations sync.cu meets, with `make check SRC=...`: on the GPU when
# there is one, and then on warpsim too (lab mode: both must pass), else on
# warpsim alone. A lesson is worth 10 points, scaled by the share of
# expectations met; a missing file scores 0. Prints points per lesson, for
# each lesson that lost points the line that locates the problem, and
# "Score X/Y"; exits 0 only at full marks, 1 otherwise, 77 when nothing can
# run here.
#
# JUNIT=DIR (or GRADE_REPORT=DIR) also writes, in DIR:
#   results.json   Gradescope's autograder results: one test per lesson with
#                  score, max_score and output (the check's # locate line and
#                  summary)
#   grade.xml      the same as a JUnit report, for CI systems
set -u
file=${GRADE_FILE:-mine.cu}
make=${MAKE:-make}
report=${GRADE_REPORT:-${JUNIT:-}}
score=0 max=0 skipped=0
names=() points_of=() outputs=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# json_string TEXT: TEXT as a JSON string.
json_string() {
    local s=$1
    s=${s//\\/\\\\}
    s=${s//\"/\\\"}
    s=${s//$'\t'/\\t}
    s=${s//$'\r'/}
    s=${s//$'\n'/\\n}
    printf '"%s"' "$s"
}

# xml_text TEXT: TEXT escaped for XML.
xml_text() {
    local s=$1
    s=${s//&/&amp;}
    s=${s//</&lt;}
    s=${s//>/&gt;}
    s=${s//\"/&quot;}
    printf '%s' "$s"
}

# starter_of DIR: the file a learner starts from: exercise.cu when the
# lesson has one, else the file its README copies to mine.cu
# (`cp FILE mine.cu`) when that exists, else legacy.cu.
starter_of() {
    local dir=$1 f
    if [ -f "$dir/exercise.cu" ]; then echo exercise.cu; return; fi
    f=$(sed -n 's/^cp \([A-Za-z0-9_.-]*\.cu\) mine\.cu\b.*/\1/p' "$dir/README.md" 2>/dev/null | head -n 1)
    if [ -n "$f" ] && [ -f "$dir/$f" ]; then echo "$f"; else echo legacy.cu; fi
}

# record NAME POINTS OUTPUT: one lesson's result for the reports.
record() {
    names+=("$1"); points_of+=("$2"); outputs+=("$3")
}

for dir in "$@"; do
    name=$(basename "$dir")
    max=$((max + 10))
    case "$file" in /*) path=$file ;; *) path=$dir/$file ;; esac
    if [ ! -f "$path" ]; then
        start=$(starter_of "$dir")
        line=$(printf '%-24s  0/10  (no %s: copy %s to %s and fix it)' "$name" "$file" "$start" "$file")
        printf '%s\n' "$line"
        record "$name" 0 "no $file: copy $start to $file and fix it"
        continue
    fi
    "$make" --no-print-directory -s -C "$dir" check SRC="$file" >"$log" 2>&1
    rc=$?
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    where=$(grep -m 1 '^# locate: ' "$log" | sed 's/^# locate: //')
    sides=$(grep -E "^# $(basename "$file") on (the GPU|warpsim): " "$log" | sed 's/^# //')
    if grep -q '^skipped: ' "$log"; then
        printf '%-24s  -     (not graded: %s)\n' "$name" "$(sed -n 's/^skipped: //p' "$log" | tail -n 1)"
        max=$((max - 10))
        skipped=$((skipped + 1))
        continue
    fi
    if [ -z "$summary" ]; then
        printf '%-24s  0/10  (%s did not build or the checker stopped; make check SRC=%s shows why)\n' \
            "$name" "$file" "$file"
        printf '    %s\n' "$(grep -m 1 -E 'error|Error' "$log" || tail -n 1 "$log")"
        record "$name" 0 "$file did not build or the checker stopped:
$(grep -E -m 5 'error|Error' "$log" || tail -n 5 "$log")"
        continue
    fi
    passed=${summary%% passed*}
    failed=${summary#*passed, }; failed=${failed%% failed}
    points=0
    [ $((passed + failed)) -eq 0 ] || points=$(( passed * 10 / (passed + failed) ))
    [ "$rc" -eq 0 ] || [ "$points" -lt 10 ] || points=9
    score=$((score + points))
    printf '%-24s %2d/10  (%s)\n' "$name" "$points" "$summary"
    if [ "$points" -lt 10 ]; then
        [ -z "$sides" ] || printf '%s\n' "$sides" | sed 's/^/    /'
        printf '    first problem: %s\n' "${where:-see make -C $dir check SRC=$file}"
    fi
    record "$name" "$points" "$summary${sides:+
$sides}${where:+
first problem: $where}"
done

if [ "$#" -gt 0 ] && [ "$skipped" -eq "$#" ]; then
    echo "grade: nothing could run here (no GPU and no emulator); see make doctor"
    exit 77
fi
echo "Score $score/$max"

if [ -n "$report" ]; then
    mkdir -p "$report"
    {
        printf '{\n  "score": %d,\n  "output": %s,\n  "tests": [\n' "$score" "$(json_string "Score $score/$max")"
        for i in "${!names[@]}"; do
            printf '    {"name": %s, "score": %d, "max_score": 10, "output": %s}%s\n' \
                "$(json_string "${names[$i]}")" "${points_of[$i]}" "$(json_string "${outputs[$i]}")" \
                "$([ "$i" -lt $((${#names[@]} - 1)) ] && echo ,)"
        done
        printf '  ]\n}\n'
    } >"$report/results.json"
    {
        fails=0
        for i in "${!names[@]}"; do [ "${points_of[$i]}" -eq 10 ] || fails=$((fails + 1)); done
        printf '<?xml version="1.0" encoding="UTF-8"?>\n'
        printf '<testsuites>\n<testsuite name="grade" tests="%d" failures="%d">\n' "${#names[@]}" "$fails"
        for i in "${!names[@]}"; do
            printf '  <testcase classname="grade" name="%s">' "$(xml_text "${names[$i]}")"
            if [ "${points_of[$i]}" -ne 10 ]; then
                printf '<failure message="%s/10">%s</failure>' "${points_of[$i]}" "$(xml_text "${outputs[$i]}")"
            fi
            printf '</testcase>\n'
        done
        printf '</testsuite>\n</testsuites>\n'
    } >"$report/grade.xml"
    echo "grade: wrote $report/results.json and $report/grade.xml"
fi
[ "$score" -eq "$max" ]
