#!/usr/bin/env bash
# check.sh - lesson 06's checker (run it with `make check`).
#
# Every lesson program runs through build/verify (harness.cu built alone),
# which judges the sums the program wrote: nothing in a lesson file can
# print the verdict. -j NS makes the lanes of a --sleepers pattern (default
# odd) sleep at each warp primitive and each read of threadIdx
# (include/lesson.h).
#
# For each variant (all six, or those named in DEMO: `make check
# DEMO="2"` or `DEMO=second` checks only variant 2; DEMO=all every one):
# 1. sync.cu equals the 64-bit CPU sum (compared modulo 2^32: the GPU sums
#    in int), and for variants 1 and 2 every block's sum too, for sizes from
#    1 to 2^24 + 3, awkward ones included (1, 3, 5, 31, 33, 4099, ...), and
#    2^28 (1 GiB) for variants 1 (the block sum) and 6 (the fastest
#    device-wide sum, the one sync.cu's usage shows at 1 GiB),
#    random never-zero data, several seeds, blocks of 32, 96 and 1024
#    threads (256 on warpsim), grids from 1 block to 65,536, every unroll,
#    with and without delays under every sleeper pattern, and with values
#    large enough that the int sums wrap; the outputs are poisoned first;
# 2. cg.cu (its three variants: cg::reduce block sums, 16-byte loads, and
#    8- and 16-thread tiles; 2^28 on variant 1 on the GPU) gives the same
#    sums, on the GPU and on warpsim; so do cub_ref.cu (2^28 too) and every
#    setting bench.cu can time (build/bench -V 1, a process for each of
#    variants 3 to 6), on the GPU;
# 3. legacy.cu shows its bug in both forms of the warp step (the tree with
#    ifs, variant 1; the if-free tree over zero padding, variant 2): wrong
#    sums once odd lanes sleep (without a delay, what happened is printed:
#    a right sum there is luck);
# 4. on a GPU with compute-sanitizer: racecheck finds no hazard in sync.cu
#    (warnings included) and reports legacy.cu's; memcheck and synccheck
#    are clean on sync.cu, and memcheck on bench.cu's kernels.
# On the pre-Volta path (make pascal: compute_60 code, pre-Volta scheduling
# even on a new GPU) nothing is expected of legacy.cu under the same delays
# (no promise of the model, no Pascal run recorded): what each run did is
# said; bench.cu (compute capability 7.0 and newer) is not
# built. On warpsim, the CPU emulator (no GPU, or EMU=1), with smaller
# sizes: step 1 runs under each scheduling model (lockstep, its, random)
# and wants nothing reported, except for one thing in variant 5 (see
# expect_right_sums below); step 3 runs under its; legacy.cu is right under
# lockstep, the pre-Volta model, even with delays, and warpsim reports its
# race under every model.
# `make check SRC=mine.cu` runs steps 1 and 4 on your file, with fewer
# runs (the check of one file is bounded in time; step 4 on its variants
# 1 and 2, its own block sums); DEMO= as above.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"

names=(block second partials atomic lastblock packed)
demo_select "${names[@]}"
variants=()     # their numbers
for d in "${DEMO_SELECTED[@]}"; do
    for i in "${!names[@]}"; do [ "$d" != "${names[$i]}" ] || variants+=("$((i + 1))"); done
done
want() { [[ " ${variants[*]} " == *" $1 "* ]]; }
[ -z "${DEMO:-}" ] || [ "$DEMO" = all ] || diag "DEMO=$DEMO: checking variant(s) ${variants[*]}"

jitter=200
sleepers="odd even upper lower leader random"
if [ "$TARGET" = gpu ]; then
    sizes="1 3 4 5 31 32 33 1000 4099 65537 3000017 16777219"
    jitter_sizes="1000 3000017"
    huge=256M            # 2^28 ints, 1 GiB: variants 1 and 6 (huge_variants)
    mid=1000003
    legacy_n=16M         # 1024 blocks of 8 warps, each summing 64 ints a thread
    grid=()
    big_n=16777219       # with 32 threads: more blocks than the 65,536 allowed
    big_grid=65536
    threads_list="32 96 1024"
else
    sizes="1 3 4 5 31 32 33 1000 4099 65537 1000003"
    jitter_sizes="1000 65537"
    huge=
    mid=20011
    legacy_n=8192
    grid=(-g 4)
    big_n=20011
    big_grid=40
    threads_list="32 96 1024"
fi
block_list="1 7"
unrolls="1 2 8"
sanitized=("${variants[@]}")
if [ "$ONLY_SYNC" = 1 ]; then
    # One file's check is bounded in time (checklib.sh): fewer runs. A
    # lesson file's own code is its block sum (variants 1 and 2); variants
    # 3 to 6 run device.cuh's kernels on its variant 1, so the sanitizers
    # run on the variants 1 and 2 selected (else on the first selected).
    sizes="1 33 4099"
    jitter_sizes="1000"
    huge=
    sleepers="odd upper random"
    threads_list="32 1024"
    block_list="7"
    unrolls="1 8"
    sanitized=()
    for k in "${variants[@]}"; do [ "$k" -gt 2 ] || sanitized+=("$k"); done
    [ "${#sanitized[@]}" -gt 0 ] || sanitized=("${variants[0]}")
fi

# expect_right_sums K WHAT CMD...: expect_right, except on warpsim for
# variant 5. There the last block reads the partials that the other blocks
# wrote in the same launch; on a GPU, __threadfence and the atomicInc ticket
# order those accesses (the CUDA Programming Guide's __threadfence example),
# but warpsim does not model that ordering and reports each as a race
# between blocks. Those reports, and only those, are accepted: the sum must
# be right under every model and warpsim must report nothing else.
expect_right_sums() {
    local k=$1 what=$2 model races cross=0; shift 2
    if [ "$TARGET" != emu ] || [ "$k" != 5 ]; then
        expect_right "$what" "$@"
        return
    fi
    check_job expect_right_sums "$k" "$what" "$@" && return    # side by side
    check_gate
    # shellcheck disable=SC2034   # read by checklib.sh (program_dead)
    CHECK_WHAT=$what
    program_dead "$@" && return
    for model in $EMU_MODELS; do
        export WARPSIM_VERBOSE=1
        run_model "$model" "$@"
        unset WARPSIM_VERBOSE
        races=$(warpsim_count races)
        cross=$(printf '%s\n' "$RUN_OUT" | grep -c '^warpsim: race on global .*different blocks of one launch')
        if [ "$RUN_RC" -ne 0 ] || ! printf '%s\n' "$RUN_OUT" | grep -q '^result: ok' ||
           ! warpsim_summary | grep -qE ' 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors' ||
           [ "$races" -ne "$cross" ]; then
            note_dead "$@"
            not_ok "$what"
            diag_failure "under warpsim's $model model: exit status $RUN_RC: $(describe_rc "$RUN_RC"); warpsim: $(warpsim_summary)" \
                "WARPSIM_MODEL=$model WARPSIM_SEED=$EMU_SEED ${VERIFY:+$VERIFY }$*"
            return
        fi
    done
    ok "$what"
    [ "$cross" -eq 0 ] ||
        diag "warpsim reported $cross race(s) between blocks on the partials, which __threadfence and atomicInc order on a GPU (warpsim does not model that)"
}

# ---- 1. sync.cu equals the CPU sum -----------------------------------------

# First one short run of each variant with delays, so that a file that is
# wrong anywhere is found in seconds (CHECK_FIRST_FAIL=1, make check-wrong).
for k in "${variants[@]}"; do
    name=${names[$((k - 1))]}
    demo_begin "$name"
    expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=4099 threads=96 with delays (random lanes sleep ${jitter}ns) matches CPU" \
        "$SYNC" -k "$k" -n 4099 -b 96 -s 5 -j "$jitter" --sleepers random "${grid[@]}"
done
for k in "${variants[@]}"; do
    name=${names[$((k - 1))]}
    demo_begin "$name"
    seed=$((k * 100))
    for n in $sizes; do
        seed=$((seed + 1))
        expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$n seed=$seed matches CPU" \
            "$SYNC" -k "$k" -n "$n" -s "$seed" "${grid[@]}"
    done
    for n in $jitter_sizes; do
        expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$n jitter=${jitter}ns matches CPU" \
            "$SYNC" -k "$k" -n "$n" -j "$jitter" -s "$k" "${grid[@]}"
    done
    if [ "$k" -le 2 ]; then
        for s in $sleepers; do
            expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$mid jitter=${jitter}ns, $s lanes sleeping, matches CPU" \
                "$SYNC" -k "$k" -n "$mid" -j "$jitter" --sleepers "$s" -s 6 "${grid[@]}"
        done
    fi
    if [ -n "$huge" ] && { [ "$k" = 1 ] || [ "$k" = 6 ]; }; then
        expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$huge (2^28) matches CPU" \
            "$SYNC" -k "$k" -n "$huge" -s "$k"
    fi
    for threads in $threads_list; do
        expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$mid threads=$threads jitter=${jitter}ns matches CPU" \
            "$SYNC" -k "$k" -n "$mid" -b "$threads" -j "$jitter" -s 7 "${grid[@]}"
    done
    for blocks in $block_list; do
        expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$mid blocks<=$blocks matches CPU" \
            "$SYNC" -k "$k" -n "$mid" -g "$blocks" -s 8
    done
    expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$big_n threads=32 blocks<=$big_grid (the most partials) matches CPU" \
        "$SYNC" -k "$k" -n "$big_n" -b 32 -g "$big_grid" -s 11
    if [ "$k" -ge 3 ]; then
        for u in $unrolls; do
            expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$mid unroll=$u matches CPU" \
                "$SYNC" -k "$k" -n "$mid" -u "$u" -s 9 "${grid[@]}"
        done
    fi
    expect_right_sums "$k" "$SYNC_NAME: variant $k ($name) n=$mid values up to 2^30 (the int sum wraps) matches CPU modulo 2^32" \
        "$SYNC" -k "$k" -n "$mid" -m 1G -s 10 "${grid[@]}"
done

# ---- 2. Cooperative Groups (GPU and warpsim), and CUB (GPU only) ----------

# cg.cu, cub_ref.cu and bench.cu are programs of their own (C++, with their
# own main and verdict), not lesson files: they run without build/verify.
if [ "$ONLY_SYNC" = 0 ]; then
    demo_end    # (programs of their own: every variant's)
    bin=$(dirname "$SYNC")
    for k in 1 2 3; do
        for n in 1 33 4099 "$(by_target 3000017 "$mid")" $([ "$k" != 1 ] || echo "$huge"); do
            VERIFY='' expect_right "cg: variant $k n=$n matches CPU" "$bin/cg" -k "$k" -n "$n" -s "$k"
        done
        VERIFY='' expect_right "cg: variant $k n=$mid threads=96 matches CPU" \
            "$bin/cg" -k "$k" -n "$mid" -b 96 -s 3
    done
fi
if [ "$TARGET" = gpu ] && [ "$ONLY_SYNC" = 0 ]; then
    for n in 1 33 4099 3000017 "$huge"; do
        VERIFY='' expect_right "cub: n=$n matches CPU" "$bin/cub_ref" -n "$n" -s 5
    done
    if [ "$PRE_VOLTA" = 1 ]; then
        diag "bench.cu is not checked on the pre-Volta path: a benchmark of compute capability 7.0 and newer, make pascal does not build it"
    else
        # A process for each variant: they share the GPU side by side.
        for k in 3 4 5 6; do
            VERIFY='' expect_right "bench: variant $k, every load kind, unroll 1-16, sizes 1 .. 2^24+3, threads 32-1024, 1 to 65,536 blocks matches CPU" \
                "$bin/bench" -V 1 -k "$k" -n 32M -l 1 -s 12
        done
        for k in 3 4 5 6; do
            VERIFY='' expect_right "bench: variant $k, the same with values up to 2^30 (the int sums wrap) matches CPU modulo 2^32" \
                "$bin/bench" -V 1 -k "$k" -n 1M -l 1 -m 1G -s 13
        done
    fi
fi

# ---- 3. legacy.cu shows its bug --------------------------------------------

if [ "$ONLY_SYNC" = 0 ]; then
    for k in 1 2; do
        want "$k" || continue
        name=${names[$((k - 1))]}
        demo_begin "$name"
        observe "legacy: $name n=$legacy_n jitter=0ns" "$LEGACY" -k "$k" -n "$legacy_n" "${grid[@]}"
        expect_its_bug "legacy: $name" "gives wrong sums once odd lanes sleep ${jitter}ns (n=$legacy_n)" \
            "$LEGACY" -k "$k" -n "$legacy_n" -j "$jitter" "${grid[@]}"
    done
    if want 1; then
        threads=1024
        [ "$TARGET" = gpu ] || threads=256
        demo_begin block
        expect_its_bug "legacy: block" "gives wrong sums once odd lanes sleep ${jitter}ns (n=$mid, $threads threads)" \
            "$LEGACY" -k 1 -n "$mid" -b "$threads" -j "$jitter" "${grid[@]}"
    fi
fi
if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ]; then
    for k in 1 2; do
        want "$k" || continue
        name=${names[$((k - 1))]}
        demo_begin "$name"
        emulate lockstep right "legacy: $name right under lockstep, as on pre-Volta GPUs, even with ${jitter}ns jitter" \
            "$LEGACY" -k "$k" -n "$legacy_n" -j "$jitter" "${grid[@]}"
        emulate all race "legacy: $name: warpsim reports the intra-warp race under every model" \
            "$LEGACY" -k "$k" -n 2048 -g 2
    done
fi

# ---- 4. compute-sanitizer (GPU only) ----------------------------------------

if [ "$TARGET" = gpu ]; then
    if find_sanitizer; then
        # Small runs that still take every path: four blocks of 1024
        # threads (32 warps' partials, a last block, a second pass), each
        # thread summing several ints; the tools' time grows with the
        # accesses they watch.
        for k in "${sanitized[@]}"; do
            demo_begin "${names[$((k - 1))]}"
            sanitize racecheck clean "$SYNC_NAME: variant $k racecheck finds no hazard" \
                "$SYNC" -k "$k" -n 20011 -b 1024 -g 4
            sanitize memcheck clean "$SYNC_NAME: variant $k memcheck is clean (1024 threads: 32 warps' partials)" \
                "$SYNC" -k "$k" -n 20011 -b 1024 -g 4
            sanitize synccheck clean "$SYNC_NAME: variant $k synccheck is clean" \
                "$SYNC" -k "$k" -n 20011 -g 4
        done
        if [ "$ONLY_SYNC" = 0 ]; then
            # One block of two warps: racecheck's time grows with the
            # hazards it records, and two warps show them all the same.
            for k in 1 2; do
                want "$k" || continue
                demo_begin "${names[$((k - 1))]}"
                sanitize racecheck flagged "legacy: ${names[$((k - 1))]}: racecheck reports the intra-warp hazards" \
                    "$LEGACY" -k "$k" -n 64 -b 64 -g 1
            done
            if [ "$PRE_VOLTA" = 0 ]; then
                demo_end
                VERIFY='' sanitize memcheck clean "bench: variant 6 with every load kind and unroll, memcheck is clean" \
                    "$(dirname "$SYNC")/bench" -V 1 -n 64K -l 1 -k 6
            fi
        fi
    else
        diag "compute-sanitizer not found: racecheck, memcheck and synccheck not run"
    fi
fi

check_end
