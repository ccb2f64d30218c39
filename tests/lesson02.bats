#!/usr/bin/env bats
# Lesson 02 (ballot-mask): build, command line, checker.

setup_file() {
    load helper
    build_lesson 02-ballot-mask
}

setup() {
    load helper
    L=$REPO/lessons/02-ballot-mask
}

# stand_ins: programs in $BATS_TEST_TMPDIR that answer like the lesson's
# sync.cu (always right) and legacy.cu (every bug shows), and a legacy that
# is always lucky, so that the checker's expectations are tested where no
# GPU is found. On the emu target they also print warpsim's summary line for
# the model in WARPSIM_MODEL, as warpsim would.
stand_ins() {
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

@test "lesson 02 builds alone from a clean copy, with no warnings" {
    assert_builds_alone 02-ballot-mask sync legacy
}

@test "--help explains every option, names the six demonstrations and the exit status" {
    need_nvcc
    for prog in sync legacy; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --count --watchdog --help; do
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

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-n -5" "-n abc" "--bogus" "-j -1" "-b 48" "-b 2048" "-k 0" "-k 7" \
                "-k bogus" "--variant=nope" "-c 33" "-c -1" "-w 10" "-n" "-k" "-s 1x" \
                "--sleepers" "--sleepers bogus"; do
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

@test "a demonstration chosen by name runs exactly as the same one chosen by number" {
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

@test "an n larger than the GPU's memory gives one line and exit 2" {
    need_gpu
    run --separate-stderr "$G/build/sync" -k reconverge -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "every sync demonstration matches the CPU on the GPU, under jitter too" {
    need_gpu
    for k in 1 2 3 4 5 6; do
        run "$G/build/sync" -k "$k" -n 5000 -j 200
        echo "$output"
        assert_success
        assert_line --regexp '^result: ok \(0 of [0-9]+ '
    done
}

@test "the legacy hang ends by itself within 10 s, names the lanes and exits 3" {
    need_gpu
    local start=$SECONDS
    run timeout 30 "$G/build/legacy" -k hang
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in their shuffle for them'
    [ $((SECONDS - start)) -lt 10 ]
}

@test "the checker passes a right sync and a legacy that shows every bug (stand-ins)" {
    stand_ins
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
    assert_equal "${lines[-1]}" "$(grep -c '^ok ' <<<"$output") passed, 0 failed"
}

@test "the checker fails a legacy that is right by luck, and says so (stand-ins)" {
    stand_ins
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
    assert_line --regexp '^[0-9]+ passed, [4-9] failed$'
}

@test "DEMO runs only the demonstrations it names, by number or name (stand-ins)" {
    stand_ins
    DEMO="hang 1" run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/legacy"
    echo "$output"
    assert_success
    assert_line --regexp '^ok 1 - sync: hang '
    assert_line --regexp '^ok [0-9]+ - sync: activemask '
    refute_line --partial 'partners'
    refute_line --partial 'reconverge'
    refute_line --partial 'exited'
    DEMO="3 nosuch" run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/legacy"
    assert_failure 2
    assert_output --partial 'DEMO: no demonstration nosuch'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 02-ballot-mask
}

@test "make check SRC= checks a learner's copy of sync.cu" {
    assert_src_check_passes 02-ballot-mask
}

# ---- the harness: lesson files hold device code only ----------------------

@test "legacy.cu and sync.cu hold device code only: no main, no host calls, no jitter" {
    for f in legacy.cu sync.cu; do
        run grep -nE 'main *\(|cudaMalloc|cudaMemcpy|LAUNCH|jitter|printf|lesson_parse' "$L/$f"
        echo "$f: $output"
        assert_failure 1
        grep -q '^#include "lesson.h"' "$L/$f" || fail "$f does not include lesson.h"
    done
}

@test "on warpsim the delays at the primitives show legacy 1 and 3 under its, not under lockstep" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    for k in 1 3; do
        WARPSIM_MODEL=its run "$L/build/verify" "$L/build/emu/legacy" -k "$k" -c 32 -n 2048 -j 200
        echo "$output"
        assert_failure 1
        assert_line --regexp '^result: WRONG \([1-9][0-9]* of '
        WARPSIM_MODEL=lockstep run "$L/build/verify" "$L/build/emu/legacy" -k "$k" -c 32 -n 2048 -j 200
        echo "$output"
        assert_success
    done
    # Every sleeper pattern leaves sync.cu right under every model.
    for sleepers in odd even upper lower leader random; do
        for model in lockstep its random; do
            for k in 1 3; do
                WARPSIM_MODEL=$model run "$L/build/verify" "$L/build/emu/sync" -k "$k" -n 1024 -j 200 --sleepers "$sleepers"
                assert_success
            done
        done
    done
}

@test "on warpsim the legacy hang ends by itself, names the waiting lanes, and exits 3" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    WARPSIM_MODEL=its run timeout 30 "$L/build/verify" "$L/build/emu/legacy" -k hang -n 256 -w 100000
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in their shuffle for them \(8 of 8 warps\)'
}

@test "build/verify gives the verdict: a result line the program prints is only its words" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -k detective -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 8 bin sums wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    run "$L/build/verify" "$FIXTURES/right.sh" -n 1000
    echo "$output"
    assert_failure 1
    assert_line 'result: WRONG (no results written)'
}

@test "every wrong fix in wrong/ is rejected on warpsim, with a locating line, within the bound" {
    local n
    n=$(ls "$L"/wrong/*.cu | wc -l)
    [ "$n" -ge 5 ] || fail "only $n wrong fixes"
    for f in "$L"/wrong/*.cu; do
        head -n 1 "$f" | grep -qE '^/\* wrong: .+ \*/$' || fail "$f: no /* wrong: ... */ first line"
    done
    # the three classic mask mistakes and the full-mask ballot in the branch
    for f in activemask-in-branch syncwarp-then-activemask partners-outside-mask full-mask-ballot-in-branch; do
        [ -f "$L/wrong/$f.cu" ] || fail "no wrong/$f.cu"
    done
    run make --no-print-directory -C "$L" check-wrong EMU=1
    echo "$output"
    assert_success
    assert_line "1..$n"
    assert_line "$n passed, 0 failed"
    refute_line --regexp '^not ok'
    assert_equal "$(grep -cE '^ok [0-9]+ - wrong/.* rejected in ([0-9]|[1-5][0-9])s ' <<<"$output")" "$n"
    assert_equal "$(grep -A1 '^ok ' <<<"$output" | grep -cE '^# .')" "$n"
    # each locating line names the file and line, the lanes, or the first mismatch
    refute_line --regexp '^# exit status '
}
