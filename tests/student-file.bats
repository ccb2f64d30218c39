#!/usr/bin/env bats
# A student's file is device code, proved before it is built
# (scripts/device-only.py, run by mk/lesson.mk before every GPU and warpsim
# build of SRC: make check SRC=, make grade, make check-wrong).
# tests/fixtures/student/cheat-*.cu are files that tried to rewrite their
# own verdict or run code outside a kernel, each marked `// rejected` on
# the line the check must name; right-*.cu are correct CUDA C++ it must
# accept.

setup_file() {
    load helper
    "$REPO/scripts/need-tools.sh" check >/dev/null
    lesson_sandbox "$BATS_FILE_TMPDIR/tree" 01-shfl-reduction
}

setup() {
    load helper
    T=$BATS_FILE_TMPDIR/tree
    S=$FIXTURES/student
    CHECK=$REPO/scripts/device-only.py
    PY=$(command -v /usr/bin/python3 || command -v python3)
}

# lesson_of FILE: the lesson a fixture is written for (-NN.cu: lesson NN;
# else 01).
lesson_of() {
    local n=${1##*-}
    n=${n%.cu}
    case "$n" in [0-9][0-9]) lesson_name "$n" ;; *) lesson_name 01 ;; esac
}

# check_all LESSON FILE...: device-only.py on the FILEs (names relative to
# the fixtures' folder), in one process; its output in $output.
check_all() {
    local lesson=$1; shift
    cd "$S" && run "$PY" "$CHECK" --lesson "$REPO/lessons/$lesson" "$@"
    echo "$output"
}

@test "each cheating file is refused at the line that does it, with what is not allowed" {
    local f want got n=0 out=''
    local -a one=() six=()
    for f in "$S"/cheat-*.cu; do
        if [ "$(lesson_of "$f")" = "$(lesson_name 06)" ]; then six+=("${f##*/}"); else one+=("${f##*/}"); fi
    done
    check_all "$(lesson_name 01)" "${one[@]}"
    assert_failure 1
    out=$output
    check_all "$(lesson_name 06)" "${six[@]}"
    assert_failure 1
    out+=$'\n'$output
    for f in "$S"/cheat-*.cu; do
        want=$(grep -n '// rejected' "$f" | head -n 1 | cut -d: -f1)
        [ -n "$want" ] || fail "$f: no line marked // rejected"
        got=$(grep -m 1 "^${f##*/}:" <<<"$out")
        [[ $got == "${f##*/}:$want: "* ]] || fail "${f##*/}: the first line names not line $want: $got"
        [[ $got =~ (not\ allowed|\ only\ |host\ (function|variable)|owns|harness\'s|different\ lines|\ tests\ ) ]] ||
            fail "${f##*/}: the line does not say what is not allowed: $got"
        n=$((n + 1))
    done
    [ "$n" -ge 30 ] || fail "only $n cheating files"
}

@test "correct CUDA C++ is accepted: templates, bool, references, min(), __trap(), assert, Cooperative Groups" {
    local d=$REPO/lessons/$(lesson_name 07)
    check_all "$(lesson_name 01)" right-cxx.cu right-reduce.cu
    assert_success
    assert_output ''
    # Cooperative Groups as a student's copy of lesson 07 has them: the
    # right alternative right/cg-scan.patch made into its file, and cg.cu
    # (tiles of every width, tile.shfl_up, cg::inclusive_scan and
    # cg::exclusive_scan, block.sync())
    "$REPO/scripts/apply-fix.sh" "$d/right/cg-scan.patch" "$d/sync.cu" "$BATS_TEST_TMPDIR/cg-scan.cu"
    check_all "$(lesson_name 07)" "$BATS_TEST_TMPDIR/cg-scan.cu" "$d/cg.cu"
    assert_success
    assert_output ''
}

@test "every lesson file a student may start from is device code: legacy.cu, sync.cu, the starters, the right alternatives, the wrong fixes that fail at run time" {
    local d f out files n=0
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        d=${d%/}
        files=()
        for f in "$d"/legacy.cu "$d"/sync.cu "$d"/exercise.cu "$d"/right/*.cu "$d"/wrong/*.cu; do
            [ -f "$f" ] && files+=("$f")
        done
        # the patches, made into the files they stand for (as make check does)
        for f in "$d"/right/*.patch "$d"/wrong/*.patch; do
            [ -f "$f" ] || continue
            # a wrong fix that prints its own verdict is host code: refused here
            [[ $f != */wrong/prints-verdict.patch ]] || continue
            out=$BATS_TEST_TMPDIR/${d##*/}/$(basename "$(dirname "$f")")/$(basename "$f" .patch).cu
            mkdir -p "${out%/*}"
            "$REPO/scripts/apply-fix.sh" "$f" "$d/sync.cu" "$out" || fail "$f does not apply"
            files+=("$out")
        done
        run "$PY" "$CHECK" --lesson "$d" "${files[@]}"
        [ "$status" -eq 0 ] || { echo "$output"; fail "${d##*/}: a file refused"; }
        n=$((n + ${#files[@]}))
    done
    echo "$n files accepted"
    [ "$n" -ge 75 ]
}

@test "a wrong fix that prints its own verdict is refused before it is built" {
    local out=$BATS_TEST_TMPDIR/prints-verdict.cu
    "$REPO/scripts/apply-fix.sh" "$REPO/lessons/01-shfl-reduction/wrong/prints-verdict.patch" \
        "$REPO/lessons/01-shfl-reduction/sync.cu" "$out"
    run "$PY" "$CHECK" --lesson "$REPO/lessons/01-shfl-reduction" "$out"
    echo "$output"
    assert_failure 1
    assert_line --regexp 'prints-verdict.cu:[0-9]+: an attribute on pass is not allowed \(constructor\)$'
}

@test "make check SRC= of a cheating file builds nothing and ends with its locating line" {
    cp "$S/cheat-priority.cu" "$BATS_TEST_TMPDIR/mine.cu"
    run make --no-print-directory -C "$T/lessons/01-shfl-reduction" check EMU=1 SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_failure
    assert_line 'not ok 1 - mine.cu holds device code only (checked before it is built)'
    assert_line '# locate: mine.cu:35: an attribute on lockstep is not allowed (constructor)'
    assert_line '0 passed, 1 failed'
    [ ! -e "$T/lessons/01-shfl-reduction/build/emu/mine" ]
    refute_output --partial 'CC-EMU'
}

@test "SRC= an empty file, a file that defines none of the kernels, a name with a space: one line each" {
    local l=$T/lessons/01-shfl-reduction
    : >"$BATS_TEST_TMPDIR/empty.cu"
    run make --no-print-directory -C "$l" check EMU=1 SRC="$BATS_TEST_TMPDIR/empty.cu"
    echo "$output"
    assert_failure
    assert_line "# locate: empty.cu: the file is empty: it defines none of the lesson's kernels"
    run make --no-print-directory -C "$l" check EMU=1 SRC="$S/no-kernels.cu"
    echo "$output"
    assert_failure
    assert_line "# locate: no-kernels.cu: defines none of the lesson's kernels (block_sum): harness.cu launches those"
    cp "$REPO/lessons/01-shfl-reduction/sync.cu" "$BATS_TEST_TMPDIR/my fix.cu"
    run make --no-print-directory -C "$l" check EMU=1 SRC="$BATS_TEST_TMPDIR/my fix.cu"
    echo "$output"
    assert_failure 2
    assert_equal "${#lines[@]}" 1
    assert_output --partial "a file name with a space, which make cannot take as a file: rename it (say, $BATS_TEST_TMPDIR/my_fix.cu)"
}

@test "under warpsim only the symbols the harness takes stay global in a student's object: its exit is not the harness's" {
    local l=$T/lessons/01-shfl-reduction
    # (C as warpsim compiles lesson files today; refused by device-only.py,
    # so built here with DEVICE_ONLY=0 to test the second wall alone)
    { cat "$S/base.inc"; printf '%s\n' '__device__ void exit(int status) { (void)status; puts("the student'"'"'s exit"); _exit(0); }'; } \
        >"$BATS_TEST_TMPDIR/exit.cu"
    run "$PY" "$CHECK" --lesson "$l" "$BATS_TEST_TMPDIR/exit.cu"
    assert_failure 1
    run make --no-print-directory -C "$l" build/emu/exit MINE=exit DEVICE_ONLY=0 SRC="$BATS_TEST_TMPDIR/exit.cu"
    echo "$output"
    assert_success
    run nm "$l/build/emu/exit"
    assert_line --regexp '^[0-9a-f]+ [tT] block_sum$|^[0-9a-f]+ T _Z9block_sum'
    refute_line --regexp '^[0-9a-f]+ T exit$'
    # the harness's exit(2) on a bad argument is the C library's
    run "$l/build/emu/exit" -n abc
    echo "$output"
    assert_failure 2
    refute_output --partial "the student's exit"
}

@test "device-only.py explains itself and rejects bad usage with exit 2" {
    run "$PY" "$CHECK" --help
    assert_success
    assert_output --partial 'usage: device-only.py'
    run "$PY" "$CHECK"
    assert_failure 2
    run "$PY" "$CHECK" --arch abc "$S/right-cxx.cu"
    assert_failure 2
    assert_output --partial '--arch abc'
    run "$PY" "$CHECK" /nonexistent.cu
    assert_failure 2
    assert_output --partial 'no such file'
}

@test "on the GPU the delay settings are in constant memory, out of reach of a store of the lesson file" {
    need_nvcc
    cd "$REPO/lessons/01-shfl-reduction"
    run nvcc -arch=sm_90 -I../../include -DLESSON_UNIT -DLESSON_LIGHT -ptx -x cu sync.cu -o "$BATS_TEST_TMPDIR/sync.ptx"
    assert_success
    run grep -E 'lesson_delay_(ns|lanes|random|seed)_d;' "$BATS_TEST_TMPDIR/sync.ptx"
    echo "$output"
    assert_equal "$(grep -c '^\.const ' <<<"$output")" 4
}
