#!/usr/bin/env bash
# check.sh - lesson 04's checker (run it with `make check`).
#
# Every program runs through build/verify (harness.cu built alone), which
# judges the group masks, counts and tickets the program wrote: nothing in a
# lesson file can print the verdict. -j NS makes the lanes of a --sleepers
# pattern (default odd) sleep at each warp primitive and each read of
# threadIdx (include/lesson.h).
#
# 1. sync.cu, every grouping it offers (1 match: the instruction; 2 lanes:
#    the fallback per lane; 3 groups: the fallback per group), gives each
#    lane the group mask the CPU expects, right counts and right tickets:
#    keys of cardinality 1, 2, 4, 32 and 100000, on full warps, partial
#    warps (n not a multiple of 32) and divergent warps, with and without
#    delays, under every sleeper pattern. All three are held to the same
#    masks: fallback == native, lane for lane.
# 2. build/sync-fallback (sync.cu built with MATCH_FALLBACK=1) does the same
#    with match_any() running the fallback loop, and says so.
# 3. legacy.cu shows its bugs:
#    match  __match_all_sync is wrong whenever a warp holds several keys,
#           with no delay, on every path;
#    lanes  the shared-memory match is wrong once the odd lanes are late.
#    On the pre-Volta path (make pascal: compute_60 PTX, which opts into
#    pre-Volta thread scheduling even on a new GPU) the lanes demonstration
#    is run and what happened is reported, with no expectation: it was right
#    there in the recorded runs, but the programming model never promised
#    lockstep, not even on Pascal.
# 4. on a GPU with compute-sanitizer: racecheck, memcheck and synccheck are
#    clean on sync.cu (divergent warps included), and racecheck reports the
#    shared-memory match of legacy.cu.
# On warpsim (no GPU, or EMU=1) every expect_right runs under each model
# (lockstep, its, random) and wants nothing reported; instead of step 4,
# warpsim must report the race of the shared-memory match under every
# model, and the lanes demonstration must be right under lockstep.
# `make check SRC=mine.cu` runs step 1 (and the sanitizer checks of sync.cu)
# on your file, named by its own name; with a GPU, on warpsim too.
# DEMO="match", "lanes", "groups" (or their numbers) checks those variants
# only, in every step (DEMO=all: every one).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"
demo_select match lanes groups
# variant_of DEMO: the -k of a demonstration.
variant_of() { case "$1" in match) echo 1 ;; lanes) echo 2 ;; groups) echo 3 ;; esac; }

full=$(by_target 1048576 2048)      # 32,768 full warps on the GPU
big=$(by_target 3000017 2051)       # the last warp partial
jitter=200
many=100000

# First one small run of each variant, divergent and with delays: a file
# that hangs or is wrong says so in seconds.
for demo in "${DEMO_SELECTED[@]}"; do
    demo_begin "$demo"
    variant=$(variant_of "$demo")
    expect_right "$SYNC_NAME: variant $variant keys=4 divergent n=1000 jitter=${jitter}ns matches the CPU" \
        "$SYNC" -k "$variant" -c 4 -n 1000 -d 1 -j "$jitter" -s 3
done

# Then each variant on: keys of cardinality 1 to 100000; full, partial and
# divergent warps; 1 to 1024 threads a block; and each sleeper pattern.
#        keys    n       divergent threads sleepers jitter
cases="  4       $full   0         256     odd      0
         1       $big    0         256     leader   $jitter
         32      $big    0         256     random   $jitter
         2       $big    1         256     even     $jitter
         4       $big    1         256     odd      $jitter
         $many   $big    1         256     upper    $jitter
         32      $big    1         256     leader   $jitter
         1       $big    1         256     random   $jitter
         4       1       1         256     odd      $jitter
         4       33      1         256     lower    $jitter
         32      5000    1         32      odd      $jitter
         32      5000    1         1024    odd      $jitter"
for demo in "${DEMO_SELECTED[@]}"; do
    demo_begin "$demo"
    variant=$(variant_of "$demo")
    while read -r keys n div threads sleepers j <&3; do
        if [ "$div" = 1 ]; then shape=divergent; elif [ $((n % 32)) = 0 ]; then shape=full; else shape=partial; fi
        what="keys=$keys $shape warps n=$n"
        [ "$threads" = 256 ] || what="$what threads=$threads"
        [ "$j" = 0 ] || what="$what jitter=${j}ns, $sleepers lanes sleeping,"
        expect_right "$SYNC_NAME: variant $variant $what matches the CPU" \
            "$SYNC" -k "$variant" -c "$keys" -n "$n" -d "$div" -b "$threads" \
            -j "$j" --sleepers "$sleepers" -s "$keys"
    done 3<<<"$cases"
done

# says WHAT PATTERN: the last run printed a line matching PATTERN.
says() {
    if printf '%s\n' "$RUN_OUT" | grep -q "$2"; then
        ok "$1"
    else
        not_ok "$1"
        diag_output 6
    fi
}

if [ "$ONLY_SYNC" = 0 ] && [[ " ${DEMO_SELECTED[*]} " == *" match "* ]]; then
    demo_begin match
    run_right "$SYNC" -k 1 -c 4 -n 64
    if [ "$PRE_VOLTA" = 1 ]; then
        says "sync: variant 1 runs the fallback loop, the native path below compute capability 7.0" \
            'built as the fallback loop'
    else
        says "sync: variant 1 runs the __match_any_sync instruction" \
            'built as the __match_any_sync instruction'
    fi

    fallback=$(dirname "$SYNC")/sync-fallback
    if [ -x "$fallback" ]; then
        for keys in 1 2 4 32 "$many"; do
            expect_right "sync-fallback: variant 1 keys=$keys divergent (n=$big) jitter=${jitter}ns matches the CPU" \
                "$fallback" -k 1 -c "$keys" -n "$big" -d 1 -j "$jitter" -s "$keys"
        done
        expect_right "sync-fallback: variant 1 keys=4 full warps (n=$full) matches the CPU" \
            "$fallback" -k 1 -c 4 -n "$full"
        run_right "$fallback" -k 1 -c 4 -n 64
        says "sync-fallback: MATCH_FALLBACK=1 makes variant 1 run the fallback loop" \
            'built as the fallback loop'
    elif [ "$TARGET" = gpu ]; then
        not_ok "sync-fallback: built beside $SYNC"
        diag "$fallback is missing: 'make' builds it (sync.cu with MATCH_FALLBACK=1)"
    else
        diag "no sync-fallback beside $SYNC: variants 2 and 3 test the fallback here"
    fi
fi

if [ "$ONLY_SYNC" = 0 ]; then
    for demo in "${DEMO_SELECTED[@]}"; do
        demo_begin "$demo"
        case "$demo" in
            match)
                expect_wrong "legacy: match (__match_all_sync) is wrong when warps hold 4 keys, with no delay" \
                    "$LEGACY" -k 1 -c 4 -n "$big"
                expect_wrong "legacy: match (__match_all_sync) is wrong on divergent warps with 2 keys" \
                    "$LEGACY" -k 1 -c 2 -n "$big" -d 1 ;;
            lanes)
                observe "legacy: lanes (shared-memory match) jitter=0ns" \
                    "$LEGACY" -k 2 -c 4 -n "$big"
                if [ "$PRE_VOLTA" = 1 ]; then
                    # Pre-Volta scheduling: what happens is reported, not judged.
                    for args in "-c 4 -n $big -j $jitter" "-c 32 -n $big -d 1 -j $jitter"; do
                        # shellcheck disable=SC2086   # args holds several words
                        run_bounded "$LEGACY" -k 2 $args
                        case "$RUN_RC" in
                            0) diag "legacy: lanes $args on the pre-Volta path: matched the CPU ($(result_of)); observed with pre-Volta scheduling on this run, which the programming model does not promise" ;;
                            1) diag "legacy: lanes $args on the pre-Volta path: wrong ($(result_of)); pre-Volta scheduling does not promise lockstep either" ;;
                            *) diag "legacy: lanes $args on the pre-Volta path: exit status $RUN_RC ($(describe_rc "$RUN_RC"))" ;;
                        esac
                    done
                else
                    expect_wrong "legacy: lanes (shared-memory match) is wrong once odd lanes are ${jitter}ns late" \
                        "$LEGACY" -k 2 -c 4 -n "$big" -j "$jitter"
                    expect_wrong "legacy: lanes (shared-memory match) is wrong on divergent warps once odd lanes are late" \
                        "$LEGACY" -k 2 -c 32 -n "$big" -d 1 -j "$jitter"
                fi ;;
        esac
    done
fi

if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ]; then
    for demo in "${DEMO_SELECTED[@]}"; do
        [ "$demo" = lanes ] || continue
        demo_begin lanes
        emulate lockstep right "legacy: lanes right under lockstep, the pre-Volta picture, even with ${jitter}ns delays" \
            "$LEGACY" -k 2 -c 4 -n 2048 -j "$jitter"
        emulate all race "legacy: warpsim reports the race on the shared keys (lanes) under every model" \
            "$LEGACY" -k 2 -c 4 -n 2048
    done
fi

if [ "$TARGET" = gpu ]; then
    if find_sanitizer; then
        for demo in "${DEMO_SELECTED[@]}"; do
            demo_begin "$demo"
            variant=$(variant_of "$demo")
            sanitize racecheck clean "$SYNC_NAME: variant $variant racecheck finds no hazard" \
                "$SYNC" -k "$variant" -c 4 -d 1 -n 4096 -b 1024
            sanitize synccheck clean "$SYNC_NAME: variant $variant synccheck is clean on divergent warps" \
                "$SYNC" -k "$variant" -c 4 -d 1 -n 5000
        done
        demo_end    # (one run of the default variant for all)
        sanitize memcheck clean "$SYNC_NAME: memcheck is clean" "$SYNC" -c 32 -d 1 -n 5000
        if [ "$ONLY_SYNC" = 0 ] && [[ " ${DEMO_SELECTED[*]} " == *" lanes "* ]]; then
            demo_begin lanes
            sanitize racecheck flagged "legacy: lanes: racecheck reports the shared-memory match" \
                "$LEGACY" -k 2 -c 4 -n 1024 -b 1024
        fi
    else
        diag "compute-sanitizer not found: racecheck, memcheck and synccheck not run"
    fi
fi

check_end
