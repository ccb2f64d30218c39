#!/usr/bin/env bash
# bisect.sh [--build-only]: the optional exercise's bisection, as commands.
# Which file's kernels rely on the old scheduling? legacy.cu and harness.cu
# are built as two objects with one older toolkit (CUDA 11.8 or 12.x, the
# last that build compute_60), one of them as compute_60 PTX (pre-Volta
# scheduling), the other as compute_70 PTX (independent thread
# scheduling), and linked, both ways round:
#
#   build/bisect/legacy-60   legacy.cu compute_60, harness.cu compute_70
#   build/bisect/harness-60  legacy.cu compute_70, harness.cu compute_60
#
# then each runs the tree with odd lanes 200 ns late (-k tree -n 2M -j 200),
# judged by build/verify, beside build/legacy (make) and build/pascal/legacy
# (make pascal) where they are built. One `result:` line each; the driver
# JIT-compiles the PTX for the GPU that runs it (compute capability 7.0 or
# newer). A GPU run of it is recorded with
#   scripts/transcript.sh docs/results/01-shfl-reduction.bisect.gpu.txt \
#       lessons/01-shfl-reduction/bisect.sh
#
# --build-only   build, run nothing (no GPU needed)
# Environment: OLD_NVCC, the older toolkit's nvcc (default: nvcc in PATH if
# it is 11.x or 12.x, else /usr/lib/nvidia-cuda-toolkit/bin/nvcc, where
# scripts/get-cuda-11.8.sh installs CUDA 11.8, /usr/local/cuda-11.8 or a
# /usr/local/cuda-12.*); CCBIN, its host compiler (default clang++-14 for
# CUDA 11.8, which refuses gcc 12; none for 12.x); PRE and POST, the two
# compute capabilities (default 60 and 70).
# Exit status: 0 built (and run), 1 a run failed to give a result, 2 no
# suitable toolkit or a build failed, 77 no GPU to run on.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 2
build_only=no
case "${1:-}" in
    --build-only) build_only=yes ;;
    -h|--help) sed -n '2,/^# Exit status/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    "") ;;
    *) echo "bisect.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac
pre=${PRE:-60} post=${POST:-70}

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
# the older toolkit's ptxas and nvlink before any newer one's (Debian keeps
# CUDA 11.8's in /usr/bin): a newer nvlink refuses compute_60
bin=$(dirname "$old")
[ -x "$bin/ptxas" ] || bin=$bin:/usr/bin
export PATH=$bin:$PATH

flags=(-O3 -I../../include ${ccbin:+-ccbin "$ccbin"})
unit=(-DLESSON_UNIT "-DLESSON_SRC_NAME=\"legacy.cu\"")
harness=(-DLESSON_HARNESS)
ptx() { echo "-gencode=arch=compute_$1,code=compute_$1"; }
mkdir -p build/bisect
echo "# toolkit: $old (CUDA $ver)${ccbin:+, host compiler $ccbin}"
# run_cmd CMD...: CMD, shown first as a line one can paste
run_cmd() {
    printf '$'; printf ' %q' "$@"; echo
    "$@" || { echo "bisect.sh: the build failed" >&2; exit 2; }
}
run_cmd "$old" "${flags[@]}" "${unit[@]}" "$(ptx "$pre")" -x cu -c legacy.cu -o "build/bisect/legacy-$pre.o"
run_cmd "$old" "${flags[@]}" "${unit[@]}" "$(ptx "$post")" -x cu -c legacy.cu -o "build/bisect/legacy-$post.o"
run_cmd "$old" "${flags[@]}" "${harness[@]}" "$(ptx "$pre")" -x cu -c harness.cu -o "build/bisect/harness-$pre.o"
run_cmd "$old" "${flags[@]}" "${harness[@]}" "$(ptx "$post")" -x cu -c harness.cu -o "build/bisect/harness-$post.o"
run_cmd "$old" "${flags[@]}" "build/bisect/legacy-$pre.o" "build/bisect/harness-$post.o" -o "build/bisect/legacy-$pre"
run_cmd "$old" "${flags[@]}" "build/bisect/legacy-$post.o" "build/bisect/harness-$pre.o" -o "build/bisect/harness-$pre"
[ "$build_only" = yes ] && exit 0

nvidia-smi -L >/dev/null 2>&1 || { echo "bisect.sh: no GPU found (--build-only builds without one)"; exit 77; }
make -s build/verify || exit 2
status=0
for prog in build/legacy build/pascal/legacy "build/bisect/legacy-$pre" "build/bisect/harness-$pre"; do
    if [ ! -x "$prog" ]; then
        echo "$prog: not built (make, make pascal)"
        continue
    fi
    line=$(build/verify "$prog" -k tree -n 2M -j 200 2>&1 | grep '^result:') || status=1
    printf '%-26s %s\n' "$prog:" "${line:-no result line}"
done
exit "$status"
