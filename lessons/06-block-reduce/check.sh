#!/usr/bin/env bash
# check.sh - lesson 06's checker (run it with `make check`).
#
# 1. sync.cu, every variant, equals the 64-bit CPU sum (compared modulo 2^32:
#    the GPU sums in int) for sizes from 1 to 2^28, awkward ones included
#    (1, 3, 5, 31, 33, 4099, 2^24 + 3, ...), random never-zero data, several
#    seeds, block sizes of 32, 96 and 1024 threads, grids from 1 block to
#    65,536, every unroll, with and without jitter, and with values large
#    enough that the int sums wrap; the output is poisoned before each run;
# 2. cg.cu and cub_ref.cu give the same sums (on the GPU); so does every
#    setting bench.cu can time: variants 3 to 6 with each load kind (cache
#    hints) and unroll 1 to 16, on awkward sizes and grids (build/bench -V 1,
#    which poisons the output before each run);
# 3. legacy.cu shows its bug: a wrong sum once odd lanes sleep (without
#    jitter, what happened is printed: a right sum there is luck);
# 4. on a GPU with compute-sanitizer: racecheck finds no hazard in any
#    variant of sync.cu (warnings included) and reports legacy.cu's;
#    memcheck and synccheck are clean on every variant of sync.cu, and
#    memcheck on bench.cu's kernels for every load kind and unroll.
# On the pre-Volta path (make pascal: compute_60 code, lanes in lockstep even
# on a new GPU) legacy.cu must be right under the same jitter, as on Pascal,
# and bench.cu (compute capability 7.0 and newer) is not built.
# On warpsim, the CPU emulator (no GPU, or EMU=1), with smaller sizes: step 1
# runs under each scheduling model (lockstep, its, random) and wants nothing
# reported, except for one thing in variant 5 (see expect_right_sums below);
# step 3 runs under its; legacy.cu is right under lockstep, the pre-Volta
# model, even with jitter, and warpsim reports its race under every model.
# `make check SRC=mine.cu` runs steps 1 and 4 on your file, for the variants
# it has (a fixed copy of legacy.cu has one).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"

jitter=200
if [ "$TARGET" = gpu ]; then
    sizes="1 3 4 5 31 32 33 1000 4099 65537 3000017 16777219"
    jitter_sizes="1000 3000017"
    huge=256M            # 2^28 ints, 1 GiB
    mid=1000003
    legacy_n=16M         # 1024 blocks of 8 warps, each summing 64 ints a thread
    grid=()
    big_n=16777219       # with 32 threads: more blocks than the 65,536 allowed
    big_grid=65536
else
    sizes="1 3 4 5 31 32 33 1000 4099 65537 1000003"
    jitter_sizes="1000 65537"
    huge=
    mid=20011
    legacy_n=8192
    grid=(-g 4)
    big_n=20011
    big_grid=40
fi

# How many variants the program under check offers (its --help lists them).
nvariants=$("$SYNC" --help 2>/dev/null |
            awk '/^variants/ { f = 1; next } f && /^  [0-9]+  / { c++ } END { print c + 0 }')
if [ "$ONLY_SYNC" = 1 ]; then
    [ "$nvariants" -le 6 ] || nvariants=6
    if [ "$nvariants" -gt 0 ]; then
        diag "$SYNC offers $nvariants variant(s): checking variants 1..$nvariants"
    else
        not_ok "sync: $SYNC offers at least one variant (its --help lists none)"
    fi
elif [ "$nvariants" -ne 6 ]; then
    not_ok "sync: offers the 6 variants of sync.cu (its --help lists $nvariants)"
    [ "$nvariants" -le 6 ] || nvariants=6
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
    for model in $EMU_MODELS; do
        RUN_OUT=$(WARPSIM_MODEL=$model WARPSIM_SEED=$EMU_SEED WARPSIM_VERBOSE=1 \
                  timeout -k 5 "$CHECK_TIMEOUT" "$@" 2>&1)
        RUN_RC=$?
        races=$(warpsim_count races)
        cross=$(printf '%s\n' "$RUN_OUT" | grep -c '^warpsim: race on global .*different blocks of one launch')
        if [ "$RUN_RC" -ne 0 ] || ! printf '%s\n' "$RUN_OUT" | grep -q '^result: ok' ||
           ! warpsim_summary | grep -qE ' 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors' ||
           [ "$races" -ne "$cross" ]; then
            not_ok "$what"
            diag "under warpsim's $model model: exit status $RUN_RC: $(describe_rc "$RUN_RC")" \
                 "warpsim: $(warpsim_summary)" \
                 "command: WARPSIM_MODEL=$model WARPSIM_SEED=$EMU_SEED $*"
            diag_output 12
            return
        fi
    done
    ok "$what"
    [ "$cross" -eq 0 ] ||
        diag "warpsim reported $cross race(s) between blocks on the partials, which __threadfence and atomicInc order on a GPU (warpsim does not model that)"
}

# ---- 1. sync.cu equals the CPU sum -----------------------------------------

for ((k = 1; k <= nvariants; k++)); do
    seed=$((k * 100))
    for n in $sizes; do
        seed=$((seed + 1))
        expect_right_sums "$k" "sync: variant $k n=$n seed=$seed matches CPU" \
            "$SYNC" -k "$k" -n "$n" -s "$seed" "${grid[@]}"
    done
    for n in $jitter_sizes; do
        expect_right_sums "$k" "sync: variant $k n=$n jitter=${jitter}ns matches CPU" \
            "$SYNC" -k "$k" -n "$n" -j "$jitter" -s "$k" "${grid[@]}"
    done
    if [ -n "$huge" ]; then
        expect_right_sums "$k" "sync: variant $k n=$huge (2^28) matches CPU" \
            "$SYNC" -k "$k" -n "$huge" -s "$k"
    fi
    for threads in 32 96 1024; do
        [ "$TARGET" = gpu ] || [ "$threads" -le 256 ] || threads=256
        expect_right_sums "$k" "sync: variant $k n=$mid threads=$threads jitter=${jitter}ns matches CPU" \
            "$SYNC" -k "$k" -n "$mid" -b "$threads" -j "$jitter" -s 7 "${grid[@]}"
    done
    for blocks in 1 7; do
        expect_right_sums "$k" "sync: variant $k n=$mid blocks<=$blocks matches CPU" \
            "$SYNC" -k "$k" -n "$mid" -g "$blocks" -s 8
    done
    expect_right_sums "$k" "sync: variant $k n=$big_n threads=32 blocks<=$big_grid (the most partials) matches CPU" \
        "$SYNC" -k "$k" -n "$big_n" -b 32 -g "$big_grid" -s 11
    if [ "$k" -ge 3 ]; then
        for u in 1 2 8; do
            expect_right_sums "$k" "sync: variant $k n=$mid unroll=$u matches CPU" \
                "$SYNC" -k "$k" -n "$mid" -u "$u" -s 9 "${grid[@]}"
        done
    fi
    expect_right_sums "$k" "sync: variant $k n=$mid values up to 2^30 (the int sum wraps) matches CPU modulo 2^32" \
        "$SYNC" -k "$k" -n "$mid" -m 1G -s 10 "${grid[@]}"
done

# ---- 2. Cooperative Groups and CUB (GPU only) -------------------------------

if [ "$TARGET" = gpu ] && [ "$ONLY_SYNC" = 0 ]; then
    bin=$(dirname "$SYNC")
    for k in 1 2; do
        for n in 1 33 4099 3000017 "$huge"; do
            expect_right "cg: variant $k n=$n matches CPU" "$bin/cg" -k "$k" -n "$n" -s "$k"
        done
        expect_right "cg: variant $k n=$mid threads=96 matches CPU" \
            "$bin/cg" -k "$k" -n "$mid" -b 96 -s 3
    done
    for n in 1 33 4099 3000017 "$huge"; do
        expect_right "cub: n=$n matches CPU" "$bin/cub_ref" -n "$n" -s 5
    done
    if [ "$PRE_VOLTA" = 1 ]; then
        diag "bench.cu is not checked on the pre-Volta path: a benchmark of compute capability 7.0 and newer, make pascal does not build it"
    else
        expect_right "bench: variants 3-6, every load kind, unroll 1-16, sizes 1 .. 2^24+3, threads 32-1024, 1 to 65,536 blocks match CPU" \
            "$bin/bench" -V 1 -n 32M -l 1 -s 12
        expect_right "bench: the same with values up to 2^30 (the int sums wrap) matches CPU modulo 2^32" \
            "$bin/bench" -V 1 -n 1M -l 1 -m 1G -s 13
    fi
fi

# ---- 3. legacy.cu shows its bug --------------------------------------------

if [ "$ONLY_SYNC" = 0 ]; then
    observe "legacy: n=$legacy_n jitter=0ns" "$LEGACY" -n "$legacy_n" "${grid[@]}"
    expect_its_bug "legacy:" "wrong sum once odd lanes sleep ${jitter}ns (n=$legacy_n)" \
        "$LEGACY" -n "$legacy_n" -j "$jitter" "${grid[@]}"
    threads=1024
    [ "$TARGET" = gpu ] || threads=256
    expect_its_bug "legacy:" "wrong sum once odd lanes sleep ${jitter}ns (n=$mid, $threads threads)" \
        "$LEGACY" -n "$mid" -b "$threads" -j "$jitter" "${grid[@]}"
fi
if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ]; then
    emulate lockstep right "legacy: right under lockstep, as on pre-Volta GPUs, even with ${jitter}ns jitter" \
        "$LEGACY" -n "$legacy_n" -j "$jitter" "${grid[@]}"
    emulate all race "legacy: warpsim reports the intra-warp race under every model" \
        "$LEGACY" -n 2048 -g 2
fi

# ---- 4. compute-sanitizer (GPU only) ----------------------------------------

if [ "$TARGET" = gpu ]; then
    if find_sanitizer; then
        for ((k = 1; k <= nvariants; k++)); do
            sanitize racecheck clean "sync: variant $k racecheck finds no hazard" \
                "$SYNC" -k "$k" -n 100003 -b 1024 -g 8
            sanitize memcheck clean "sync: variant $k memcheck is clean" \
                "$SYNC" -k "$k" -n 100003 -g 16
            sanitize synccheck clean "sync: variant $k synccheck is clean" \
                "$SYNC" -k "$k" -n 100003 -g 16
        done
        if [ "$ONLY_SYNC" = 0 ]; then
            sanitize racecheck flagged "legacy: racecheck reports the intra-warp hazards" \
                "$LEGACY" -n 4096 -b 1024 -g 4
            [ "$PRE_VOLTA" = 1 ] ||
                sanitize memcheck clean "bench: variant 6 with every load kind and unroll, memcheck is clean" \
                    "$(dirname "$SYNC")/bench" -V 1 -n 64K -l 1 -k 6
        fi
    else
        diag "compute-sanitizer not found: racecheck, memcheck and synccheck not run"
    fi
fi

check_end
