#!/usr/bin/env bats
# Lab mode: make grade scores learners' files; make doctor describes the machine;
# the top-level make check, check-wrong and bench run the lessons.

setup_file() {
    load helper
    make -s --no-print-directory -C "$REPO/warpsim" >/dev/null
    # lessons 01 and 06 of their own, so that grading them here and the
    # checks of tests/lessons.bats never build the same program at once
    lesson_sandbox "$BATS_FILE_TMPDIR/tree" 01-shfl-reduction 06-block-reduce
    cp -r "$FIXTURES/lab" "$BATS_FILE_TMPDIR/lab"
}

setup() {
    load helper
    T=$BATS_FILE_TMPDIR/tree
    FAKE=$BATS_FILE_TMPDIR/lab/lessons/98-fake
    rm -f "$FAKE/mine.cu"
}

# The grading of real lessons is shown on two (01 and 06, one part each);
# a stand-in lesson (tests/fixtures/lab/lessons/98-fake, three parts, its
# checker a script) shows how parts add up, quickly.

@test "make grade runs scripts/grade.sh on every lesson, LESSONS= on some, SUBMISSIONS= on a class" {
    run make --no-print-directory -n -C "$REPO" grade
    assert_output --partial 'scripts/grade.sh lessons/01-shfl-reduction'
    run make --no-print-directory -n -C "$REPO" grade LESSONS="01 06" JUNIT=out
    assert_output --partial "scripts/grade.sh --report 'out' 01 06"
    run make --no-print-directory -n -C "$REPO" grade SUBMISSIONS=class CSV=g.csv
    assert_output --partial "scripts/grade.py --submissions 'class' --csv 'g.csv'"
    run "$REPO/scripts/grade.py" 42
    assert_failure 2
    assert_output --regexp '^grade: LESSONS: no lesson 42 \(lessons here: 01 02 '
}

@test "a correct solution of lesson 01's exercise and of lesson 06's scores 10/10 each, exit 0" {
    exercise_solution 01-shfl-reduction "$T/lessons/01-shfl-reduction/mine.cu"
    exercise_solution 06-block-reduce "$T/lessons/06-block-reduce/mine.cu"
    run "$REPO/scripts/grade.py" "$T/lessons/01-shfl-reduction" "$T/lessons/06-block-reduce"
    echo "$output"
    assert_success
    assert_line --regexp '^01-shfl-reduction +10/10  \(tree passed; [0-9]+ passed, 0 failed\)$'
    assert_line --regexp '^06-block-reduce +10/10  \(second passed; [0-9]+ passed, 0 failed\)$'
    assert_line 'Score 20/20'
    rm "$T/lessons/01-shfl-reduction/mine.cu" "$T/lessons/06-block-reduce/mine.cu"
}

@test "the untouched starter scores less than full marks, with its first problem's locating line" {
    cp "$T/lessons/06-block-reduce/legacy.cu" "$T/lessons/06-block-reduce/mine.cu"
    run "$REPO/scripts/grade.py" "$T/lessons/06-block-reduce"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^06-block-reduce +0/10  \(second FAILED; 0 passed, [1-9][0-9]* failed\)$'
    assert_line --regexp '^    first problem: warpsim: race on shared .* at mine\.cu:[0-9]+ and .* at mine\.cu:[0-9]+'
    assert_line --regexp '^    to see it all: make -C .*06-block-reduce check SRC=mine.cu DEMO=second$'
    assert_line 'Score 0/10'
    rm "$T/lessons/06-block-reduce/mine.cu"
}

@test "a missing file scores 0 with the line that names the exercise's starter" {
    run "$REPO/scripts/grade.py" "$T/lessons/01-shfl-reduction" "$REPO/lessons/03-syncwarp-races"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^01-shfl-reduction +0/10  \(no mine.cu: copy legacy.cu to mine.cu and fix it\)$'
    assert_line --regexp '^03-syncwarp-races +0/10  \(no mine.cu: copy exercise.cu to mine.cu and fix it\)$'
    assert_line 'Score 0/20'
}

@test "a file with host code that prints a passing verdict, or defines main, scores 0 with the line that says why" {
    local L=$T/lessons/01-shfl-reduction
    { exercise_solution 01-shfl-reduction -
      printf '\n__attribute__((constructor)) static void pass(void)\n{\n    printf("result: ok (0 of 1 warps wrong)\\n");\n    exit(0);\n}\n'
    } >"$L/mine.cu"
    run "$REPO/scripts/grade.py" "$L"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^01-shfl-reduction +0/10 '
    assert_line --regexp '^    first problem: .*(mine\.cu|exited 0 without writing its results)'
    { exercise_solution 01-shfl-reduction -; printf '\nint main(void) { return 0; }\n'; } >"$L/mine.cu"
    run "$REPO/scripts/grade.py" "$L"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^01-shfl-reduction +0/10 '
    assert_line --regexp '^    first problem: .*mine\.cu'
    refute_output --partial "$BATS_TEST_TMPDIR"
    refute_output --regexp '/tmp/grade-'
    rm "$L/mine.cu"
}

@test "a lesson's points are the sum of its passed parts, from the checker's per-part lines when it prints them" {
    local t=$BATS_TEST_TMPDIR
    export FAKE_LOG=$t/runs.log
    printf 'pass:one pass:three say-demos\n' >"$FAKE/mine.cu"
    run "$REPO/scripts/grade.py" "$FAKE"
    echo "$output"
    rm -f "$FAKE/mine.cu"
    assert_failure 1
    assert_line '98-fake                   7/10  (one 5/5, two 0/3, three 2/2; 2 passed, 1 failed)'
    assert_line '    first problem: part two is wrong at mine.cu:7'
    assert_line 'Score 7/10'
    # one run, for the three parts at once
    assert_equal "$(cat "$FAKE_LOG")" 'grade-mine one two three'
}

@test "without per-part lines a failed check is run again part by part; a pass is one run" {
    local t=$BATS_TEST_TMPDIR
    export FAKE_LOG=$t/runs.log
    printf 'pass:one pass:three\n' >"$FAKE/mine.cu"
    run "$REPO/scripts/grade.py" "$FAKE"
    echo "$output"
    assert_line --regexp '^98-fake +7/10  \(one 5/5, two 0/3, three 2/2'
    assert_equal "$(tr '\n' '|' <"$FAKE_LOG")" 'grade-mine one two three|grade-mine one|grade-mine two|grade-mine three|'
    rm "$FAKE_LOG"
    printf 'pass:one pass:two pass:three\n' >"$FAKE/mine.cu"
    run "$REPO/scripts/grade.py" "$FAKE"
    echo "$output"
    rm -f "$FAKE/mine.cu"
    assert_success
    assert_line --regexp '^98-fake +10/10 '
    assert_equal "$(cat "$FAKE_LOG")" 'grade-mine one two three'
}

@test "a failure outside every part, a file that does not build and a check that never ends score 0" {
    printf 'pass:one pass:two pass:three say-demos outside\n' >"$FAKE/mine.cu"
    run "$REPO/scripts/grade.py" "$FAKE"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^98-fake +0/10 '
    assert_line '    first problem: memcheck: invalid write at mine.cu:9'
    printf 'no-build\n' >"$FAKE/mine.cu"
    run "$REPO/scripts/grade.py" "$FAKE"
    echo "$output"
    assert_line --regexp '^98-fake +0/10 '
    assert_line "    first problem: mine.cu:3:5: error: expected ';' before '}' token"
    printf 'hang\n' >"$FAKE/mine.cu"
    SECONDS=0
    GRADE_TIMEOUT=2 run "$REPO/scripts/grade.py" "$FAKE"
    echo "$output"
    rm -f "$FAKE/mine.cu"
    assert_line --regexp '^98-fake +0/10 '
    assert_line --regexp '^    first problem: the check did not end within [0-9]+ s'
    [ "$SECONDS" -lt 20 ] || fail "the hung check held the grader ${SECONDS}s"
    GRADE_TIMEOUT=abc run "$REPO/scripts/grade.py" "$FAKE"
    assert_failure 2
    assert_output 'grade: GRADE_TIMEOUT=abc: a whole number from 1'
}

@test "an exercise.mk whose points do not add up to 10 is one line, exit 2" {
    local d=$BATS_TEST_TMPDIR/lessons/97-odd
    mkdir -p "$d"
    printf 'EXERCISE_STARTER := legacy.cu\nEXERCISE_PARTS := a:5 b:4\n' >"$d/exercise.mk"
    run "$REPO/scripts/grade.py" "$d"
    assert_failure 2
    assert_output 'grade: 97-odd/exercise.mk: the parts'"'"' points add up to 9, not 10'
    printf 'EXERCISE_STARTER := legacy.cu\nEXERCISE_PARTS := a=10\n' >"$d/exercise.mk"
    run "$REPO/scripts/grade.py" "$d"
    assert_failure 2
    assert_output "grade: 97-odd/exercise.mk: EXERCISE_PARTS: 'a=10' is not NAME:POINTS"
}

@test "every lesson declares an exercise whose starter exists and whose parts are its checker's demonstrations" {
    local d name part
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        name=$(basename "$d")
        run python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import grade
l = grade.Lesson(sys.argv[2]); print(l.starter); print(" ".join(n for n, _ in l.parts))' "$REPO/scripts" "$d"
        echo "$name: $output"
        assert_success
        [ -f "$d/${lines[0]}" ] || fail "$name: no starter ${lines[0]}"
        for part in ${lines[1]}; do
            grep -qw -- "$part" "$d/check.sh" || fail "$name: part $part is no name in its check.sh"
        done
    done
}

@test "docs/pages/lab.md's table of exercises is each lesson's exercise.mk" {
    local d name want
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        name=$(basename "$d")
        want=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import grade
l = grade.Lesson(sys.argv[2])
print(f"| {l.name} | `{l.starter}` | " + ", ".join(f"`{n}` {p}" for n, p in l.parts) + " |")' "$REPO/scripts" "$d")
        grep -qxF -- "$want" "$REPO/docs/pages/lab.md" || fail "lab.md lacks: $want"
    done
}

@test "make grade JUNIT=dir writes results.json in Gradescope's format and grade.xml, with a JSON and an XML library" {
    local out=$BATS_TEST_TMPDIR/reports
    printf 'pass:one say-demos\n' >"$FAKE/mine.cu"
    run "$REPO/scripts/grade.py" --report "$out" "$FAKE" "$T/lessons/01-shfl-reduction"
    echo "$output"
    rm -f "$FAKE/mine.cu"
    assert_failure 1
    assert_line "grade: wrote $out/results.json and $out/grade.xml"
    run python3 "$FIXTURES/lab/gradescope-results.py" "$out/results.json" 20
    echo "$output"
    assert_success
    assert_line '98-fake: one 5/5 passed'
    assert_line '98-fake: two 0/3 failed: first problem: part two is wrong at mine.cu:7'
    assert_line '01-shfl-reduction: tree 0/10 failed: first problem: no mine.cu: copy legacy.cu to mine.cu and fix it'
    assert_line 'score 5/20'
    run python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print(len(r.findall("testsuite")), len(r.findall(".//testcase")), len(r.findall(".//failure")))' "$out/grade.xml"
    assert_output '2 4 3'
}

@test "an absolute GRADE_FILE grades one lesson, and is one line for several" {
    exercise_solution 01-shfl-reduction "$BATS_TEST_TMPDIR/fix.cu"
    GRADE_FILE=$BATS_TEST_TMPDIR/fix.cu run "$REPO/scripts/grade.py" "$T/lessons/01-shfl-reduction"
    echo "$output"
    assert_success
    assert_line --regexp '^01-shfl-reduction +10/10 '
    GRADE_FILE=$BATS_TEST_TMPDIR/fix.cu run "$REPO/scripts/grade.py" "$T/lessons/01-shfl-reduction" "$T/lessons/06-block-reduce"
    assert_failure 2
    assert_output --regexp "^grade: GRADE_FILE=$BATS_TEST_TMPDIR/fix.cu is one file, for one lesson, and 2 lessons are to be graded: name one \(LESSONS=01\)"
}

@test "make grade SUBMISSIONS= grades a class side by side into one CSV and a table; no student stops the others" {
    local c=$BATS_TEST_TMPDIR/class
    mkdir -p "$c/ann" "$c/bob" "$c/cy/repo/lessons/98-fake" "$c/dee" "$c/eve" "$c/fay" "$c/gus" "$c/my lab"
    printf 'pass:one pass:two pass:three\n' >"$c/ann/98.cu"
    printf 'pass:one say-demos\n' >"$c/bob/98-fake.cu"
    printf 'pass:one pass:two pass:three\n' >"$c/cy/repo/lessons/98-fake/mine.cu"
    printf 'pass:one\n' >"$c/dee/lesson98.cu"
    ln -s /etc/passwd "$c/eve/98.cu"
    printf 'hang\n' >"$c/fay/98.cu"
    printf 'noise pass:one pass:two pass:three\n' >"$c/gus/98.cu"
    printf 'pass:two\n' >"$c/my lab/98.cu"
    cd "$BATS_TEST_TMPDIR"
    SECONDS=0
    GRADE_TIMEOUT=15 GRADE_JOBS=4 run "$REPO/scripts/grade.py" --submissions "$c" --csv grades.csv "$FAKE"
    echo "$output"
    assert_success
    # the check that never ends is stopped after 15 s, not its 60
    [ "$SECONDS" -lt 55 ] || fail "a class of 8 took ${SECONDS}s"
    assert_line 'student  98  total  first problem'
    assert_line 'ann      10  10/10'
    assert_line 'bob       5   5/10  98: part two is wrong at 98-fake.cu:7'
    assert_line 'cy       10  10/10'
    assert_line "dee       0   0/10  98: no 98-fake.cu or 98.cu (or lessons/98-fake/mine.cu): start from the lesson's legacy.cu; found lesson98.cu, which names no lesson"
    assert_line 'eve       0   0/10  98: 98.cu is a symbolic link; submit the file itself'
    assert_line --regexp '^fay       0   0/10  98: the check did not end within [0-9]+ s'
    assert_line 'gus      10  10/10'
    assert_line 'my lab    3   3/10  98: part one is wrong at 98.cu:7'
    assert_line --regexp "^grade: 8 students graded in [0-9]+ s; wrote grades.csv$"
    run python3 -c 'import csv, sys
for r in csv.reader(open(sys.argv[1])): print("|".join(r))' grades.csv
    echo "$output"
    assert_line 'student|98-fake|total|max|first problem'
    assert_line 'ann|10|10|10|'
    assert_line 'my lab|3|3|10|98: part one is wrong at 98.cu:7'
    run "$REPO/scripts/grade.py" --submissions "$BATS_TEST_TMPDIR/none" "$FAKE"
    assert_failure 2
    assert_output "grade: SUBMISSIONS=$BATS_TEST_TMPDIR/none: no such folder"
}

@test "students of a real lesson graded side by side build apart and score as each file deserves" {
    local c=$BATS_TEST_TMPDIR/class
    mkdir -p "$c/right" "$c/starter" "$c/main"
    exercise_solution 01-shfl-reduction "$c/right/01.cu"
    cp "$T/lessons/01-shfl-reduction/legacy.cu" "$c/starter/01-shfl-reduction.cu"
    { exercise_solution 01-shfl-reduction -; printf '\nint main(void) { return 0; }\n'; } >"$c/main/01.cu"
    GRADE_JOBS=3 run "$REPO/scripts/grade.py" --submissions "$c" --csv "$BATS_TEST_TMPDIR/g.csv" \
        --logs "$BATS_TEST_TMPDIR/logs" "$T/lessons/01-shfl-reduction"
    echo "$output"
    assert_success
    assert_line --regexp '^main +0   0/10  01: .*01\.cu'
    assert_line 'right    10  10/10'
    assert_line --regexp '^starter +0   0/10  01: warpsim: race on shared .* at 01-shfl-reduction\.cu:[0-9]+'
    [ -f "$BATS_TEST_TMPDIR/logs/starter/01-shfl-reduction.log" ] || fail "no log kept"
    # each student's programs were built apart and removed after, with all
    # else their checks left in build/ (device-only.py's verdicts too)
    run find "$T/lessons/01-shfl-reduction/build" -path '*grade/*' -type f
    assert_output ''
}

@test "a file whose host code would rewrite the verdict scores 0, refused at its line before anything is built" {
    cp "$FIXTURES/student/cheat-destructor.cu" "$T/lessons/01-shfl-reduction/mine.cu"
    run "$REPO/scripts/grade.py" "$T/lessons/01-shfl-reduction"
    echo "$output"
    rm "$T/lessons/01-shfl-reduction/mine.cu"
    assert_failure 1
    assert_line --regexp '^01-shfl-reduction +0/10 '
    assert_line --regexp '^    first problem: mine\.cu:[0-9]+: .* not allowed'
    assert_line "    to see it all: make -C $T/lessons/01-shfl-reduction check SRC=mine.cu DEMO=tree"
}

@test "make check-wrong at the top runs every lesson's wrong fixes and skips lessons without" {
    run make --no-print-directory -n -C "$REPO" check-wrong
    assert_output --partial 'scripts/each-lesson.sh check-wrong lessons/01-shfl-reduction'
    # a lesson folder with no wrong/ is skipped, not failed
    mkdir -p "$BATS_TEST_TMPDIR/99-none"
    printf 'include %s/mk/lesson.mk\n' "$REPO" >"$BATS_TEST_TMPDIR/99-none/Makefile"
    # two fixes at a time, each built under its own name; the TAP lines in
    # order. Three of lesson 01's fixes, in a sandbox of their own: that
    # each lesson's every fix is rejected is tests/lessons.bats's to check.
    local L=$BATS_TEST_TMPDIR/tree/lessons/01-shfl-reduction n f
    lesson_sandbox "$BATS_TEST_TMPDIR/tree" 01-shfl-reduction
    for f in "$L"/wrong/*.patch; do
        case "${f##*/}" in activemask-mask.patch|leader-lane-31.patch|no-syncthreads.patch) ;; *) rm "$f" ;; esac
    done
    n=$(find "$L/wrong" -name '*.patch' | wc -l)
    assert_equal "$n" 3
    JOBS=2 EMU=1 run "$REPO/scripts/each-lesson.sh" check-wrong "$L" "$BATS_TEST_TMPDIR/99-none"
    echo "$output"
    assert_success
    assert_line --regexp '^01-shfl-reduction: ok \([0-9]+ passed, 0 failed\) in [0-9]+ s$'
    assert_line --regexp '^99-none: skipped \(99-none has no wrong fixes'
    assert_equal "$(grep -E '^(not )?ok [0-9]+ - wrong/' <<<"$output" | sed -E 's/^(not )?ok ([0-9]+) .*/\2/' | tr '\n' ' ')" "$(seq -s ' ' 1 "$n") "
    for f in "$L"/wrong/*.patch; do
        [ -x "$L/build/emu/wrong/$(basename "$f" .patch)" ] || fail "no build/emu/wrong/$(basename "$f" .patch)"
    done
}

@test "make -j at the top gives the lessons' makes its -j without a word about its jobserver" {
    printf 'all:\n\t@%s/scripts/each-lesson.sh help %s\n' "$REPO" "$T/lessons/01-shfl-reduction" \
        >"$BATS_TEST_TMPDIR/Makefile"
    run make -j2 --no-print-directory -C "$BATS_TEST_TMPDIR"
    echo "$output"
    assert_success
    assert_line --partial '01-shfl-reduction: ok'
    refute_output --partial 'jobserver'
    refute_output --partial 'warning'
}

@test "make check-wrong rejects a JOBS that is not a count, WRONG that names no file, and MINE that is not a plain name" {
    run make --no-print-directory -C "$T/lessons/01-shfl-reduction" check-wrong JOBS=0
    assert_failure 2
    assert_output --partial 'JOBS=0: JOBS is how many wrong fixes make check-wrong checks at once'
    run make --no-print-directory -C "$T/lessons/01-shfl-reduction" check-wrong \
        WRONG="wrong/leader-lane-31.patch wrong/no-such-fix.patch"
    assert_failure 2
    assert_output --partial 'WRONG=wrong/leader-lane-31.patch wrong/no-such-fix.patch: no such file: wrong/no-such-fix.patch'
    run make --no-print-directory -C "$T/lessons/01-shfl-reduction" check JOBS=abc
    assert_failure 2
    run make --no-print-directory -C "$T/lessons/01-shfl-reduction" check EMU=1 SRC=sync.cu MINE=../elsewhere
    assert_failure 2
    assert_output --partial 'MINE=../elsewhere: a name such as mine or wrong/NAME'
}

@test "make test ends with one line counting passed, failed and skipped tests, and keeps bats's exit status" {
    # a clean environment: bats run inside bats would inherit its variables
    # and its own folders in PATH
    local path
    path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v bats | paste -sd:)
    run env -i PATH="$path" HOME="$HOME" make --no-print-directory -C "$REPO" test TESTS=tests/fixtures/tap/mixed.bats
    echo "$output"
    assert_failure
    assert_line --regexp '^not ok 2 a test that fails$'
    assert_equal "${lines[-2]}" '2 passed, 1 failed, 1 skipped'
    assert_line --regexp '^make: \*\*\* .*test\] Error 1$'
    run env -i PATH="$path" HOME="$HOME" make --no-print-directory -C "$REPO" test TESTS=tests/fixtures/tap/pass.bats
    echo "$output"
    assert_success
    assert_equal "${lines[-1]}" '1 passed, 0 failed'
}

@test "make check on warpsim runs lessons side by side, each one's output whole and in order" {
    local t=$BATS_TEST_TMPDIR
    mkdir -p "$t/81-first" "$t/82-second"
    # the first ends only once the second has started: together or not at all
    printf 'check:\n\t@echo first starts\n\t@for i in $$(seq 50); do [ -f %s/second ] && break; sleep 0.1; done\n\t@[ -f %s/second ]\n\t@echo "3 passed, 0 failed"\n' "$t" "$t" >"$t/81-first/Makefile"
    printf 'check:\n\t@touch %s/second\n\t@echo second runs\n\t@echo "skipped: nothing here"\n' "$t" >"$t/82-second/Makefile"
    EMU=1 LESSON_JOBS=2 run "$REPO/scripts/each-lesson.sh" check "$t/81-first" "$t/82-second"
    echo "$output"
    assert_success
    assert_equal "$(grep -nE '^(first starts|second runs|==== 8)' <<<"$output" | cut -d: -f2- | tr '\n' '|')" \
        "==== 81-first: make check|first starts|==== 82-second: make check|second runs|"
    assert_line --regexp '^81-first: ok \(3 passed, 0 failed\) in [0-9]+ s$'
    assert_line --regexp '^82-second: skipped \(nothing here\) in [0-9]+ s$'
    assert_line --regexp '^lessons: 1 ok, 0 failed, 1 skipped in [0-9]+ s$'
    # one at a time, the first waits for a second that never starts
    rm -f "$t/second"
    EMU=1 LESSON_JOBS=1 run "$REPO/scripts/each-lesson.sh" check "$t/81-first" "$t/82-second"
    assert_failure 1
    assert_line --partial '81-first: FAILED'
    EMU=1 LESSON_JOBS=abc run "$REPO/scripts/each-lesson.sh" check "$t/81-first"
    assert_failure 2
    assert_output 'each-lesson.sh: LESSON_JOBS=abc: a count of lessons, 1 or more'
}

@test "the top-level make bench without a GPU runs only warpsim's throughput benchmark" {
    mkdir -p "$BATS_TEST_TMPDIR/ws"
    printf 'bench:\n\t@echo "model  M acc/s"; echo "its  21.0"\n' >"$BATS_TEST_TMPDIR/ws/Makefile"
    BENCH_GPU=0 WARPSIM_DIR="$BATS_TEST_TMPDIR/ws" run "$REPO/scripts/bench-all.sh" "$REPO/lessons/06-block-reduce"
    echo "$output"
    assert_success
    assert_line "bench: no GPU found (nvidia-smi lists none): the lessons' benchmarks need one"
    assert_line '==== warpsim: make bench'
    assert_line 'warpsim: ok'
    assert_line '    its  21.0'
    refute_output --partial '06-block-reduce'
    rm "$BATS_TEST_TMPDIR/ws/Makefile"
    BENCH_GPU=0 WARPSIM_DIR="$BATS_TEST_TMPDIR/ws" run "$REPO/scripts/bench-all.sh" "$REPO/lessons/06-block-reduce"
    assert_success
    assert_line --partial "warpsim: its throughput benchmark is not available"
}

@test "the top-level make bench with a GPU runs each lesson's benchmark in order and collects its summary" {
    local d=$BATS_TEST_TMPDIR/lessons
    mkdir -p "$d/01-a" "$d/02-b" "$d/03-c"
    printf 'bench:\n\t@echo timing; echo "summary: 1.01 x CUB"; echo "summary: goal met"\n' >"$d/01-a/Makefile"
    printf 'bench:\n\t@echo "02-b: no benchmark in this lesson"\n' >"$d/02-b/Makefile"
    printf 'bench:\n\t@echo "check failed"; exit 1\n' >"$d/03-c/Makefile"
    mkdir -p "$BATS_TEST_TMPDIR/ws"
    BENCH_GPU=1 WARPSIM_DIR="$BATS_TEST_TMPDIR/ws" run "$REPO/scripts/bench-all.sh" \
        "$d/01-a" "$d/02-b" "$d/03-c"
    echo "$output"
    assert_failure 1
    assert_line '==== [1/3] 01-a: make bench'
    assert_line '==== [3/3] 03-c: make bench'
    assert_line --regexp '^01-a: ok \([0-9]+s\)$'
    assert_line '    1.01 x CUB'
    assert_line '    goal met'
    assert_line '02-b: no benchmark'
    assert_line --regexp '^03-c: FAILED \(exit status [0-9]+\)$'
    assert_line --partial 'warpsim: its throughput benchmark is not available'
    assert_line 'lessons: 1 benchmarked, 1 failed, 0 skipped, 1 without a benchmark'
}
