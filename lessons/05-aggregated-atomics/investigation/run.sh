#!/usr/bin/env bash
# run.sh: builds repro.cu several ways and runs each with and without the
# delays; prints the SASS of the increment. GPU only; about a minute.
# Usage: run.sh [OUTDIR]   (builds go to OUTDIR, default build/)
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/build}
mkdir -p "$out"
nvidia-smi -L >/dev/null 2>&1 || { echo "run.sh: no GPU found"; exit 77; }
echo "# GPU: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader)"
echo "# nvcc: $(nvcc --version | tail -n 2 | head -n 1)"
builds=(
  "sm90-O3|-O3 -gencode arch=compute_90,code=sm_90"
  "sm90-O3-noinline|-O3 -DNAP_NOINLINE -gencode arch=compute_90,code=sm_90"
  "sm90-ptxas-O0|-O3 -Xptxas -O0 -gencode arch=compute_90,code=sm_90"
  "sm90-G|-G -gencode arch=compute_90,code=sm_90"
  "ptx80-jit|-O3 -gencode arch=compute_80,code=compute_80"
)
for b in "${builds[@]}"; do
    name=${b%%|*} flags=${b#*|}
    # shellcheck disable=SC2086
    nvcc $flags "$here/repro.cu" -o "$out/repro-$name" || { echo "build $name failed"; exit 2; }
done
for b in "${builds[@]}"; do
    name=${b%%|*}
    for k in 100 50; do
        for d in "0 0" "200 0" "0 200" "200 200"; do
            read -r j l <<<"$d"
            printf '%-17s keep %3s%%, late lanes %3s ns, leader %3s ns: ' "$name" "$k" "$j" "$l"
            timeout 60 "$out/repro-$name" -n 1048576 -r 5 -k "$k" -j "$j" -l "$l" | tail -n 1
        done
    done
done
echo
echo "# in detail: sm90-O3, keep 50%, -j 200 -l 200:"
timeout 60 "$out/repro-sm90-O3" -n 1048576 -r 2 -k 50 -j 200 -l 200 | head -n 12
echo
echo "# the same count stored and read back through memory before the atomicAdd (-w 1):"
for name in sm90-O3 ptx80-jit; do
    printf '%-17s keep  50%%, late lanes 200 ns, leader 200 ns, -w 1: ' "$name"
    timeout 60 "$out/repro-$name" -n 1048576 -r 5 -k 50 -j 200 -l 200 -w 1 | tail -n 1
done
echo
for name in sm90-O3; do
    echo "# SASS of take() ($name), from cuobjdump -sass:"
    cuobjdump -sass "$out/repro-$name" | grep -E '^\s+/\*[0-9a-f]{4}\*/' \
        | sed -E 's@^\s+/\*([0-9a-f]{4})\*/\s*@\1  @; s@\s*/\*.*@@; s@ +;@;@' | head -n 140
done
