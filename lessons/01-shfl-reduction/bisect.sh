#!/usr/bin/env bash
# bisect.sh [--build-only | --run-only]: the optional exercise's bisection,
# as commands. Which file's kernels rely on the old scheduling? legacy.cu
# and harness.cu are built as two objects with one older toolkit (CUDA 11.8
# or 12.x, the last that build compute_60), each as compute_60 PTX
# (pre-Volta scheduling) and as compute_70 PTX (independent thread
# scheduling), and linked four ways:
#
#   build/bisect/all-60      both compute_60 (as make pascal's programs run
#                            on a GPU of 7.0 or newer)
#   build/bisect/legacy-60   legacy.cu compute_60, harness.cu compute_70
#   build/bisect/harness-60  legacy.cu compute_70, harness.cu compute_60
#   build/bisect/all-70      both compute_70
#
# then each runs the tree with odd lanes 200 ns late (-k tree -n 2M -j 200),
# judged by build/verify, after build/legacy (make: this toolkit's SASS for
# the GPU). One `result:` line each; the driver JIT-compiles the PTX for the
# GPU that runs it (compute capability 7.0 or newer). build/bisect/built.txt
# says which toolkit built the four and from which commit.
#
# --build-only   build the four, run nothing (no GPU needed)
# --run-only     run the four as already built (on a GPU machine without
#                CUDA 11.8 or 12.x: build them elsewhere with --build-only
#                and bring lessons/01-shfl-reduction/build/bisect/ along)
# A GPU run of it is recorded with docs/record.sh (see there).
# Environment: OLD_NVCC, the older toolkit's nvcc (default: nvcc in PATH if
# it is 11.x or 12.x, else /usr/lib/nvidia-cuda-toolkit/bin/nvcc, where
# scripts/get-cuda-11.8.sh installs CUDA 11.8, /usr/local/cuda-11.8 or a
# /usr/local/cuda-12.*); CCBIN, its host compiler (default clang++-14 for
# CUDA 11.8, which refuses gcc 12; none for 12.x); PRE and POST, the two
# compute capabilities (default 60 and 70).
# Exit status: 0 built (and run), 1 a run failed to give a result, 2 no
# suitable toolkit, a build failed or (--run-only) the four are not built,
# 77 no GPU to run on.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 2
build_only=no run_only=no
case "${1:-}" in
    --build-only) build_only=yes ;;
    --run-only) run_only=yes ;;
    -h|--help) sed -n '2,/^# 77 no GPU/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    "") ;;
    *) echo "bisect.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac
pre=${PRE:-60} post=${POST:-70}

progs=("build/bisect/all-$pre" "build/bisect/legacy-$pre" "build/bisect/harness-$pre" "build/bisect/all-$post")

# build: the four programs, with the older toolkit
build() {
    local old ver ccbin bin c
    release() { "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\),.*/\1.\2/p'; }
    old=${OLD_NVCC:-}
    if [ -z "$old" ]; then
        for c in "$(command -v nvcc 2>/dev/null)" /usr/lib/nvidia-cuda-toolkit/bin/nvcc \
                 /usr/local/cuda-11.8/bin/nvcc /usr/local/cuda-12.*/bin/nvcc; do
            if [ -z "$c" ] || [ ! -x "$c" ]; then continue; fi
            case "$(release "$c")" in 11.8|12.*) old=$c; break ;; esac
        done
    fi
    if [ -z "$old" ] || [ -z "$(release "$old")" ]; then
        echo "bisect.sh: no CUDA 11.8 or 12.x found (give OLD_NVCC=...; scripts/get-cuda-11.8.sh installs 11.8)" >&2
        exit 2
    fi
    ver=$(release "$old")
    ccbin=${CCBIN-}
    if [ -z "${CCBIN+set}" ] && [ "${ver%%.*}" = 11 ]; then ccbin=clang++-14; fi
    # the older toolkit's ptxas and nvlink before any newer one's (Debian
    # keeps CUDA 11.8's in /usr/bin): a newer nvlink refuses compute_60
    bin=$(dirname "$old")
    [ -x "$bin/ptxas" ] || bin=$bin:/usr/bin
    export PATH=$bin:$PATH

    local flags=(-O3 -I../../include ${ccbin:+-ccbin "$ccbin"} -Wno-deprecated-declarations)
    # as mk/toolkit.mk does: a newer toolkit's headers linked into
    # /usr/local/include, which the host compiler searches first, are left
    # out of the search
    local shadow dirs
    shadow=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\)$/\1/p' /usr/local/include/cuda_runtime_api.h 2>/dev/null)
    if [ -n "$shadow" ] && [ "$((shadow / 1000))" != "${ver%%.*}" ]; then
        dirs=$("${ccbin:-g++}" -E -v -x c++ /dev/null 2>&1 |
               sed -n '/^#include <...> search starts here/,/^End of search/p' |
               sed -n 's/^ \(\/.*\)$/\1/p' | grep -vx /usr/local/include | paste -sd, - | sed 's/,/,-isystem,/g')
        flags+=(-Xcompiler "-nostdinc,-isystem,$dirs")
    fi
    case "$ccbin" in *clang*) flags+=(-Xcompiler "-Wno-unused-function,-Wno-unused-command-line-argument") ;; esac
    local unit=(-DLESSON_UNIT "-DLESSON_SRC_NAME=\"legacy.cu\"")
    local harness=(-DLESSON_HARNESS)
    ptx() { echo "-gencode=arch=compute_$1,code=compute_$1"; }
    rm -rf build/bisect
    mkdir -p build/bisect
    echo "# toolkit: $old (CUDA $ver)${ccbin:+, host compiler $ccbin}"
    # run_cmd CMD...: CMD, shown first as a line one can paste
    run_cmd() {
        printf '$'; printf ' %q' "$@"; echo
        "$@" || { echo "bisect.sh: the build failed" >&2; exit 2; }
    }
    local cc
    for cc in "$pre" "$post"; do
        run_cmd "$old" "${flags[@]}" "${unit[@]}" "$(ptx "$cc")" -x cu -c legacy.cu -o "build/bisect/legacy-$cc.o"
        run_cmd "$old" "${flags[@]}" "${harness[@]}" "$(ptx "$cc")" -x cu -c harness.cu -o "build/bisect/harness-$cc.o"
    done
    run_cmd "$old" "${flags[@]}" "build/bisect/legacy-$pre.o" "build/bisect/harness-$pre.o" -o "build/bisect/all-$pre"
    run_cmd "$old" "${flags[@]}" "build/bisect/legacy-$pre.o" "build/bisect/harness-$post.o" -o "build/bisect/legacy-$pre"
    run_cmd "$old" "${flags[@]}" "build/bisect/legacy-$post.o" "build/bisect/harness-$pre.o" -o "build/bisect/harness-$pre"
    run_cmd "$old" "${flags[@]}" "build/bisect/legacy-$post.o" "build/bisect/harness-$post.o" -o "build/bisect/all-$post"
    local commit
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    [ -z "$(git status --porcelain --untracked-files=no -- . ../../include 2>/dev/null)" ] ||
        commit="$commit, with uncommitted changes"
    printf 'built by %s (CUDA %s)%s on %s, from commit %s\n' "$old" "$ver" \
        "${ccbin:+, host compiler $ccbin}" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$commit" >build/bisect/built.txt
}

if [ "$run_only" = yes ]; then
    for prog in "${progs[@]}"; do
        [ -x "$prog" ] || { echo "bisect.sh: $prog is not built (bisect.sh --build-only, where CUDA 11.8 or 12.x is)" >&2; exit 2; }
    done
    echo "# $(cat build/bisect/built.txt 2>/dev/null || echo 'built.txt missing: toolkit unknown')"
else
    build
    echo "# $(cat build/bisect/built.txt)"
fi
[ "$build_only" = yes ] && exit 0

nvidia-smi -L >/dev/null 2>&1 || { echo "bisect.sh: no GPU found (--build-only builds without one)"; exit 77; }
make -s build/legacy build/verify || exit 2
status=0
for prog in build/legacy "${progs[@]}"; do
    if [ ! -x "$prog" ]; then
        echo "$prog: not built (make)"
        continue
    fi
    line=$(build/verify "$prog" -k tree -n 2M -j 200 2>&1 | grep '^result:') || status=1
    printf '%-26s %s\n' "$prog:" "${line:-no result line}"
done
exit "$status"
