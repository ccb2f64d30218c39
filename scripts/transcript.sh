#!/usr/bin/env bash
# transcript.sh FILE CMD...: runs CMD and writes what it printed to FILE (and
# to stdout), under a header that says where and when it ran: GPU, driver,
# compute capability, CUDA and compute-sanitizer versions, date and commit.
# The exit status is CMD's. COMMIT overrides `git rev-parse` (for copies of
# the tree without .git).
set -u
file=${1:?usage: transcript.sh FILE CMD...}
shift
[ $# -gt 0 ] || { echo "usage: transcript.sh FILE CMD..." >&2; exit 2; }

gpu=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | head -n 1)
nvcc_v=$(nvcc --version 2>/dev/null | sed -n 's/^Cuda compilation tools, //p')
san=$(compute-sanitizer --version 2>/dev/null | sed -n 's/^Version //p' | head -n 1)
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}

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
    echo "# host: $(uname -sm), $(nproc) CPUs"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# commit: $commit"
    echo
} >"$file"
"$@" 2>&1 | tee -a "$file"
rc=${PIPESTATUS[0]}
printf '\n# exit status: %d\n' "$rc" >>"$file"
exit "$rc"
