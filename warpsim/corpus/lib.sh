# shellcheck shell=bash
# corpus/lib.sh - what the corpus scripts share (sourced by run.sh and
# run-sanitizer.sh): each kernel's expected verdict, warpsim's verdict
# from its output, and each compute-sanitizer tool's from its output.
#
# Verdicts (one word each; a run may have several):
#   race        two unordered accesses, one a write, not both atomic
#   barrier     a __syncthreads reached at different places or gone past
#   missing     lanes named in a collective's mask went past it
#   shuffle     a shuffle read a lane outside the mask or one that exited
#   mask        a lane absent from its own mask, masks that differ, a bad width
#   uninit      a read of shared memory no thread of the block wrote
#   oob-shared  an access outside every __shared__ variable
#   oob-global  an access outside every allocation (or a bad pointer, or
#               another thread's local memory)
#   hang        the block can make no progress (deadlock or spin)
#   livelock    a thread goes on forever without ending (reported as a hang)
#   fpe         an integer division by zero
#   clean       nothing reported, the program exited 0

# corpus_expect FILE [MODEL]: the expected verdict of corpus FILE under
# MODEL (the `// expect-MODEL:` line if there is one, else `// expect:`).
corpus_expect() {
    local v=""
    [ -n "${2:-}" ] && v=$(sed -n "s|^// expect-$2: *||p" "$1" | head -n 1)
    [ -n "$v" ] || v=$(sed -n 's|^// expect: *||p' "$1" | head -n 1)
    printf '%s\n' "$v"
}

# corpus_also FILE: verdicts that may come with the expected one (the
# `// also:` line), e.g. uninitialized reads of a shared overrun.
corpus_also() {
    sed -n 's|^// also: *||p' "$1" | head -n 1
}

# warpsim_verdict STATUS OUTPUT: the verdicts warpsim's OUTPUT shows,
# space-separated in a fixed order, or "clean" (status 0, nothing reported).
# Pattern matching in bash itself: no process per test.
warpsim_verdict() {
    local status=$1 out=$'\n'$2 v=""
    [[ $out == *$'\nwarpsim: race on '* ]] && v="$v race"
    [[ $out == *$'\nwarpsim: divergent __syncthreads'* ||
       $out == *$'\nwarpsim: partial __syncthreads'* ]] && v="$v barrier"
    [[ $out == *$'\nwarpsim: missing lanes'* ]] && v="$v missing"
    [[ $out == *$'\nwarpsim: bad shuffle'* ]] && v="$v shuffle"
    [[ $out == *$'\nwarpsim: bad mask'* || $out == *$'\nwarpsim: mask mismatch'* ||
       $out == *$'\nwarpsim: bad width'* ]] && v="$v mask"
    [[ $out == *$'\nwarpsim: uninitialized read'* ]] && v="$v uninit"
    [[ $out == *$'\nwarpsim: invalid '*' on shared memory'* ]] && v="$v oob-shared"
    [[ $out == *$'\nwarpsim: invalid '*' on global memory'* ||
       $out == *$'\nwarpsim: invalid '*' on local memory'* ||
       $out == *$'\nwarpsim: segmentation fault'* ||
       $out == *$'\nwarpsim: bus error'* ]] && v="$v oob-global"
    if [[ $out == *$'\nHANG detected: '*'(a livelock'* ]]; then
        v="$v livelock"
    elif [[ $out == *$'\nHANG detected'* ]]; then
        v="$v hang"
    fi
    [[ $out == *$'\nwarpsim: integer division by zero'* ||
       $out == *$'\nwarpsim: integer overflow'* ]] && v="$v fpe"
    if [ -z "$v" ]; then
        [ "$status" = 0 ] && v=clean || v="exit-$status"
    fi
    printf '%s\n' "${v# }"
}

# verdict_ok EXPECTED ALSO GOT: whether GOT has the expected verdict and
# nothing beyond it and ALSO.
verdict_ok() {
    local want=$1 also=$2 got=$3 g
    [[ " $got " == *" $want "* ]] || return 1
    for g in $got; do
        [[ " $want $also " == *" $g "* ]] || return 1
    done
}

# sanitizer_verdict TOOL STATUS OUTPUT: what one tool reported.
sanitizer_verdict() {
    local tool=$1 status=$2 out=$3 v=""
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then
        echo timeout
        return
    fi
    case $tool in
    racecheck)
        # a hazard line, or a summary that counts some; "RACECHECK SUMMARY:
        # 0 hazards displayed" is the clean case
        grep -qE 'Race reported|Potential [A-Z]+ hazard|RACECHECK SUMMARY: [1-9]' <<<"$out" && v="$v race" ;;
    synccheck)
        grep -qE 'Barrier error|Divergent thread' <<<"$out" && v="$v barrier"
        [ -z "$v" ] && grep -qE 'ERROR SUMMARY: [1-9]' <<<"$out" && v="$v sync-error" ;;
    memcheck)
        grep -qE 'Invalid __shared__ (read|write)' <<<"$out" && v="$v oob-shared"
        grep -qE 'Invalid __global__ (read|write)|Address .* is out of bounds|Invalid __local__' <<<"$out" && v="$v oob-global"
        [ -z "$v" ] && grep -qE 'ERROR SUMMARY: [1-9]' <<<"$out" && v="$v mem-error" ;;
    esac
    if [ -z "$v" ]; then
        [ "$status" = 0 ] && v=clean || v="exit-$status"
    fi
    echo "${v# }"
}
