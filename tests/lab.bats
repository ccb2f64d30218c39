#!/usr/bin/env bats
# Lab mode: make grade scores learners' files; make doctor describes the machine;
# the top-level make check, check-wrong and bench run the lessons.

setup_file() {
    load helper
    make -s --no-print-directory -C "$REPO/warpsim" >/dev/null
    # lessons 01 and 04 of their own, so that grading them here and the
    # checks of tests/lessons.bats never build the same program at once
    lesson_sandbox "$BATS_FILE_TMPDIR/tree" 01-shfl-reduction 04-match-any
}

setup() {
    load helper
    T=$BATS_FILE_TMPDIR/tree
}

# Two lessons stand for all in the two tests of make grade's score:
# tests/lessons.bats checks every lesson's sync.cu as a learner's file
# (make check SRC=), which is what grade.sh runs for each lesson.
# The top-level Makefile grades $(LESSONS) with scripts/grade.sh; here
# grade.sh grades the two of the sandbox.

@test "make grade gives the reference sync.cu files full marks and exits 0" {
    run make --no-print-directory -n -C "$REPO" grade
    assert_output --partial 'scripts/grade.sh lessons/01-shfl-reduction'
    GRADE_FILE=sync.cu run "$REPO/scripts/grade.sh" "$T/lessons/01-shfl-reduction" "$T/lessons/04-match-any"
    echo "$output"
    assert_success
    assert_line --regexp '^01-shfl-reduction +10/10 '
    assert_line --regexp '^04-match-any +([0-9]+)/\1 '
    assert_line --regexp '^Score ([0-9]+)/\1$'
}

@test "make grade does not give the legacy.cu files full marks, and exits 1" {
    GRADE_FILE=legacy.cu run "$REPO/scripts/grade.sh" "$T/lessons/01-shfl-reduction" "$T/lessons/04-match-any"
    echo "$output"
    assert_failure
    assert_line --regexp '^01-shfl-reduction +0/10 '
    assert_line --regexp '^Score [0-9]+/[0-9]+$'
    refute_line --regexp '^Score ([0-9]+)/\1$'
}

@test "a lesson without the learner's file scores 0 and says what to do" {
    run "$REPO/scripts/grade.sh" "$T/lessons/01-shfl-reduction"
    assert_failure 1
    assert_line --partial '0/10  (no mine.cu: copy legacy.cu to mine.cu and fix it)'
    assert_line 'Score 0/10'
}

@test "a lesson with a starter names the starter, not legacy.cu, when the learner's file is missing" {
    local t=$BATS_TEST_TMPDIR
    mkdir -p "$t/98-exercise" "$t/97-readme" "$t/96-stale"
    touch "$t/98-exercise/exercise.cu" "$t/98-exercise/legacy.cu"
    touch "$t/97-readme/start.cu"
    printf 'Fix it:\n\n```sh\ncp start.cu mine.cu   # edit mine.cu\n```\n' >"$t/97-readme/README.md"
    printf 'cp gone.cu mine.cu\n' >"$t/96-stale/README.md"
    run "$REPO/scripts/grade.sh" "$t/98-exercise" "$t/97-readme" "$t/96-stale"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^98-exercise +0/10  \(no mine.cu: copy exercise.cu to mine.cu and fix it\)$'
    assert_line --regexp '^97-readme +0/10  \(no mine.cu: copy start.cu to mine.cu and fix it\)$'
    assert_line --regexp '^96-stale +0/10  \(no mine.cu: copy legacy.cu to mine.cu and fix it\)$'
    run "$REPO/scripts/grade.sh" "$REPO/lessons/03-syncwarp-races"
    assert_line --partial '(no mine.cu: copy exercise.cu to mine.cu and fix it)'
}

@test "make grade prints where a lesson lost points and writes Gradescope's results.json" {
    local out=$BATS_TEST_TMPDIR/reports
    JUNIT=$out GRADE_FILE=wrong/leader-lane-31.cu run "$REPO/scripts/grade.sh" "$T/lessons/01-shfl-reduction"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^01-shfl-reduction +[0-9]/10 '
    assert_line --regexp '^    first problem: warp [0-9]+: expected -?[0-9]+ got -?[0-9]+$'
    assert_line --regexp '^Score [0-9]/10$'
    [ -f "$out/results.json" ] || fail "no results.json"
    [ -f "$out/grade.xml" ] || fail "no grade.xml"
    run python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t = r["tests"]
assert len(t) == 1 and t[0]["name"] == "01-shfl-reduction", t
assert t[0]["max_score"] == 10 and 0 <= t[0]["score"] < 10, t
assert "first problem: warp" in t[0]["output"], t
assert r["score"] == t[0]["score"]
print("ok")' "$out/results.json"
    assert_output ok
    run python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); print(len(d.getElementsByTagName("failure")))' "$out/grade.xml"
    assert_output 1
}

@test "a file that prints a passing verdict and exits scores 0" {
    GRADE_FILE=wrong/prints-verdict.cu run "$REPO/scripts/grade.sh" "$T/lessons/01-shfl-reduction"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^01-shfl-reduction +0/10 '
    assert_line --regexp '^    first problem: prints-verdict.cu:[0-9]+: an attribute on pass is not allowed \(constructor\)$'
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
    for f in "$L"/wrong/*.cu; do
        case "${f##*/}" in activemask-mask.cu|leader-lane-31.cu|no-syncthreads.cu) ;; *) rm "$f" ;; esac
    done
    n=$(find "$L/wrong" -name '*.cu' | wc -l)
    assert_equal "$n" 3
    JOBS=2 EMU=1 run "$REPO/scripts/each-lesson.sh" check-wrong "$L" "$BATS_TEST_TMPDIR/99-none"
    echo "$output"
    assert_success
    assert_line --regexp '^01-shfl-reduction: ok \([0-9]+ passed, 0 failed\) in [0-9]+ s$'
    assert_line --regexp '^99-none: skipped \(99-none has no wrong fixes'
    assert_equal "$(grep -E '^(not )?ok [0-9]+ - wrong/' <<<"$output" | sed -E 's/^(not )?ok ([0-9]+) .*/\2/' | tr '\n' ' ')" "$(seq -s ' ' 1 "$n") "
    for f in "$L"/wrong/*.cu; do
        [ -x "$L/build/emu/wrong/$(basename "$f" .cu)" ] || fail "no build/emu/wrong/$(basename "$f" .cu)"
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
        WRONG="wrong/leader-lane-31.cu wrong/no-such-fix.cu"
    assert_failure 2
    assert_output --partial 'WRONG=wrong/leader-lane-31.cu wrong/no-such-fix.cu: no such file: wrong/no-such-fix.cu'
    run make --no-print-directory -C "$T/lessons/01-shfl-reduction" check JOBS=abc
    assert_failure 2
    run make --no-print-directory -C "$T/lessons/01-shfl-reduction" check EMU=1 SRC=sync.cu MINE=../elsewhere
    assert_failure 2
    assert_output --partial 'MINE=../elsewhere: a name such as mine or wrong/NAME'
}

@test "make grade takes GRADE_FILE as an absolute path too" {
    cp "$T/lessons/01-shfl-reduction/sync.cu" "$BATS_TEST_TMPDIR/fix.cu"
    GRADE_FILE=$BATS_TEST_TMPDIR/fix.cu run "$REPO/scripts/grade.sh" "$T/lessons/01-shfl-reduction"
    echo "$output"
    assert_success
    assert_line --regexp '^01-shfl-reduction +10/10 '
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
