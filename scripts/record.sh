#!/usr/bin/env bash
# record.sh OUTDIR LESSON_DIR...: runs each lesson's `make check` and writes
# its transcript to OUTDIR/NN-name.gpu.txt (.warpsim.txt with EMU=1;
# .compute_60.txt with PASCAL=1, make pascal's programs in build/pascal/),
# headed with the GPU, driver, CUDA version, date and commit.
# These transcripts are what docs/results/ holds.
set -u
out=${1:?usage: record.sh OUTDIR LESSON_DIR...}
shift
here=$(cd "$(dirname "$0")" && pwd)
kind=gpu
[ "${EMU:-0}" = 1 ] && kind=warpsim
[ "${PASCAL:-0}" = 1 ] && kind=compute_60
status=0
for dir in "$@"; do
    dir=${dir%/}
    name=$(basename "$dir")
    if [ "$kind" = compute_60 ]; then
        BUILT="$dir/build/pascal/sync" "$here/transcript.sh" "$out/$name.$kind.txt" \
            make --no-print-directory -s -C "$dir" check PASCAL=1 || status=1
    else
        "$here/transcript.sh" "$out/$name.$kind.txt" \
            make --no-print-directory -s -C "$dir" check || status=1
    fi
done
exit "$status"
