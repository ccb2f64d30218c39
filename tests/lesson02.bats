#!/usr/bin/env bats
# Lesson 02 (ballot-mask): build, command line, checker.

setup_file() {
    load helper
    if have_nvcc; then build_lesson 02-ballot-mask; fi
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
    5) right ;;
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

@test "--help explains every option, names the five demonstrations and the exit status" {
    need_nvcc
    for prog in sync legacy; do
        run "$L/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --count --watchdog --help; do
            assert_output --partial -- "$opt"
        done
        for demo in "1  activemask:" "2  partners:" "3  reconverge:" "4  hang:" "5  exited:"; do
            assert_line --partial "$demo"
        done
        assert_output --partial 'exit status'
    done
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-n -5" "-n abc" "--bogus" "-j -1" "-b 48" "-b 2048" "-k 0" "-k 6" \
                "-k bogus" "--variant=nope" "-c 33" "-c -1" "-w 10" "-n" "-k" "-s 1x"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$L/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$L/build/legacy" -k hangs
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant: no variant named 'hangs' (try --help)"
}

@test "a demonstration chosen by name runs exactly as the same one chosen by number" {
    need_nvcc
    run --separate-stderr "$L/build/legacy" -k 5 -n 100
    local by_number=$output status_number=$status
    assert_line --index 0 --partial 'legacy.cu demonstration 5 (exited:'
    for form in "-k exited" "--variant exited" "--variant=exited"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$L/build/legacy" $form -n 100
        assert_equal "$status" "$status_number"
        assert_equal "$output" "$by_number"
    done
}

@test "an n larger than the GPU's memory gives one line and exit 2" {
    need_gpu
    run --separate-stderr "$L/build/sync" -k reconverge -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "every sync demonstration matches the CPU on the GPU, under jitter too" {
    need_gpu
    for k in 1 2 3 4 5; do
        run "$L/build/sync" -k "$k" -n 5000 -j 200
        echo "$output"
        assert_success
        assert_line --regexp '^result: ok \(0 of [0-9]+ '
    done
}

@test "the legacy hang ends by itself within 10 s, names the lanes and exits 3" {
    need_gpu
    local start=$SECONDS
    run timeout 30 "$L/build/legacy" -k hang
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in __shfl_sync\(0xffffffff, v, 0\)'
    [ $((SECONDS - start)) -lt 10 ]
}

@test "the checker passes a right sync and a legacy that shows every bug (stand-ins)" {
    stand_ins
    run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/legacy"
    echo "$output"
    assert_success
    assert_line --regexp '^ok [0-9]+ - sync: activemask n=1 count=0 jitter=0ns matches CPU$'
    assert_line --regexp '^ok [0-9]+ - legacy: activemask gives partial sums once odd lanes sleep 200ns'
    assert_line --regexp '^ok [0-9]+ - legacy: partners is right when all 32 lanes take part'
    assert_line --regexp '^ok [0-9]+ - legacy: partners adds values from lanes outside the mask'
    assert_line --regexp '^ok [0-9]+ - legacy: reconverge votes with half a warp'
    assert_line --regexp '^ok [0-9]+ - legacy: hang: .* the watchdog ends it within 10 s$'
    assert_line '# HANG detected: lanes 16-31 spun 9 cycles on a flag while lanes 0-15 waited'
    assert_line --regexp '^ok [0-9]+ - legacy: exited: a full mask naming lanes that have exited does not hang$'
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
