#!/usr/bin/env bash
# check.sh - lesson 07's checker (run it with `make check`).
#
# 1. sync.cu, every variant, equals the CPU: segment scans (inclusive and
#    exclusive) for every width 2 to 32, block scans, both compactions and
#    the device-wide scan, for sizes from 1 to 2^24 + 3, awkward ones
#    included (1, 31, 33, 4099, ...), several seeds, blocks of 32, 96 and
#    1024 threads (256 on warpsim), with and without delays (chosen lanes
#    sleep before and after every warp primitive and every read of the lane
#    index: odd, upper and random lanes); the output is poisoned before
#    each run, so a slot never written cannot pass;
# 2. cg.cu (Cooperative Groups, on the GPU and on warpsim) meets the same,
#    and bench.cu's kernels (every setting) match the CPU on the GPU
#    (build/bench -V 1);
# 3. legacy.cu shows its bug: wrong prefixes once lanes sleep (without a
#    delay, what happened is printed: a right result there is luck);
# 4. on a GPU with compute-sanitizer: racecheck, memcheck and synccheck
#    are clean on sync.cu and racecheck reports legacy.cu's hazards.
# On the pre-Volta path (make pascal: compute_60 code, pre-Volta scheduling
# even on a new GPU) nothing is expected of legacy.cu under the same delays
# (no promise of the model, no Pascal run recorded): what each run did is
# said; cg.cu and bench.cu are not built there. On warpsim, the
# CPU emulator (no GPU, or EMU=1), with smaller sizes: step 1 runs under
# each scheduling model (lockstep, its, random) and wants nothing
# reported; step 3 runs under its; legacy.cu is right under lockstep, the
# pre-Volta model, even with delays, and warpsim reports its race under
# every model.
# `make check SRC=mine.cu` runs steps 1 and 4 on your file.
# DEMO="inclusive", "block", ... (the names of variants, or their numbers
# 1-6) checks those variants only, in every step, sanitizer runs included,
# in sync.cu, cg.cu and legacy.cu alike (DEMO=all: every one).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"

delay=(-j 200)
# On warpsim fewer runs, so that `make check SRC=` keeps to its time budget
# on a busy machine; each still runs under three models.
if [ "$TARGET" = gpu ]; then
    sizes="1 31 32 33 1000 4099 65537 3000017 16777219"
    mid=1000003
    demo_n=1M
    widths="2 4 8 16"
    threads_list="32 96 1024"
    sleepers_list="odd upper random"
else
    sizes="1 33 4099"
    mid=8191
    demo_n=8192
    widths="2 4 16"
    threads_list="32 256"
    sleepers_list="odd"
fi
variants=(inclusive exclusive block compact ballot device)
demo_select "${variants[@]}"
ks=()     # the selected variants' numbers
for d in "${DEMO_SELECTED[@]}"; do
    for i in "${!variants[@]}"; do [ "$d" != "${variants[$i]}" ] || ks+=("$((i + 1))"); done
done
# want NAME: the variant NAME is selected.
want() { [[ " ${DEMO_SELECTED[*]} " == *" $1 "* ]]; }

# ---- 1. sync.cu equals the CPU ---------------------------------------------

# First one short run of each variant with delays, so that a file that is
# wrong anywhere is found in seconds (CHECK_FIRST_FAIL=1, make check-wrong).
for k in "${ks[@]}"; do
    name=${variants[$((k - 1))]}
    demo_begin "$name"
    expect_right "$SYNC_NAME: $name n=4099 width=8 with delays (random lanes sleep 200ns) matches CPU" \
        "$SYNC" -k "$k" -n 4099 -w 8 -b 96 -s 5 "${delay[@]}" --sleepers random
done
for k in "${ks[@]}"; do
    name=${variants[$((k - 1))]}
    demo_begin "$name"
    seed=$((k * 100))
    for n in $sizes; do
        seed=$((seed + 1))
        expect_right "$SYNC_NAME: $name n=$n seed=$seed matches CPU" \
            "$SYNC" -k "$k" -n "$n" -s "$seed"
    done
    if [ "$k" -le 2 ]; then
        for w in $widths; do
            [ "$TARGET" = emu ] ||
                expect_right "$SYNC_NAME: $name width=$w n=$mid matches CPU" \
                    "$SYNC" -k "$k" -w "$w" -n "$mid" -s "$w"
            expect_right "$SYNC_NAME: $name width=$w n=4099 with delays (odd lanes sleep 200ns) matches CPU" \
                "$SYNC" -k "$k" -w "$w" -n 4099 -s "$w" "${delay[@]}"
        done
    fi
    for threads in $threads_list; do
        expect_right "$SYNC_NAME: $name n=$mid threads=$threads matches CPU" \
            "$SYNC" -k "$k" -n "$mid" -b "$threads" -s 7
    done
    for sleepers in $sleepers_list; do
        expect_right "$SYNC_NAME: $name n=$mid with delays ($sleepers lanes sleep 200ns) matches CPU" \
            "$SYNC" -k "$k" -n "$mid" -s 9 "${delay[@]}" --sleepers "$sleepers"
    done
    expect_right "$SYNC_NAME: $name n=$mid values up to 2^30 (the int sums wrap) matches CPU" \
        "$SYNC" -k "$k" -n "$mid" -m 1G -s 10
done
if want device; then
    demo_begin device
    expect_right "$SYNC_NAME: device n=$mid threads=32 (three levels of block totals) matches CPU" \
        "$SYNC" -k device -n "$mid" -b 32 -s 11
fi

# ---- 2. Cooperative Groups, and the benchmark's kernels (GPU only) ---------

if [ "$TARGET" = gpu ] && [ "$ONLY_SYNC" = 0 ] && [ "$PRE_VOLTA" = 1 ]; then
    diag "cg.cu and bench.cu are not checked on the pre-Volta path: make pascal builds legacy.cu and sync.cu only"
elif [ "$ONLY_SYNC" = 0 ]; then
    bin=$(dirname "$SYNC")
    for k in "${ks[@]}"; do
        name=${variants[$((k - 1))]}
        demo_begin "$name"
        for n in $(by_target "1 33 4099 3000017" "$sizes"); do
            expect_right "cg: $name n=$n matches CPU" "$bin/cg" -k "$k" -n "$n" -s "$k"
        done
        expect_right "cg: $name n=$mid threads=96 with delays matches CPU" \
            "$bin/cg" -k "$k" -n "$mid" -b 96 -s 3 "${delay[@]}"
    done
    for k in 1 2; do
        want "${variants[$((k - 1))]}" || continue
        demo_begin "${variants[$((k - 1))]}"
        for w in 2 4 8 16; do
            expect_right "cg: ${variants[$((k - 1))]} width=$w matches CPU" "$bin/cg" -k "$k" -w "$w" -n "$mid" -s "$w"
        done
    done
    demo_end    # (a program of its own: every variant's)
    # bench.cu is a program of its own, not a lesson file: it compares every
    # result with its own CPU reference and is run directly.
    [ "$TARGET" != gpu ] || VERIFY='' expect_right "bench: every kernel and setting (block scans, tiles, reduce-then-scan, look-back), n=4000037 and 1000009, matches CPU" \
        "$bin/bench" -V 1 -n 4000037 -l 2
fi

# ---- 3. legacy.cu shows its bug --------------------------------------------

# The legacy variants that show the bug on their own: inclusive, block
# and device (the others are checked in sync.cu's runs alone).
if [ "$ONLY_SYNC" = 0 ]; then
    if want block; then
        demo_begin block
        observe "legacy: block n=$demo_n without delays" "$LEGACY" -k block -n "$demo_n"
    fi
    for name in inclusive block device; do
        want "$name" || continue
        demo_begin "$name"
        expect_its_bug "legacy:" "$name gives wrong prefixes once odd lanes sleep 200ns (n=$demo_n)" \
            "$LEGACY" -k "$name" -n "$demo_n" "${delay[@]}"
    done
fi
if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ]; then
    if want block; then
        demo_begin block
        emulate lockstep right "legacy: block right under lockstep, as on pre-Volta GPUs, even with delays" \
            "$LEGACY" -k block -n "$demo_n" "${delay[@]}"
    fi
    if want inclusive; then
        demo_begin inclusive
        emulate lockstep right "legacy: inclusive width=8 right under lockstep, even with delays" \
            "$LEGACY" -k inclusive -w 8 -n "$demo_n" "${delay[@]}"
    fi
    if want block; then
        demo_begin block
        emulate all race "legacy: warpsim reports the intra-warp race under every model" \
            "$LEGACY" -k block -n 2048
    fi
fi

# ---- 4. compute-sanitizer (GPU only) ----------------------------------------

if [ "$TARGET" = gpu ]; then
    if find_sanitizer; then
        for k in "${ks[@]}"; do
            name=${variants[$((k - 1))]}
            # exclusive runs scan_segments as inclusive does: once for both
            [ "$name" != exclusive ] || ! want inclusive || continue
            demo_begin "$name"
            sanitize racecheck clean "$SYNC_NAME: $name racecheck finds no hazard" \
                "$SYNC" -k "$k" -n 100003 -b 1024
            sanitize synccheck clean "$SYNC_NAME: $name synccheck is clean" "$SYNC" -k "$k" -n 100003
        done
        for name in device ballot; do
            want "$name" || continue
            demo_begin "$name"
            args=(-k "$name" -n 100003)
            [ "$name" != device ] || args+=(-b 32)
            sanitize memcheck clean "$SYNC_NAME: $name memcheck is clean" "$SYNC" "${args[@]}"
        done
        if [ "$ONLY_SYNC" = 0 ] && want block; then
            demo_begin block
            sanitize racecheck flagged "legacy: racecheck reports the intra-warp hazards" \
                "$LEGACY" -k block -n 256 -b 256
        fi
    else
        diag "compute-sanitizer not found: racecheck, memcheck and synccheck not run"
    fi
fi

check_end
