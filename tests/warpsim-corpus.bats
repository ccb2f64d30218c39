#!/usr/bin/env bats
# warpsim's corpus (warpsim/corpus/*.cu): small kernels written from the
# CUDA Programming Guide's rules, each with its expected verdict in its first
# line, run under every scheduling model by warpsim/corpus/run.sh.

setup_file() {
    load helper
    make -s --no-print-directory -C "$REPO/warpsim" corpus >/dev/null
}

setup() {
    load helper
    C=$REPO/warpsim/corpus
}

@test "the corpus has at least 60 kernels, each with an expected verdict warpsim knows" {
    local n=0 f v
    for f in "$C"/*.cu; do
        v=$(sed -n 's|^// expect: *||p' "$f")
        echo "$(basename "$f"): '$v'"
        [[ " race barrier missing shuffle mask uninit oob-shared oob-global hang livelock fpe clean " == *" $v "* ]]
        n=$((n + 1))
    done
    [ "$n" -ge 60 ]
}

@test "every corpus kernel gets its expected verdict under every model, and nothing else" {
    run "$C/run.sh" -v
    echo "$output"
    assert_success
    assert_line --regexp '^[0-9]+ of [0-9]+ kernels right under every model$'
    refute_line --partial WRONG
}

@test "the corpus covers every verdict, and the legal cases the Programming Guide names" {
    local v
    for v in race barrier missing shuffle mask uninit oob-shared oob-global hang livelock fpe clean; do
        grep -lx "// expect: $v" "$C"/*.cu >/dev/null
    done
    for f in clean-exited-syncwarp clean-early-return-syncthreads clean-byte-disjoint \
             clean-spinlock-fence clean-syncwarp-ordered clean-message-fence \
             clean-blocks-two-launches clean-blocks-message-fence clean-global-initialized \
             clean-loop-return-before-barrier clean-loop-barrier-guarded clean-device-variable; do
        [ -f "$C/$f.cu" ]
    done
}

@test "the runner fails on a wrong verdict and says which" {
    local tmp
    tmp=$(mktemp -d)
    mkdir -p "$tmp/corpus" "$tmp/build/corpus"
    cp "$C/run.sh" "$C/lib.sh" "$tmp/corpus/"
    sed 's|^// expect: race|// expect: clean|' "$C/race-warp-shared.cu" >"$tmp/corpus/race-warp-shared.cu"
    cp "$REPO/warpsim/build/corpus/race-warp-shared" "$tmp/build/corpus/"
    run "$tmp/corpus/run.sh" race-warp-shared
    rm -rf "$tmp"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^race-warp-shared +clean +race \(WRONG: expected clean\)'
    assert_line "0 of 1 kernels right under every model"
}

@test "an integer division by zero is reported by lane, line and kernel, and stops with status 1" {
    for m in lockstep its random; do
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/fpe-div-zero"
        echo "$output"
        assert_failure 1
        assert_line --regexp '^warpsim: integer division by zero in kernel kernel: lane 3 of warp 0 \(thread 3, block 0\) at fpe-div-zero\.cu:[0-9]+$'
        assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors, 1 other error'
    done
}

@test "an out-of-bounds __shared__ access names the variable, the index, the lane and the line" {
    run env WARPSIM_MODEL=lockstep "$REPO/warpsim/build/corpus/oob-shared-past-end"
    echo "$output"
    assert_line --regexp '^warpsim: invalid write of 4 bytes on shared memory: lane 31 of warp 0 \(thread 31, block 0\) at oob-shared-past-end\.cu:[0-9]+ touches s\[32\], 4 bytes past the end of s \(128 bytes\)$'
    run env WARPSIM_MODEL=lockstep "$REPO/warpsim/build/corpus/oob-shared-negative"
    echo "$output"
    assert_line --regexp '^warpsim: invalid read of 4 bytes on shared memory: lane 0 of warp 0 \(thread 0, block 0\) at oob-shared-negative\.cu:[0-9]+ touches s\[-1\], 4 bytes before the start of s \(128 bytes\)$'
}

@test "a livelock ends within seconds as a hang with where the lanes loop, exit 3" {
    local t0=$SECONDS
    # It writes memory every round: the step limit ends it.
    run env WARPSIM_MODEL=its "$REPO/warpsim/build/corpus/livelock-counter-spin"
    echo "$output"
    assert_failure 3
    assert_line --regexp '^HANG detected: warp 0 of block 0: lanes 0-31 loop at livelock-counter-spin\.cu:[0-9]+.* \(a livelock: thread [0-9]+ took 1048576 steps and goes on; WARPSIM_STEP_LIMIT raises the bound\)$'
    [ $((SECONDS - t0)) -lt 30 ]
    # Whatever the limit, the report shows both lines of the loop (the pcs
    # of the last steps before it, and of some steps before those).
    for limit in 1000 4097 5000 8192; do
        run env WARPSIM_STEP_LIMIT=$limit "$REPO/warpsim/build/corpus/livelock-counter-spin"
        assert_failure 3
        assert_line --regexp "^HANG detected: warp 0 of block 0: lane 0 loops at livelock-counter-spin\.cu:16-17; .* took $limit steps"
    done
}

@test "a loop whose primitives only repeat themselves is a livelock within a second or two, under every model" {
    local model t0 limit
    for model in lockstep its random; do
        # the default bound under lockstep; the others with a smaller one
        limit=${model/lockstep/}
        t0=$SECONDS
        run env WARPSIM_MODEL=$model ${limit:+WARPSIM_SPIN_LIMIT=100000} \
            "$REPO/warpsim/build/corpus/livelock-fallback-loop"
        echo "$model: $output"
        assert_failure 3
        assert_line --regexp '^HANG detected: warp 0 of block 0: lanes 0-31 loop at livelock-fallback-loop\.cu:17-18 \(a livelock: the warp primitives they complete repeat with the same values, and no memory changes; WARPSIM_SPIN_LIMIT raises the bound\)$'
        [ $((SECONDS - t0)) -lt 10 ] || fail "$model: took $((SECONDS - t0)) s"
    done
    # A bounded loop of the same shuffle, over the spin limit, ends clean.
    run env WARPSIM_SPIN_LIMIT=100000 "$REPO/warpsim/build/corpus/clean-repeat-bounded"
    assert_success
    refute_output --partial 'HANG'
    # Without the time a repeat is given, it would not.
    run env WARPSIM_SPIN_LIMIT=20000 "$REPO/warpsim/build/corpus/clean-repeat-bounded"
    assert_failure 3
    assert_line --partial 'the warp primitives they complete repeat'
}

@test "run.sh and run-sanitizer.sh explain themselves and reject bad usage" {
    run "$C/run.sh" --help
    assert_success
    assert_line --partial 'corpus/run.sh [--help]'
    run "$C/run.sh" --bogus
    assert_failure 2
    run "$C/run.sh" no-such-kernel
    assert_failure 2
    run "$C/run-sanitizer.sh" --help
    assert_success
    assert_line --partial 'compute-sanitizer'
    run "$C/run-sanitizer.sh" --bogus
    assert_failure 2
}

@test "every corpus file builds with nvcc too, where nvcc is installed" {
    command -v nvcc >/dev/null || skip "no nvcc here"
    local f out
    out=$(mktemp -d)
    for f in "$C"/clean-spinlock-fence.cu "$C"/clean-reduce-add.cu; do
        nvcc -arch=sm_90 -o "$out/prog" "$f"
    done
    rm -rf "$out"
}

@test "verdicts on atomics and locks do not depend on the interleaving: ten seeds and every its order" {
    . "$C/lib.sh"
    local n s out got want
    for n in race-read-then-own-atomic race-shared-atomic-vs-plain race-plain-write-vs-atomic \
             race-lock-without-lock clean-spinlock-fence clean-message-fence clean-byte-disjoint; do
        want=$(corpus_expect "$C/$n.cu")
        for s in 1 2 3 4 5 6 7 8 9 10; do
            out=$(WARPSIM_MODEL=random WARPSIM_SEED=$s "$REPO/warpsim/build/corpus/$n" 2>&1)
            got=$(warpsim_verdict $? "$out")
            echo "$n seed $s: $got"
            [ "$got" = "$want" ]
        done
        for s in forward reverse alternate; do
            out=$(WARPSIM_MODEL=its WARPSIM_ORDER=$s "$REPO/warpsim/build/corpus/$n" 2>&1)
            got=$(warpsim_verdict $? "$out")
            echo "$n order $s: $got"
            [ "$got" = "$want" ]
        done
    done
}

@test "compute-sanitizer's output is read as the tool meant it: a summary of 0 hazards is clean" {
    . "$REPO/warpsim/corpus/lib.sh"
    run sanitizer_verdict racecheck 0 '========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)'
    assert_output clean
    run sanitizer_verdict racecheck 0 '========= Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x8 in block (0,0,0) :
========= RACECHECK SUMMARY: 100 hazards displayed (0 errors, 16908 warnings)'
    assert_output race
    run sanitizer_verdict racecheck 0 '========= Error: Race reported between Write access at k+0x90 and Read access at k+0xa0 [4 hazards]'
    assert_output race
    run sanitizer_verdict synccheck 0 '========= Barrier error detected. Divergent thread(s) in warp'
    assert_output barrier
    run sanitizer_verdict synccheck 0 '========= ERROR SUMMARY: 0 errors'
    assert_output clean
    run sanitizer_verdict memcheck 0 '========= Invalid __shared__ write of size 4 bytes'
    assert_output oob-shared
    run sanitizer_verdict memcheck 124 ''
    assert_output timeout
}

@test "a race between blocks that makes a division by zero is reported first, then the division, under every model" {
    local m first
    for m in lockstep its random; do
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/race-blocks-divide-by-next"
        echo "--- $m"; echo "$output"
        assert_failure 1
        first=$(printf '%s\n' "$output" | grep -m 1 '^warpsim: ')
        [[ $first =~ ^warpsim:\ race\ on\ global\ .*\[1\]:\ thread\ 0\ \(block\ 1,\ warp\ 0,\ lane\ 0\)\ writes\ it\ at\ race-blocks-divide-by-next\.cu:[0-9]+\ and\ thread\ 0\ \(block\ 0,\ warp\ 0,\ lane\ 0\)\ reads\ it\ at\ race-blocks-divide-by-next\.cu:[0-9]+\;\ different\ blocks\ of\ one\ launch,\ which\ nothing\ orders$ ]]
        assert_line --regexp '^warpsim: integer division by zero in kernel kernel: lane 0 of warp 0 \(thread 0, block 0\) at race-blocks-divide-by-next\.cu:[0-9]+$'
        assert_line --regexp '^warpsim: 1 race, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors, 1 other error'
    done
    # The plain read of the next block's slot is a race too, without the fault.
    run env WARPSIM_MODEL=lockstep "$REPO/warpsim/build/corpus/race-blocks-read-next"
    assert_success
    assert_line --regexp '^warpsim: race on global .*different blocks of one launch, which nothing orders$'
}

@test "an invalid access is never made: the lane stops there, the launch runs on, and the program ends with the report, the summary and status 1" {
    local m
    for m in lockstep its random; do
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/oob-global-wild-index"
        echo "--- $m"; echo "$output"
        assert_failure 1
        assert_line --regexp '^warpsim: invalid write of 4 bytes on global memory: lane [0-9]+ of warp [01] \(thread [0-9]+, block 0\) at oob-global-wild-index\.cu:[0-9]+ touches address 0x[0-9a-f]+, which is no device allocation, no __shared__ or __device__ variable and not the thread.s own stack$'
        assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 1 memory error'
        refute_output --partial 'oob-global-wild-index: out'
        # The write that runs off the end comes first, not the read of the
        # slot it should have written.
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/oob-global-shifted-write"
        echo "$output"
        assert_failure 1
        [[ ${lines[0]} =~ ^warpsim:\ invalid\ write\ of\ 4\ bytes\ on\ global\ memory:\ lane\ 31\ of\ warp\ 1\ \(thread\ 63,\ block\ 0\)\ at\ oob-global-shifted-write\.cu:[0-9]+\ touches\ 4\ bytes\ past\ the\ end\ of\ allocation\ 3\ \(256\ bytes\)$ ]]
        refute_output --partial 'warpsim: uninitialized read:'
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/oob-local-other-thread"
        assert_failure 1
        assert_line --regexp '^warpsim: invalid write of 4 bytes on local memory: lane 1 of warp 0 \(thread 1, block 0\) at oob-local-other-thread\.cu:[0-9]+ touches the stack of thread 0 \(a thread.s local memory is its own\)$'
    done
    # With --error-exitcode, the failed launch ends with that status.
    run env WARPSIM_ERROR_EXITCODE=9 "$REPO/warpsim/build/corpus/oob-global-past-end"
    assert_failure 9
}

@test "device memory that no cudaMemset, cudaMemcpy or kernel wrote is an uninitialized read, by lane, line and element" {
    local m
    for m in lockstep its random; do
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/uninit-global-short-memset"
        echo "--- $m"; echo "$output"
        assert_success
        assert_line --regexp '^warpsim: uninitialized read: lane [0-9]+ of warp 0 \(thread [0-9]+, block [01]\) reads global .*\[(1[6-9]|2[0-9]|3[01])\] at uninit-global-short-memset\.cu:[0-9]+, which no cudaMemset, cudaMemcpy or kernel wrote since its cudaMalloc \(it holds 0xcd bytes, warpsim.s poison\)$'
        assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 1 uninitialized read, 0 memory errors'
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/uninit-global-copied-tail"
        assert_line --regexp '^warpsim: uninitialized read: .* reads global .*\[(4[0-9]|5[0-9]|6[0-3])\] at uninit-global-copied-tail\.cu:'
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/clean-global-initialized"
        assert_success
        assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors'
    done
}

@test "a __syncthreads that threads skip in a loop's last trip is reported, whether they exit or go on; a return inside the loop is legal" {
    local m
    for m in lockstep its random; do
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/barrier-loop-skip-exit"
        echo "--- $m"; echo "$output"
        assert_line --regexp '^warpsim: partial __syncthreads: 16 threads of block 0 \(thread [0-9]+ is one\) went past __syncthreads\(\) at barrier-loop-skip-exit\.cu:[0-9]+ without waiting'
        run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/barrier-loop-skip-goes-on"
        assert_line --regexp '^warpsim: partial __syncthreads: 28 threads of block 0 .* went past __syncthreads\(\) at barrier-loop-skip-goes-on\.cu:[0-9]+ without waiting'
        for k in clean-loop-return-before-barrier clean-early-return-syncthreads clean-loop-barrier-guarded; do
            run env WARPSIM_MODEL=$m "$REPO/warpsim/build/corpus/$k"
            assert_success
            assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors'
        done
    done
}
