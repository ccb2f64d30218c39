#!/usr/bin/env bash
# check.sh - lesson 02's checker (run it with `make check`).
#
# Every program runs through build/verify (harness.cu built alone), which
# judges the results the program wrote: nothing in a lesson file can print
# the verdict. -j NS makes the lanes of a --sleepers pattern (default odd)
# sleep at each warp primitive and each read of threadIdx (include/lesson.h).
#
# For each demonstration (all six, or those named in DEMO: `make check
# DEMO="1 reconverge"` passes it on):
# 1. sync.cu matches the CPU for awkward and large n, every count 1..32,
#    several seeds and block sizes, with and without jitter, under every
#    sleeper pattern; the hang demonstration's watchdog never fires;
# 2. legacy.cu shows its bug: partial sums and partial votes once the chosen
#    lanes sleep, wrong sums from partners outside the mask, and a hang that
#    its own watchdog ends and reports (exit 3) within 10 s; with exited
#    lanes, the same full mask does not hang (the lesson says why it is still
#    wrong);
# 3. on a GPU with compute-sanitizer: racecheck (warnings included; once,
#    nothing here uses shared memory), synccheck and memcheck are clean on
#    sync.cu; what synccheck says about each legacy mask is printed for
#    the record (it misses them).
# The detective (6) is the same right code in both files: sync expectations
# only.
# On the pre-Volta path (make pascal: compute_60 code, pre-Volta scheduling
# even on a new GPU) the legacy activemask and reconverge, and sync.cu's
# hang demonstration, are run and what they did is said, with no
# expectation: the programming model promises neither that the legacy code
# is right without independent thread scheduling nor that lanes spinning
# for their own warp's other side of a branch starve it (it promises that
# they may not, from 7.0 on). No Pascal GPU's run is recorded; the compute_60
# runs on an H100 (docs/results/02-ballot-mask.compute_60.txt) were right,
# and the hang twin hung in 64 of 64 warps.
# On warpsim, the CPU emulator (no GPU, or EMU=1), step 1 runs under each
# scheduling model and wants nothing reported, step 2 runs under its, the
# legacy activemask and reconverge are right under lockstep (the pre-Volta
# model: "it used to work"), and warpsim reports the shuffles that read lanes
# outside their mask under every model.
# `make check SRC=mine.cu` runs the sync expectations (1 and 3) on your
# file, named by its own name; with a GPU, on warpsim too.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/checklib.sh
. "$here/../../scripts/checklib.sh"
check_begin "$@"

names=(activemask partners reconverge hang exited detective)
demos=()
for d in ${DEMO:-1 2 3 4 5 6}; do
    k=
    for i in "${!names[@]}"; do
        if [ "$d" = "$((i + 1))" ] || [ "$d" = "${names[$i]}" ]; then k=$((i + 1)); fi
    done
    [ -n "$k" ] || { printf '%s: DEMO: no demonstration %s (1-6 or %s)\n' "$0" "$d" "${names[*]}" >&2; exit 2; }
    demos+=("$k")
done
want() { case " ${demos[*]} " in *" $1 "*) return 0 ;; esac; return 1; }
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
# jitters N: the jitters to try at size N: the tiny sizes with the delay
# only, the others without and with it (bounded by the lab's time budget).
jitters() { if [ "$1" -le 64 ]; then printf '%s\n' "$jitter"; else printf '%s\n' 0 "$jitter"; fi; }

# ---- 1. sync.cu is right, with and without jitter -------------------------

for k in "${demos[@]}"; do
    case "$k" in
    1|2)
        seed=1
        for n in 1 33 1000 "$big"; do
            for c in 0 32; do
                for j in $(jitters "$n"); do
                    expect_right "$SYNC_NAME: $(name "$k") n=$n count=$c jitter=${j}ns matches CPU" \
                        "$SYNC" -k "$k" -n "$n" -c "$c" -j "$j" -s "$seed"
                done
            done
            seed=$((seed + 1))
        done
        for c in 1 16 31; do
            expect_right "$SYNC_NAME: $(name "$k") n=5000 count=$c jitter=${jitter}ns matches CPU" \
                "$SYNC" -k "$k" -n 5000 -c "$c" -j "$jitter" -s 7
        done
        for threads in 32 1024; do
            expect_right "$SYNC_NAME: $(name "$k") n=5000 threads=$threads count=0 jitter=${jitter}ns matches CPU" \
                "$SYNC" -k "$k" -n 5000 -b "$threads" -j "$jitter" -s 8
        done ;;
    3|5|6)
        seed=1
        for n in 1 33 1000 "$big"; do
            for j in $(jitters "$n"); do
                expect_right "$SYNC_NAME: $(name "$k") n=$n jitter=${j}ns matches CPU" \
                    "$SYNC" -k "$k" -n "$n" -j "$j" -s "$seed"
            done
            seed=$((seed + 1))
        done
        for threads in 32 1024; do
            expect_right "$SYNC_NAME: $(name "$k") n=5000 threads=$threads jitter=${jitter}ns matches CPU" \
                "$SYNC" -k "$k" -n 5000 -b "$threads" -j "$jitter" -s 7
        done ;;
    4)
        if [ "$PRE_VOLTA" = 1 ]; then
            # Half a warp spinning on a flag that the other half sets needs
            # independent thread scheduling: a pre-Volta warp runs one side
            # of the branch at a time, and the spinning side never yields.
            saved_timeout=$CHECK_TIMEOUT
            CHECK_TIMEOUT=10
            observe "$SYNC_NAME: hang on the pre-Volta path (the spinning lanes 16-31 may starve the producers; the watchdog ends a hang)" \
                "$SYNC" -k 4 -n "$hang_n" "${watchdog[@]}"
            CHECK_TIMEOUT=$saved_timeout
            diag "waiting for lanes of one's own warp is promised from compute capability 7.0 on (independent thread scheduling); before, a hang is allowed, not promised"
            continue
        fi
        seed=1
        for n in 1 33 1000 "$hang_n"; do
            for j in $(jitters "$n"); do
                expect_right "$SYNC_NAME: hang n=$n jitter=${j}ns: no hang, matches CPU" \
                    "$SYNC" -k 4 -n "$n" -j "$j" -s "$seed" "${watchdog[@]}"
            done
            seed=$((seed + 1))
        done
        for threads in 32 1024; do
            expect_right "$SYNC_NAME: hang n=$hang_n threads=$threads jitter=${jitter}ns: no hang, matches CPU" \
                "$SYNC" -k 4 -n "$hang_n" -b "$threads" -j "$jitter" "${watchdog[@]}"
        done ;;
    esac
    # The delays come at every primitive and threadIdx read, whatever the
    # file: any group of lanes may be the late one.
    for sleepers in even upper lower leader random; do
        extra=()
        [ "$k" != 4 ] || extra=("${watchdog[@]}")
        expect_right "$SYNC_NAME: $(name "$k") n=1000 jitter=${jitter}ns, $sleepers lanes sleeping, matches CPU" \
            "$SYNC" -k "$k" -n 1000 -s 9 -j "$jitter" --sleepers "$sleepers" "${extra[@]}"
    done
done

# ---- 2. legacy.cu shows its bug ---------------------------------------------

for k in "${demos[@]}"; do
    [ "$ONLY_SYNC" = 0 ] || break
    case "$k" in
    1)
        observe "legacy: activemask count=32 n=$legacy_n jitter=0ns" \
            "$LEGACY" -k 1 -c 32 -n "$legacy_n"
        expect_its_bug "legacy: activemask" "gives partial sums once odd lanes sleep ${jitter}ns (count=32, n=$legacy_n)" \
            "$LEGACY" -k 1 -c 32 -n "$legacy_n" -j "$jitter" ;;
    2)
        expect_right "legacy: partners is right when all 32 lanes take part (count=32): no partner is outside the mask" \
            "$LEGACY" -k 2 -c 32 -n "$legacy_n" -j "$jitter"
        if [ "$TARGET" = gpu ]; then
            # Undefined behaviour need not look wrong: on an H200 the lanes
            # outside the mask gave back values that left the sum right.
            observe "legacy: partners, every count < 32 (n=$legacy_n)" \
                "$LEGACY" -k 2 -c 0 -n "$legacy_n"
            diag "reading a lane outside the mask is undefined whatever this GPU returned; warpsim returns poison and reports each such read"
        else
            expect_wrong "legacy: partners adds values from lanes outside the mask when count < 32 (every count, n=$legacy_n)" \
                "$LEGACY" -k 2 -c 0 -n "$legacy_n"
        fi ;;
    3)
        observe "legacy: reconverge n=$legacy_n jitter=0ns" "$LEGACY" -k 3 -n "$legacy_n"
        expect_its_bug "legacy: reconverge" "votes with half a warp once odd lanes sleep ${jitter}ns (n=$legacy_n)" \
            "$LEGACY" -k 3 -n "$legacy_n" -j "$jitter" ;;
    4)
        # The hang must end by itself well before anyone's patience does.
        saved_timeout=$CHECK_TIMEOUT
        CHECK_TIMEOUT=10
        expect_hang "legacy: hang: a full-mask shuffle in lanes 0-15 while lanes 16-31 spin never ends; the watchdog ends it within 10 s" \
            "$LEGACY" -k 4 -n "$hang_n" "${watchdog[@]}"
        CHECK_TIMEOUT=$saved_timeout ;;
    5)
        what="legacy: exited: a full mask naming lanes that have exited does not hang"
        run_bounded "$LEGACY" -k 5 -n "$legacy_n" -j "$jitter"
        case "$RUN_RC" in
            0|1) ok "$what"
                 diag "result: $(result_of) (exit status $RUN_RC); still wrong code by the mask rules: see README" ;;
            *) not_ok "$what"
               diag "exit status $RUN_RC: $(describe_rc "$RUN_RC")"
               diag_output 12 ;;
        esac ;;
    6)
        expect_right "legacy: detective is the same right code as in sync.cu (n=$legacy_n, jitter=${jitter}ns)" \
            "$LEGACY" -k 6 -n "$legacy_n" -j "$jitter" ;;
    esac
done

# ---- on warpsim: what used to work, and what warpsim reports ----------------

if [ "$TARGET" = emu ] && [ "$ONLY_SYNC" = 0 ] && ! declare -F emulate >/dev/null; then
    diag "this checklib has no 'emulate': warpsim's own reports not checked"
fi
for k in "${demos[@]}"; do
    if [ "$TARGET" != emu ] || [ "$ONLY_SYNC" = 1 ] || ! declare -F emulate >/dev/null; then break; fi
    case "$k" in
    1)
        emulate lockstep right "legacy: activemask is right under lockstep, as on pre-Volta GPUs, even with ${jitter}ns jitter (count=32)" \
            "$LEGACY" -k 1 -c 32 -n "$legacy_n" -j "$jitter"
        emulate all primitive "legacy: activemask: warpsim reports shuffles from lanes outside the mask under every model (every count)" \
            "$LEGACY" -k 1 -c 0 -n 2048 ;;
    2)
        emulate all primitive "legacy: partners: warpsim reports shuffles from lanes outside the mask under every model (every count)" \
            "$LEGACY" -k 2 -c 0 -n 2048 ;;
    3)
        emulate lockstep right "legacy: reconverge is right under lockstep, where the warp reconverges after the if/else, even with ${jitter}ns jitter" \
            "$LEGACY" -k 3 -n "$legacy_n" -j "$jitter" ;;
    esac
done

# ---- 3. compute-sanitizer ---------------------------------------------------

# sanitizer_note TOOL WHAT CMD...: what compute-sanitizer's TOOL says about
# CMD, printed for the record with no expectation (for the legacy masks,
# which the tools do not check).
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
            # On the pre-Volta path the hang twin hangs (step 1): not here.
            [ "$k" != 4 ] || [ "$PRE_VOLTA" = 0 ] || continue
            args=(-k "$k" -n 4096 -j "$jitter")
            # The hang twin spins until the producers' flag: give it more
            # time under the tools' instrumentation (-w 4G: about 2 s).
            [ "$k" != 4 ] || args=(-k 4 -n "$hang_n" -j "$jitter" -w 4G)
            # Nothing here touches shared memory: racecheck once, for 1.
            [ "$k" != 1 ] || sanitize racecheck clean "$SYNC_NAME: $(name "$k") racecheck finds no hazard" \
                "$SYNC" "${args[@]}" -b 1024
            sanitize synccheck clean "$SYNC_NAME: $(name "$k") synccheck is clean" "$SYNC" "${args[@]}"
            sanitize memcheck clean "$SYNC_NAME: $(name "$k") memcheck is clean" "$SYNC" "${args[@]}"
        done
        if [ "$ONLY_SYNC" = 0 ]; then
            # Not the hang: a real deadlock hangs under the sanitizers too.
            for k in 1 2 3 5; do
                want "$k" || continue
                sanitizer_note synccheck "legacy: $(name "$k")" \
                    "$LEGACY" -k "$k" -n 4096 -c 20 -j "$jitter"
            done
        fi
    else
        diag "compute-sanitizer not found: racecheck, synccheck and memcheck not run"
    fi
fi

check_end
