#!/usr/bin/env bash
# bench-all.sh LESSON_DIR...: the top-level `make bench`.
#
# With a GPU: runs each lesson's `make bench` in order, showing progress
# ("==== [2/6] 04-match-any: make bench"), then prints one block per lesson:
# its status (ok, FAILED, no benchmark, skipped) and the lines its benchmark
# printed starting with "summary:" (or, when it printed none, its last lines).
# Each lesson's benchmark writes its CSV and plots to docs/results/<gpu>/
# (scripts/gpu-slug.sh); checks come before timings inside each benchmark.
#
# Last, with or without a GPU, warpsim's throughput benchmark (`make -C
# warpsim bench`), when warpsim/Makefile has a bench rule; otherwise it says
# that it is not available. Without a GPU that is all it runs, and it says so.
#
# `make test` never runs this. Environment: BENCH_GPU=1 or 0 overrides the
# GPU detection (the tests use it); WARPSIM_DIR replaces warpsim/.
# Exit status: 0 every benchmark ran or was skipped, 1 one failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
make=${MAKE:-make}
ws=${WARPSIM_DIR:-$top/warpsim}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run_bench NAME DIR: `make bench` in DIR, output shown and kept in $log;
# sets RC.
run_bench() {
    "$make" --no-print-directory -C "$2" bench 2>&1 | tee "$log"
    RC=${PIPESTATUS[0]}
}

# summary_of: the summary lines of the last run, or, when it printed none,
# its last 8 non-empty lines.
summary_of() {
    if grep -q '^summary:' "$log"; then
        grep '^summary:' "$log" | sed 's/^summary: */    /'
    else
        grep -v '^[[:space:]]*$' "$log" | tail -n 8 | sed 's/^/    /'
    fi
}

if [ -n "${BENCH_GPU:-}" ]; then
    gpu=$BENCH_GPU
elif nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    gpu=1
else
    gpu=0
fi

# warpsim_bench: runs warpsim's throughput benchmark when it has one; sets
# WS_BLOCK (its status and summary for the final table) and WS_RC.
warpsim_bench() {
    WS_RC=0
    if [ -f "$ws/Makefile" ] && grep -qE '^bench[[:space:]]*:' "$ws/Makefile"; then
        printf '\n==== warpsim: make bench\n'
        run_bench warpsim "$ws"
        WS_RC=$RC
        if [ "$RC" -ne 0 ]; then
            WS_BLOCK="warpsim: FAILED (exit status $RC)"$'\n'"$(summary_of)"
        else
            WS_BLOCK="warpsim: ok"$'\n'"$(summary_of)"
        fi
    else
        WS_BLOCK="warpsim: its throughput benchmark is not available (no bench rule in ${ws#"$top"/}/Makefile)"
    fi
}

if [ "$gpu" != 1 ]; then
    echo "bench: no GPU found (nvidia-smi lists none): the lessons' benchmarks need one"
    echo "bench: running only what runs on the CPU: warpsim's throughput benchmark"
    warpsim_bench
    printf '\n==== make bench, without a GPU\n'
    printf '%s\n' "$WS_BLOCK"
    exit "$((WS_RC != 0))"
fi

total=$#
i=0
ok=0 none=0 skipped=0 failed=0
blocks=()
slug=$("$here/gpu-slug.sh" 2>/dev/null || true)
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
echo "bench: $total lessons on ${gpu_name:-a GPU nvidia-smi does not name}${slug:+; results in docs/results/$slug/}"
for dir in "$@"; do
    i=$((i + 1))
    name=$(basename "$dir")
    printf '\n==== [%d/%d] %s: make bench\n' "$i" "$total" "$name"
    SECONDS=0
    run_bench "$name" "$dir"
    took=$SECONDS
    if [ "$RC" -ne 0 ]; then
        status="FAILED (exit status $RC)"
        failed=$((failed + 1))
    elif grep -q 'no benchmark in this lesson' "$log"; then
        status="no benchmark"
        none=$((none + 1))
    elif grep -q '^skipped:' "$log"; then
        status="skipped ($(grep '^skipped:' "$log" | tail -n 1 | sed 's/^skipped: *//'))"
        skipped=$((skipped + 1))
    else
        status="ok (${took}s)"
        ok=$((ok + 1))
    fi
    if [ "$status" = "no benchmark" ]; then
        blocks+=("$name: no benchmark")
    else
        blocks+=("$name: $status"$'\n'"$(summary_of)")
    fi
done

warpsim_bench
[ "$WS_RC" -eq 0 ] || failed=$((failed + 1))

printf '\n==== make bench, lesson by lesson\n'
printf '%s\n' "${blocks[@]}" "$WS_BLOCK"
printf 'lessons: %d benchmarked, %d failed, %d skipped, %d without a benchmark\n' \
    "$ok" "$failed" "$skipped" "$none"
[ "$failed" -eq 0 ]
