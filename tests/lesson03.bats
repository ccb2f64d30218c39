#!/usr/bin/env bats
# Lesson 03 (syncwarp-races): build, command line, checker.

setup_file() {
    load helper
    build_lesson 03-syncwarp-races
}

setup() {
    load helper
    L=$REPO/lessons/03-syncwarp-races
}

# stand_ins: programs in $BATS_TEST_TMPDIR that answer like the lesson's
# sync.cu (always right) and legacy.cu (every bug shows: wrong results, and
# a hang caught by the watchdog), and a legacy that is always lucky. On the
# emu target they also print warpsim's summary line for the model in
# WARPSIM_MODEL, as warpsim would.
stand_ins() {
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

@test "lesson 03 builds alone from a clean copy, with no warnings" {
    assert_builds_alone 03-syncwarp-races sync legacy
}

@test "--help explains every option, names the five demonstrations and the exit status" {
    need_nvcc
    for prog in sync legacy; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --watchdog --sleepers --dump --help; do
            assert_output --partial -- "$opt"
        done
        for demo in "1  tree:" "2  transpose:" "3  around:" "4  converged:" "5  hang:"; do
            assert_line --partial "$demo"
        done
        assert_output --partial 'exit status'
    done
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-n -5" "-n abc" "--bogus" "-j -1" "-b 48" "-b 2048" "-k 0" "-k 6" \
                "-k bogus" "--variant=nope" "-c 3" "-w 10" "-n" "-k" "-s 1x" \
                "--sleepers" "--sleepers bogus"; do
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

@test "a demonstration chosen by name runs exactly as the same one chosen by number" {
    make -s --no-print-directory -C "$L" emu >/dev/null
    run --separate-stderr "$L/build/emu/sync" -k 2 -n 100
    local by_number=$output status_number=$status
    assert_line --index 0 --partial 'sync.cu demonstration 2 (transpose:'
    for form in "-k transpose" "--variant transpose" "--variant=transpose"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$L/build/emu/sync" $form -n 100
        assert_equal "$status" "$status_number"
        assert_equal "$output" "$by_number"
    done
}

@test "an n larger than the GPU's memory gives one line and exit 2" {
    need_gpu
    run --separate-stderr "$G/build/sync" -k transpose -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "every sync demonstration matches the CPU on the GPU, under jitter too" {
    need_gpu
    for k in 1 2 3 4 5; do
        run "$G/build/sync" -k "$k" -n 5000 -j 200
        echo "$output"
        assert_success
        assert_line --regexp '^result: ok \(0 of [0-9]+ '
    done
}

@test "the legacy transpose reads slots before they are written once odd lanes sleep" {
    need_gpu
    run "$G/build/legacy" -k transpose -n 100000 -j 200
    echo "$output"
    assert_failure 1
    assert_line --partial ': read before it was written'
    assert_line --regexp '^result: WRONG \([1-9][0-9]* of 100000 lanes wrong\)$'
}

@test "the legacy hang ends by itself within 10 s, names the lanes and exits 3" {
    need_gpu
    local start=$SECONDS
    run timeout 30 "$G/build/legacy" -k hang
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in __syncwarp\(\) for them'
    [ $((SECONDS - start)) -lt 10 ]
}

@test "the checker passes a right sync and a legacy that shows every bug (stand-ins)" {
    stand_ins
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

@test "the checker fails a legacy that is right by luck, and says so (stand-ins)" {
    stand_ins
    run "$L/check.sh" --target emu --sync "$BATS_TEST_TMPDIR/sync" --legacy "$BATS_TEST_TMPDIR/lucky"
    echo "$output"
    assert_failure 1
    assert_line --partial 'that is luck, not correctness'
    assert_line --partial 'the bug did not show on this run'
    assert_line --partial 'the hang did not show on this run'
    refute_line --regexp '^not ok [0-9]+ - sync: '
    assert_line --regexp '^[0-9]+ passed, [5-9] failed$'
}

@test "make check SRC= with DEMO checks one demonstration of a learner's file (stand-ins)" {
    stand_ins
    DEMO=converged run "$L/check.sh" --target emu --only-sync --sync "$BATS_TEST_TMPDIR/sync"
    echo "$output"
    assert_success
    refute_line --partial 'legacy'
    refute_line --regexp '^ok [0-9]+ - sync: (tree|transpose|around|hang) '
    assert_line --regexp '^ok 1 - sync: converged n=1000 jitter=200ns, upper lanes sleeping, matches CPU$'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 03-syncwarp-races
}

@test "make check SRC= checks a learner's copy of sync.cu" {
    assert_src_check_passes 03-syncwarp-races
}

# ---- the harness: lesson files hold device code only ----------------------

@test "legacy.cu and sync.cu hold device code only: no main, no host calls, no jitter" {
    assert_device_only 03-syncwarp-races
    run grep -nE 'main *\(|cudaMalloc|cudaMemcpy|LAUNCH|jitter|printf|lesson_parse' "$L/exercise.cu"
    assert_failure 1
}

@test "on warpsim every legacy bug shows with its sleepers and each race is gone under lockstep" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    local v=$L/build/verify e=$L/build/emu/legacy
    WARPSIM_MODEL=its run "$v" "$e" -k tree -n 2048 -j 200 --sleepers even
    echo "$output"
    assert_failure 1
    assert_line 'result: WRONG (64 of 64 warp sums wrong)'
    WARPSIM_MODEL=lockstep run "$v" "$e" -k tree -n 2048 -j 200 --sleepers even
    assert_success
    WARPSIM_MODEL=its run "$v" "$e" -k transpose -n 2048 -j 200
    echo "$output"
    assert_failure 1
    assert_line --partial ': read before it was written'
    WARPSIM_MODEL=lockstep run "$v" "$e" -k transpose -n 2048 -j 200
    assert_success
    WARPSIM_MODEL=its run "$v" "$e" -k converged -n 2048 -j 200 --sleepers upper
    echo "$output"
    assert_failure 1
    assert_line --regexp '^right after __syncwarp\(\), 2048 of 2048 lanes saw __activemask\(\) != 0xffffffff'
    WARPSIM_MODEL=lockstep run "$v" "$e" -k converged -n 2048 -j 200 --sleepers upper
    assert_success
    WARPSIM_MODEL=lockstep run "$v" "$e" -k around -n 2048
    assert_failure 1
    WARPSIM_MODEL=its run "$v" "$e" -k hang -n 256 -w 100000
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: lanes 16-31 spun [0-9]+ cycles on a flag while lanes 0-15 waited in __syncwarp\(\)'
}

@test "build/verify gives the verdict: a result line the program prints is only its words" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -k around -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 1000 lanes wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    run "$L/build/verify" "$FIXTURES/right.sh" -n 1000
    echo "$output"
    assert_failure 1
    assert_line --partial 'verify: right.sh exited 0 without writing its results'
    assert_line 'result: WRONG (no results written)'
    run "$L/build/verify" "$L/build/emu/legacy" -k hang -n 64 -w 100000
    assert_failure 3
    run "$L/build/verify" "$L/build/emu/sync" -k 6
    assert_failure 2
}

@test "every wrong fix in wrong/ is rejected on warpsim, with a locating line, within the bound" {
    assert_wrong_fixes_rejected 03-syncwarp-races
}

@test "the exercise's starter passes every demonstration but its tree, which is rejected at the racing line" {
    run make --no-print-directory -C "$L" check EMU=1 SRC="$L/exercise.cu" DEMO="transpose around converged hang" CHECK_FIRST_FAIL=1
    echo "$output"
    assert_success
    run make --no-print-directory -C "$L" check EMU=1 SRC="$L/exercise.cu" DEMO=tree CHECK_FIRST_FAIL=1
    echo "$output"
    assert_failure
    assert_line --regexp '^# locate: warpsim: race on shared shmem\[[0-9]+\]: .* at exercise\.cu:[0-9]+'
}

@test "a check of a file whose kernel never ends ends within 60 s on warpsim" {
    SECONDS=0
    run make --no-print-directory -C "$L" check EMU=1 SRC="$L/wrong/hang-spins.cu"
    echo "$output"
    assert_failure
    [ "$SECONDS" -lt 60 ] || fail "took ${SECONDS}s"
    assert_line --regexp '^# locate: HANG detected: .* at hang-spins\.cu:[0-9]+'
}

@test "on the pre-Volta path around and hang are not run, with the reason (stand-ins)" {
    SANITIZER=none run "$L/check.sh" --target gpu --sync "$FIXTURES/pre-volta.sh" --legacy "$FIXTURES/pre-volta.sh"
    echo "$output"
    assert_success
    assert_line --partial '# around: not run on the pre-Volta path'
    assert_line --partial '# hang: not run on the pre-Volta path'
    refute_line --regexp '^(not )?ok [0-9]+ - .*(around|hang)'
    assert_line --regexp '^ok [0-9]+ - legacy: tree: right on the pre-Volta path'
    assert_line --regexp '^ok [0-9]+ - legacy: converged: right on the pre-Volta path'
}
