#!/usr/bin/env bash
# check.sh - lesson 01's checker (run it with `make check`).
#
# Every program runs through build/verify (harness.cu built alone), which
# judges the sums the program wrote: nothing in a lesson file can print the
# verdict. -j NS makes the lanes of a --sleepers pattern (default odd) sleep
# at each warp primitive and each read of threadIdx (include/lesson.h).
#
# For each demonstration (both, or those named in DEMO: `make check
# DEMO=tree` grades variant 1 only, sync.cu's and legacy.cu's):
# 1. sync.cu matches the CPU for awkward and large n, several seeds and
#    block sizes, with and without jitter, under every sleeper pattern;
# 2. legacy.cu shows its bug: wrong warp sums once odd lanes sleep, in the
#    volatile tree (tree, variant 1) and with the mask-less __shfl_down
#    (shfl, variant 2). On the pre-Volta path (make pascal: compute_60 code,
#    which opts into pre-Volta scheduling even on a new GPU) nothing is
#    expected of them: the programming model never promised lockstep, and
#    no Pascal run is recorded; what each run did is said;
# 3. on a GPU with compute-sanitizer: racecheck finds no hazard in sync.cu
#    (warnings included) and reports legacy.cu's tree; memcheck and
#    synccheck are clean on sync.cu.
# On warpsim, the CPU emulator (no GPU, or EMU=1): step 1 runs under each
# scheduling model (lockstep, its, random) and wants nothing reported; step 2
# runs under its; and legacy.cu is right under warpsim's lockstep model, its
# picture of pre-Volta scheduling, even with jitter ("it used to work"),
# while warpsim reports the tree's race under every model, right or wrong.
# `make check SRC=mine.cu` runs step 1 (and the sanitizer checks of sync.cu)
# on your file, named by its own name; with a GPU, on warpsim too. The
# exercise (a fix of the tree without shuffles) is `make check SRC=mine.cu
# DEMO=tree`.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"
# The demonstrations, for sync.cu (or SRC=) and legacy.cu alike: DEMO="tree"
# (variant 1), DEMO="2" (shfl, variant 2) or DEMO="tree shfl".
demo_select tree shfl
# variant_of DEMO: the -k of a demonstration.
variant_of() { case "$1" in tree) echo 1 ;; shfl) echo 2 ;; esac; }

big=$(by_target 3000017 8195)      # not a multiple of 32 or of a block
legacy_n=$(by_target 2M 8192)      # 65,536 warps on the GPU
jitter=200

for demo in "${DEMO_SELECTED[@]}"; do
    variant=$(variant_of "$demo")
    seed=1
    for n in 1 31 32 33 1000 "$big"; do
        for j in 0 "$jitter"; do
            expect_right "$SYNC_NAME: variant $variant n=$n seed=$seed jitter=${j}ns matches CPU" \
                "$SYNC" -k "$variant" -n "$n" -s "$seed" -j "$j"
        done
        seed=$((seed + 1))
    done
    for sleepers in even upper lower leader random; do
        expect_right "$SYNC_NAME: variant $variant n=1000 jitter=${jitter}ns, $sleepers lanes sleeping, matches CPU" \
            "$SYNC" -k "$variant" -n 1000 -s 9 -j "$jitter" --sleepers "$sleepers"
    done
    for threads in 32 1024; do
        expect_right "$SYNC_NAME: variant $variant n=5000 threads=$threads jitter=${jitter}ns matches CPU" \
            "$SYNC" -k "$variant" -n 5000 -b "$threads" -j "$jitter" -s 7
    done
done

if [ "$ONLY_SYNC" = 0 ]; then
    for demo in "${DEMO_SELECTED[@]}"; do
        case "$demo" in
            tree) variant=1 bug="gives wrong warp sums once odd lanes sleep ${jitter}ns (n=$legacy_n)" ;;
            shfl) variant=2 bug="(mask-less __shfl_down) gives wrong warp sums once odd lanes sleep ${jitter}ns (n=$legacy_n)" ;;
        esac
        observe "legacy: $demo n=$legacy_n jitter=0ns" "$LEGACY" -k "$variant" -n "$legacy_n"
        expect_its_bug "legacy: $demo" "$bug" "$LEGACY" -k "$variant" -n "$legacy_n" -j "$jitter"
    done
fi

if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ]; then
    for demo in "${DEMO_SELECTED[@]}"; do
        variant=$(variant_of "$demo")
        emulate lockstep right "legacy: variant $variant right under lockstep, warpsim's model of pre-Volta scheduling, even with ${jitter}ns jitter" \
            "$LEGACY" -k "$variant" -n "$legacy_n" -j "$jitter"
    done
    for demo in "${DEMO_SELECTED[@]}"; do
        case "$demo" in
            tree) emulate all race "legacy: tree: warpsim reports the intra-warp race under every model" \
                      "$LEGACY" -k 1 -n 2048 ;;
            shfl) emulate "its random" primitive "legacy: shfl: warpsim reports shuffles from lanes outside __activemask() once odd lanes sleep" \
                      "$LEGACY" -k 2 -n 2048 -j "$jitter" ;;
        esac
    done
fi

if [ "$TARGET" = gpu ]; then
    if find_sanitizer; then
        for demo in "${DEMO_SELECTED[@]}"; do
            variant=$(variant_of "$demo")
            sanitize racecheck clean "$SYNC_NAME: variant $variant racecheck finds no hazard" \
                "$SYNC" -k "$variant" -n 4096 -b 1024
        done
        sanitize memcheck clean "$SYNC_NAME: memcheck is clean" "$SYNC" -n 5000
        sanitize synccheck clean "$SYNC_NAME: synccheck is clean" "$SYNC" -n 5000
        if [ "$ONLY_SYNC" = 0 ] && [[ " ${DEMO_SELECTED[*]} " = *" tree "* ]]; then
            sanitize racecheck flagged "legacy: tree: racecheck reports the intra-warp hazards" \
                "$LEGACY" -k 1 -n 1024 -b 1024
        fi
    else
        diag "compute-sanitizer not found: racecheck, memcheck and synccheck not run"
    fi
fi

check_end
