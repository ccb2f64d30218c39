#!/usr/bin/env bash
# transcript.sh FILE CMD...: runs CMD and writes what it printed to FILE (and
# to stdout), under a header that says where and when it ran: GPU, driver,
# compute capability, CUDA and compute-sanitizer versions, date and commit.
# The exit status is CMD's. COMMIT overrides `git rev-parse` (for copies of
# the tree without .git). BUILT=PROGRAM adds a line saying which toolkit
# built PROGRAM and for which architectures (from cuobjdump), for programs
# built elsewhere, like make pascal's compute_60 PTX.
set -u
file=${1:?usage: transcript.sh FILE CMD...}
shift
[ $# -gt 0 ] || { echo "usage: transcript.sh FILE CMD..." >&2; exit 2; }

gpu=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | head -n 1)
nvcc_v=$(nvcc --version 2>/dev/null | sed -n 's/^Cuda compilation tools, //p')
san=$(compute-sanitizer --version 2>/dev/null | sed -n 's/^Version //p' | head -n 1)
# A tree that differs from its commit says so: the commit alone would not
# name the code that ran. The records in docs/results/ are not code: one
# transcript just written must not mark the next one of the same batch.
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
if [ -z "${COMMIT:-}" ] && [ -n "$(git status --porcelain --untracked-files=no -- . ':!docs/results' 2>/dev/null)" ]; then
    commit="$commit, with uncommitted changes"
fi

# built_with PROGRAM: "PTX ISA 7.8 (CUDA 11.8) for compute_60, no SASS" and
# the like, read from the program's embedded device code.
built_with() {
    local ptx elf isa target
    ptx=$(cuobjdump --dump-ptx "$1" 2>/dev/null)
    elf=$(cuobjdump --list-elf "$1" 2>/dev/null | sed -n 's/.*\.\(sm_[0-9a-z]*\)\.cubin$/\1/p' | sort -u | paste -sd, -)
    isa=$(printf '%s\n' "$ptx" | sed -n 's/^\.version //p' | head -n 1)
    target=$(printf '%s\n' "$ptx" | sed -n 's/^\.target //p' | head -n 1)
    printf '%s: %s%s' "$1" \
        "${isa:+PTX ISA $isa for ${target:-?}$(ptx_cuda "$isa")}" \
        "${elf:+, SASS for $elf}${elf:-, no SASS: the driver JIT-compiles the PTX}"
}

# ptx_cuda ISA: the CUDA release that writes PTX ISA ISA (7.8 -> CUDA 11.8).
ptx_cuda() {
    case "$1" in
        7.*) printf ' (CUDA 11.%s)' "${1#7.}" ;;
        8.*) printf ' (CUDA 12.%s)' "${1#8.}" ;;
        9.*) printf ' (CUDA 13.%s)' "${1#9.}" ;;
    esac
}

mkdir -p "$(dirname "$file")"
{
    echo "# \$ $*"
    if [ -n "$gpu" ]; then
        IFS=, read -r name driver cc <<<"$gpu"
        echo "# GPU: ${name# }, driver ${driver# }, compute capability ${cc# }"
    else
        echo "# GPU: none (CPU only)"
    fi
    echo "# CUDA: ${nvcc_v:-nvcc not found}; compute-sanitizer: ${san:-not found}"
    if [ -n "${BUILT:-}" ]; then
        echo "# programs: $(built_with "$BUILT")"
    fi
    echo "# host: $(uname -sm), $(nproc) CPUs"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# commit: $commit"
    echo
} >"$file"
start=$(date +%s)
"$@" 2>&1 | tee -a "$file"
rc=${PIPESTATUS[0]}
printf '\n# exit status: %d; wall time: %d s\n' "$rc" "$(( $(date +%s) - start ))" >>"$file"
exit "$rc"
