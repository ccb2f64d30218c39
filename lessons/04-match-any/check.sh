#!/usr/bin/env bash
# check.sh - lesson 04's checker (run it with `make check`).
#
# 1. sync.cu, every grouping it offers (native, fallback per lane, fallback
#    per group), gives each lane the group mask the CPU expects, right counts
#    and right tickets: keys of cardinality 1, 2, 4, 32 and 100000, on full
#    warps, partial warps (n not a multiple of 32) and divergent warps, with
#    and without jitter. All three held to the same masks: fallback == native,
#    lane for lane.
# 2. build/sync-fallback (sync.cu built with MATCH_FALLBACK=1) does the same
#    with match_any() running the fallback loop, and says so.
# 3. legacy.cu shows its bugs: __match_all_sync is wrong whenever a warp holds
#    several keys; the shared-memory match is wrong once odd lanes sleep.
# 4. on a GPU with compute-sanitizer: racecheck, memcheck and synccheck are
#    clean on sync.cu (divergent warps included), and racecheck reports the
#    shared-memory match of legacy.cu.
# On the pre-Volta path (make pascal: compute_60 code) variant 1 must run the
# fallback loop, and the shared-memory match must be right under jitter: the
# lanes stay in lockstep there, as on Pascal.
# On warpsim (no GPU, or EMU=1) every expect_right runs under each model
# (lockstep, its, random) and wants nothing reported; instead of step 4,
# warpsim must report the race of the shared-memory match.
# `make check SRC=mine.cu` runs steps 1 and 4 (sync part) on your file, for
# the variants it lists in --help.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"

if [ "$TARGET" = gpu ]; then
    full=1048576         # 32,768 full warps
    big=3000017          # a few million, the last warp partial
else
    full=8192
    big=8195
fi
jitter=200
many=100000

# The variants the program lists in its --help ("  2  fallback ...").
nvariants=$("$SYNC" --help 2>/dev/null | grep -cE '^  [0-9]+  ')
if [ "$ONLY_SYNC" = 0 ]; then
    if [ "$nvariants" -eq 3 ]; then
        ok "sync: offers the native grouping and both fallbacks (3 variants)"
    else
        not_ok "sync: offers the native grouping and both fallbacks (3 variants)"
        diag "$SYNC --help lists $nvariants variants"
    fi
fi
[ "$nvariants" -ge 1 ] || nvariants=1

for variant in $(seq 1 "$nvariants"); do
    for keys in 1 2 4 32 "$many"; do
        expect_right "sync: variant $variant keys=$keys full warps (n=$full) match the CPU" \
            "$SYNC" -k "$variant" -c "$keys" -n "$full" -s "$keys"
        expect_right "sync: variant $variant keys=$keys partial warps (n=$big) jitter=${jitter}ns match the CPU" \
            "$SYNC" -k "$variant" -c "$keys" -n "$big" -j "$jitter" -s "$keys"
        expect_right "sync: variant $variant keys=$keys divergent warps (n=$big) jitter=${jitter}ns match the CPU" \
            "$SYNC" -k "$variant" -c "$keys" -n "$big" -d 1 -j "$jitter" -s "$keys"
    done
    for n in 1 31 33; do
        expect_right "sync: variant $variant keys=4 divergent n=$n jitter=${jitter}ns matches the CPU" \
            "$SYNC" -k "$variant" -c 4 -n "$n" -d 1 -j "$jitter"
    done
    for threads in 32 1024; do
        expect_right "sync: variant $variant keys=32 divergent n=5000 threads=$threads matches the CPU" \
            "$SYNC" -k "$variant" -c 32 -n 5000 -d 1 -b "$threads" -j "$jitter" -s 7
    done
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

if [ "$ONLY_SYNC" = 0 ]; then
    run_bounded "$SYNC" -k 1 -c 4 -n 64
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
        says "sync-fallback: MATCH_FALLBACK=1 makes variant 1 run the fallback loop" \
            'built as the fallback loop'
    elif [ "$TARGET" = gpu ]; then
        not_ok "sync-fallback: built beside $SYNC"
        diag "$fallback is missing: 'make' builds it (sync.cu with MATCH_FALLBACK=1)"
    else
        diag "no sync-fallback beside $SYNC: variants 2 and 3 test the fallback here"
    fi

    expect_wrong "legacy: variant 1 (__match_all_sync) is wrong when warps hold 4 keys, with no jitter" \
        "$LEGACY" -k 1 -c 4 -n "$big"
    expect_wrong "legacy: variant 1 (__match_all_sync) is wrong on divergent warps with 2 keys" \
        "$LEGACY" -k 1 -c 2 -n "$big" -d 1
    observe "legacy: variant 2 (shared-memory match) jitter=0ns" \
        "$LEGACY" -k 2 -c 4 -n "$big"
    expect_its_bug "legacy: variant 2 (shared-memory match)" "is wrong once odd lanes sleep ${jitter}ns" \
        "$LEGACY" -k 2 -c 4 -n "$big" -j "$jitter"
    expect_its_bug "legacy: variant 2 (shared-memory match)" "is wrong on divergent warps under jitter" \
        "$LEGACY" -k 2 -c 32 -n "$big" -d 1 -j "$jitter"
fi

if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ]; then
    emulate all race "legacy: warpsim reports the race on the shared keys (variant 2) under every model" \
        "$LEGACY" -k 2 -c 4 -n 2048
fi

if [ "$TARGET" = gpu ]; then
    if find_sanitizer; then
        for variant in $(seq 1 "$nvariants"); do
            sanitize racecheck clean "sync: variant $variant racecheck finds no hazard" \
                "$SYNC" -k "$variant" -c 4 -d 1 -n 4096 -b 1024
            sanitize synccheck clean "sync: variant $variant synccheck is clean on divergent warps" \
                "$SYNC" -k "$variant" -c 4 -d 1 -n 5000
        done
        sanitize memcheck clean "sync: memcheck is clean" "$SYNC" -c 32 -d 1 -n 5000
        if [ "$ONLY_SYNC" = 0 ]; then
            sanitize racecheck flagged "legacy: racecheck reports the shared-memory match (variant 2)" \
                "$LEGACY" -k 2 -c 4 -n 4096 -b 1024
        fi
    else
        diag "compute-sanitizer not found: racecheck, memcheck and synccheck not run"
    fi
fi

check_end
