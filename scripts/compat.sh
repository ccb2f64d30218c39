#!/usr/bin/env bash
# compat.sh LESSON_DIR...: the compatibility matrix (`make compat`).
#
# Builds every lesson twice, each into its own folder, and reads back what
# each program holds:
#   CUDA 11.8  sm_60 SASS + compute_60 PTX  build/compat-cuda11.8/  (the
#              programs make pascal builds: compute capability 7.0 ones
#              such as the benchmarks are left out)
#   CUDA 13    every major architecture      build/compat-cuda13/    (every
#              program)
# and prints one line per lesson and toolkit; the whole report also goes to
# docs/results/compat.txt (OUT=file to write elsewhere). Exit status 0 when
# every build succeeded with no warning and holds the code asked for, 1
# otherwise (a warning fails the build's line, but for ptxas's on the
# legacy code's pre-Volta shfl and vote, which are counted), 2 when a
# toolkit is missing.
#
# CUDA11=/path/to/nvcc and CUDA13=/path/to/nvcc choose the toolkits
# (default: Debian's CUDA 11.8, from scripts/get-cuda-11.8.sh, and nvcc in
# PATH). JOBS=N builds N programs at a time (default: the number of CPUs).
set -u
[ $# -gt 0 ] || { echo "usage: compat.sh LESSON_DIR..." >&2; exit 2; }
case "$1" in -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac

top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/docs/results/compat.txt}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
cuda11=${CUDA11:-}
if [ -z "$cuda11" ]; then
    for c in /usr/lib/nvidia-cuda-toolkit/bin/nvcc /usr/local/cuda-11.8/bin/nvcc; do
        [ -x "$c" ] && { cuda11=$c; break; }
    done
fi
cuda13=${CUDA13:-$(command -v nvcc || true)}

version_of() { "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9]*\.[0-9]*\),.*/\1/p'; }
v11=$([ -n "$cuda11" ] && version_of "$cuda11")
v13=$([ -n "$cuda13" ] && version_of "$cuda13")
if [ "$v11" != 11.8 ]; then
    echo "compat.sh: CUDA 11.8 not found${cuda11:+ ($cuda11 is ${v11:-not a CUDA nvcc})}; scripts/get-cuda-11.8.sh installs it (1.6 GB), or CUDA11=/path/to/nvcc" >&2
    exit 2
fi
case "$v13" in
    13.*) ;;
    *) echo "compat.sh: CUDA 13 not found (nvcc in PATH is ${v13:-missing}); give CUDA13=/path/to/nvcc" >&2; exit 2 ;;
esac

# The cuobjdump that reads a toolkit's programs: its own (Debian's CUDA 11.8
# keeps it in /usr/bin), else CUOBJDUMP13 for CUDA 13 (some installs lack it:
# `pip install nvidia-cuda-cuobjdump` brings NVIDIA's), else none.
cuobjdump_of() {
    local dir
    dir=$(dirname "$1")
    if [ -x "$dir/cuobjdump" ]; then echo "$dir/cuobjdump"
    elif [ "$dir" = /usr/lib/nvidia-cuda-toolkit/bin ] && [ -x /usr/bin/cuobjdump ]; then echo /usr/bin/cuobjdump
    elif [ "$2" = 13 ] && [ -n "${CUOBJDUMP13:-}" ]; then echo "$CUOBJDUMP13"
    fi
}

# holds CUOBJDUMP PROGRAM: "sm_60 + PTX compute_60" from the program itself.
holds() {
    local elf ptx
    elf=$("$1" --list-elf "$2" 2>/dev/null | grep -oE 'sm_[0-9]+a?' | sort -u -V | paste -sd' ' -)
    ptx=$("$1" --list-ptx "$2" 2>/dev/null | grep -oE 'sm_[0-9]+a?' | sort -u -V | sed 's/sm_/compute_/' | paste -sd' ' -)
    printf 'SASS %s; PTX %s' "${elf:-none}" "${ptx:-none}"
}

status=0
lines=()
# The one warning a build may print: ptxas deprecating the pre-Volta shfl
# and vote instructions without .sync, which legacy.cu uses on purpose
# where it is built for compute capability 6.0 (its LEGACY_* forms).
legacy_warning="_legacy\.ptx, line [0-9]*; warning : Instruction '\(shfl\|vote\)' without '.sync' is deprecated"
# build NAME NVCC VERSION LABEL BUILD_DIR WANT_ELF WANT_PTX MAKE_ARGS...
build() {
    local dir=$1 nvcc=$2 version=$3 label=$4 bdir=$5 want_elf=$6 want_ptx=$7
    shift 7
    local name start secs log progs=() p got bad='' dump first=
    name=$(basename "$dir")
    log=$(mktemp)
    start=$(date +%s)
    rm -rf "${dir:?}/$bdir"
    if make --no-print-directory -s -C "$dir" -j "$jobs" all NVCC="$nvcc" BUILD="$bdir" "$@" >"$log" 2>&1; then
        secs=$(( $(date +%s) - start ))
        dump=$(cuobjdump_of "$nvcc" "${version%%.*}")
        for p in "$dir/$bdir"/*; do
            if [ ! -f "$p" ] || [ ! -x "$p" ]; then continue; fi
            progs+=("$(basename "$p")")
            [ -n "$dump" ] || continue
            got=$(holds "$dump" "$p")
            [ -n "$first" ] || first="$(basename "$p"): $got"
            case "$got" in
                *"SASS "*"$want_elf"*"; PTX "*"$want_ptx"*) ;;
                *) bad="$bad $(basename "$p") ($got)" ;;
            esac
        done
        if [ ${#progs[@]} -eq 0 ]; then
            lines+=("$(printf '%-22s CUDA %-5s %-26s FAILED: nothing built' "$name" "$version" "$label")")
            status=1
        elif grep -i 'warning' "$log" | grep -qv "$legacy_warning"; then
            lines+=("$(printf '%-22s CUDA %-5s %-26s FAILED: %s' "$name" "$version" "$label" \
                "$(grep -i 'warning' "$log" | grep -v "$legacy_warning" | head -n 1)")")
            status=1
        elif [ -n "$bad" ]; then
            lines+=("$(printf '%-22s CUDA %-5s %-26s FAILED: wrong code in%s' "$name" "$version" "$label" "$bad")")
            status=1
        else
            lines+=("$(printf '%-22s CUDA %-5s %-26s ok  %3ds  %s  [%s]%s' "$name" "$version" "$label" "$secs" "${progs[*]}" \
                "${first:-code not inspected: no cuobjdump for CUDA $version}" \
                "$(n=$(grep -c "$legacy_warning" "$log"); [ "$n" -eq 0 ] ||
                   printf ' (ptxas: %d warning%s of shfl/vote without .sync, the legacy code the lesson shows)' \
                       "$n" "$([ "$n" -eq 1 ] || echo s)")")")
        fi
    else
        lines+=("$(printf '%-22s CUDA %-5s %-26s FAILED: %s' "$name" "$version" "$label" "$(grep -m 1 -iE 'error|\*\*\*' "$log")")")
        status=1
    fi
    printf '%s\n' "${lines[-1]}"
    rm -f "$log"
}

echo "# make compat: every lesson built with each toolkit, and what each program holds"
for dir in "$@"; do
    build "$dir" "$cuda11" "$v11" "sm_60 + compute_60 PTX" build/compat-cuda11.8 sm_60 compute_60 \
        PASCAL=1 GENCODE="-gencode arch=compute_60,code=sm_60 -gencode arch=compute_60,code=compute_60"
    build "$dir" "$cuda13" "$v13" "every major architecture" build/compat-cuda13 sm_90 "" \
        GENCODE=-arch=all-major
done

{
    echo "# make compat: every lesson built with each toolkit, and what each program holds"
    echo "# CUDA 11.8: $("$cuda11" --version | sed -n 's/^Cuda compilation tools, //p') ($cuda11, host compiler clang++-14)"
    echo "# CUDA 13:   $("$cuda13" --version | sed -n 's/^Cuda compilation tools, //p') ($cuda13)"
    echo "# cuobjdump: $(cuobjdump_of "$cuda11" 11) for CUDA 11.8; $(cuobjdump_of "$cuda13" 13 | sed 's|.*/site-packages/|PyPI nvidia-cuda-cuobjdump: |;s|^/tmp/[^/]*/|PyPI nvidia-cuda-cuobjdump: |')${CUOBJDUMP13:+ ($("$CUOBJDUMP13" --version | sed -n 's/^Cuda compilation tools, //p'))} for CUDA 13"
    echo "# host: $(uname -sm), $(nproc) CPUs; gcc $(gcc -dumpfullversion 2>/dev/null)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# commit: ${COMMIT:-$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "# CUDA 11.8 builds the programs make pascal builds, as sm_60 SASS and compute_60 PTX;"
    echo "# CUDA 13 builds every program for every major architecture (-arch=all-major)."
    echo "# Each line: lesson, toolkit, target, ok (built with no warning) and build"
    echo "# time, the programs, each checked with the toolkit's cuobjdump to hold the"
    echo "# SASS and PTX asked for."
    echo
    printf '%s\n' "${lines[@]}"
    echo
    echo "# $( [ "$status" = 0 ] && echo "all ${#lines[@]} builds ok" || echo "some builds FAILED")"
} >"$out"
echo "compat: ${#lines[@]} builds, record in ${out#"$top"/}"
exit "$status"
