#!/usr/bin/env bash
# gpu-batch.sh OUTDIR STEP [LESSON_DIR...]: the GPU work of a release in
# batches that each fit a ten-minute slot on a borrowed GPU machine. Every
# step writes transcripts (scripts/transcript.sh: GPU, driver, CUDA, date,
# commit, wall time) into OUTDIR and prints a one-line summary per lesson.
#
# Steps:
#   build    every lesson's programs for this GPU, in parallel (make -j)
#   check    every lesson's make check        -> NN-name.gpu.txt
#   wrong    every lesson's make check-wrong  -> NN-name.wrong.gpu.txt; the
#            lessons run side by side, JOBS (default 2) fixes at a time in
#            each (their wrong fixes are judged by what they compute and what
#            warpsim reports, not by timing)
#   pascal   make check PASCAL=1 on the compute_60 programs already in
#            lessons/*/build/pascal/          -> NN-name.compute_60.txt
#   corpus   warpsim's corpus under compute-sanitizer -> warpsim-corpus.gpu.txt
#   bench    the benchmark of each lesson given (make bench)
# With no LESSON_DIR, every lesson. Exit status: 0 when every step's
# commands succeeded, 1 otherwise, 2 on bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${1:-}
step=${2:-}
case "$step" in
    build|check|wrong|pascal|corpus|bench) ;;
    *) echo "usage: gpu-batch.sh OUTDIR build|check|wrong|pascal|corpus|bench [LESSON_DIR...]" >&2
       exit 2 ;;
esac
shift 2
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
cd "$root" || exit 2
lessons=("$@")
[ ${#lessons[@]} -gt 0 ] || lessons=(lessons/[0-9][0-9]-*/)
jobs=$(nproc)
status=0

summary() {   # summary FILE: the lesson's last "N passed, N failed" and wall time
    printf '%-26s %s; %s\n' "$(basename "$1" .txt)" \
        "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)" \
        "$(sed -n 's/^# exit status: //p' "$1" | tail -n 1)"
}

case "$step" in
build)
    start=$(date +%s)
    printf '%s\n' "${lessons[@]}" | xargs -P "$jobs" -I{} \
        make --no-print-directory -s -C {} all build/verify >/dev/null || status=1
    echo "built ${#lessons[@]} lessons in $(( $(date +%s) - start )) s"
    ;;
wrong)
    export here
    # shellcheck disable=SC2016   # the inner sh expands them
    printf '%s\n' "${lessons[@]}" | xargs -P "${#lessons[@]}" -I{} sh -c \
        'd=$(echo "$1" | sed "s,/*$,,"); "$here/transcript.sh" "$2/$(basename "$d").wrong.gpu.txt" \
             make --no-print-directory -s -C "$d" check-wrong JOBS="$3" >/dev/null' _ {} "$out" "${JOBS:-2}" || status=1
    for d in "${lessons[@]}"; do
        d=${d%/}
        summary "$out/$(basename "$d").wrong.gpu.txt"
    done
    ;;
check|pascal)
    for d in "${lessons[@]}"; do
        d=${d%/}; name=$(basename "$d")
        case "$step" in
            check)  f=$out/$name.gpu.txt;        args=(check) ;;
            pascal) f=$out/$name.compute_60.txt; args=(check PASCAL=1) ;;
        esac
        if [ "$step" = pascal ]; then
            BUILT="$d/build/pascal/sync" "$here/transcript.sh" "$f" \
                make --no-print-directory -s -C "$d" "${args[@]}" >/dev/null || status=1
        else
            "$here/transcript.sh" "$f" make --no-print-directory -s -C "$d" "${args[@]}" \
                >/dev/null || status=1
        fi
        summary "$f"
    done
    ;;
corpus)
    make --no-print-directory -s -C warpsim corpus >/dev/null || status=1
    "$here/transcript.sh" "$out/warpsim-corpus.gpu.txt" \
        warpsim/corpus/run-sanitizer.sh --timeout 15 >/dev/null || status=1
    tail -n 12 "$out/warpsim-corpus.gpu.txt"
    ;;
bench)
    for d in "${lessons[@]}"; do
        d=${d%/}; name=$(basename "$d")
        "$here/transcript.sh" "$out/$name.bench.txt" \
            make --no-print-directory -s -C "$d" bench >/dev/null || status=1
        tail -n 8 "$out/$name.bench.txt"
    done
    ;;
esac
exit "$status"
