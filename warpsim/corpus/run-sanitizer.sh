#!/usr/bin/env bash
# corpus/run-sanitizer.sh - the corpus on a GPU under compute-sanitizer,
# beside warpsim: what each tool finds and what it reports falsely.
#
#   corpus/run-sanitizer.sh [--help] [--sm N] [--timeout S] [-o DIR] [NAME...]
#
# Builds every corpus kernel (or the NAMEs given) with nvcc for compute
# capability N (default: the GPU's, from nvidia-smi) into DIR (default
# warpsim/build/corpus-gpu), runs each under compute-sanitizer's racecheck
# (--racecheck-report all), synccheck and memcheck, at the same time, each
# in `timeout S` (default 20; a hang is the timeout, not a tool's finding;
# each tool's output is kept in DIR/NAME.TOOL.txt), and runs the
# warpsim build of the same file (make -C warpsim corpus; model its) when
# it is there. Prints one line per kernel: expected verdict, warpsim's,
# each tool's, then per tool the bugs found (anything reported on a kernel
# that has a bug) and the false reports (anything reported on a clean one).
# A kernel whose expected verdict is hang or livelock counts as found by a
# tool only if the tool reported something before the timeout.
#
# Exit status: 0 when it ran, 2 for bad usage or a build that failed, 77
# when there is no nvcc, no compute-sanitizer or no GPU.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
out_dir=$here/../build/corpus-gpu
emu_dir=$here/../build/corpus
sm="" limit=20
names=()

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage; exit 0 ;;
    --sm) shift; sm=${1:-}
        [[ $sm =~ ^[1-9][0-9]{1,2}$ ]] || { echo "run-sanitizer.sh: --sm needs a compute capability like 90 (try --help)" >&2; exit 2; } ;;
    --timeout) shift; limit=${1:-}
        [[ $limit =~ ^[1-9][0-9]{0,3}$ ]] || { echo "run-sanitizer.sh: --timeout needs seconds from 1 to 9999 (try --help)" >&2; exit 2; } ;;
    -o) shift; out_dir=${1:-}
        [ -n "$out_dir" ] || { echo "run-sanitizer.sh: -o needs a directory (try --help)" >&2; exit 2; } ;;
    -*) echo "run-sanitizer.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) [ -f "$here/${1%.cu}.cu" ] || { echo "run-sanitizer.sh: no corpus kernel ${1%.cu}" >&2; exit 2; }
       names+=("${1%.cu}") ;;
    esac
    shift
done
if [ ${#names[@]} -eq 0 ]; then
    for f in "$here"/*.cu; do
        names+=("$(basename "$f" .cu)")
    done
fi

command -v nvcc >/dev/null || { echo "run-sanitizer.sh: skipped: no nvcc in PATH"; exit 77; }
command -v compute-sanitizer >/dev/null || { echo "run-sanitizer.sh: skipped: no compute-sanitizer in PATH"; exit 77; }
if [ -z "$sm" ]; then
    sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '.\r ')
    [ -n "$sm" ] || { echo "run-sanitizer.sh: skipped: no GPU (nvidia-smi found none)"; exit 77; }
fi
mkdir -p "$out_dir" || exit 2

# reported VERDICT: whether a verdict is a finding (not clean, not a timeout).
reported() {
    [ "$1" != clean ] && [ "$1" != timeout ] && [[ $1 != exit-* ]]
}

# Build everything first, as many at once as there are CPUs.
jobs=$(nproc 2>/dev/null || echo 4)
# shellcheck disable=SC2016
printf '%s\n' "${names[@]}" |
    xargs -P "$jobs" -I{} sh -c 'nvcc -O2 -lineinfo -arch="sm_$1" -o "$2/$3" "$4/$3.cu" 2>"$2/$3.build.txt" || echo "$3"' \
        sh "$sm" "$out_dir" {} "$here" >"$out_dir/build-failures.txt"
if [ -s "$out_dir/build-failures.txt" ]; then
    echo "run-sanitizer.sh: nvcc could not build: $(tr '\n' ' ' <"$out_dir/build-failures.txt")(see $out_dir/NAME.build.txt)" >&2
    exit 2
fi

tools=(racecheck synccheck memcheck)
declare -A found false_
bugs=0 cleans=0
for t in warpsim "${tools[@]}" any; do
    found[$t]=0
    false_[$t]=0
done
printf '%-32s %-10s %-16s %-12s %-12s %-14s\n' kernel expected warpsim racecheck synccheck memcheck
for n in "${names[@]}"; do
    src=$here/$n.cu
    want=$(corpus_expect "$src")
    w=-
    if [ -x "$emu_dir/$n" ]; then
        o=$(WARPSIM_MODEL=its timeout "$limit" "$emu_dir/$n" 2>&1)
        w=$(warpsim_verdict $? "$o")
    fi
    line=$(printf '%-32s %-10s %-16s' "$n" "$want" "$w")
    any=0
    for t in "${tools[@]}"; do          # the three tools at once
        case $t in
        racecheck) args=(--tool racecheck --racecheck-report all) ;;
        *) args=(--tool "$t") ;;
        esac
        { timeout "$limit" compute-sanitizer "${args[@]}" "$out_dir/$n" >"$out_dir/$n.$t.txt" 2>&1
          echo $? >"$out_dir/$n.$t.status"; } &
    done
    wait
    for t in "${tools[@]}"; do
        o=$(cat "$out_dir/$n.$t.txt")
        s=$(cat "$out_dir/$n.$t.status")
        v=$(sanitizer_verdict "$t" "$s" "$o")
        line="$line $(printf '%-12s' "$v")"
        if reported "$v"; then
            any=1
            if [ "$want" = clean ]; then
                false_[$t]=$((false_[$t] + 1))
            else
                found[$t]=$((found[$t] + 1))
            fi
        fi
    done
    if [ "$want" = clean ]; then
        cleans=$((cleans + 1))
        [ $any = 1 ] && false_[any]=$((false_[any] + 1))
        [ "$w" != - ] && [ "$w" != clean ] && false_[warpsim]=$((false_[warpsim] + 1))
    else
        bugs=$((bugs + 1))
        [ $any = 1 ] && found[any]=$((found[any] + 1))
        [ "$w" != - ] && reported "$w" && found[warpsim]=$((found[warpsim] + 1))
    fi
    echo "$line"
done
echo
echo "kernels: $bugs with a bug, $cleans clean (compute capability $sm, nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
for t in warpsim "${tools[@]}" any; do
    label=$t
    [ "$t" = any ] && label="racecheck+synccheck+memcheck"
    printf '%-30s found %3d of %d bugs, %d false reports on %d clean kernels\n' \
        "$label" "${found[$t]}" "$bugs" "${false_[$t]}" "$cleans"
done
