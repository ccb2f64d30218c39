#!/usr/bin/env bats
# warpsim, the CPU emulator of warp execution: build, driver, settings, the
# primitives' results, lesson 01 under every model, speed. The detectors'
# cases are in warpsim-detect.bats.

setup_file() {
    load helper
    make -s --no-print-directory -C "$REPO/warpsim" all tests >/dev/null
    make -s --no-print-directory -C "$REPO/lessons/01-shfl-reduction" emu >/dev/null
}

setup() {
    load helper
    # make check SRC= builds the learner's programs as build/$MINE, in the
    # working tree's lesson folders: a name of this file's own, so that the
    # files running side by side never build over each other's
    export MINE=mine-warpsim
    W=$REPO/warpsim/build/warpsim
    T=$REPO/warpsim/build/tests
    L=$REPO/lessons/01-shfl-reduction
    LEGACY=$L/build/emu/legacy
    SYNC=$L/build/emu/sync
}

# One clean build of warpsim serves two tests: the lessons' makes start it
# side by side (mk/lesson.mk's lock builds each object once between them),
# then warpsim's own make builds the rest.
@test "warpsim and two lessons build for it from a clean copy side by side, with no warnings, warpsim's objects once (mk/lesson.mk's lock)" {
    command -v gcc >/dev/null || skip "gcc not found"
    local r=$BATS_TEST_TMPDIR/repo rc=0 d
    copy_repo "$r"
    make --no-print-directory -C "$r/lessons/01-shfl-reduction" emu >"$BATS_TEST_TMPDIR/a" 2>&1 &
    make --no-print-directory -C "$r/lessons/07-warp-scan" emu >"$BATS_TEST_TMPDIR/b" 2>&1 || rc=1
    wait $! || rc=1
    run cat "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
    echo "$output"
    [ "$rc" -eq 0 ] || fail "a lesson's make failed"
    refute_output --partial warning
    for d in 01-shfl-reduction 07-warp-scan; do
        [ -x "$r/lessons/$d/build/emu/sync" ] || fail "no $d/build/emu/sync"
        [ -x "$r/lessons/$d/build/emu/legacy" ] || fail "no $d/build/emu/legacy"
    done
    if command -v flock >/dev/null; then
        run grep -h -oE "CC +warpsim/build/obj/[a-z_]+\.o" "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
        assert_line --partial "obj/sched.o"
        assert_equal "$(sort <<<"$output" | uniq -d)" ""      # no object compiled twice
    else
        echo "no flock here: lessons made side by side may build warpsim's objects twice"
    fi
    run make --no-print-directory -C "$r/warpsim" all tests
    echo "$output"
    assert_success
    refute_output --partial warning
    [ -x "$r/warpsim/build/warpsim" ] || fail "no warpsim/build/warpsim"
}

@test "a program built for warpsim links no sanitizer runtime and needs no executable stack" {
    run ldd "$SYNC"
    refute_output --partial tsan
    run readelf -lW "$SYNC"
    assert_line --regexp 'GNU_STACK .* RW +0x'
}

@test "warpsim --help explains the three models and each kind of report" {
    run "$W" --help
    assert_success
    for word in lockstep its random race 'uninitialized read' 'bad mask' 'bad shuffle' \
                'missing lanes' 'mask mismatch' 'HANG detected' 'invalid write' \
                'Exit status' --model --seed --order --error-exitcode; do
        assert_output --partial -- "$word"
    done
}

# Every "$ command" in warpsim --help is followed by lines it really prints.
@test "every example in warpsim --help is what its command prints today" {
    local cmd="" line n=0 out
    cd "$REPO"
    while IFS= read -r line; do
        if [[ $line =~ ^\ \ \ \ \$\ (.*)$ ]]; then
            cmd=${BASH_REMATCH[1]}
            out=$(env WARPSIM_SPIN_LIMIT=4194304 bash -c "$cmd" 2>&1) || true
        elif [ -n "$cmd" ] && [[ $line =~ ^\ \ \ \ ([^ ].*)$ ]]; then
            n=$((n + 1))
            grep -qxF -- "${BASH_REMATCH[1]}" <<<"$out" ||
                fail "\$ $cmd
did not print: ${BASH_REMATCH[1]}
it printed:
$out"
        else
            cmd=""
        fi
    done < <("$W" --help)
    [ "$n" -ge 12 ]
}

@test "the driver rejects bad options with one line and exit 2" {
    for args in "--model moon" "--seed abc" "--seed -1" "--order sideways" \
                "--error-exitcode 300" "--memory 0" "--spin-limit 10" "--step-limit 5" \
                "--step-limit=x" "--bogus" "--model"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$W" $args "$SYNC"
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^warpsim: '
    done
    run --separate-stderr "$W"
    assert_failure 2
    assert_equal "$stderr" "warpsim: no program to run (try --help)"
}

@test "a program built for warpsim rejects bad WARPSIM_ settings with one line and exit 2" {
    for setting in WARPSIM_MODEL=moon WARPSIM_SEED=abc WARPSIM_SEED=-3 WARPSIM_ORDER=up \
                   WARPSIM_MEMORY=0 WARPSIM_MEMORY=2X WARPSIM_ERROR_EXITCODE=256 \
                   WARPSIM_SPIN_LIMIT=5 WARPSIM_STEP_LIMIT=99 WARPSIM_STEP_LIMIT=1Q; do
        run --separate-stderr env "$setting" "$SYNC" -n 64
        echo "$setting -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" "^warpsim: ${setting%%=*}="
    done
}

@test "the lesson program's own bad arguments still give its one line and exit 2" {
    for args in "-n 0" "-n abc" "--bogus" "-b 48"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$SYNC" $args
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
}

@test "a block of more than 1024 threads is one line and exit 2" {
    run --separate-stderr "$T/detect" -k 29
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" '^warpsim: nothing launched at detect\.cu:[0-9]+ with 2048 threads per block; a block may have at most 1024$'
}

@test "more shared memory than a block may have, or dynamic shared memory, is one line and exit 2" {
    run --separate-stderr "$T/bigshared"
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" "take 65536 bytes, more than the 49152 a block may have"
    run --separate-stderr "$T/detect" -k 30
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'dynamic shared memory, which warpsim does not support'
}

@test "cudaMalloc beyond WARPSIM_MEMORY fails, and the lesson says so in one line, exit 2" {
    run --separate-stderr env WARPSIM_MEMORY=1M "$SYNC" -n 1M
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" '^sync: the input needs 4\.0 MiB of GPU memory'
    run --separate-stderr "$SYNC" -n 64G
    assert_failure 2
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "every primitive gives the Programming Guide's results under every model, with nothing reported" {
    for model in lockstep its random; do
        for seed in 1 2; do
            run env WARPSIM_MODEL=$model WARPSIM_SEED=$seed WARPSIM_ERROR_EXITCODE=9 "$T/prims"
            echo "model $model seed $seed"
            echo "$output" | grep -v '^ok'
            assert_success
            refute_line --partial 'not ok'
            assert_line --regexp '^result: ok \(0 of [0-9]+ cases wrong\)$'
            assert_line "warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model $model, seed $seed)"
        done
    done
}

@test "lesson 01's sync is right and clean under every model, with and without jitter" {
    for model in lockstep its random; do
        for j in 0 200; do
            run env WARPSIM_MODEL=$model WARPSIM_ERROR_EXITCODE=9 "$SYNC" -n 8195 -j $j -k 2
            assert_success
            assert_line --regexp '^result: ok \(0 of 264 warps wrong, 0 of 33 blocks wrong\)$'
            assert_line --partial "warpsim: 0 races, 0 hangs, 0 warp-primitive errors"
        done
    done
}

@test "lesson 01's legacy is right under lockstep, even with jitter, yet reported as a race" {
    run "$W" --model lockstep "$LEGACY" -n 2048 -j 200
    assert_success
    assert_line 'result: ok (0 of 64 warps wrong, 0 of 8 blocks wrong)'
    assert_line --regexp '^warpsim: [1-9][0-9]* races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors \(model lockstep, seed 1\)$'
}

@test "lesson 01's legacy is wrong under its with jitter, the race named by lane and line" {
    run "$W" --model its "$LEGACY" -n 2048 -j 200
    assert_failure 1
    assert_line 'result: WRONG (64 of 64 warps wrong, 8 of 8 blocks wrong)'
    assert_line --regexp '^warpsim: race on shared r\[16\]: thread 16 \(block 0, warp 0, lane 16\) writes it \(volatile\) at legacy\.cu:[0-9]+ and thread 0 \(block 0, warp 0, lane 0\) reads it \(volatile\) at legacy\.cu:[0-9]+; same warp'
}

@test "lesson 01's legacy is reported as a race under random too, and --error-exitcode turns that into a status" {
    run "$W" --model random --seed 3 --error-exitcode 9 "$LEGACY" -n 2048
    assert_failure 1    # wrong sums: the program's own status wins
    assert_line --regexp '^warpsim: [1-9][0-9]* races, .*\(model random, seed 3\)$'
    run "$W" --model lockstep --error-exitcode 9 "$LEGACY" -n 2048
    assert_failure 9    # right sums, but a race was reported
}

@test "a random schedule is the same for the same seed and changes with it" {
    run env WARPSIM_MODEL=random WARPSIM_SEED=5 "$LEGACY" -n 4096
    local first=$output
    run env WARPSIM_MODEL=random WARPSIM_SEED=5 "$LEGACY" -n 4096
    assert_equal "$output" "$first"
    run env WARPSIM_MODEL=random WARPSIM_SEED=6 "$LEGACY" -n 4096
    [ "$output" != "$first" ]
}

@test "the its order matters: reverse order runs each writer of the tree before its reader" {
    run "$W" --model its --order forward "$LEGACY" -n 2048
    assert_line 'result: WRONG (64 of 64 warps wrong, 8 of 8 blocks wrong)'
    run "$W" --model its --order reverse "$LEGACY" -n 2048
    echo "$output" | tail -3
    assert_line 'result: WRONG (0 of 64 warps wrong, 8 of 8 blocks wrong)'
    assert_line --regexp '^warpsim: [1-9][0-9]* races, .*\(model its, order reverse, seed 1\)$'
}

@test "a lesson at its emulator size (8 blocks of 256 threads) runs in under 2 s under every model" {
    local model start end
    for model in lockstep its random; do
        start=$(date +%s%N)
        run env WARPSIM_MODEL=$model "$LEGACY" -n 2048 -j 200
        end=$(date +%s%N)
        echo "$model: $(( (end - start) / 1000000 )) ms"
        [ $(( (end - start) / 1000000 )) -lt 2000 ]
        start=$(date +%s%N)
        run env WARPSIM_MODEL=$model "$SYNC" -n 8195 -j 200
        end=$(date +%s%N)
        echo "$model: $(( (end - start) / 1000000 )) ms"
        [ $(( (end - start) / 1000000 )) -lt 2000 ]
    done
}

@test "make check runs lesson 01 on warpsim where no GPU is found, and passes" {
    have_gpu && skip "a GPU is present: make check runs there (make check EMU=1 is tested next)"
    run make --no-print-directory -C "$L" check
    echo "$output"
    assert_success
    assert_line '# checking on the CPU emulator (warpsim)'
    assert_line --regexp '^ok [0-9]+ - legacy: variant 1 right under lockstep'
    assert_line --regexp '^ok [0-9]+ - legacy: tree: warpsim reports the intra-warp race under every model$'
    assert_line --regexp '^[0-9]+ passed, 0 failed$'
}

@test "make check EMU=1 runs lesson 01 on warpsim anywhere, and SRC= checks a learner's copy there" {
    run make --no-print-directory -C "$L" check EMU=1
    assert_success
    assert_line '# checking on the CPU emulator (warpsim)'
    assert_line --regexp '^[0-9]+ passed, 0 failed$'
    cp "$L/sync.cu" "$BATS_TEST_TMPDIR/mine.cu"
    run make --no-print-directory -C "$L" check EMU=1 SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_success
    refute_line --partial legacy
    assert_line --regexp '^[0-9]+ passed, 0 failed$'
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    run make --no-print-directory -C "$L" check EMU=1 SRC="$BATS_TEST_TMPDIR/mine.cu"
    assert_failure
    assert_line --regexp '^not ok 1 - mine.cu: variant 1 n=1 seed=1 jitter=0ns matches CPU$'
}

@test "make bench measures each model beside a base commit's build, built in a worktree it removes, as a ratio" {
    local base short
    base=$(git -C "$REPO" rev-parse HEAD)
    short=$(git -C "$REPO" rev-parse --short HEAD)
    WS_BENCH_CACHE=$BATS_TEST_TMPDIR/base run "$REPO/warpsim/bench.sh" --base HEAD --reps 1 \
        -n 2 -r 8 "$T/bench"
    echo "$output"
    assert_success
    assert_line --regexp "^bench.sh: building $short's warpsim in a temporary worktree \\(build/bench-base/worktree\\.[A-Za-z0-9]+\\)$"
    [ -x "$BATS_TEST_TMPDIR/base/$base-cc/bench" ] || fail "the base's program is not kept"
    assert_line --regexp "^CPU seconds of the same runs .*; ratio: $short's over this build's$"
    for model in lockstep its random; do
        assert_line --regexp "^$model +[0-9.]+ +[0-9.]+ +[0-9.]+x +20992$"
        assert_line --regexp "^$model +[0-9.]+ +[0-9.]+ +[0-9.]+x$"      # its CPU time
        assert_line --regexp "^summary: warpsim $model: [0-9.]+ M accesses/s, [0-9.]+x $short's [0-9.]+$"
    done
    run git -C "$REPO" worktree list
    refute_output --partial bench-base
}

@test "make bench without a base measures this build alone; a bad base or count is one line, exit 2" {
    run "$REPO/warpsim/bench.sh" --base none --reps 1 -n 1 -r 4 "$T/bench"
    assert_success
    assert_line "bench.sh: no base to compare with: no base asked for"
    for model in lockstep its random; do
        assert_line --regexp "^summary: warpsim $model: [0-9.]+ M accesses/s$"
    done
    run --separate-stderr "$REPO/warpsim/bench.sh" --base no-such-commit "$T/bench"
    assert_failure 2
    assert_equal "$stderr" "bench.sh: --base: 'no-such-commit' is no commit of this repository"
    run --separate-stderr "$REPO/warpsim/bench.sh" --reps 0 "$T/bench"
    assert_failure 2
    assert_equal "$stderr" "bench.sh: --reps needs a positive number, not '0' (try --help)"
}

# python3's XML parser, then what the picture must hold.
svg_ok() {
    python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
assert root.tag.endswith('svg'), root.tag
PY
}

@test "warpsim --trace draws lockstep beside its: well-formed SVG naming the lanes, the lines and the race at both accesses" {
    local svg=$BATS_TEST_TMPDIR/race.svg
    run "$W" --trace "$svg" --trace-models lockstep,its "$T/detect" -k 1
    echo "$output"
    assert_success
    run svg_ok "$svg"
    echo "$output"
    assert_success
    run cat "$svg"
    assert_output --partial 'model lockstep: warp 0 of block 0 in race_warp'
    assert_output --partial 'model its: warp 0 of block 0 in race_warp'
    assert_output --partial '>lane</text>'
    assert_output --partial '>31</text>'
    assert_output --partial 'detect.cu:19 (lanes 0-31)'
    assert_output --partial 'detect.cu:22 (lane 0)'
    assert_output --partial 'race 1 on s[1]: lane 1 writes at detect.cu:19, lane 0 reads at detect.cu:22'
    assert_output --partial 'Legend'
    # the race's mark at both accesses, in each of the two pictures
    [ "$(grep -o '<use href="#its-race"' "$svg" | wc -l)" -eq 3 ]   # two marks and the legend's
    [ "$(grep -o '<use href="#lockstep-race"' "$svg" | wc -l)" -eq 3 ]
    [ ! -e "${svg%.svg}.lockstep.part.svg" ]
    [ "$(stat -c %s "$svg")" -lt 60000 ]
}

@test "WARPSIM_TRACE draws a program run by itself: shuffles as arrows, ballots as a strip, sleeps, barriers" {
    local k svg
    for k in 8 11 19 28; do
        svg=$BATS_TEST_TMPDIR/k$k.svg
        WARPSIM_TRACE=$svg WARPSIM_MODEL=its "$T/detect" -k "$k" >/dev/null 2>&1 || true
        run svg_ok "$svg"
        echo "case $k: $output"
        assert_success
        [ "$(stat -c %s "$svg")" -lt 60000 ]
    done
    # a full-mask __shfl_sync(v, 0): 31 arrows from lane 0 (and the legend's)
    [ "$(grep -c 'stroke-width="0.7"' "$BATS_TEST_TMPDIR/k8.svg")" -eq 32 ]
    grep -qF '__shfl_sync(0xffffffff) at detect.cu:63' "$BATS_TEST_TMPDIR/k8.svg"
    grep -qF 'lanes 0-31 met; last in: lane 31' "$BATS_TEST_TMPDIR/k8.svg"
    grep -qF '__ballot_sync(0x0000ffff) at detect.cu:92' "$BATS_TEST_TMPDIR/k11.svg"
    grep -qF 'ballot 0x0000' "$BATS_TEST_TMPDIR/k11.svg"
    grep -qF '__syncthreads() at detect.cu:' "$BATS_TEST_TMPDIR/k19.svg"
    grep -qF '>zz ' "$BATS_TEST_TMPDIR/k28.svg"
}

@test "--trace-steps bounds the picture; --trace-block and --trace-warp choose the warp" {
    local svg=$BATS_TEST_TMPDIR/big.svg
    run "$W" --trace "$svg" --trace-steps 64 --trace-block 1 --trace-warp 3 "$T/bench" -n 4 -r 8
    echo "$output"
    assert_success
    run svg_ok "$svg"
    assert_success
    grep -qF 'warp 3 of block 1 in churn' "$svg"
    grep -qF 'stopped after --trace-steps lane steps' "$svg"
    [ "$(stat -c %s "$svg")" -lt 20000 ]
}

@test "--trace-height bounds the rows of a long run, leaving rows out as grey bands" {
    local svg=$BATS_TEST_TMPDIR/tall.svg
    run "$W" --trace "$svg" --trace-height 160 --model its "$T/bench" -n 4 -r 8
    assert_success
    grep -qE '; [0-9]+ of [0-9]+ rows drawn \(grey: ' "$svg" || fail "no rows left out in $svg"
    # 160 px of rows: a few rows of 13 px, not hundreds
    [ "$(grep -oE '; [0-9]+ of' "$svg" | grep -oE '[0-9]+')" -le 13 ]
    WARPSIM_TRACE_HEIGHT=abc run --separate-stderr "$T/detect" -k 1
    assert_failure 2
    assert_equal "$stderr" "warpsim: WARPSIM_TRACE_HEIGHT=abc: the rows' height must be from 160 to 1400 px"
}

@test "bad trace settings are one line and exit 2" {
    for args in "--trace x.png" "--trace-warp 32" "--trace-steps 5" "--trace-block x" \
                "--trace-height 100" "--trace-height 1401" "--trace-height x" \
                "--trace-models lockstep,moon --trace t.svg" "--trace-models its"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$W" $args "$T/detect" -k 1
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^warpsim: '
    done
}

@test "a program not built for warpsim is named in one line, exit 126" {
    run --separate-stderr "$W" /bin/true
    assert_failure 126
    assert_equal "$stderr" "warpsim: /bin/true is not built for warpsim (build it with make emu, or make check on a machine without a GPU)"
    command -v nvcc >/dev/null || skip "nvcc not found: the GPU build case needs it"
    printf 'int main(void) { return 77; }\n' >"$BATS_TEST_TMPDIR/gpu.cu"
    nvcc -arch=sm_90 "$BATS_TEST_TMPDIR/gpu.cu" -o "$BATS_TEST_TMPDIR/gpu"
    run --separate-stderr "$W" "$BATS_TEST_TMPDIR/gpu"
    assert_failure 126
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'gpu is not built for warpsim'
}

@test "docs/pictures.sh draws a lesson's demonstrations from real runs, and rejects bad usage" {
    local out=$BATS_TEST_TMPDIR/pictures f
    run "$REPO/docs/pictures.sh" -o "$out" 01
    echo "$output"
    assert_success
    assert_line '01-shfl-reduction-tree.svg: Lesson 01: the volatile tree reduction, odd lanes sleeping 200 ns (legacy.cu: lockstep | its)'
    assert_line --regexp '^pictures.sh: 4 pictures in '
    for f in 01-shfl-reduction-tree.svg 01-shfl-reduction-tree.sync.svg \
             01-shfl-reduction-shfl.svg 01-shfl-reduction-shfl.sync.svg; do
        run svg_ok "$out/$f"
        assert_success
        [ "$(stat -c %s "$out/$f")" -lt 120000 ]
    done
    grep -qF 'model lockstep: warp 0 of block 0' "$out/01-shfl-reduction-tree.svg"
    grep -qF 'model its: warp 0 of block 0' "$out/01-shfl-reduction-tree.svg"
    grep -q 'race 1 on [a-z_]*\[' "$out/01-shfl-reduction-tree.svg"
    run grep -c 'race 1 on' "$out/01-shfl-reduction-tree.sync.svg"
    assert_output 0
    run "$REPO/docs/pictures.sh" --bogus
    assert_failure 2
    printf '01-shfl-reduction | nothing\n' >"$BATS_TEST_TMPDIR/bad.list"
    run "$REPO/docs/pictures.sh" -l "$BATS_TEST_TMPDIR/bad.list" -o "$out"
    assert_failure 2
    printf '99-nowhere | x | -n 1 | a lesson that is not there\n' >"$BATS_TEST_TMPDIR/missing.list"
    run "$REPO/docs/pictures.sh" -l "$BATS_TEST_TMPDIR/missing.list" -o "$out"
    assert_failure 1
    assert_line --partial 'pictures.sh: 99-nowhere x: no '
}

@test "same-reports.sh explains itself, and a missing or unknown base is one line and exit 2" {
    run "$REPO/warpsim/same-reports.sh" --help
    assert_success
    assert_line --partial 'same-reports.sh [options] BASE'
    assert_line --partial 'Exit status: 0 every case'
    run "$REPO/warpsim/same-reports.sh"
    assert_failure 2
    assert_output 'same-reports.sh: usage: same-reports.sh [options] BASE (try --help)'
    run "$REPO/warpsim/same-reports.sh" no-such-commit
    assert_failure 2
    assert_output "same-reports.sh: 'no-such-commit' is no commit of this repository"
    run "$REPO/warpsim/same-reports.sh" --bogus
    assert_failure 2
    assert_output "same-reports.sh: unknown option '--bogus' (try --help)"
}
