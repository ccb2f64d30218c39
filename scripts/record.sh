#!/usr/bin/env bash
# record.sh OUTDIR LESSON_DIR...: runs each lesson's `make check` and writes
# its transcript to OUTDIR/NN-name.gpu.txt (or .warpsim.txt with EMU=1),
# headed with the GPU, driver, CUDA version, date and commit.
# These transcripts are what docs/results/ holds.
set -u
out=${1:?usage: record.sh OUTDIR LESSON_DIR...}
shift
here=$(cd "$(dirname "$0")" && pwd)
kind=gpu
[ "${EMU:-0}" = 1 ] && kind=warpsim
status=0
for dir in "$@"; do
    name=$(basename "$dir")
    "$here/transcript.sh" "$out/$name.$kind.txt" \
        make --no-print-directory -s -C "$dir" check || status=1
done
exit "$status"
