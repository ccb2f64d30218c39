#!/usr/bin/env bats
# What is one lesson's own: its programs' exact messages and other
# options, its demonstrations' bugs on warpsim and on the GPU, its checker's
# expectations (with stand-in programs), its exercise, its benchmark
# programs and scripts. What every lesson shares is tested in
# tests/lessons.bats, for every lesson folder there is. Each test names its
# lesson first.

setup_file() {
    load helper
    build_lessons
}

setup() {
    load helper
    # make check SRC= builds the learner's programs as build/$MINE, in the
    # working tree's lesson folders: a name of this file's own, so that the
    # files running side by side never build over each other's
    export MINE=mine-own
}

# lesson NN: sets N (the lesson folder's name), L (the folder), G (the
# folder in LESSONS_ALONE, where the GPU programs are) and E (its warpsim
# programs) for lesson NN.
lesson() {
    N=$(lesson_name "$1") || fail "no lesson $1"
    L=$REPO/lessons/$N
    G=$(gpu_dir "$N")
    E=$L/build/emu
}

# ==== lesson 01 ============================================================
@test "lesson 01: --help names --jitter, the shfl variant, --sleepers and --dump" {
    lesson 01
    need_nvcc
    for prog in sync legacy; do
        run "$G/build/$prog" --help
        assert_success
        assert_output --partial -- --jitter
    done
    run "$G/build/sync" --help
    assert_line --partial '2  shfl: legacy.cu mask-less __shfl_down; sync.cu __shfl_xor_sync butterfly'
    assert_output --partial -- '--sleepers PATTERN'
    assert_output --partial -- '--dump FILE'
}

@test "lesson 01: a variant out of range is named with the range" {
    lesson 01
    need_nvcc
    run --separate-stderr "$G/build/legacy" -k 3
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant must be between 1 and 2 (got 3)"
}

@test "lesson 01: an n larger than the GPU's memory gives one line and exit 2" {
    lesson 01
    need_gpu
    run --separate-stderr "$G/build/sync" -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "lesson 01: the sync version matches the CPU on the GPU, under jitter too" {
    lesson 01
    need_gpu
    run "$G/build/sync" -n 100000 -j 200 -k 2
    assert_success
    assert_line --regexp '^result: ok \(0 of [0-9]+ warps wrong, 0 of [0-9]+ blocks wrong\)$'
}

@test "lesson 01: on warpsim the legacy tree is wrong under its with -j 200 and right under lockstep" {
    lesson 01
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" --model its "$L/build/emu/legacy" -k 1 -n 2048 -j 200
    echo "$output"
    assert_failure 1
    assert_line --regexp '^result: WRONG \([1-9][0-9]* of 64 warps wrong'
    run "$L/build/verify" --model lockstep "$L/build/emu/legacy" -k 1 -n 2048 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 64 warps wrong, 0 of 8 blocks wrong)'
    # Every sleeper pattern leaves sync.cu right under every model.
    for sleepers in odd even upper lower leader random; do
        for model in lockstep its random; do
            run "$L/build/verify" --model "$model" "$L/build/emu/sync" -k 1 -n 2048 -j 200 --sleepers "$sleepers"
            assert_success
        done
    done
}

@test "lesson 01: build/verify's verdict on a right run of lesson 01, its one result line" {
    lesson 01
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 32 warps wrong, 0 of 4 blocks wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
}

@test "lesson 01: make run's sync run on warpsim gets every warp right" {
    lesson 01
    have_gpu && skip "a GPU is here: make run uses it"
    run make --no-print-directory -C "$L" run
    echo "$output"
    assert_success
    assert_line '$ build/emu/legacy -j 200 -n 64K'
    assert_line --regexp '^result: ok \(0 of 2048 warps wrong'
}

@test "lesson 01: on the GPU target every run, the sanitizer's too, goes through build/verify" {
    lesson 01
    # warpsim builds stand in for GPU programs, a script for compute-sanitizer
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/sanitize-check.sh" --target gpu --only-sync \
        --name mine.cu --verify "$L/build/verify" --sync "$L/build/emu/sync"
    echo "$output"
    assert_success
    assert_line 'ok 1 - mine.cu: racecheck finds no hazard'
    assert_line 'ok 2 - mine.cu: n=1000 jitter=200ns matches CPU'
    # a file that prints a passing verdict fails there too, sanitizer run
    # included (built past scripts/device-only.py, which refuses it first)
    make -s --no-print-directory -C "$L" EMU=1 DEVICE_ONLY=0 SRC=wrong/prints-verdict.patch "build/emu/$MINE" >/dev/null
    SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/sanitize-check.sh" --target gpu --only-sync \
        --name prints-verdict.cu --verify "$L/build/verify" --sync "$L/build/emu/$MINE"
    echo "$output"
    assert_failure 1
    assert_line 'not ok 1 - prints-verdict.cu: racecheck finds no hazard'
    assert_line --partial "verify: $MINE exited 0 without writing its results"
    refute_line --regexp '^ok '
}

@test "lesson 01: the exercise is graded on the tree alone: make check SRC= says so and passes a __syncwarp fix; DEMO=all grades variant 2 too" {
    lesson 01
    local mine=$BATS_TEST_TMPDIR/01-shfl-reduction.cu
    exercise_solution 01-shfl-reduction "$mine"
    # The starter, legacy.cu as it is: it builds, and every tree check fails.
    run make --no-print-directory -C "$L" check EMU=1 SRC=legacy.cu
    echo "$output"
    assert_failure
    assert_line '# grading the exercise: DEMO="tree"; DEMO= names others, DEMO=all every one'
    assert_line --regexp '^0 passed, [1-9][0-9]* failed$'
    assert_line '# demo tree: FAILED'
    refute_line --partial 'variant 2'
    # The reference solution, a fix of the tree without shuffles: read,
    # __syncwarp, write, __syncwarp.
    grep -q '__syncwarp' "$mine"
    ! grep -q '__shfl' <(sed -n '/^__device__ int warp_sum(/,/^}/p' "$mine")
    run make --no-print-directory -C "$L" check EMU=1 SRC="$mine"
    echo "$output"
    assert_success
    assert_line --regexp '^ok [0-9]+ - 01-shfl-reduction.cu: variant 1 n=1000 jitter=200ns, random lanes sleeping, matches CPU$'
    assert_line '# demo tree: passed'
    refute_line --partial 'variant 2'
    refute_line --partial 'not ok'
    # DEMO= names others: the mask-less shuffle of variant 2, which the
    # solution leaves as legacy.cu has it, fails (the check stops there).
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 SRC="$mine" DEMO=all
    echo "$output"
    assert_failure
    refute_line --partial '# grading the exercise'
    assert_line --regexp '^not ok [0-9]+ - 01-shfl-reduction.cu: variant 2 '
    assert_line '# demo tree: passed'
    assert_line '# demo shfl: FAILED'
    DEMO=shfl CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 SRC="$mine"
    assert_failure
    assert_line '# demo shfl: FAILED'
    refute_line --partial '# demo tree'
}

# ==== lesson 02 ============================================================
# stand_ins_02: programs in $BATS_TEST_TMPDIR that answer like the lesson's

# sync.cu (always right) and legacy.cu (every bug shows), and a legacy that

# is always lucky, so that the checker's expectations are tested where no

# GPU is found. On the emu target they also print warpsim's summary line for

# the model in WARPSIM_MODEL, as warpsim would.

stand_ins_02() {
    cat >"$BATS_TEST_TMPDIR/sync" <<'EOF_'
#!/bin/sh
echo "result: ok (stand-in)"
echo "warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model ${WARPSIM_MODEL:-its}, seed 1)"
EOF_
    cp "$BATS_TEST_TMPDIR/sync" "$BATS_TEST_TMPDIR/lucky"
    cat >"$BATS_TEST_TMPDIR/legacy" <<'EOF_'
#!/bin/sh
k=1 c=0 model=${WARPSIM_MODEL:-its}
while [ $# -gt 0 ]; do
    case "$1" in -k) k=$2; shift 2 ;; -c) c=$2; shift 2 ;; *) shift ;; esac
done

right() {
    echo "result: ok (stand-in)"
    echo "warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model $model, seed 1)"
    exit 0
}
case "$k" in
    4) echo "HANG detected: lanes 16-31 spun 9 cycles on a flag while lanes 0-15 waited"; exit 3 ;;
    5|6) right ;;
    1|2) { [ "$c" = 32 ] && { [ "$k" = 2 ] || [ "$model" = lockstep ]; }; } && right
         echo "warpsim: bad shuffle: lane 0 of warp 0 reads lane 16, outside the mask"
         echo "result: WRONG (3 of 8 warp sums wrong)"
         echo "warpsim: 0 races, 0 hangs, 1 warp-primitive error, 0 uninitialized reads, 0 memory errors (model $model, seed 1)" ;;
    3) [ "$model" = lockstep ] && right
       echo "result: WRONG (64 of 256 lanes saw a wrong vote, in 2 of 8 warps)"
       echo "warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model $model, seed 1)" ;;
esac
exit 1
EOF_
    chmod +x "$BATS_TEST_TMPDIR/sync" "$BATS_TEST_TMPDIR/legacy" "$BATS_TEST_TMPDIR/lucky"
}

@test "lesson 02: --help names the six demonstrations and the options of lesson 02" {
    lesson 02
    need_nvcc
    for prog in sync legacy; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --jitter --count --watchdog; do
            assert_output --partial -- "$opt"
        done
        for demo in "1  activemask:" "2  partners:" "3  reconverge:" "4  hang:" "5  exited:" "6  detective:"; do
            assert_line --partial "$demo"
        done
        assert_output --partial 'exit status'
        assert_output --partial -- '--sleepers PATTERN'
        assert_output --partial -- '--dump FILE'
    done
}

@test "lesson 02: a bad count or watchdog, or a variant by a wrong name, gives one line and exit 2" {
    lesson 02
    need_nvcc
    for args in "-c 33" "-c -1" "-w 10"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$G/build/legacy" -k hangs
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant: no variant named 'hangs' (try --help)"
}

@test "lesson 02: a demonstration chosen by name runs exactly as the same one chosen by number" {
    lesson 02
    need_nvcc
    run --separate-stderr "$G/build/legacy" -k 5 -n 100
    local by_number=$output status_number=$status
    assert_line --index 0 --partial 'legacy.cu demonstration 5 (exited:'
    for form in "-k exited" "--variant exited" "--variant=exited"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/legacy" $form -n 100
        assert_equal "$status" "$status_number"
        assert_equal "$output" "$by_number"
    done
}

@test "lesson 02: an n larger than the GPU's memory gives one line and exit 2" {
    lesson 02
    need_gpu
    run --separate-stderr "$G/build/sync" -k reconverge -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "lesson 02: every sync demonstration matches the CPU on the GPU, under jitter too" {
    lesson 02
    need_gpu
    for k in 1 2 3 4 5 6; do
        run "$G/build/sync" -k "$k" -n 5000 -j 200
        echo "$output"
        assert_success
        assert_line --regexp '^result: ok \(0 of [0-9]+ '
    done
}

@test "lesson 02: the legacy hang ends by itself within 10 s, names the lanes and exits 3" {
    lesson 02
    need_gpu
    local start=$SECONDS
    run timeout 30 "$G/build/legacy" -k hang
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in their shuffle for them'
    [ $((SECONDS - start)) -lt 10 ]
}

@test "lesson 02: the checker passes a right sync and a legacy that shows every bug (stand-ins)" {
    lesson 02
    stand_ins_02
    run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/legacy"
    echo "$output"
    assert_success
    assert_line --regexp '^ok [0-9]+ - sync: activemask n=1000 count=0 jitter=0ns matches CPU$'
    assert_line --regexp '^ok [0-9]+ - legacy: activemask gives partial sums once odd lanes sleep 200ns'
    assert_line --regexp '^ok [0-9]+ - legacy: partners is right when all 32 lanes take part'
    assert_line --regexp '^ok [0-9]+ - legacy: partners adds values from lanes outside the mask'
    assert_line --regexp '^ok [0-9]+ - legacy: reconverge votes with half a warp'
    assert_line --regexp '^ok [0-9]+ - legacy: hang: .* the watchdog ends it within 10 s$'
    assert_line '# HANG detected: lanes 16-31 spun 9 cycles on a flag while lanes 0-15 waited'
    assert_line --regexp '^ok [0-9]+ - legacy: exited: a full mask naming lanes that have exited does not hang$'
    assert_line --regexp '^ok [0-9]+ - legacy: detective is the same right code as in sync.cu'
    assert_line --regexp '^ok [0-9]+ - sync: detective n=1000 jitter=200ns, random lanes sleeping, matches CPU$'
    if grep -q '^emulate()' "$REPO/scripts/checklib.sh"; then
        assert_line --regexp '^ok [0-9]+ - legacy: activemask is right under lockstep, as on pre-Volta GPUs'
        assert_line --regexp '^ok [0-9]+ - legacy: partners: warpsim reports shuffles from lanes outside the mask under every model'
        assert_line --regexp '^ok [0-9]+ - legacy: reconverge is right under lockstep'
    fi
    refute_line --partial 'not ok'
    for demo in activemask partners reconverge hang exited detective; do
        assert_line "# demo $demo: passed"
    done
    assert_equal "${lines[-1]}" "$(grep -c '^ok ' <<<"$output") passed, 0 failed"
}

@test "lesson 02: the checker fails a legacy that is right by luck, and says so (stand-ins)" {
    lesson 02
    stand_ins_02
    run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/lucky"
    echo "$output"
    assert_failure 1
    assert_line --partial 'that is luck, not correctness'
    assert_line --regexp '^not ok [0-9]+ - legacy: activemask gives partial sums'
    assert_line --regexp '^not ok [0-9]+ - legacy: partners adds values from lanes outside the mask'
    assert_line --regexp '^not ok [0-9]+ - legacy: reconverge votes with half a warp'
    assert_line --regexp '^not ok [0-9]+ - legacy: hang: '
    assert_line --partial 'the hang did not show on this run'
    refute_line --regexp '^not ok [0-9]+ - sync: '
    # each demonstration's line at the end, from the expectations run side
    # by side: those whose legacy bug did not show failed, the others passed
    assert_equal "$(grep '^# demo ' <<<"$output" | paste -sd' ')" \
        "# demo activemask: FAILED # demo partners: FAILED # demo reconverge: FAILED # demo hang: FAILED # demo exited: passed # demo detective: passed"
    assert_line --regexp '^[0-9]+ passed, [4-9] failed$'
}

@test "lesson 02: DEMO runs only the demonstrations it names, by number or name (stand-ins)" {
    lesson 02
    stand_ins_02
    DEMO="hang 1" run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/legacy"
    echo "$output"
    assert_success
    assert_line --regexp '^ok 1 - sync: hang '
    assert_line --regexp '^ok [0-9]+ - sync: activemask '
    refute_line --partial 'partners'
    refute_line --partial 'reconverge'
    refute_line --partial 'exited'
    assert_equal "$(grep '^# demo ' <<<"$output" | paste -sd' ')" "# demo hang: passed # demo activemask: passed"
    DEMO=all run "$L/check.sh" --target emu --only-sync --sync "$BATS_TEST_TMPDIR/sync"
    assert_success
    assert_equal "$(grep -c '^# demo [a-z]*: passed$' <<<"$output")" 6
    DEMO="3 nosuch" run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/legacy"
    assert_failure 2
    assert_output --partial 'DEMO: no demonstration nosuch'
}

@test "lesson 02: on warpsim the delays at the primitives show legacy 1 and 3 under its, not under lockstep" {
    lesson 02
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    for k in 1 3; do
        run "$L/build/verify" --model its "$L/build/emu/legacy" -k "$k" -c 32 -n 2048 -j 200
        echo "$output"
        assert_failure 1
        assert_line --regexp '^result: WRONG \([1-9][0-9]* of '
        run "$L/build/verify" --model lockstep "$L/build/emu/legacy" -k "$k" -c 32 -n 2048 -j 200
        echo "$output"
        assert_success
    done
    # Every sleeper pattern leaves sync.cu right under every model.
    for sleepers in odd even upper lower leader random; do
        for model in lockstep its random; do
            for k in 1 3; do
                run "$L/build/verify" --model "$model" "$L/build/emu/sync" -k "$k" -n 1024 -j 200 --sleepers "$sleepers"
                assert_success
            done
        done
    done
}

@test "lesson 02: on warpsim the legacy hang ends by itself, names the waiting lanes, and exits 3" {
    lesson 02
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run timeout 30 "$L/build/verify" --model its "$L/build/emu/legacy" -k hang -n 256 -w 100000
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in their shuffle for them \(8 of 8 warps\)'
}

@test "lesson 02: build/verify's verdict on a right run of lesson 02, its one result line" {
    lesson 02
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -k detective -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 8 bin sums wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
}

@test "lesson 02: wrong/ holds the three classic mask mistakes and the full-mask ballot in the branch" {
    lesson 02
    for f in activemask-in-branch syncwarp-then-activemask partners-outside-mask full-mask-ballot-in-branch; do
        [ -f "$L/wrong/$f.patch" ] || fail "no wrong/$f.patch"
    done
}

# ==== lesson 03 ============================================================
# stand_ins_03: programs in $BATS_TEST_TMPDIR that answer like the lesson's

# sync.cu (always right) and legacy.cu (every bug shows: wrong results, and

# a hang caught by the watchdog), and a legacy that is always lucky. On the

# emu target they also print warpsim's summary line for the model in

# WARPSIM_MODEL, as warpsim would.

stand_ins_03() {
    cat >"$BATS_TEST_TMPDIR/sync" <<'EOF_'
#!/bin/sh
echo "result: ok (stand-in)"
echo "warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model ${WARPSIM_MODEL:-its}, seed 1)"
EOF_
    cp "$BATS_TEST_TMPDIR/sync" "$BATS_TEST_TMPDIR/lucky"
    cat >"$BATS_TEST_TMPDIR/legacy" <<'EOF_'
#!/bin/sh
k=1 model=${WARPSIM_MODEL:-its}
while [ $# -gt 0 ]; do
    case "$1" in -k) k=$2; shift 2 ;; *) shift ;; esac
done
races=0 bad=0
case "$k" in
    1|tree|2|transpose) races=1 ;;
    3|around) bad=2 ;;
    5|hang) echo "HANG detected: lanes 16-31 spun 9 cycles on a flag while lanes 0-15 waited in __syncwarp() for them"
       exit 3 ;;
esac
[ "$races" = 0 ] || echo "warpsim: race on shared s[1]: lane 1 writes it and lane 0 reads it"
[ "$bad" = 0 ] || echo "warpsim: bad shuffle: lane 1 reads lane 2, outside the mask"
summary="warpsim: $races races, 0 hangs, $bad warp-primitive errors, 0 uninitialized reads, 0 memory errors (model $model, seed 1)"
if [ "$model" = lockstep ] && [ "$k" != 3 ] && [ "$k" != around ]; then
    echo "result: ok (stand-in)"; echo "$summary"; exit 0
fi
echo "result: WRONG (5 of 8 lanes wrong)"
echo "$summary"
exit 1
EOF_
    chmod +x "$BATS_TEST_TMPDIR/sync" "$BATS_TEST_TMPDIR/legacy" "$BATS_TEST_TMPDIR/lucky"
}

@test "lesson 03: --help names the five demonstrations and the options of lesson 03" {
    lesson 03
    need_nvcc
    for prog in sync legacy; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --jitter --watchdog --sleepers --dump; do
            assert_output --partial -- "$opt"
        done
        for demo in "1  tree:" "2  transpose:" "3  around:" "4  converged:" "5  hang:"; do
            assert_line --partial "$demo"
        done
        assert_output --partial 'exit status'
    done
}

@test "lesson 03: a bad count or watchdog, or a variant by a wrong name, gives one line and exit 2" {
    lesson 03
    need_nvcc
    for args in "-c 3" "-w 10"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/legacy" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^legacy: '
    done
    run --separate-stderr "$G/build/sync" -k tre
    assert_failure 2
    assert_equal "$stderr" "sync: --variant: no variant named 'tre' (try --help)"
}

@test "lesson 03: an n larger than the GPU's memory gives one line and exit 2" {
    lesson 03
    need_gpu
    run --separate-stderr "$G/build/sync" -k transpose -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "lesson 03: every sync demonstration matches the CPU on the GPU, under jitter too" {
    lesson 03
    need_gpu
    for k in 1 2 3 4 5; do
        run "$G/build/sync" -k "$k" -n 5000 -j 200
        echo "$output"
        assert_success
        assert_line --regexp '^result: ok \(0 of [0-9]+ '
    done
}

@test "lesson 03: the legacy transpose reads slots before they are written once odd lanes sleep" {
    lesson 03
    need_gpu
    run "$G/build/legacy" -k transpose -n 100000 -j 200
    echo "$output"
    assert_failure 1
    assert_line --partial ': read before it was written'
    assert_line --regexp '^result: WRONG \([1-9][0-9]* of 100000 lanes wrong\)$'
}

@test "lesson 03: the legacy hang ends by itself within 10 s, names the lanes and exits 3" {
    lesson 03
    need_gpu
    local start=$SECONDS
    run timeout 30 "$G/build/legacy" -k hang
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in __syncwarp\(\) for them'
    [ $((SECONDS - start)) -lt 10 ]
}

@test "lesson 03: the checker passes a right sync and a legacy that shows every bug (stand-ins)" {
    lesson 03
    stand_ins_03
    run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/legacy"
    echo "$output"
    assert_success
    assert_line --regexp '^ok 1 - sync: tree n=1000 jitter=200ns, even lanes sleeping, matches CPU$'
    assert_line --regexp '^ok [0-9]+ - legacy: tree: lanes read slots their partners have already rewritten \(even lanes sleep 200ns'
    assert_line --regexp '^ok [0-9]+ - legacy: transpose: lanes load slots before their owners store them'
    assert_line --regexp "^ok [0-9]+ - legacy: around: each side's mask-less shuffle reads lanes of the other side"
    assert_line --regexp '^ok [0-9]+ - legacy: converged: the ballot after __syncwarp\(\) counts half a warp'
    assert_line --regexp '^ok [0-9]+ - legacy: hang: .* the watchdog ends it within 10 s$'
    if grep -q '^emulate()' "$REPO/scripts/checklib.sh"; then
        assert_line --regexp '^ok [0-9]+ - legacy: tree is right under lockstep, as on pre-Volta GPUs'
        assert_line --regexp '^ok [0-9]+ - legacy: transpose: warpsim reports the race under every model'
        assert_line --regexp '^ok [0-9]+ - legacy: around: warpsim reports shuffles from lanes that are not taking part'
    fi
    refute_line --partial 'not ok'
    assert_equal "${lines[-1]}" "$(grep -c '^ok ' <<<"$output") passed, 0 failed"
}

@test "lesson 03: the checker fails a legacy that is right by luck, and says so (stand-ins)" {
    lesson 03
    stand_ins_03
    run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/lucky"
    echo "$output"
    assert_failure 1
    assert_line --partial 'that is luck, not correctness'
    assert_line --partial 'the bug did not show on this run'
    assert_line --partial 'the hang did not show on this run'
    refute_line --regexp '^not ok [0-9]+ - sync: '
    assert_line --regexp '^[0-9]+ passed, [5-9] failed$'
}

@test "lesson 03: make check SRC= with DEMO checks one demonstration of a learner's file (stand-ins)" {
    lesson 03
    stand_ins_03
    DEMO=converged run "$L/check.sh" --target emu --only-sync --sync "$BATS_TEST_TMPDIR/sync"
    echo "$output"
    assert_success
    refute_line --partial 'legacy'
    refute_line --regexp '^ok [0-9]+ - sync: (tree|transpose|around|hang) '
    assert_line --regexp '^ok 1 - sync: converged n=1000 jitter=200ns, upper lanes sleeping, matches CPU$'
}

@test "lesson 03: on warpsim every legacy bug shows with its sleepers and each race is gone under lockstep" {
    lesson 03
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    local v=$L/build/verify e=$L/build/emu/legacy
    run "$v" --model its "$e" -k tree -n 2048 -j 200 --sleepers even
    echo "$output"
    assert_failure 1
    assert_line 'result: WRONG (64 of 64 warp sums wrong)'
    run "$v" --model lockstep "$e" -k tree -n 2048 -j 200 --sleepers even
    assert_success
    run "$v" --model its "$e" -k transpose -n 2048 -j 200
    echo "$output"
    assert_failure 1
    assert_line --partial ': read before it was written'
    run "$v" --model lockstep "$e" -k transpose -n 2048 -j 200
    assert_success
    run "$v" --model its "$e" -k converged -n 2048 -j 200 --sleepers upper
    echo "$output"
    assert_failure 1
    assert_line --regexp '^right after __syncwarp\(\), 2048 of 2048 lanes saw __activemask\(\) != 0xffffffff'
    run "$v" --model lockstep "$e" -k converged -n 2048 -j 200 --sleepers upper
    assert_success
    run "$v" --model lockstep "$e" -k around -n 2048
    assert_failure 1
    run "$v" --model its "$e" -k hang -n 256 -w 100000
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in __syncwarp\(\)'
}

@test "lesson 03: build/verify's verdict on a right run of lesson 03, its one result line" {
    lesson 03
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -k around -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 1000 lanes wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    run "$L/build/verify" "$L/build/emu/legacy" -k hang -n 64 -w 100000
    assert_failure 3
    run "$L/build/verify" "$L/build/emu/sync" -k 6
    assert_failure 2
}

@test "lesson 03: the exercise's starter passes every demonstration but its tree, which is rejected at the racing line" {
    lesson 03
    run make --no-print-directory -C "$L" check EMU=1 SRC="$L/exercise.cu" DEMO="transpose around converged hang" CHECK_FIRST_FAIL=1
    echo "$output"
    assert_success
    run make --no-print-directory -C "$L" check EMU=1 SRC="$L/exercise.cu" DEMO=tree CHECK_FIRST_FAIL=1
    echo "$output"
    assert_failure
    assert_line --regexp '^# locate: warpsim: race on shared shmem\[[0-9]+\]: .* at exercise\.cu:[0-9]+'
}

@test "lesson 03: on the pre-Volta path around and hang are not run, with the reason (stand-ins)" {
    lesson 03
    SANITIZER=none run "$L/check.sh" --target gpu --sync "$FIXTURES/pre-volta.sh" --legacy "$FIXTURES/pre-volta.sh"
    echo "$output"
    assert_success
    assert_line --partial '# around: not run on the pre-Volta path'
    assert_line --partial '# hang: not run on the pre-Volta path'
    refute_line --regexp '^(not )?ok [0-9]+ - .*(around|hang)'
    assert_line --regexp '^# legacy: tree on the pre-Volta path \(.*\): matched the CPU'
    assert_line --regexp '^# legacy: converged on the pre-Volta path \(.*\): matched the CPU'
}

# ==== lesson 04 ============================================================
@test "lesson 04: --help explains every option, the groupings and the exit status" {
    lesson 04
    need_nvcc
    for prog in sync legacy sync-fallback; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --keys --divergent --sleepers --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
    done
    run "$G/build/sync" --help
    assert_line --partial '1  match: legacy.cu __match_all_sync where __match_any_sync was meant'
    assert_line --partial '2  lanes: legacy.cu keys through shared memory, no warp sync; sync.cu the fallback, one trip per lane'
    assert_line --partial '3  groups: the fallback, one trip per group'
}

@test "lesson 04: bad keys or divergence give one line on stderr and exit 2, before touching a GPU" {
    lesson 04
    need_nvcc
    for args in "-c 0" "-c 17M" "-c abc" "-d 2" "-d -1" "-c"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$G/build/legacy" -k 4
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant must be between 1 and 3 (got 4)"
}

@test "lesson 04: the benchmark program explains itself and rejects bad arguments with exit 2" {
    lesson 04
    need_nvcc
    run "$G/build/bench" --help
    assert_success
    assert_output --partial '__match_any_sync'
    for opt in --size --seed --reps --method; do assert_output --partial -- "$opt"; done
    for args in "-k 4" "-r 0" "-n 16" "--bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/bench" $args
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^bench: '
    done
}

@test "lesson 04: make bench does nothing and succeeds where no GPU is found" {
    lesson 04
    have_gpu && skip "a GPU is present: make bench would measure for real"
    need_nvcc
    run make --no-print-directory -C "$L" bench
    assert_success
    assert_line '04-match-any: no GPU found (nvidia-smi lists none): nothing benchmarked'
}

@test "lesson 04: bench.gp draws a PNG from a CSV shaped like the benchmark's" {
    lesson 04
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    csv=$BATS_TEST_TMPDIR/t.csv
    echo "gpu,n,rounds,keys,method,ms,vs_native" >"$csv"
    for r in 1 16; do
        for k in 1 4 32 1000; do
            echo "test,1024,$r,$k,native,1.0,1.000" >>"$csv"
            echo "test,1024,$r,$k,per-lane,4.0,4.000" >>"$csv"
            echo "test,1024,$r,$k,per-group,2.0,2.000" >>"$csv"
        done
    done
    run gnuplot -e "csv='$csv'; png='$BATS_TEST_TMPDIR/t.png'" "$L/bench.gp"
    assert_success
    [ -s "$BATS_TEST_TMPDIR/t.png" ]
    assert_equal "$(head -c 4 "$BATS_TEST_TMPDIR/t.png" | tail -c 3)" "PNG"
}

@test "lesson 04: the sync version groups divergent warps right on the GPU, under jitter too" {
    lesson 04
    need_gpu
    make -s --no-print-directory -C "$L" build/verify >/dev/null
    run "$L/build/verify" "$G/build/sync" -n 100000 -c 4 -d 1 -j 200 -k 3
    assert_success
    assert_line --regexp '^result: ok \(0 of 100000 group masks wrong, 0 of 4 counts wrong, 0 of 100000 tickets wrong\)$'
}

@test "lesson 04: MATCH_FALLBACK=1 makes variant 1 run the fallback loop, and it is right" {
    lesson 04
    need_gpu
    make -s --no-print-directory -C "$L" build/verify >/dev/null
    run "$L/build/verify" "$G/build/sync-fallback" -n 5000 -c 32 -d 1
    assert_success
    assert_line --partial 'built as the fallback loop'
    run "$G/build/sync" -n 5000 -c 32 -d 1
    assert_line --partial 'built as the __match_any_sync instruction'
}

@test "lesson 04: on warpsim sync-fallback runs the loop as variant 1, and sync the instruction" {
    lesson 04
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" --model its "$L/build/emu/sync-fallback" -n 1000 -c 4 -d 1 -j 200
    echo "$output"
    assert_success
    assert_line --partial 'built as the fallback loop'
    assert_line 'result: ok (0 of 1000 group masks wrong, 0 of 4 counts wrong, 0 of 1000 tickets wrong)'
    run "$L/build/verify" --model its "$L/build/emu/sync" -n 1000 -c 4
    assert_success
    assert_line --partial 'built as the __match_any_sync instruction'
}

@test "lesson 04: on warpsim legacy match is wrong with no delay, lanes wrong under its with -j 200 and right under lockstep" {
    lesson 04
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" --model lockstep "$L/build/emu/legacy" -k match -c 4 -n 2048
    echo "$output"
    assert_failure
    assert_line --regexp '^result: WRONG \(2048 of 2048 group masks wrong, 4 of 4 counts wrong'
    run "$L/build/verify" --model its "$L/build/emu/legacy" -k lanes -c 4 -n 2048 -j 200
    echo "$output"
    assert_failure
    assert_line --regexp '^result: WRONG \([1-9][0-9]* of 2048 group masks wrong'
    assert_line --regexp '^warpsim: race on shared seen\[[0-9]+\]: .* at legacy\.cu:[0-9]+ '
    run "$L/build/verify" --model lockstep "$L/build/emu/legacy" -k lanes -c 4 -n 2048 -j 200
    echo "$output"
    assert_line 'result: ok (0 of 2048 group masks wrong, 0 of 4 counts wrong, 0 of 2048 tickets wrong)'
    # Every sleeper pattern leaves every variant of sync.cu right and clean.
    for sleepers in odd even upper lower leader random; do
        for k in 1 2 3; do
            run "$L/build/verify" --model its --error-exitcode 99 "$L/build/emu/sync" \
                -k "$k" -n 1000 -c 4 -d 1 -j 200 --sleepers "$sleepers"
            assert_success
        done
    done
}

@test "lesson 04: build/verify's verdict on a right run of lesson 04, its one result line" {
    lesson 04
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -n 1000 -c 4 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 1000 group masks wrong, 0 of 4 counts wrong, 0 of 1000 tickets wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    run "$L/build/verify" "$L/build/emu/sync" -c abc
    assert_failure 2
}

# ==== lesson 05 ============================================================

# demo_stand_ins LOG: stand-ins in $BATS_TEST_TMPDIR for a lesson's GPU
# programs (sync, cg, bench: right; legacy: wrong every time) and for
# compute-sanitizer (sanitizer: no hazard in a right program, one in
# legacy), each appending its command line to LOG, so that a test sees
# every run a check made, sanitizer runs included.
demo_stand_ins() {
    local d=$BATS_TEST_TMPDIR p
    for p in sync cg bench; do
        printf '#!/bin/sh\necho "%s $*" >>"%s"\necho "result: ok (stand-in)"\n' "$p" "$1" >"$d/$p"
    done
    printf '#!/bin/sh\necho "legacy $*" >>"%s"\necho "result: WRONG (stand-in)"\nexit 1\n' "$1" >"$d/legacy"
    cat >"$d/sanitizer" <<'EOF_'
#!/bin/sh
tool=
while [ $# -gt 0 ]; do
    case "$1" in
        --tool) tool=$2; shift 2 ;;
        --error-exitcode|--racecheck-report) shift 2 ;;
        --*) shift ;;
        *) break ;;
    esac
done
echo "$tool" >>"${0%/*}/tools"
"$@"
rc=$?
case "$1" in
    */legacy) echo "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)"; exit 99 ;;
esac
echo "========= ERROR SUMMARY: 0 errors"
exit "$rc"
EOF_
    chmod +x "$d/sync" "$d/cg" "$d/bench" "$d/legacy" "$d/sanitizer"
}

# assert_runs_only LOG VARIANT...: every run LOG holds of a lesson program
# (but the --path question and bench.cu's own runs) names one of VARIANT
# with -k, and every VARIANT is run.
assert_runs_only() {
    local log=$1 line k; shift
    cat "$log"
    while read -r line; do
        case "$line" in *' --path'|'bench '*) continue ;; esac
        k=$(sed -nE 's/.* -k ([^ ]+).*/\1/p' <<<"$line")
        [[ " $* " == *" $k "* ]] || fail "a run of -k '$k': $line"
    done <"$log"
    for k in "$@"; do
        grep -q -- " -k $k " "$log" || fail "no run of -k $k"
    done
}
@test "lesson 05: --help explains every option, the variants and the exit status" {
    lesson 05
    need_nvcc
    for prog in sync legacy cg; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --keep --queues --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
    done
    run "$G/build/sync" --help
    assert_line --partial '3  queues: a counter per queue (-q up to 32), members grouped by __match_any_sync'
    assert_output --partial -- '--sleepers PATTERN'
    assert_output --partial -- '--dump FILE'
}

@test "lesson 05: bad keep, queue or block settings give one line on stderr and exit 2, before touching a GPU" {
    lesson 05
    need_nvcc
    for args in "-p 101" "-p -1" "-q 0" "-q 33" "-k 1 -q 2" "-b 100" "-q"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$G/build/legacy" -k 2 -q 4
    assert_failure 2
    assert_equal "$stderr" "legacy: variant 2 fills one queue only: use -q 1 (got 4)"
    run --separate-stderr "$G/build/cg" -k 5
    assert_failure 2
    assert_equal "$stderr" "cg: --variant must be between 1 and 4 (got 5)"
    run --separate-stderr "$G/build/cg" -k 1 -q 4
    assert_failure 2
    assert_equal "$stderr" "cg: variant 1 fills one queue only: use -q 1 (got 4)"
}

@test "lesson 05: the benchmark programs explain themselves and reject bad arguments with exit 2" {
    lesson 05
    need_nvcc
    for prog in bench-one-counter bench-histogram bench-scatter-add; do
        run "$G/build/$prog" --help
        assert_success
        assert_output --partial 'CSV on'
        assert_output --partial -- '--reps'
        run --separate-stderr "$G/build/$prog" -r 0
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" "^$prog: "
    done
}

@test "lesson 05: bench.sh rejects an unknown benchmark, and does nothing where no GPU is found" {
    lesson 05
    run "$L/bench.sh" d
    assert_failure 2
    assert_output --partial 'usage: bench.sh [a] [b] [c]'
    have_gpu && skip "a GPU is present: make bench would measure for real"
    need_nvcc
    run make --no-print-directory -C "$L" bench
    assert_success
    assert_line '05-aggregated-atomics: no GPU found (nvidia-smi lists none): nothing benchmarked'
}

@test "lesson 05: the three plot scripts draw PNGs from CSVs shaped like the benchmarks'" {
    lesson 05
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    d=$BATS_TEST_TMPDIR
    {
        echo "gpu,n,kept,method,ms,gb_per_s,vs_plain"
        for m in plain ballot activemask match cg; do echo "test,64,32,$m,1.0,1.0,1.000"; done
    } >"$d/a.csv"
    {
        echo "gpu,n,bins,skew,keys_per_warp,method,ms,vs_plain,note"
        for s in uniform zipf; do
            for b in 1 32 65536; do
                for m in plain match shared shared+match; do
                    if [ "$b" = 65536 ] && [ "${m#shared}" != "$m" ]; then
                        echo "test,64,$b,$s,1.00,$m,,,too many bins"
                    else
                        echo "test,64,$b,$s,1.00,$m,1.0,1.000,"
                    fi
                done
            done
        done
    } >"$d/b.csv"
    {
        echo "gpu,pattern,in_len,out_len,method,ms,vs_B,note"
        for p in low high; do
            for i in 32 1024 32768; do
                for o in 32 1024 32768; do
                    [ "$o" -le "$i" ] || continue
                    for m in B A C D; do echo "test,$p,$i,$o,$m,1.0,1.000,"; done
                done
            done
        done
    } >"$d/c.csv"
    for x in one-counter:a histogram:b scatter-add:c; do
        run gnuplot -e "csv='$d/${x#*:}.csv'; png='$d/${x#*:}.png'" "$L/bench-${x%:*}.gp"
        echo "$output"
        assert_success
        [ -s "$d/${x#*:}.png" ] || fail "no PNG from bench-${x%:*}.gp"
    done
}

@test "lesson 05: the sync version compacts right on the GPU, under jitter too" {
    lesson 05
    need_gpu
    run "$L/build/verify" "$G/build/sync" -n 100000 -j 200 -k 3 -q 4
    assert_success
    assert_line --regexp '^result: ok \(0 slots empty, 0 elements twice, 0 missing, 0 stray, 0 of 4 counters wrong\)$'
}

@test "lesson 05: on warpsim the legacy variants are wrong under its with -j 200 and right under lockstep" {
    lesson 05
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" --model its "$L/build/emu/legacy" -k broadcast -n 2048 -j 200 --sleepers leader
    echo "$output"
    assert_failure 1
    assert_line --regexp '^result: WRONG \([1-9][0-9]* slots empty, .* missing'
    assert_line --regexp '^warpsim: race on shared published\[0\]: .* at legacy\.cu:[0-9]+'
    run "$L/build/verify" --model its "$L/build/emu/legacy" -k group -n 2048 -j 200
    echo "$output"
    assert_failure 1
    assert_line --regexp '^result: WRONG \([1-9][0-9]* slots empty, .*, 1 of 1 counters wrong\)$'
    for k in 1 2; do
        run "$L/build/verify" --model lockstep "$L/build/emu/legacy" -k "$k" -n 2048 -j 200
        echo "$output"
        assert_success
        assert_line 'result: ok (0 slots empty, 0 elements twice, 0 missing, 0 stray, 0 of 1 counters wrong)'
    done
}

@test "lesson 05: on warpsim the opportunistic group (sync.cu variant 2) is right and clean under every model and sleeper pattern" {
    lesson 05
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    for sleepers in odd even upper lower leader random; do
        for model in lockstep its random; do
            run "$L/build/verify" --model "$model" --error-exitcode 99 "$L/build/emu/sync" -k group -n 2048 -j 200 --sleepers "$sleepers"
            [ "$status" -eq 0 ] || { echo "$output"; fail "$model, $sleepers: exit status $status"; }
            assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors'
        done
    done
}

@test "lesson 05: build/verify's verdict on a right run of lesson 05, its one result line" {
    lesson 05
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 slots empty, 0 elements twice, 0 missing, 0 stray, 0 of 1 counters wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
}

@test "lesson 05: DEMO= checks the variants it names in every step, sanitizer runs included, in sync, cg and legacy alike (stand-ins)" {
    lesson 05
    local log=$BATS_TEST_TMPDIR/runs d=$BATS_TEST_TMPDIR
    demo_stand_ins "$log"
    DEMO=broadcast SANITIZER=$d/sanitizer CHECK_BATCH=0 run "$L/check.sh" --target gpu \
        --sync "$d/sync" --legacy "$d/legacy"
    echo "$output"
    assert_success
    assert_runs_only "$log" 1
    assert_line --regexp '^ok [0-9]+ - sync: variant 1 memcheck is clean$'
    assert_line --regexp '^ok [0-9]+ - sync: variant 1 synccheck is clean$'
    assert_line --regexp '^ok [0-9]+ - legacy: racecheck reports the shared-memory broadcast \(variant 1\)$'
    assert_line --regexp '^ok [0-9]+ - cg: variant 1 '
    refute_line --regexp 'variant [234]'
    assert_equal "$(grep '^# demo ' <<<"$output")" '# demo broadcast: passed'
    assert_equal "$(sort -u "$d/tools" | paste -sd' ')" 'memcheck racecheck synccheck'
    # by number, two of them, in the order named
    rm -f "$log"
    DEMO="4 group" SANITIZER=$d/sanitizer CHECK_BATCH=0 run "$L/check.sh" --target gpu --only-sync \
        --sync "$d/sync"
    assert_success
    assert_runs_only "$log" 2 4
    assert_equal "$(grep '^# demo ' <<<"$output" | paste -sd' ')" '# demo plain: passed # demo group: passed'
    DEMO="queues nosuch" run --separate-stderr "$L/check.sh" --target emu --sync "$d/sync" --legacy "$d/legacy"
    assert_failure 2
    assert_equal "$stderr" "$L/check.sh: DEMO: no demonstration nosuch (1-4 or broadcast group queues plain)"
}

@test "lesson 05: the exercise's starter (legacy.cu as mine.cu) builds and fails the check at its first bug" {
    lesson 05
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_failure
    assert_line --regexp '^# locate: '
    refute_line --partial 'error:'
}

# ==== lesson 06 ============================================================
# results_csv_06 FILE RATIO PCT: a results file as build/bench writes it, for

# 2^28 and 2^30, where the fastest lesson kernel runs at RATIO x CUB and PCT%

# of a 4800 GB/s datasheet at 2^28 (input for bench.sh --report).

results_csv_06() {
    local gbps
    gbps=$(awk -v p="$3" 'BEGIN { printf "%.1f", 48 * p }')
    cat >"$1" <<CSV
table,gpu,n,bytes,method,setting,threads,blocks,unroll,ms,gbps,pct_peak,ratio_cub,check,peak_gbps
result,TEST GPU,268435456,1073741824,cub,library,,,,0.2430,4418.7,92.1,1.000,ok,4800
result,TEST GPU,268435456,1073741824,1-block-shfl,default,256,1056,,0.3000,3579.1,74.6,0.810,ok,4800
result,TEST GPU,268435456,1073741824,5-device-lastblock,default,256,1056,4,0.2400,$gbps,$3,$2,ok,4800
result,TEST GPU,268435456,1073741824,cub,library-again,,,,0.2431,4416.9,92.0,1.000,ok,4800
result,TEST GPU,1073741824,4294967296,cub,library,,,,0.9700,4427.8,92.2,1.000,ok,4800
result,TEST GPU,1073741824,4294967296,5-device-lastblock,default,256,1056,4,0.9600,4473.9,93.2,1.010,ok,4800
result,TEST GPU,1073741824,4294967296,cub,library-again,,,,0.9702,4426.9,92.2,1.000,ok,4800
CSV
}

@test "lesson 06: --help names the variants and the options of lesson 06" {
    lesson 06
    need_nvcc
    for prog in sync legacy; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --jitter --blocks --unroll --max --sleepers --dump; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
        assert_line --partial '1  block: legacy.cu the volatile tree; sync.cu __shfl_down_sync'
        assert_line --partial '2  second: legacy.cu the second form, no ifs over zero-padded slots; sync.cu __reduce_add_sync'
        assert_line --partial '5  lastblock: 16-byte loads, -u in flight, one launch; the last block sums the partials'
        assert_line --partial '6  packed: 16-byte loads, -u in flight, one launch; one 64-bit atomicAdd per block carries its sum and a block count'
    done
}

@test "lesson 06: bad unroll, grid or max settings give one line on stderr and exit 2, before touching a GPU" {
    lesson 06
    need_nvcc
    for args in "-u 3" "-u 16" "-g 0" "-g 65537" "-m 0"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$G/build/legacy" -k 7
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant must be between 1 and 6 (got 7)"
}

@test "lesson 06: the GPU-only programs explain themselves and reject bad arguments with exit 2" {
    lesson 06
    need_nvcc
    run "$G/build/cg" --help
    assert_success
    assert_line --partial '1  block: cg::reduce over 32-thread tiles'
    assert_line --partial '3  tiles: group_sum over dynamic 8-thread tiles'
    run "$G/build/cub_ref" --help
    assert_success
    assert_line --partial '1  cub::DeviceReduce::Sum'
    run "$G/build/bench" --help
    assert_success
    for opt in --size --sizes --method --threads --unroll --per-sm --load --timing --flush \
               --sweep --verify --reps --warmup --peak; do
        assert_output --partial -- "$opt"
    done
    assert_line --partial '6  6-device-packed     sync.cu variant 6'
    assert_line --partial '9  cub                 cub::DeviceReduce::Sum'
    for prog_args in "cg -k 4" "cg -u 5" "cub_ref -n 0" "cub_ref -b 64" "bench -n 1000" \
                     "bench -b 48" "bench -u 3" "bench -u 12" "bench -u 32" "bench -k 10" \
                     "bench -t 3" "bench -l 9" "bench -L 10" "bench -T 2" "bench -F 2" \
                     "bench -V 2"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/"$prog_args
        echo "$prog_args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
    done
    run --separate-stderr "$G/build/bench" -n 1000
    assert_equal "$stderr" "bench: --size must be a multiple of 4 x 4^(L-1) = 256 to split into 4 sizes (got 1000)"
    run --separate-stderr "$G/build/bench" -u 12
    assert_equal "$stderr" "bench: --unroll must be 1, 2, 4, 8 or 16 (got 12)"
}

@test "lesson 06: an n larger than the GPU's memory gives one line and exit 2" {
    lesson 06
    need_gpu
    run --separate-stderr "$G/build/sync" -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "lesson 06: every variant of sync matches the CPU on the GPU, under jitter too" {
    lesson 06
    need_gpu
    make -s --no-print-directory -C "$L" build/verify >/dev/null
    for k in 1 2 3 4 5 6; do
        run "$L/build/verify" "$G/build/sync" -k "$k" -n 1000003 -j 200 -b 96
        echo "$output"
        assert_success
        assert_line --regexp "^result: ok \\(variant $k, n=1000003: .*sum right\\)$"
    done
}

@test "lesson 06: every setting the benchmark can time matches the CPU on the GPU (bench -V 1)" {
    lesson 06
    need_gpu
    run "$G/build/bench" -V 1 -n 1M -l 1 -s 3
    echo "$output"
    assert_success
    assert_line --regexp '^result: ok \(([0-9]+) of \1 runs match the CPU: variants 3 to 6, 10 load kinds, unroll 1 to 16, '
}

@test "lesson 06: make check SRC= DEMO=all fails a copy of legacy.cu at its first variant, and locates it" {
    lesson 06
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check SRC="$BATS_TEST_TMPDIR/mine.cu" DEMO=all
    echo "$output"
    assert_failure
    assert_line --regexp '^not ok [0-9]+ - mine\.cu: variant 1 \(block\) '
    assert_line --regexp '^# locate: '
}

# ---- the exercise: variant 2 fixed, graded on variant 2 alone ---------------

@test "lesson 06: the exercise's answer gets full marks on variant 2, the one graded, and the unfixed file does not" {
    lesson 06
    local mine=$BATS_TEST_TMPDIR/06-block-reduce.cu
    exercise_solution 06-block-reduce "$mine"
    # the answer the exercise asks: no shuffles, no ifs in the steps
    ! grep -q '__shfl\|__reduce' <(sed -n '/^__device__ int warp_sum_padded(/,/^}/p' "$mine")
    run make --no-print-directory -C "$L" check EMU=1 SRC="$mine"
    echo "$output"
    assert_success
    assert_line '# grading the exercise: DEMO="second"; DEMO= names others, DEMO=all every one'
    assert_line '# DEMO=second: checking variant(s) 2'
    assert_line '# demo second: passed'
    assert_line --regexp '^[1-9][0-9]* passed, 0 failed$'
    refute_line --regexp '^(not )?ok [0-9]+ - 06-block-reduce\.cu: variant [13456] '
    run make --no-print-directory -C "$L" check EMU=1 DEMO=2 SRC="$mine"
    assert_success
    assert_line '# DEMO=2: checking variant(s) 2'
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_failure
    assert_line --regexp '^not ok 1 - mine\.cu: variant 2 \(second\) '
    assert_line '# demo second: FAILED'
    run make --no-print-directory -C "$L" check EMU=1 DEMO=9 SRC="$BATS_TEST_TMPDIR/mine.cu"
    assert_failure 2
    assert_output --partial 'DEMO: no demonstration 9 (1-6 or block second partials atomic lastblock packed)'
}

# ---- the harness: lesson files hold device code only ----------------------

@test "lesson 06: on warpsim legacy is wrong under its with -j 200 and right under lockstep, in both forms" {
    lesson 06
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    for k in 1 2; do
        run "$L/build/verify" --model its "$L/build/emu/legacy" -k "$k" -n 8192 -g 4 -j 200
        echo "$output"
        assert_failure 1
        assert_line --regexp "^result: WRONG \\(variant $k, n=8192: [1-4] of 4 blocks wrong"
        run "$L/build/verify" --model lockstep "$L/build/emu/legacy" -k "$k" -n 8192 -g 4 -j 200
        echo "$output"
        assert_success
        assert_line "result: ok (variant $k, n=8192: 0 of 4 blocks wrong, sum right)"
    done
}

@test "lesson 06: build/verify's verdict on a right run of lesson 06, its one result line" {
    lesson 06
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -k 6 -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (variant 6, n=1000: sum right)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    run "$L/build/verify" "$L/build/emu/sync" -u 3
    assert_failure 2
}

@test "lesson 06: make bench without a GPU says so and succeeds" {
    lesson 06
    have_gpu && skip "a GPU is present: make bench would run the benchmark"
    need_nvcc
    run make --no-print-directory -C "$L" bench
    echo "$output"
    assert_success
    assert_line '06-block-reduce: no GPU found (nvidia-smi lists none): the benchmark needs one'
    assert_line 'skipped: no GPU'
}

@test "lesson 06: bench.sh --report turns results into a table, summary lines and a plot" {
    lesson 06
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    results_csv_06 "$BATS_TEST_TMPDIR/r.csv" 1.013 93.4
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv" "$BATS_TEST_TMPDIR/r.png"
    echo "$output"
    assert_success
    assert_line --regexp '^2\^28 +5-device-lastblock +default +256 +1056 +4 +0\.2400 +4483\.2 +93\.4 +1\.013 ok$'
    assert_line --regexp '^2\^28 +1-block-shfl +default +256 +1056 +- '
    assert_line 'summary: n=2^28: fastest lesson kernel 5-device-lastblock (default: 256 threads, 1056 blocks, unroll 4): 4483.2 GB/s, 93.4% of the datasheet 4800 GB/s; 1.013 x CUB (CUB 4418.7 GB/s, again 4416.9 GB/s)'
    assert_line 'summary: goal, at least CUB at 2^28 and above: met'
    assert_line 'summary: goal, 93% of the datasheet at 2^28: met'
    [ "$(head -c 4 "$BATS_TEST_TMPDIR/r.png" | tail -c 3)" = PNG ]
}

@test "lesson 06: the benchmark summary says plainly when a goal is not met" {
    lesson 06
    results_csv_06 "$BATS_TEST_TMPDIR/r.csv" 0.990 90.1
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv"
    echo "$output"
    assert_success
    assert_line 'summary: goal, at least CUB at 2^28 and above: NOT met'
    assert_line 'summary: goal, 93% of the datasheet at 2^28: NOT met'
    sed -i 's/^\(result,TEST GPU,268435456,.*,5-device-lastblock,.*\),ok,4800$/\1,WRONG,4800/' \
        "$BATS_TEST_TMPDIR/r.csv"
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv"
    assert_line 'summary: 1 measurements FAILED their check'
}

# wide_csv_06 FILE: build/bench's whole output with -t 2 (17 columns: load

# kind and timing; sweep, confirm and result rows), at 2^28 only.

wide_csv_06() {
    cat >"$1" <<CSV
table,gpu,n,bytes,method,setting,threads,blocks,unroll,ms,gbps,pct_peak,ratio_cub,check,peak_gbps,load,timing
sweep,TEST GPU,268435456,1073741824,cub,cub,,,,0.2450,4382.6,91.3,1.000,ok,4800,,0
sweep,TEST GPU,268435456,1073741824,cub,cub,,,,0.2420,4436.9,92.4,1.000,ok,4800,,1
sweep,TEST GPU,268435456,1073741824,4-device-atomic,load/waves=2.0,1024,528,4,0.2420,4436.9,92.4,1.012,ok,4800,nc,0
sweep,TEST GPU,268435456,1073741824,4-device-atomic,load/waves=2.0,1024,528,4,0.2410,4455.4,92.8,1.017,ok,4800,na-256B,0
sweep,TEST GPU,268435456,1073741824,6-device-packed,load/waves=2.0,1024,528,4,0.2380,4511.5,94.0,1.017,ok,4800,na-256B,1
sweep,TEST GPU,268435456,1073741824,6-device-packed,grid/even<=2.0,1024,512,4,0.2390,4492.6,93.6,1.013,ok,4800,nc,1
confirm,TEST GPU,268435456,1073741824,cub,confirm/round=1,,,,0.2420,4436.9,92.4,1.000,ok,4800,,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=1,1024,528,4,0.2390,4492.6,93.6,1.013,ok,4800,na-256B,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=1,1024,512,4,0.2395,4483.2,93.4,1.010,ok,4800,nc,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=2,1024,528,4,0.2380,4511.5,94.0,1.017,ok,4800,na-256B,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=2,1024,512,4,0.2385,4502.0,93.8,1.015,ok,4800,nc,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=3,1024,528,4,0.2400,4473.9,93.2,1.008,ok,4800,na-256B,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=3,1024,512,4,0.2380,4511.5,94.0,1.017,ok,4800,nc,1
result,TEST GPU,268435456,1073741824,cub,library,,,,0.2420,4436.9,92.4,1.000,ok,4800,,1
result,TEST GPU,268435456,1073741824,6-device-packed,default,256,1056,4,0.2400,4473.9,93.2,1.008,ok,4800,nc,1
result,TEST GPU,268435456,1073741824,6-device-packed,best-of-sweep,1024,512,4,0.2385,4502.0,93.8,1.015,ok,4800,nc,1
result,TEST GPU,268435456,1073741824,cub,library-again,,,,0.2421,4435.1,92.4,1.000,ok,4800,,1
CSV
}

@test "lesson 06: bench.sh --report reads the wide sweep's whole output: load kind, timing, confirmed best" {
    lesson 06
    wide_csv_06 "$BATS_TEST_TMPDIR/w.csv"
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/w.csv"
    echo "$output"
    assert_success
    assert_line --regexp '^n +method +setting +threads +blocks +unroll +load +T +ms +GB/s +%peak +xCUB +check$'
    assert_line --regexp '^2\^28 +6-device-packed +best-of-sweep +1024 +512 +4 +nc +1 +0\.2385 +4502\.0 +93\.8 +1\.015 ok$'
    assert_line --regexp '^sweep: best 4-device-atomic +-T 0 1024 threads, 528 blocks, unroll 4, load na-256B \(load/waves=2\.0\): 4455\.4 GB/s'
    assert_line --regexp '^sweep: best 6-device-packed +-T 1 1024 threads, 528 blocks, unroll 4, load na-256B \(load/waves=2\.0\): 4511\.5 GB/s'
    assert_line --regexp '^confirmed: best 6-device-packed +-T 1 1024 threads, 512 blocks, unroll 4, load nc: 4502\.0 GB/s, 93\.8% of the datasheet, 1\.015 x CUB \(medians of the rounds\)$'
    assert_line 'summary: n=2^28: fastest lesson kernel 6-device-packed (best-of-sweep: 1024 threads, 512 blocks, unroll 4, load nc): 4502.0 GB/s, 93.8% of the datasheet 4800 GB/s; 1.015 x CUB (CUB 4436.9 GB/s, again 4435.1 GB/s)'
    assert_line 'summary: goal, 93% of the datasheet at 2^28: met (-T 1: GPU time, host launch time excluded)'
}

# ==== lesson 07 ============================================================
# results_csv_07 FILE: results as build/bench writes them, in which the block

# scan beats cub::BlockScan, reduce-then-scan reaches 0.70x CUB and the

# look-back 0.97x (input for bench.sh --report).

results_csv_07() {
    cat >"$1" <<'CSV'
table,gpu,n,bytes,method,setting,threads,items,ms,gbps,pct_peak,ratio_cub,check,peak_gbps
block,TEST GPU,16777216,134217728,repeat-lesson,default,256,1,0.5000,,,1.100,ok,3350
block,TEST GPU,16777216,134217728,repeat-cub-raking,default,256,1,0.5500,,,1.000,ok,3350
block,TEST GPU,16777216,134217728,repeat-cub-warpscans,default,256,1,0.6000,,,0.917,ok,3350
block,TEST GPU,268435456,2147483648,tile-lesson,default,256,16,0.7000,3067.8,91.6,1.000,ok,3350
block,TEST GPU,268435456,2147483648,tile-cub-raking,default,256,16,0.7000,3067.8,91.6,1.000,ok,3350
block,TEST GPU,268435456,2147483648,tile-cub-warpscans,default,256,16,0.7100,3024.6,90.3,0.986,ok,3350
device,TEST GPU,268435456,2147483648,cub,default,0,0,0.7000,3067.8,91.6,1.000,ok,3350
device,TEST GPU,268435456,2147483648,reduce-then-scan,default,256,16,1.0000,2147.5,64.1,0.700,ok,3350
device,TEST GPU,268435456,2147483648,lookback,default,256,16,0.7200,2982.6,89.0,0.972,ok,3350
device,TEST GPU,268435456,2147483648,memcpy,default,0,0,0.6900,3112.3,92.9,1.014,ok,3350
CSV
}

@test "lesson 07: --help names --width, --max and the six variants" {
    lesson 07
    for prog in sync legacy; do
        run "$E/$prog" --help
        assert_success
        for opt in --width --max; do
            assert_output --partial -- "$opt"
        done
        assert_line --partial '1  inclusive: scan of each -w-lane segment of a warp'
        assert_line --partial '6  device: one inclusive scan of all n'
        assert_output --partial 'exit status'
    done
}

@test "lesson 07: a bad width or max gives one line on stderr and exit 2" {
    lesson 07
    for args in "-w 3" "-w 64" "-m 0"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$E/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
}

@test "lesson 07: the benchmark rejects bad arguments with one line and exit 2, before touching a GPU" {
    lesson 07
    need_nvcc
    for args in "-n 1000" "-n 4096 -l 3" "-l 9" "-r 0" "-V 2" "--bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/bench" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^bench: '
    done
}

@test "lesson 07: on warpsim every variant of sync matches the CPU under every model, and nothing is reported" {
    lesson 07
    for model in lockstep its random; do
        for k in inclusive exclusive block compact ballot device; do
            WARPSIM_MODEL=$model run timeout 60 "$E/sync" -k "$k" -n 3001 -w 8 -b 96
            assert_success
            assert_line --partial 'result: ok'
            assert_output --partial 'warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors'
        done
    done
}

@test "lesson 07: on warpsim the legacy block scan is wrong under its, right under lockstep, and a race every time" {
    lesson 07
    WARPSIM_MODEL=its run timeout 60 "$E/legacy" -k block -n 4096
    assert_failure 1
    assert_line --partial 'result: WRONG'
    assert_output --regexp 'warpsim: race on shared s\[[0-9]+\]: .* at legacy\.cu:[0-9]+'
    WARPSIM_MODEL=lockstep run timeout 60 "$E/legacy" -k block -n 4096
    assert_success
    assert_line --partial 'result: ok'
    assert_output --regexp 'warpsim: [1-9][0-9]* races'
}

@test "lesson 07: make check SRC= fails a copy of legacy.cu" {
    lesson 07
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_failure
    assert_line --regexp '^not ok '
}

@test "lesson 07: each wrong fix is one edit of sync.cu, a patch of one hunk, and says in its first line what is wrong" {
    lesson 07
    local f n=0
    for f in "$L"/wrong/*.patch; do
        n=$((n + 1))
        run head -n 1 "$f"
        assert_output --regexp '^/\* wrong: [a-z].* \*/$'
        run grep -c '^@@ ' "$f"
        echo "$f: $output hunk(s)"
        assert_output 1
    done
    [ "$n" -ge 5 ]
}

@test "lesson 07: DEMO= checks the variants it names in every step, sanitizer runs included, in sync, cg and legacy alike (stand-ins)" {
    lesson 07
    local log=$BATS_TEST_TMPDIR/runs d=$BATS_TEST_TMPDIR
    demo_stand_ins "$log"
    DEMO=exclusive SANITIZER=$d/sanitizer CHECK_BATCH=0 run "$L/check.sh" --target gpu \
        --sync "$d/sync" --legacy "$d/legacy"
    echo "$output"
    assert_success
    assert_runs_only "$log" 2
    assert_line --regexp '^ok [0-9]+ - sync: exclusive racecheck finds no hazard$'
    assert_line --regexp '^ok [0-9]+ - cg: exclusive width=16 matches CPU$'
    refute_line --regexp ': (inclusive|block|compact|ballot|device) '
    refute_line --partial 'legacy'
    assert_equal "$(grep '^# demo ' <<<"$output")" '# demo exclusive: passed'
    rm -f "$log"
    DEMO="block 6" SANITIZER=$d/sanitizer CHECK_BATCH=0 run "$L/check.sh" --target gpu \
        --sync "$d/sync" --legacy "$d/legacy"
    echo "$output"
    assert_success
    assert_runs_only "$log" 3 block 6 device
    assert_line --regexp '^ok [0-9]+ - legacy: block gives wrong prefixes '
    assert_line --regexp '^ok [0-9]+ - legacy: device gives wrong prefixes '
    assert_line --regexp '^ok [0-9]+ - legacy: racecheck reports the intra-warp hazards$'
    assert_line --regexp '^ok [0-9]+ - sync: device memcheck is clean$'
    refute_line --regexp ': (inclusive|exclusive|compact|ballot) '
    assert_equal "$(grep '^# demo ' <<<"$output" | paste -sd' ')" '# demo block: passed # demo device: passed'
    DEMO=nosuch run --separate-stderr "$L/check.sh" --target emu --sync "$d/sync" --legacy "$d/legacy"
    assert_failure 2
    assert_equal "$stderr" "$L/check.sh: DEMO: no demonstration nosuch (1-6 or inclusive exclusive block compact ballot device)"
}

@test "lesson 07: make bench without a GPU says so and succeeds" {
    lesson 07
    have_gpu && skip "a GPU is present: make bench would run the benchmark"
    need_nvcc
    run make --no-print-directory -C "$L" bench
    assert_success
    assert_output --partial 'skipped: no GPU'
}

@test "lesson 07: bench.sh --report turns results into a table, the goals and a plot" {
    lesson 07
    results_csv_07 "$BATS_TEST_TMPDIR/r.csv"
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv" "$BATS_TEST_TMPDIR/r.png"
    echo "$output"
    assert_success
    assert_line --regexp '^device +2\^28 +lookback +default +256 +16 '
    assert_line 'summary: block scan, repeat (256 threads x 1 items): lesson 0.5000 ms, 1.100 x the faster cub::BlockScan'
    assert_line 'summary: n=2^28: lookback (256 x 16): 2982.6 GB/s, 89.0% of the datasheet, 0.972 x CUB'
    assert_line 'summary: goal, block scan at least 1.0x cub::BlockScan: met'
    assert_line 'summary: goal, multi-pass device scan at least 0.8x CUB at every size: NOT met'
    assert_line 'summary: stretch, single-pass look-back at least 0.95x CUB at every size: met'
    if command -v gnuplot >/dev/null; then
        [ -s "$BATS_TEST_TMPDIR/r.png" ]
    fi
}

@test "lesson 07: bench.sh counts a wrong measurement and rejects stray arguments" {
    lesson 07
    results_csv_07 "$BATS_TEST_TMPDIR/r.csv"
    sed -i 's/lookback,default,256,16,0.7200,2982.6,89.0,0.972,ok/lookback,default,256,16,0.7200,2982.6,89.0,0.972,WRONG/' \
        "$BATS_TEST_TMPDIR/r.csv"
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv"
    assert_line 'summary: 1 measurements FAILED their check'
    assert_line 'summary: n=2^28: lookback: no result passed its check'
    run "$L/bench.sh" --bogus
    assert_failure 2
}
