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

@test "a program built for warpsim rejects a bad value of every WARPSIM_ setting with one line and exit 2" {
    local names tested
    for setting in WARPSIM_MODEL=moon WARPSIM_SEED=abc WARPSIM_SEED=-3 WARPSIM_ORDER=up \
                   WARPSIM_MEMORY=0 WARPSIM_MEMORY=2X WARPSIM_ERROR_EXITCODE=256 \
                   WARPSIM_SPIN_LIMIT=5 WARPSIM_STEP_LIMIT=99 WARPSIM_STEP_LIMIT=1Q \
                   WARPSIM_VERBOSE=yes WARPSIM_STATS=2 WARPSIM_TRACE=x.png \
                   WARPSIM_TRACE_LAUNCH=0 WARPSIM_TRACE_BLOCK=-1 WARPSIM_TRACE_WARP=32 \
                   WARPSIM_TRACE_WARP=1,1 WARPSIM_TRACE_WARP=1,x WARPSIM_TRACE_STEPS=5 \
                   WARPSIM_TRACE_HEIGHT=1 WARPSIM_SUMMARY_FD=x WARPSIM_SUMMARY_FD=99; do
        run --separate-stderr env "$setting" "$SYNC" -n 64
        echo "$setting -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" "^warpsim: ${setting%%=*}="
        tested+=" ${setting%%=*}"
    done
    # every variable of warpsim's settings table is among them
    names=$(grep -oE '"WARPSIM_[A-Z_]+"' "$REPO/warpsim/src/settings.c" | tr -d '"' | sort -u)
    [ "$(wc -l <<<"$names")" -ge 16 ]
    for name in $names; do
        [[ " $tested " == *" $name "* ]] || fail "no bad value of $name is tested"
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
    # (other checkouts of the same repository may be running a bench of
    # their own: only this checkout's worktrees are looked at)
    run git -C "$REPO" worktree list --porcelain
    refute_line --regexp "^worktree $(cd "$REPO" && pwd -P)/warpsim/build/bench-base/"
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

# ---- CUDA C++, Cooperative Groups, the device API's bounds -------------------

@test "the CUDA C++ device API and Cooperative Groups give CUDA's results under every model, with nothing reported" {
    for model in lockstep its random; do
        run env WARPSIM_MODEL=$model WARPSIM_ERROR_EXITCODE=9 "$T/cxx"
        echo "model $model"
        echo "$output" | grep -v '^ok'
        assert_success
        refute_line --partial 'not ok'
        assert_line --regexp '^result: ok \(0 of [0-9]+ cases wrong\)$'
        assert_line --regexp '^ok [0-9]+ - a kernel parameter struct of 336 bytes reaches every thread$'
        assert_line --regexp '^ok [0-9]+ - a kernel parameter struct of 4 KiB reaches every thread$'
        assert_line --regexp '^ok [0-9]+ - kernel parameters of 32,764 bytes'
        assert_line --regexp '^ok [0-9]+ - thread_block_tile<32, 16, 8, 4, 2, 1>'
        assert_line --regexp '^ok [0-9]+ - cg::reduce with plus, less, greater, bit_and, bit_or, bit_xor'
        assert_line "warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model $model, seed 1)"
    done
}

@test "kernel parameters over CUDA's 32,764 bytes are a compile error that names the limit" {
    printf '#include "lesson.h"\nstruct p { int v[8192]; };\n__global__ void k(p a, int *o) { o[0] = a.v[0]; }\nint main() { static p a; int *o = nullptr; LAUNCH(k, 1, 1, 0, a, o); return 0; }\n' \
        >"$BATS_TEST_TMPDIR/huge.cu"
    # shellcheck disable=SC2016
    printf 'TOP := %s\ninclude $(TOP)/mk/warpsim.mk\n%s: %s\n\t$(call ws_build,$<,$@)\n' \
        "$REPO" "$BATS_TEST_TMPDIR/huge" "$BATS_TEST_TMPDIR/huge.cu" >"$BATS_TEST_TMPDIR/huge.mk"
    run make -s --no-print-directory -f "$BATS_TEST_TMPDIR/huge.mk" "$BATS_TEST_TMPDIR/huge"
    assert_failure
    assert_output --partial "a kernel's parameters take at most 32,764 bytes"
}

@test "a C++ copy of lesson 01's sync.cu (templates, bool, references, overloads, min) passes where sync.cu passes, and its wrong twin fails where the C one fails" {
    # (DEMO=all: everything sync.cu meets, not the exercise's part alone)
    run make --no-print-directory -C "$L" check EMU=1 DEMO=all SRC="$REPO/warpsim/tests/lessons/01-sync-cxx.cu"
    echo "$output" | tail -3
    assert_success
    assert_line --regexp '^ok [0-9]+ - 01-sync-cxx.cu: variant 2 '
    assert_line --regexp '^[0-9]+ passed, 0 failed$'
    # the C twin is the wrong fix's patch of sync.cu, checked as the file it
    # makes, build/wrong/no-syncthreads.cu
    local f name
    for f in "$REPO/warpsim/tests/lessons/01-no-syncthreads-cxx.cu" "$L/wrong/no-syncthreads.patch"; do
        name=$(basename "$f"); name=${name%.patch}; name=${name%.cu}.cu
        run make --no-print-directory -C "$L" check EMU=1 DEMO=all CHECK_FIRST_FAIL=1 SRC="$f"
        echo "$output" | grep -E '^(not ok|# locate)'
        assert_failure
        assert_line --regexp "^# locate: warpsim: race on shared partial\[1\]: thread 32 \(block 0, warp 1, lane 0\) writes it at $name:[0-9]+ and thread 1 \(block 0, warp 0, lane 1\) reads it at $name:[0-9]+; different warps"
    done
}

@test "assert, __trap and __brkpt in a kernel are reported with the lane and file:line, then the summary, exit 1; a __trap that never fires is clean" {
    local k line
    for k in 1 2 3; do
        for model in lockstep its random; do
            run --separate-stderr env WARPSIM_MODEL=$model "$T/device" -k $k
            echo "$model $k: $stderr"
            assert_failure 1
            refute_output --partial 'result:'
            assert_equal "${#stderr_lines[@]}" 2
            assert_regex "${stderr_lines[1]}" '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors, 1 other error \(model '
        done
    done
    run --separate-stderr "$T/device" -k 1
    assert_regex "${stderr_lines[0]}" "^warpsim: assertion \`v < 5 \|\| v > 5' failed in kernel k_assert: lane 5 of warp 0 \(thread 5, block 0\) at device\.cu:[0-9]+$"
    run --separate-stderr "$T/device" -k 2
    assert_regex "${stderr_lines[0]}" '^warpsim: __trap\(\) in kernel k_trap: lane 3 of warp 0 \(thread 3, block 0\) at device\.cu:[0-9]+$'
    run --separate-stderr "$T/device" -k 3
    assert_regex "${stderr_lines[0]}" '^warpsim: __brkpt\(\) \(a breakpoint, and no debugger\) in kernel k_brkpt: lane 2 of warp 0 \(thread 2, block 0\) at device\.cu:[0-9]+$'
    run env WARPSIM_ERROR_EXITCODE=9 "$T/device" -k 4
    assert_success
    assert_line 'result: ok (case 4 ran)'
    # the line is the assertion's: the lesson's file, not a header
    line=$(grep -n 'assert(v < 5 || v > 5);' "$REPO/warpsim/tests/device.cu" | cut -d: -f1)
    run "$T/device" -k 1
    assert_output --partial "at device.cu:$line"
}

@test "a failed assertion in host code is glibc's message and SIGABRT, as without warpsim" {
    run --separate-stderr "$T/device" -k 14
    assert_failure 134
    assert_regex "$stderr" "^device: tests/device\.cu:[0-9]+: .*Assertion \`k == 0' failed\.$"
}

@test "division by zero, abort() and a tile size Cooperative Groups refuses are other errors: one line each, the summary, exit 1" {
    run --separate-stderr "$T/device" -k 12
    assert_failure 1
    assert_regex "${stderr_lines[0]}" '^warpsim: integer division by zero in kernel k_div: lane 0 of warp 0 \(thread 0, block 0\) at device\.cu:[0-9]+$'
    assert_regex "${stderr_lines[1]}" ', 0 memory errors, 1 other error \(model its, seed 1\)$'
    run --separate-stderr "$T/device" -k 13
    assert_failure 1
    assert_regex "${stderr_lines[0]}" '^warpsim: abort\(\) in kernel k_abort: lane 1 of warp 0 \(thread 1, block 0\)'
    run --separate-stderr "$T/device" -k 11
    assert_failure 1
    assert_regex "${stderr_lines[0]}" '^warpsim: tiled_partition\(g, n\) with n not a power of two from 1 to 32 .* in kernel k_tile_size: lane 0 of warp 0 \(thread 0, block 0\) at device\.cu:[0-9]+$'
}

@test "a Cooperative Groups collective that lanes of the tile skip is missing lanes, and a tile without its sync races, under every model" {
    for model in lockstep its random; do
        run env WARPSIM_MODEL=$model "$T/device" -k 9
        echo "$output"
        # (the tile that comes first: the first report of a place is the one)
        assert_line --regexp '^warpsim: missing lanes: lanes (8-15|24-31) of warp 0 \(block 0\) are named in the mask of __shfl_sync\(0x(0000ffff|ffff0000)\) that lanes (0-7|16-23) call at device\.cu:[0-9]+, but went past it without calling it'
        run env WARPSIM_MODEL=$model "$T/device" -k 16
        assert_line --regexp '^warpsim: missing lanes: lanes ([0-9]+)-([0-9]+) of warp 0 \(block 0\) are named in the mask of __syncwarp\(0x0*ff0*\) that lanes [0-9]+-[0-9]+ call at device\.cu:[0-9]+'
        run env WARPSIM_MODEL=$model "$T/device" -k 10
        assert_line --regexp '^warpsim: race on shared s\[[0-9]+\]: thread [0-9]+ \(block 0, warp 0, lane [0-9]+\) (writes|reads) it at device\.cu:[0-9]+ and thread [0-9]+ \(block 0, warp 0, lane [0-9]+\) (writes|reads) it at device\.cu:[0-9]+; same warp'
        # a launch of 4 KiB of arguments: the same check as any
        run env WARPSIM_MODEL=$model "$T/device" -k 15
        assert_line --regexp '^warpsim: missing lanes: lanes 16-31 of warp 0 \(block 0\) are named in the mask of __shfl_xor_sync\(0xffffffff\) that lanes 0-15 call at device\.cu:[0-9]+, but went past it'
    done
}

@test "printf in a kernel keeps a launch's output within cudaLimitPrintfFifoSize and says in one line what it left out" {
    local out=$BATS_TEST_TMPDIR/printf.out
    "$T/device" -k 5 >"$out" 2>"$out.err"
    cat "$out.err"
    [ "$(stat -c %s "$out")" -lt $((1100 * 1024)) ]
    [ "$(grep -c '^thread ' "$out")" -gt 40000 ]
    grep -qE '^warpsim: printf in kernel k_printf \(launched at device\.cu:[0-9]+\) printed 10[0-9]{5} bytes and left out [0-9]+ more calls: a launch.s output is bounded by cudaLimitPrintfFifoSize \(1048576 bytes; cudaDeviceSetLimit changes it\)$' "$out.err"
    grep -q '^result: ok (case 5 ran)$' "$out"
}

@test "malloc in a kernel returns NULL once the device heap (8 MB, cudaLimitMallocHeapSize) is full; a bad free is a memory error" {
    run env WARPSIM_ERROR_EXITCODE=9 "$T/device" -k 6
    assert_success
    assert_line 'malloc(1024) returned memory 8192 times'
    run env WARPSIM_ERROR_EXITCODE=9 "$T/device" -k 7
    assert_success
    assert_line 'malloc(1024) returned memory 64 times'
    run --separate-stderr "$T/device" -k 8
    assert_failure 1
    assert_regex "${stderr_lines[0]}" '^warpsim: free\(\) of a pointer that malloc in a kernel did not return \(or that was freed before\) in kernel k_bad_free: lane 0 of warp 0 \(thread 0, block 0\) at device\.cu:[0-9]+$'
    assert_regex "${stderr_lines[1]}" ' 1 memory error \(model its, seed 1\)$'
}

# ---- the summary channel (WARPSIM_SUMMARY_FD) ----------------------------------

# summary_of CMD...: runs CMD with WARPSIM_SUMMARY_FD=3 writing to a file;
# SUMMARY holds what came through it, RC the status.
summary_of() {
    local f=$BATS_TEST_TMPDIR/summary
    : >"$f"
    RC=0
    env WARPSIM_SUMMARY_FD=3 "$@" 3>"$f" >/dev/null 2>&1 || RC=$?
    SUMMARY=$(cat "$f")
}

@test "WARPSIM_SUMMARY_FD=N: one line to fd N with the counts, the model and the status, however the run ends" {
    summary_of env WARPSIM_MODEL=lockstep "$SYNC" -n 2048
    assert_equal "$SUMMARY" "warpsim-summary v1 model=lockstep seed=1 order=forward races=0 hangs=0 prim_errors=0 uninit=0 mem_errors=0 other=0 launches=1 status=0"
    summary_of env WARPSIM_MODEL=random WARPSIM_SEED=3 "$LEGACY" -n 2048 -j 200
    assert_equal "$RC" 1
    assert_regex "$SUMMARY" '^warpsim-summary v1 model=random seed=3 order=forward races=[1-9][0-9]* hangs=0 prim_errors=[0-9]+ uninit=[0-9]+ mem_errors=0 other=0 launches=1 status=1$'
    summary_of env WARPSIM_MODEL=lockstep "$T/detect" -k 22
    assert_equal "$RC" 3
    assert_equal "$SUMMARY" "warpsim-summary v1 model=lockstep seed=1 order=forward races=0 hangs=1 prim_errors=0 uninit=0 mem_errors=0 other=0 launches=1 status=3"
    summary_of env WARPSIM_MODEL=its WARPSIM_ORDER=reverse "$T/device" -k 1
    assert_equal "$RC" 1
    assert_equal "$SUMMARY" "warpsim-summary v1 model=its seed=1 order=reverse races=0 hangs=0 prim_errors=0 uninit=0 mem_errors=0 other=1 launches=1 status=1"
    # --error-exitcode is the status a clean exit becomes
    summary_of env WARPSIM_MODEL=lockstep WARPSIM_ERROR_EXITCODE=9 "$T/detect" -k 1
    assert_equal "$RC" 9
    assert_regex "$SUMMARY" ' races=1 .* status=9$'
    # a host-side abort: the signal's status
    summary_of "$T/device" -k 14
    assert_equal "$RC" 134
    assert_regex "$SUMMARY" ' launches=1 status=134$'
    [ "$(wc -l <"$BATS_TEST_TMPDIR/summary")" -eq 1 ]
}

@test "WARPSIM_SUMMARY_FD leaves the environment and closes on exec; a run killed by SIGKILL writes no line" {
    run env WARPSIM_SUMMARY_FD=3 "$T/device" -k 17 3 3>/dev/null
    assert_success
    assert_line 'WARPSIM_SUMMARY_FD in the environment: no; fd 3 closes on exec: yes'
    summary_of timeout -s KILL 1 "$T/bench" -n 64 -r 100000
    assert_equal "$RC" 137
    assert_equal "$SUMMARY" ""
}

# ---- pictures: what cannot be drawn, two warps in one ---------------------------

@test "a trace launch, block or warp that never ran, or a picture that cannot be written, is one line and a non-zero exit" {
    local svg=$BATS_TEST_TMPDIR/none.svg
    run --separate-stderr env WARPSIM_TRACE="$svg" WARPSIM_TRACE_LAUNCH=5 WARPSIM_MODEL=lockstep "$T/detect" -k 2
    assert_failure 2
    assert_equal "$stderr" "warpsim: nothing drawn in $svg: launch 5 (WARPSIM_TRACE_LAUNCH, --trace-launch) never ran; the program made 1 launch
warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model lockstep, seed 1)"
    run --separate-stderr "$W" --model lockstep --trace "$svg" --trace-block 9 "$T/detect" -k 4
    assert_failure 2
    assert_equal "${stderr_lines[0]}" "warpsim: nothing drawn in $svg: block 9 (WARPSIM_TRACE_BLOCK, --trace-block) of launch 1 never ran; race_block's grid has 1 block"
    run --separate-stderr "$W" --model lockstep --trace "$svg" --trace-warp 7 "$T/detect" -k 4
    assert_failure 2
    assert_equal "${stderr_lines[0]}" "warpsim: nothing drawn in $svg: warp 7 (WARPSIM_TRACE_WARP, --trace-warp) of block 0 in launch 1 never ran; race_block's blocks have 2 warps"
    [ ! -e "$svg" ]
    # a run that fails keeps its status, and says what was not drawn
    run --separate-stderr env WARPSIM_TRACE="$svg" WARPSIM_TRACE_WARP=5 "$T/device" -k 2
    assert_failure 1
    assert_equal "${stderr_lines[1]}" "warpsim: nothing drawn in $svg: warp 5 (WARPSIM_TRACE_WARP, --trace-warp) of block 0 in launch 1 never ran; k_trap's blocks have 1 warp"
    # a folder that is not there: before the program runs
    run --separate-stderr "$W" --trace "$BATS_TEST_TMPDIR/no/such/x.svg" "$T/detect" -k 1
    assert_failure 2
    assert_equal "$stderr" "warpsim: --trace $BATS_TEST_TMPDIR/no/such/x.svg: cannot write the picture there ($BATS_TEST_TMPDIR/no/such: No such file or directory)"
    assert_equal "$output" ""
    run --separate-stderr env WARPSIM_TRACE="$BATS_TEST_TMPDIR/no/x.svg" "$T/detect" -k 1
    assert_failure 2
    assert_equal "$stderr" "warpsim: WARPSIM_TRACE=$BATS_TEST_TMPDIR/no/x.svg: cannot write the picture there ($BATS_TEST_TMPDIR/no: No such file or directory)"
    # a file that cannot be opened when the picture is written
    mkdir "$BATS_TEST_TMPDIR/dir.svg"
    run --separate-stderr "$W" --model lockstep --trace "$BATS_TEST_TMPDIR/dir.svg" "$T/detect" -k 2
    assert_failure 2
    assert_equal "${stderr_lines[0]}" "warpsim: cannot write the picture $BATS_TEST_TMPDIR/dir.svg: Is a directory"
}

@test "--trace-warp N,M draws two warps of a block in one picture, a race between them marked at both accesses" {
    local svg=$BATS_TEST_TMPDIR/two.svg
    run "$W" --model its --trace "$svg" --trace-warp 0,1 "$T/detect" -k 3
    echo "$output"
    assert_success
    assert_equal "$(grep -c '^result: ok (case 3 ran)$' <<<"$output")" 1      # one run's output
    run svg_ok "$svg"
    assert_success
    grep -qF 'model its: warps 0 and 1 of block 0 in race_block (launch 1)' "$svg"
    grep -qF 'race 1 on s[32]: warp 0 lane 31 reads at detect.cu:33, warp 1 lane 0 writes at detect.cu:30' "$svg"
    [ "$(grep -o '<use href="#its-race"' "$svg" | wc -l)" -eq 3 ]   # two marks and the legend's
    [ "$(grep -o '>warp [01]</text>' "$svg" | wc -l)" -eq 2 ]
    ls "$BATS_TEST_TMPDIR" | { ! grep -q '\.part$'; }
    # one warp alone does not show that race
    run "$W" --model its --trace "$BATS_TEST_TMPDIR/one.svg" --trace-warp 0 "$T/detect" -k 3
    grep -qF 'no race reported on this warp' "$BATS_TEST_TMPDIR/one.svg"
}

@test "warpsim/src has no circle: each file uses only what the files below it in src/LAYERS define, and a use going up is named" {
    local objs=("$REPO"/warpsim/build/obj/*.o)
    run python3 "$REPO/tests/warpsim-layers.py" --graph "$REPO/warpsim/src/LAYERS" "${objs[@]}"
    echo "$output"
    assert_success
    assert_line --regexp '^1[0-9] files, 0 dependencies going up$'
    refute_output --partial '(up)'
    # it sees the dependencies: scheduling uses shadow memory, the runtime
    # the scheduler, and the access stubs what shadow.c defines
    assert_line --regexp '^sched -> shadow: '
    assert_line --regexp '^runtime -> sched: .*ws_sched_launch'
    assert_line --regexp '^stubs -> shadow: ws_after_'
    # and it fails on a use going up: the same files, upside down
    grep -v '^#' "$REPO/warpsim/src/LAYERS" | tac >"$BATS_TEST_TMPDIR/upside-down"
    run python3 "$REPO/tests/warpsim-layers.py" "$BATS_TEST_TMPDIR/upside-down" "${objs[@]}"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^sched -> shadow \(up\): '
    assert_line --regexp '^1[0-9] files, [0-9]+ dependencies going up$'
    # an object of no listed file, or a listed file without its object: usage
    grep -v '^#' "$REPO/warpsim/src/LAYERS" | grep -v '^runtime' >"$BATS_TEST_TMPDIR/no-runtime"
    run python3 "$REPO/tests/warpsim-layers.py" "$BATS_TEST_TMPDIR/no-runtime" "${objs[@]}"
    assert_failure 2
    assert_output --regexp 'runtime\.o is the object of no file that .* lists'
    run python3 "$REPO/tests/warpsim-layers.py" "$REPO/warpsim/src/LAYERS" "$REPO/warpsim/build/obj/ctx.o"
    assert_failure 2
    assert_output --partial 'no object for settings, image, report'
}
