#!/usr/bin/env bats
# Every lesson folder (lessons/NN-*/), found here, not listed: its build,
# command line, harness and build/verify, checker, wrong fixes, make run and
# make bench. Each test checks every lesson it applies to (each_lesson in
# tests/helper.bash: several side by side, each lesson's output under its
# name, a failure naming the lessons that failed); what differs from lesson
# to lesson comes from the lesson folder: its Makefile (programs, RUN_ARGS,
# BENCH), its programs' --help (options, demonstrations), its wrong/ folder.
# A new lesson folder is tested here with no new test file. What is one
# lesson's own (exact messages, its demonstrations' bugs, its exercise, its
# benchmark scripts) is in tests/lessons-own.bats.
# TEST_LESSONS="01 04" runs the tests on those lessons only.

setup_file() {
    load helper
    build_lessons
    # The checks of the wrong fixes that never end wait for the checker's
    # timeout: they start now, all at once, and run while the first tests
    # do; their test reads what they printed (check_never_ends).
    start_never_ends
}

setup() {
    load helper
    # make check SRC= builds the learner's programs as build/$MINE, in the
    # working tree's lesson folders: a name of this file's own, so that the
    # files running side by side never build over each other's
    export MINE=mine-lessons
}

# demos PROG: the demonstrations PROG --help lists, one "N NAME" a line.
demos() {
    "$1" --help | sed -nE 's/^ +([0-9]+) +([a-z][a-z-]*): .*/\1 \2/p'
}

# progs_to_test NAME: the lesson's legacy and sync, built for warpsim and,
# where nvcc is, for the GPU (LESSONS_ALONE).
progs_to_test() {
    echo "$E/legacy" "$E/sync"
    if have_nvcc; then echo "$G/build/legacy" "$G/build/sync"; fi
}

@test "every lesson builds alone from a clean copy, with no warnings, every program it has" {
    need_nvcc
    each_lesson assert_builds_alone
}

check_help() {
    local prog opt n k
    for prog in $(progs_to_test); do
        run "$prog" --help
        assert_success
        for opt in --size --seed --threads --variant --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
        # the demonstrations, numbered from 1 on
        n=0
        while read -r k _; do
            n=$((n + 1))
            [ "$k" = "$n" ] || fail "$prog --help: demonstration $k where $n was due"
        done < <(demos "$prog")
        [ "$n" -ge 1 ] || fail "$prog --help lists no demonstration (N  name: ...)"
        echo "$prog --help: $n demonstrations"
    done
}

@test "every lesson's programs explain every option, their demonstrations and the exit status (--help)" {
    each_lesson check_help
}

check_bad_args() {
    local prog p args k st help e out=$BATS_TEST_TMPDIR/$1.out err=$BATS_TEST_TMPDIR/$1.err
    for prog in $(progs_to_test); do
        p=${prog##*/}
        help=$("$prog" --help)
        k=$(demos "$prog" | wc -l)
        local list=("-n 0" "-n -5" "-n abc" "-n" "--bogus" "-b 48" "-b 2048" "-k 0" "-k $((k + 1))"
                    "-k nosuch" "-k bogus" "--variant=nope" "-k" "-s 1x" "-s")
        if [[ $help == *--jitter* ]]; then list+=("-j -1" "-j abc"); fi
        if [[ $help == *--sleepers* ]]; then list+=("--sleepers" "--sleepers bogus"); fi
        for args in "${list[@]}"; do
            st=0
            # shellcheck disable=SC2086
            "$prog" $args >"$out" 2>"$err" </dev/null || st=$?
            mapfile -t e <"$err"
            [ "$st" -eq 2 ] && [ ! -s "$out" ] && [ "${#e[@]}" -eq 1 ] && [[ ${e[0]} == "$p: "* ]] ||
                fail "$prog $args: exit status $st, stdout '$(cat "$out")', stderr '$(cat "$err")'"
        done
        echo "$prog: ${#list[@]} bad argument lists rejected"
    done
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    each_lesson check_bad_args
}

check_by_name() {
    local n name form by_number status_number
    while read -r n name; do
        run --separate-stderr "$E/sync" -k "$n" -n 100
        by_number=$output status_number=$status
        assert_line --index 0 --regexp "^sync\.cu (demonstration|variant) $n \($name: "
        for form in "-k $name" "--variant $name" "--variant=$name"; do
            # shellcheck disable=SC2086
            run --separate-stderr "$E/sync" $form -n 100
            assert_equal "$status" "$status_number"
            assert_equal "$output" "$by_number"
        done
        echo "$n = $name"
    done < <(demos "$E/sync")
}

@test "a demonstration chosen by name runs exactly as the same one chosen by number" {
    each_lesson check_by_name
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    each_lesson assert_check_passes
}

# check_src_sync NAME: make check SRC= of a learner's copy of sync.cu, with
# no DEMO=, grades the exercise's parts (exercise.mk) with the sync
# expectations only, and every part passes: sync.cu gets full marks.
check_src_sync() {
    local demo
    assert_src_check_passes "$1"
    for demo in $(exercise_demos "$1"); do
        assert_line "# demo $demo: passed"
    done
}

@test "make check SRC= checks a learner's copy of sync.cu, on the exercise's parts: every one passes" {
    each_lesson check_src_sync
}

@test "legacy.cu, sync.cu and the other files on the harness hold device code only: no main, no host calls, no jitter" {
    each_lesson assert_device_only
}

check_verdict() {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$E/sync" -n 1000
    echo "$output"
    assert_success
    assert_line --regexp '^result: ok '
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    # A stand-in that prints a passing line and exits 0 without results.
    run "$L/build/verify" "$FIXTURES/right.sh" -n 1000
    echo "$output"
    assert_failure 1
    assert_line 'right.sh printed (not the verdict): result: ok (0 of 8 warps wrong)'
    assert_line --partial 'verify: right.sh exited 0 without writing its results'
    assert_line 'result: WRONG (no results written)'
    # The program's own non-zero status passes through.
    run "$L/build/verify" "$FIXTURES/watchdog.sh"
    assert_failure 3
    run "$L/build/verify" "$E/sync" -n abc
    assert_failure 2
    run "$L/build/verify"
    assert_failure 2
}

@test "build/verify gives the verdict: a result line the program prints is only its words" {
    each_lesson check_verdict
}

@test "include/lesson.h makes a large input with threads, and it is the stream one thread makes" {
    cc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -I"$REPO/include" \
        "$FIXTURES/random-ints.c" -o "$BATS_TEST_TMPDIR/random-ints"
    run "$BATS_TEST_TMPDIR/random-ints"
    echo "$output"
    assert_success
    assert_output --regexp '^same: [0-9]+ numbers$'
}

@test "every wrong fix in wrong/ is rejected on warpsim, with a locating line, within the bound (WRONG=: those that end; the next test: the others)" {
    each_lesson assert_wrong_fixes_rejected
}

# ---- wrong/ and right/: patches of sync.cu ---------------------------------

@test "every patch in wrong/ and right/ applies to its lesson's sync.cu as it is, and makes the file it stands for: its reason, then sync.cu edited" {
    local name p out=$BATS_TEST_TMPDIR/made.cu n=0
    for name in $(lessons); do
        for p in "$REPO/lessons/$name"/wrong/*.patch "$REPO/lessons/$name"/right/*.patch; do
            [ -f "$p" ] || continue
            n=$((n + 1))
            # (a failure names the patch: "wrong/NAME.patch no longer applies to sync.cu: ...")
            (cd "$REPO/lessons/$name" && "$REPO/scripts/apply-fix.sh" "${p#"$REPO/lessons/$name/"}" sync.cu "$out") ||
                fail "lessons/$name: a patch does not apply (above)"
            assert_equal "$(head -n 1 "$out")" "$(head -n 1 "$p")"
            ! cmp -s <(tail -n +2 "$out") "$REPO/lessons/$name/sync.cu" || fail "$p changes nothing in sync.cu"
        done
    done
    echo "$n patches apply"
}

@test "a patch that no longer applies to sync.cu fails in one line naming it: apply-fix.sh, make check SRC=, make check-wrong" {
    local L=$BATS_TEST_TMPDIR/tree/lessons/01-shfl-reduction
    lesson_sandbox "$BATS_TEST_TMPDIR/tree" 01-shfl-reduction
    # sync.cu moves on: the line the patch changes is written another way
    sed -i 's/for (offset = 16; offset > 0; offset \/= 2)/for (offset = 16; offset != 0; offset \/= 2)/' "$L/sync.cu"
    cd "$L"
    run --separate-stderr "$REPO/scripts/apply-fix.sh" wrong/never-ends.patch sync.cu "$BATS_TEST_TMPDIR/x.cu"
    assert_failure 1
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" '^wrong/never-ends\.patch no longer applies to sync\.cu: '
    [ ! -e "$BATS_TEST_TMPDIR/x.cu" ]
    run --separate-stderr make --no-print-directory -C "$L" check EMU=1 SRC=wrong/never-ends.patch
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'SRC=wrong/never-ends\.patch no longer applies to sync\.cu: '
    run make --no-print-directory -s -C "$L" check-wrong-one EMU=1 FIX_N=3 FIX_FILE=wrong/never-ends.patch
    assert_success
    assert_output --regexp '^not ok 3 - wrong/never-ends\.patch no longer applies to sync\.cu: '
    # a first line that is no reason
    printf '%s\n' '--- a/sync.cu' >"$BATS_TEST_TMPDIR/bare.patch"
    run --separate-stderr "$REPO/scripts/apply-fix.sh" "$BATS_TEST_TMPDIR/bare.patch" "$L/sync.cu" "$BATS_TEST_TMPDIR/x.cu"
    assert_failure 1
    assert_regex "$stderr" 'its first line is not its reason'
}

@test "make check SRC=wrong/NAME.patch checks the file the patch makes, build/wrong/NAME.cu, on everything sync.cu meets" {
    local L=$REPO/lessons/01-shfl-reduction
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 SRC=wrong/no-syncthreads.patch
    echo "$output"
    assert_failure
    refute_line --partial '# grading the exercise'
    assert_line --regexp '^# locate: warpsim: race on shared partial\[[0-9]+\]: .* at no-syncthreads\.cu:[0-9]+'
    assert_equal "$(head -n 1 "$L/build/wrong/no-syncthreads.cu")" "$(head -n 1 "$L/wrong/no-syncthreads.patch")"
    run make --no-print-directory -C "$L" build/wrong/leader-lane-31.cu
    assert_success
    assert_equal "$(head -n 1 "$L/build/wrong/leader-lane-31.cu")" "$(head -n 1 "$L/wrong/leader-lane-31.patch")"
}

# check_right NAME: lessons/NAME/right/ holds at least two right
# alternatives, each with its /* right: ... */ first line, and make
# check-right on warpsim runs and passes every one, those in CUDA C++
# (min(), Cooperative Groups) too: none is skipped.
check_right() {
    local f n=0 ran
    for f in "$L"/right/*.patch "$L"/right/*.cu; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        head -n 1 "$f" | grep -qE '^/\* right: .+ \*/$' || fail "$f: no /* right: ... */ first line"
    done
    [ "$n" -ge 2 ] || fail "only $n right alternatives in $L/right"
    run make --no-print-directory -C "$L" check-right EMU=1 JOBS="${TEST_JOBS:-2}"
    echo "$output"
    assert_success
    assert_line "1..$n"
    refute_line --regexp '^not ok'
    refute_line --partial ' # SKIP '
    ran=$(grep -cE '^ok [0-9]+ - right/[^ ]+ passed on DEMO="[^"]+" in [0-9]+s \(' <<<"$output")
    assert_equal "$ran" "$n"
    assert_line "$n passed, 0 failed"
}

@test "every right alternative in right/ passes make check-right on warpsim, those in CUDA C++ (min(), Cooperative Groups) too" {
    each_lesson check_right
}

# ---- the exercise (exercise.mk) ---------------------------------------------

# exercise_demos NAME: the demonstrations lessons/NAME's exercise grades, in
# order (EXERCISE_PARTS, NAME:POINTS each).
exercise_demos() {
    sed -n 's/^EXERCISE_PARTS := //p' "$REPO/lessons/$1/exercise.mk" | tr ' ' '\n' | sed -n 's/:.*//p'
}

# check_exercise_declared NAME: lessons/NAME/exercise.mk names a starter
# that is there and parts NAME:POINTS whose names are demonstrations of the
# lesson (its programs' --help) and whose points add up to 10; the lesson
# has a reference solution, tests/fixtures/exercises/NAME.patch, a patch of
# that starter (exercise_solution).
check_exercise_declared() {
    local starter part names total=0
    starter=$(sed -n 's/^EXERCISE_STARTER := //p' "$L/exercise.mk")
    [ -n "$starter" ] && [ -f "$L/$starter" ] || fail "$1: EXERCISE_STARTER '$starter' is no file of the lesson"
    names=" $(demos "$E/sync" | cut -d' ' -f2 | paste -sd' ') "
    for part in $(sed -n 's/^EXERCISE_PARTS := //p' "$L/exercise.mk"); do
        [[ $part =~ ^([a-z][a-z0-9-]*):([1-9][0-9]*)$ ]] || fail "$1: part '$part' is not NAME:POINTS"
        [[ $names == *" ${BASH_REMATCH[1]} "* ]] || fail "$1: part ${BASH_REMATCH[1]} is no demonstration of ($names)"
        total=$((total + BASH_REMATCH[2]))
    done
    assert_equal "$total" 10
    [ -f "$FIXTURES/exercises/$1.patch" ] || fail "$1: no reference solution tests/fixtures/exercises/$1.patch"
    echo "$1: $starter, $(sed -n 's/^EXERCISE_PARTS := //p' "$L/exercise.mk")"
}

@test "every lesson declares its exercise once (exercise.mk): a starter, parts that are its demonstrations, 10 points" {
    each_lesson check_exercise_declared
}

# check_exercise NAME: the reference solution of the lesson's exercise
# scores full marks in make grade (scripts/grade.py, which gives each part
# its points from the check's "# demo NAME:" lines); make check SRC= of the
# untouched starter, with no DEMO=, says in one line that it grades the
# exercise's parts, ends with a line for each, and fails one at least.
check_exercise() {
    local parts starter
    parts=$(exercise_demos "$1" | paste -sd' ')
    exercise_solution "$1" "$BATS_TEST_TMPDIR/$1.cu"
    GRADE_FILE="$BATS_TEST_TMPDIR/$1.cu" run "$REPO/scripts/grade.py" "$L"
    echo "$output"
    assert_success
    assert_line --regexp "^$1 +10/10  \\("
    assert_line 'Score 10/10'
    starter=$(sed -n 's/^EXERCISE_STARTER := //p' "$L/exercise.mk")
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 SRC="$starter"
    echo "$output"
    assert_failure
    assert_line "# grading the exercise: DEMO=\"$parts\"; DEMO= names others, DEMO=all every one"
    assert_equal "$(grep -c '^# demo ' <<<"$output")" "$(wc -w <<<"$parts")"
    assert_line --regexp '^# demo [a-z-]+: FAILED$'
    refute_line --regexp '^# demo [a-z-]+: passed$'
}

@test "each lesson's exercise: its reference solution scores 10/10 in make grade, its untouched starter fails a part" {
    each_lesson check_exercise
}

# What locates a wrong fix that never ends, where more is known than the
# generic: in lesson 03 warpsim sees lanes wait in __syncwarp for lanes
# that spin, every time.
declare -gA NEVER_ENDS_LOCATE=(
    [03-syncwarp-races]='^# locate: HANG detected: .* at hang-spins\.cu:[0-9]+'
)

# start_never_ends: for each lesson's never_ends file F, in the background,
# make check SRC=F DEMO=all (built as build/emu/F's name), its output and "STATUS
# SECONDS" kept in $BATS_FILE_TMPDIR/never-ends/LESSON-F.out and .rc.
start_never_ends() {
    local name f d=$BATS_FILE_TMPDIR/never-ends
    mkdir -p "$d"
    for name in $(lessons); do
        for f in $(never_ends "$name"); do
            (
                start=$SECONDS rc=0
                make --no-print-directory -C "$REPO/lessons/$name" check EMU=1 SRC="$f" DEMO=all \
                    MINE="$(basename "$f" .patch)" >"$d/$name-$(basename "$f" .patch).out" 2>&1 || rc=$?
                echo "$rc $((SECONDS - start))" >"$d/$name-$(basename "$f" .patch).rc"
            ) </dev/null >/dev/null 2>&1 3>&- &
        done
    done
}

# check_never_ends NAME: make check SRC=wrong/F.patch of each wrong fix
# whose kernel never ends (never_ends, started by start_never_ends) ended
# within 60 s, with the kernel it was stopped in (one the file it makes,
# build/wrong/F.cu, defines) or warpsim's hang at a line of that file, and
# said that the other runs were not run.
check_never_ends() {
    local f base kernels took i d=$BATS_FILE_TMPDIR/never-ends
    for f in $(never_ends "$1"); do
        base=$(basename "$f" .patch)
        for ((i = 0; i < 120; i++)); do
            [ ! -s "$d/$1-$base.rc" ] || break
            sleep 1
        done
        [ -s "$d/$1-$base.rc" ] || fail "wrong/$base.patch: no end of its check after 120 s here"
        read -r status took <"$d/$1-$base.rc"
        output=$(cat "$d/$1-$base.out")
        mapfile -t lines <"$d/$1-$base.out"
        echo "$output"
        echo "wrong/$base.patch: exit status $status in ${took}s"
        assert_failure
        [ "$took" -lt 60 ] || fail "wrong/$base.patch: took ${took}s"
        kernels=$(sed -nE 's/^__global__ void ([A-Za-z_0-9]+)\(.*/\1/p' "$L/build/wrong/$base.cu" | paste -sd'|')
        assert_line --regexp "^# locate: (it never ended: stopped after [0-9]+s in kernel ($kernels)<<<|HANG detected: .* at ${base}\\.cu:[0-9]+)"
        if [ -n "${NEVER_ENDS_LOCATE[$1]:-}" ]; then
            assert_line --regexp "${NEVER_ENDS_LOCATE[$1]}"
        fi
        assert_line --regexp '^# [0-9]+ more runs not run after a program hung or crashed'
    done
}

@test "a check of a file whose kernel never ends ends within 60 s on warpsim" {
    [ -d "$BATS_FILE_TMPDIR/never-ends" ] || start_never_ends
    each_lesson -j 8 check_never_ends
}

check_bad_settings() {
    local args
    for args in "SRC=does-not-exist.cu" "SRC=/tmp" "EMU=2" "EMU=abc" "PASCAL=2"; do
        # shellcheck disable=SC2086
        run --separate-stderr make --no-print-directory -C "$L" check $args
        echo "$args -> $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" "$1: ${args%%=*}="
    done
}

@test "SRC= that is no file, and EMU= or PASCAL= other than 1, are one line and exit 2" {
    each_lesson check_bad_settings
}

# check_run NAME: make run runs legacy and sync on warpsim with the
# Makefile's RUN_ARGS, their -n made 64K (one -n), sync right; a program
# that rejects its arguments fails make run.
check_run() {
    local args
    args=$(sed -n 's/^RUN_ARGS := //p' "$L/Makefile" | sed -E 's/(^| )-n [^ ]+//g; s/^ +//')
    run make --no-print-directory -C "$L" run
    echo "$output"
    assert_success
    assert_line "\$ build/emu/legacy ${args:+$args }-n 64K"
    assert_line "\$ build/emu/sync ${args:+$args }-n 64K"
    assert_equal "$(sed -n '/^\$ build\/emu\/sync /,$p' <<<"$output" | grep -c '^result: ok ')" 1
    run make --no-print-directory -C "$L" run ARGS="-n abc"
    assert_failure 2
}

@test "make run runs on warpsim without a GPU, with one -n, and fails on bad arguments" {
    have_gpu && skip "a GPU is here: make run uses it"
    each_lesson check_run
}

check_jobs() {
    run make --no-print-directory -C "$L" -pq emu
    assert_line --regexp "^MAKEFLAGS = .*-j$(nproc)( |$)"
    run make --no-print-directory -C "$L" -j1 -pq emu
    assert_line --regexp '^MAKEFLAGS = .*-j1( |$)'
}

@test "a lesson builds its programs side by side by default, one per core; make -j1 one at a time" {
    each_lesson check_jobs
}

# check_bench NAME: without a GPU make bench succeeds and says why nothing
# was measured: the lesson has no benchmark, or it needs a GPU.
check_bench() {
    run make --no-print-directory -C "$L" bench
    echo "$output"
    assert_success
    if grep -q '^BENCH :=' "$L/Makefile"; then
        assert_line --regexp "^$1: no GPU found \\(nvidia-smi lists none\\): "
    else
        assert_line "$1: no benchmark in this lesson"
    fi
}

@test "make bench without a GPU says why nothing was measured and succeeds" {
    have_gpu && skip "a GPU is present: make bench would measure for real"
    need_nvcc
    each_lesson check_bench
}
