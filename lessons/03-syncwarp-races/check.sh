#!/usr/bin/env bash
# check.sh - lesson 03's checker (run it with `make check`).
#
# Every program runs through build/verify (harness.cu built alone), which
# judges what the program wrote: nothing in a lesson file can print the
# verdict. -j NS makes the lanes of a --sleepers pattern sleep at each warp
# primitive and each read of threadIdx (include/lesson.h). Where the delay
# goes matters: a race shows only in the order that breaks the code's
# assumption, so each demonstration has its sleepers: tree even (the
# readers late), transpose and around odd, converged upper (lanes 16-31
# late after the barrier), hang lower.
#
# For each demonstration (all five, or those named in DEMO: `make check
# DEMO="1 transpose"`):
# 1. sync.cu matches the CPU: first each demonstration once with its
#    sleepers (so that a wrong file fails fast), then awkward and large n,
#    several seeds, every sleeper pattern and block sizes;
# 2. legacy.cu shows its bug: the races give wrong results once the chosen
#    lanes sleep, the warp assumed converged votes with half its lanes,
#    around is wrong with no delay at all, and the hang is ended and
#    reported by its own watchdog (exit 3) within 10 s;
# 3. on a GPU with compute-sanitizer: racecheck reports the shared-memory
#    races of legacy.cu (tree, transpose) and nothing in sync.cu (warnings
#    included); synccheck and memcheck are clean on sync.cu; what synccheck
#    says about legacy around and converged is printed for the record.
# On the pre-Volta path (make pascal: compute_60 code, pre-Volta scheduling
# even on a new GPU) nothing is expected of legacy tree, transpose and
# converged (the model promises them neither right nor wrong there, and no
# Pascal run is recorded): what each run did is said. around and hang are not run there, neither file: they
# call __shfl_sync/__syncwarp from both sides of a branch (and legacy.cu's
# hang from one side), and before compute capability 7.0 the lanes must
# make those calls in convergence, or the behaviour is undefined (CUDA C++
# Programming Guide, __syncwarp() and the warp shuffle functions).
# On warpsim, the CPU emulator (no GPU, or EMU=1), step 1 runs under each
# scheduling model and wants nothing reported, step 2 runs under its; tree,
# transpose and converged are right under lockstep (the pre-Volta model: "it
# used to work"), warpsim reports the races of tree and transpose under every
# model, and the bad shuffles of around even under lockstep.
# `make check SRC=mine.cu` runs step 1 (and the sanitizer checks of sync.cu)
# on your file, named by its own name; with a GPU, on warpsim too.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"
demo_select tree transpose around converged hang

big=$(by_target 3000017 8195)      # a few million, not a multiple of 32 or of a block
legacy_n=$(by_target 1M 8192)      # 32,768 warps on the GPU
hang_n=$(by_target 2048 256)       # the hang demonstration's 64 warps (8 on warpsim)
if [ "$TARGET" = gpu ]; then
    watchdog=()                    # the programs' default: 400M cycles, about 0.2 s
else
    watchdog=(-w 100000)
fi
jitter=200

# sleepers DEMO: the lanes that sleep in DEMO's demonstration of its bug.
sleepers() {
    case "$1" in
        tree) echo even ;;
        converged) echo upper ;;
        hang) echo lower ;;
        *) echo odd ;;
    esac
}

# skip_pre_volta DEMO: on the pre-Volta path, says why DEMO is not run
# there and returns 0; else returns 1.
skip_pre_volta() {
    [ "$PRE_VOLTA" = 1 ] || return 1
    case "$1" in
        around) diag "around: not run on the pre-Volta path: sync.cu calls __shfl_sync (legacy.cu __syncwarp and __shfl) from both sides of a branch, which before compute capability 7.0 is undefined: the lanes must make the call in convergence" ;;
        hang) diag "hang: not run on the pre-Volta path: sync.cu calls __syncwarp() from both sides of a branch (legacy.cu from one side while the other spins), which before compute capability 7.0 is undefined: the lanes must reach it in convergence" ;;
        *) return 1 ;;
    esac
    return 0
}

# ---- 1. sync.cu is right, whoever sleeps --------------------------------

for demo in "${DEMO_SELECTED[@]}"; do
    skip_pre_volta "$demo" && continue
    sl=$(sleepers "$demo")
    expect_right "$SYNC_NAME: $demo n=1000 jitter=${jitter}ns, $sl lanes sleeping, matches CPU" \
        "$SYNC" -k "$demo" -n 1000 -j "$jitter" --sleepers "$sl" "${watchdog[@]}"
done
for demo in "${DEMO_SELECTED[@]}"; do
    if [ "$PRE_VOLTA" = 1 ] && { [ "$demo" = around ] || [ "$demo" = hang ]; }; then continue; fi
    sl=$(sleepers "$demo")
    sizes=(1 33 "$big")
    [ "$demo" != hang ] || sizes=(1 33 "$hang_n")
    seed=1
    for n in "${sizes[@]}"; do
        for j in 0 "$jitter"; do
            expect_right "$SYNC_NAME: $demo n=$n seed=$seed jitter=${j}ns matches CPU" \
                "$SYNC" -k "$demo" -n "$n" -s "$seed" -j "$j" --sleepers "$sl" "${watchdog[@]}"
        done
        seed=$((seed + 1))
    done
    for pattern in odd even upper lower leader random; do
        [ "$pattern" != "$sl" ] || continue
        expect_right "$SYNC_NAME: $demo n=1000 jitter=${jitter}ns, $pattern lanes sleeping, matches CPU" \
            "$SYNC" -k "$demo" -n 1000 -s 9 -j "$jitter" --sleepers "$pattern" "${watchdog[@]}"
    done
    for threads in 32 1024; do
        n=5000
        [ "$demo" != hang ] || n=$hang_n
        expect_right "$SYNC_NAME: $demo n=$n threads=$threads jitter=${jitter}ns matches CPU" \
            "$SYNC" -k "$demo" -n "$n" -b "$threads" -j "$jitter" --sleepers "$sl" -s 7 "${watchdog[@]}"
    done
done

# ---- 2. legacy.cu shows its bug -------------------------------------------

if [ "$ONLY_SYNC" = 0 ]; then
    for demo in "${DEMO_SELECTED[@]}"; do
        if [ "$PRE_VOLTA" = 1 ] && { [ "$demo" = around ] || [ "$demo" = hang ]; }; then continue; fi
        sl=$(sleepers "$demo")
        case "$demo" in
        tree|transpose|converged)
            case "$demo" in
                tree) what="lanes read slots their partners have already rewritten" ;;
                transpose) what="lanes load slots before their owners store them" ;;
                converged) what="the ballot after __syncwarp() counts half a warp" ;;
            esac
            observe "legacy: $demo n=$legacy_n jitter=0ns" "$LEGACY" -k "$demo" -n "$legacy_n"
            expect_its_bug "legacy: $demo:" "$what ($sl lanes sleep ${jitter}ns, n=$legacy_n)" \
                "$LEGACY" -k "$demo" -n "$legacy_n" -j "$jitter" --sleepers "$sl" ;;
        around)
            # Each side of the branch shuffles without the other half:
            # wrong with no delay at all.
            expect_wrong "legacy: around: each side's mask-less shuffle reads lanes of the other side, which are not taking part (n=$legacy_n, no delay)" \
                "$LEGACY" -k around -n "$legacy_n" ;;
        hang)
            # The hang must end by itself well before anyone's patience does.
            check_limit 10
            expect_hang "legacy: hang: lanes 0-15 wait in __syncwarp() for lanes 16-31, which spin; the watchdog ends it within 10 s" \
                "$LEGACY" -k hang -n "$hang_n" "${watchdog[@]}"
            check_limit "$(by_target 60 20)" ;;
        esac
    done
fi

# ---- on warpsim: what used to work, and what warpsim reports ----------------

if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ]; then
    for demo in "${DEMO_SELECTED[@]}"; do
        sl=$(sleepers "$demo")
        case "$demo" in
        tree|transpose|converged)
            emulate lockstep right "legacy: $demo is right under lockstep, as on pre-Volta GPUs, even with $sl lanes sleeping ${jitter}ns" \
                "$LEGACY" -k "$demo" -n "$legacy_n" -j "$jitter" --sleepers "$sl" ;;
        esac
        case "$demo" in
        tree|transpose)
            emulate all race "legacy: $demo: warpsim reports the race under every model, right or wrong" \
                "$LEGACY" -k "$demo" -n 2048 ;;
        around)
            emulate "lockstep its" primitive "legacy: around: warpsim reports shuffles from lanes that are not taking part, even under lockstep" \
                "$LEGACY" -k around -n 2048 ;;
        esac
    done
fi

# ---- 3. compute-sanitizer ---------------------------------------------------

# sanitizer_note TOOL WHAT CMD...: what compute-sanitizer's TOOL says about
# CMD, printed for the record with no expectation (the program run alone,
# not through build/verify: its result line is its own word).
sanitizer_note() {
    # shellcheck disable=SC2034   # VERIFY is read by run_limited
    local tool=$1 what=$2 summary VERIFY=; shift 2
    local args=(--tool "$tool")
    [ "$tool" != racecheck ] || args+=(--racecheck-report all)
    run_bounded "$SANITIZER" "${args[@]}" "$@"
    summary=$(printf '%s\n' "$RUN_OUT" | grep -E '(RACECHECK|ERROR) SUMMARY' | tail -n 1 | sed 's/^=* *//')
    diag "$what: $tool says: ${summary:-nothing (exit status $RUN_RC)}; program: $(result_of)"
}

if [ "$TARGET" = gpu ]; then
    if find_sanitizer; then
        for demo in "${DEMO_SELECTED[@]}"; do
            if [ "$PRE_VOLTA" = 1 ] && { [ "$demo" = around ] || [ "$demo" = hang ]; }; then continue; fi
            n=4096
            [ "$demo" != hang ] || n=$hang_n
            sl=$(sleepers "$demo")
            sanitize racecheck clean "$SYNC_NAME: $demo racecheck finds no hazard" \
                "$SYNC" -k "$demo" -n "$n" -b 1024 -j "$jitter" --sleepers "$sl"
            sanitize synccheck clean "$SYNC_NAME: $demo synccheck is clean" \
                "$SYNC" -k "$demo" -n "$n" -j "$jitter" --sleepers "$sl"
            sanitize memcheck clean "$SYNC_NAME: $demo memcheck is clean" \
                "$SYNC" -k "$demo" -n "$n" -j "$jitter" --sleepers "$sl"
        done
        if [ "$ONLY_SYNC" = 0 ]; then
            for demo in "${DEMO_SELECTED[@]}"; do
                if [ "$PRE_VOLTA" = 1 ] && { [ "$demo" = around ] || [ "$demo" = hang ]; }; then continue; fi
                case "$demo" in
                tree|transpose)
                    sanitize racecheck flagged "legacy: $demo: racecheck reports the race in shared memory" \
                        "$LEGACY" -k "$demo" -n 1024 -b 1024 ;;
                around|converged)
                    # No shared memory: racecheck has nothing to look at.
                    sanitizer_note synccheck "legacy: $demo" \
                        "$LEGACY" -k "$demo" -n 4096 -j "$jitter" --sleepers "$(sleepers "$demo")" ;;
                esac
                # Not the hang: a real deadlock hangs under the sanitizers too.
            done
        fi
    else
        diag "compute-sanitizer not found: racecheck, synccheck and memcheck not run"
    fi
fi

check_end
