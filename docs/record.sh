#!/usr/bin/env bash
# docs/record.sh OUTDIR WHAT...: records, on a GPU machine, the transcripts
# of docs/results/ that a command of their own makes (those of make check
# and make pascal are scripts/record.sh's, the benchmarks make bench's),
# each under scripts/transcript.sh's header: GPU, driver, CUDA and
# compute-sanitizer versions, host, date and commit.
#
#   bisect      OUTDIR/01-shfl-reduction.bisect.gpu.txt: lesson 01's
#               bisect.sh --run-only, the four programs built beforehand
#               where CUDA 11.8 or 12.x is (bisect.sh --build-only; the
#               header's programs: line says which toolkit built them)
#   activemask  OUTDIR/05-activemask-experiment.txt: lesson 05's
#               experiment-activemask.sh (about a minute)
#
# Each is then copied into docs/results/ under the same name and committed.
# COMMIT=HASH names the commit where the checkout has no .git (a copy of
# the tree). Exit status: 0 every transcript written and its command
# succeeded, 1 a command failed (its transcript is written all the same,
# with the exit status), 2 bad usage or no commit to name, 77 no GPU.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: docs/record.sh OUTDIR bisect|activemask..." >&2; exit 2; }
case "${1:-}" in -h|--help) sed -n '2,/^# with the exit status/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
[ $# -ge 2 ] || usage
out=$1; shift
for what in "$@"; do
    case "$what" in bisect|activemask) ;; *) echo "docs/record.sh: unknown record '$what' (bisect, activemask)" >&2; exit 2 ;; esac
done
if [ -z "${COMMIT:-}" ] && ! git -C "$top" rev-parse --short HEAD >/dev/null 2>&1; then
    echo "docs/record.sh: no .git here: give COMMIT=HASH, the commit this tree is" >&2
    exit 2
fi
nvidia-smi -L >/dev/null 2>&1 || { echo "docs/record.sh: no GPU found: these are GPU runs"; exit 77; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
cd "$top" || exit 2
status=0
for what in "$@"; do
    case "$what" in
        bisect)
            f=$out/01-shfl-reduction.bisect.gpu.txt
            BUILT=lessons/01-shfl-reduction/build/bisect/all-60 \
                scripts/transcript.sh "$f" lessons/01-shfl-reduction/bisect.sh --run-only || status=1 ;;
        activemask)
            f=$out/05-activemask-experiment.txt
            scripts/transcript.sh "$f" lessons/05-aggregated-atomics/experiment-activemask.sh || status=1 ;;
    esac
    echo "docs/record.sh: wrote $f (commit it as docs/results/$(basename "$f"))"
done
exit "$status"
