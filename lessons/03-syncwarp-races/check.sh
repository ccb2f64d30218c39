#!/usr/bin/env bash
# check.sh - lesson 03's checker (run it with `make check`).
#
# For each demonstration (all five, or those named in DEMO: `make check
# DEMO="1 transpose"` passes it on):
# 1. sync.cu matches the CPU for awkward and large n, several seeds and
#    block sizes, with and without jitter;
# 2. legacy.cu shows its bug: the races give wrong results once the chosen
#    lanes sleep (the writer early, the reader late), the warp assumed
#    converged votes with half its lanes, and the hang is ended and reported
#    by its own watchdog (exit 3) within 10 s;
# 3. on a GPU with compute-sanitizer: racecheck reports the shared-memory
#    races of legacy.cu (tree, transpose) and nothing in sync.cu (warnings
#    included); synccheck and memcheck are clean on sync.cu; what the tools
#    say about the other legacy demonstrations is printed for the record.
# On the pre-Volta path (make pascal: compute_60 code, lanes in lockstep even
# on a new GPU) tree, transpose and converged must be right, as on Pascal;
# around stays wrong there too.
# On warpsim, the CPU emulator (no GPU, or EMU=1), step 1 runs under each
# scheduling model and wants nothing reported, step 2 runs under its; tree,
# transpose and converged are right under lockstep (the pre-Volta model: "it
# used to work"), warpsim reports the races of tree and transpose under every
# model, and the bad shuffles of around even under lockstep.
# `make check SRC=mine.cu` runs the sync expectations (1 and 3) on your file.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"

names=(tree transpose around converged hang)
demos=()
for d in ${DEMO:-1 2 3 4 5}; do
    k=
    for i in "${!names[@]}"; do
        if [ "$d" = "$((i + 1))" ] || [ "$d" = "${names[$i]}" ]; then k=$((i + 1)); fi
    done
    [ -n "$k" ] || { printf '%s: DEMO: no demonstration %s (1-5 or %s)\n' "$0" "$d" "${names[*]}" >&2; exit 2; }
    demos+=("$k")
done
name() { printf '%s' "${names[$(($1 - 1))]}"; }

if [ "$TARGET" = gpu ]; then
    big=3000017          # a few million, not a multiple of 32 or of a block
    legacy_n=1M          # 32,768 warps
    hang_n=2048          # the hang demonstration's 64 warps
    watchdog=()          # the programs' default: 400M cycles, about 0.2 s
else
    big=8195
    legacy_n=8192
    hang_n=256
    watchdog=(-w 100000)
fi
jitter=200

# What the jitter does in each demonstration (legacy.cu's head comment).
sleepers=("even lanes sleep %s before each step" "odd lanes sleep %s before they store"
          "odd lanes sleep %s before they shuffle" "lanes 16-31 sleep %s after __syncwarp()" "")

# ---- 1. sync.cu is right, with and without jitter -------------------------

for k in "${demos[@]}"; do
    sizes=(1 31 33 1000 "$big")
    [ "$k" != 5 ] || sizes=(1 33 1000 "$hang_n")
    seed=1
    for n in "${sizes[@]}"; do
        for j in 0 "$jitter"; do
            expect_right "sync: $(name "$k") n=$n jitter=${j}ns matches CPU" \
                "$SYNC" -k "$k" -n "$n" -j "$j" -s "$seed" "${watchdog[@]}"
        done
        seed=$((seed + 1))
    done
    for threads in 32 1024; do
        n=5000
        [ "$k" != 5 ] || n=$hang_n
        expect_right "sync: $(name "$k") n=$n threads=$threads jitter=${jitter}ns matches CPU" \
            "$SYNC" -k "$k" -n "$n" -b "$threads" -j "$jitter" -s 7 "${watchdog[@]}"
    done
done

# ---- 2. legacy.cu shows its bug ---------------------------------------------

for k in "${demos[@]}"; do
    [ "$ONLY_SYNC" = 0 ] || break
    case "$k" in
    1|2|3|4)
        observe "legacy: $(name "$k") n=$legacy_n jitter=0ns" "$LEGACY" -k "$k" -n "$legacy_n"
        case "$k" in
            1) what="tree: lanes read slots their partners have already rewritten" ;;
            2) what="transpose: lanes load slots before their owners store them" ;;
            3) what="around: the odd lanes' shuffle reads values the even lanes have already replaced" ;;
            4) what="converged: the ballot after __syncwarp() counts half a warp" ;;
        esac
        # shellcheck disable=SC2059
        sleeping=$(printf "${sleepers[$((k - 1))]}" "${jitter}ns")
        if [ "$k" = 3 ]; then
            # Wrong on every path: a pre-Volta warp runs the two sides of the
            # branch one after the other, each shuffle without the other half.
            expect_wrong "legacy: $what ($sleeping, n=$legacy_n)" \
                "$LEGACY" -k "$k" -n "$legacy_n" -j "$jitter"
        else
            expect_its_bug "legacy: ${what%%:*}:" "${what#*: } ($sleeping, n=$legacy_n)" \
                "$LEGACY" -k "$k" -n "$legacy_n" -j "$jitter"
        fi ;;
    5)
        # The hang must end by itself well before anyone's patience does.
        saved_timeout=$CHECK_TIMEOUT
        CHECK_TIMEOUT=10
        expect_hang "legacy: hang: lanes 0-15 wait in __syncwarp() for lanes 16-31, which spin; the watchdog ends it within 10 s" \
            "$LEGACY" -k 5 -n "$hang_n" "${watchdog[@]}"
        CHECK_TIMEOUT=$saved_timeout ;;
    esac
done

# ---- on warpsim: what used to work, and what warpsim reports ----------------

if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ] && ! declare -F emulate >/dev/null; then
    diag "this checklib has no 'emulate': warpsim's own reports not checked"
fi
for k in "${demos[@]}"; do
    if [ "$TARGET" != emu ] || [ "$ONLY_SYNC" = 1 ] || ! declare -F emulate >/dev/null; then break; fi
    case "$k" in
    1|2|4)
        emulate lockstep right "legacy: $(name "$k") is right under lockstep, as on pre-Volta GPUs, even with ${jitter}ns jitter" \
            "$LEGACY" -k "$k" -n "$legacy_n" -j "$jitter" ;;
    esac
    case "$k" in
    1|2)
        emulate all race "legacy: $(name "$k"): warpsim reports the race under every model, right or wrong" \
            "$LEGACY" -k "$k" -n 2048 ;;
    3)
        emulate "lockstep its" primitive "legacy: around: warpsim reports shuffles from lanes that are not taking part, even under lockstep" \
            "$LEGACY" -k 3 -n 2048 ;;
    esac
done

# ---- 3. compute-sanitizer ---------------------------------------------------

# sanitizer_note TOOL WHAT CMD...: what compute-sanitizer's TOOL says about
# CMD, printed for the record with no expectation.
sanitizer_note() {
    local tool=$1 what=$2 summary; shift 2
    local args=(--tool "$tool")
    [ "$tool" != racecheck ] || args+=(--racecheck-report all)
    run_bounded "$SANITIZER" "${args[@]}" "$@"
    summary=$(printf '%s\n' "$RUN_OUT" | grep -E '(RACECHECK|ERROR) SUMMARY' | tail -n 1 | sed 's/^=* *//')
    diag "$what: $tool says: ${summary:-nothing (exit status $RUN_RC)}; program: $(result_of)"
}

if [ "$TARGET" = gpu ]; then
    if find_sanitizer; then
        for k in "${demos[@]}"; do
            n=4096
            [ "$k" != 5 ] || n=$hang_n
            sanitize racecheck clean "sync: $(name "$k") racecheck finds no hazard" \
                "$SYNC" -k "$k" -n "$n" -b 1024 -j "$jitter"
            sanitize synccheck clean "sync: $(name "$k") synccheck is clean" \
                "$SYNC" -k "$k" -n "$n" -j "$jitter"
            sanitize memcheck clean "sync: $(name "$k") memcheck is clean" \
                "$SYNC" -k "$k" -n "$n" -j "$jitter"
        done
        for k in "${demos[@]}"; do
            [ "$ONLY_SYNC" = 0 ] || break
            case "$k" in
            1|2)
                sanitize racecheck flagged "legacy: $(name "$k") racecheck reports the race in shared memory" \
                    "$LEGACY" -k "$k" -n 4096 -b 1024 ;;
            3|4)
                # No shared memory: racecheck has nothing to look at.
                sanitizer_note synccheck "legacy: $(name "$k")" "$LEGACY" -k "$k" -n 4096 -j "$jitter" ;;
            esac
            # Not the hang: a real deadlock hangs under the sanitizers too.
        done
    else
        diag "compute-sanitizer not found: racecheck, synccheck and memcheck not run"
    fi
fi

check_end
