#!/usr/bin/env bash
# bench.sh - lesson 06's benchmark (run it with `make bench`).
#
# Runs build/bench (every reduction of sync.cu and cg.cu against
# cub::DeviceReduce::Sum, sizes 2^24 to 2^30; build/bench --help), then
# writes, in docs/results/<gpu>/ (scripts/gpu-slug.sh names the folder):
#   06-block-reduce.csv        the results, one row per method and size
#   06-block-reduce.sweep.csv  the launch-setting sweep at 2^28 (and the wide
#                              sweep's confirmation rounds: BENCH_ARGS="-t 2")
#   06-block-reduce.png        GB/s against n, every method and CUB (gnuplot)
#   06-block-reduce.txt        the table below, headed with GPU, driver, CUDA,
#                              date and commit
# and prints the table. Its last lines start with "summary:" (what
# scripts/bench-all.sh collects): per size, the fastest of the lesson's
# kernels against CUB and the datasheet, then the issue's two goals.
#
# Environment: BENCH_ARGS passes options to build/bench (BENCH_ARGS="-n 256M
# -l 2" for a quick run); BENCH_OUT=dir writes there instead. Exit status:
# 0 done (or skipped: no GPU), 1 a check failed or a tool is missing.
#
# bench.sh --report CSV [PNG] redoes the table, the summary and the plot from
# an existing CSV (no GPU needed): the results file, or build/bench's whole
# output (sweep rows included).
#
# Columns 16 and 17 of build/bench's CSV (load kind, -T timing) are shown
# where present; files written before they existed have 15.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lesson=06-block-reduce

# table CSV: the results as an aligned table (with the load kind and the
# timing, -T, where the CSV has them).
table() {
    awk -F, '
        function pow2(n,   k) { k = 0; while (n > 1 && n % 2 == 0) { n /= 2; k++ } return n == 1 ? "2^" k : n }
        function d(v) { return v == "" ? "-" : v }
        NR == 1 { wide = NF >= 17; next }
        $1 == "result" {
            if ($3 != last && last != "") print ""
            last = $3
            printf "%-6s %-19s %-14s %7s %7s %6s", pow2($3), $5, $6, d($7), d($8), d($9)
            if (wide) printf " %-8s %2s", d($16), d($17)
            printf " %9s %8s %7s %7s %s\n", d($10), d($11), d($12), d($13), $14
        }' "$1" | { if [ "$(head -n 1 "$1" | awk -F, '{ print NF }')" -ge 17 ]; then
                        printf '%-6s %-19s %-14s %7s %7s %6s %-8s %2s %9s %8s %7s %7s %s\n' \
                            n method setting threads blocks unroll load T ms GB/s '%peak' xCUB check
                    else
                        printf '%-6s %-19s %-14s %7s %7s %6s %9s %8s %7s %7s %s\n' \
                            n method setting threads blocks unroll ms GB/s '%peak' xCUB check
                    fi; cat; }
}

# summary CSV: per size, the fastest correct lesson kernel against CUB and
# the datasheet; then the issue's goals (ratio >= 1.00 at 2^28 and above,
# >= 93% of the datasheet at 2^28).
summary() {
    awk -F, '
        function pow2(n,   k) { k = 0; while (n > 1 && n % 2 == 0) { n /= 2; k++ } return n == 1 ? "2^" k : n }
        NR == 1 || $1 != "result" { next }
        !($3 in seen) { seen[$3] = 1; order[++nsizes] = $3 }
        $5 == "cub" && $6 == "library" { cub[$3] = $11 }
        $15 != "" { peak = $15 }
        $5 == "cub" && $6 == "library-again" { cub2[$3] = $11 }
        $17 != "" { timing = $17 }
        $5 != "cub" && $14 == "ok" && $11 + 0 > best[$3] + 0 {
            best[$3] = $11
            who[$3] = $5 " (" $6 ": " $7 " threads, " $8 " blocks, unroll " $9 ($16 != "" ? ", load " $16 : "") ")"
            ratio[$3] = $13; pct[$3] = $12
        }
        $14 != "ok" { wrong++ }
        END {
            ratio_goal = 1; ratio_seen = 0; pct_goal = -1
            for (i = 1; i <= nsizes; i++) {
                n = order[i]
                if (!(n in best)) { printf "summary: n=%s: no lesson kernel passed its check\n", pow2(n); ratio_goal = 0; continue }
                printf "summary: n=%s: fastest lesson kernel %s: %.1f GB/s", pow2(n), who[n], best[n]
                if (pct[n] != "") printf ", %s%% of the datasheet %.0f GB/s", pct[n], peak
                printf "; %s x CUB (CUB %.1f GB/s, again %.1f GB/s)\n", ratio[n], cub[n], cub2[n]
                if (n + 0 >= 268435456) { ratio_seen = 1; if (ratio[n] + 0 < 1.0) ratio_goal = 0 }
                if (n + 0 == 268435456 && pct[n] != "") pct_goal = (pct[n] + 0 >= 93.0)
            }
            how = timing == "" ? "" : timing == 0 ? " (-T 0: host launch time included)" : " (-T 1: GPU time, host launch time excluded)"
            if (ratio_seen)
                printf "summary: goal, at least CUB at 2^28 and above: %s%s\n", ratio_goal ? "met" : "NOT met", how
            else
                print "summary: goal, at least CUB at 2^28 and above: not measured (no size >= 2^28)"
            if (pct_goal < 0)
                print "summary: goal, 93% of the datasheet at 2^28: not measured (no 2^28 row or unknown datasheet)"
            else
                printf "summary: goal, 93%% of the datasheet at 2^28: %s%s\n", pct_goal ? "met" : "NOT met", how
            if (wrong) printf "summary: %d measurements FAILED their check\n", wrong
        }' "$1"
}

# best_settings CSV: the best sweep row of each swept method (and timing,
# where the CSV has one); then, for the wide sweep's confirmation rounds,
# the best setting by its median over the rounds.
best_settings() {
    awk -F, '
        function what(   t) {
            t = $17 == "" ? "" : " -T " $17
            return sprintf("%-19s%s", $5, t)
        }
        function conf() {
            return sprintf("%s threads, %s blocks, unroll %s%s", $7, $8, $9, $16 != "" ? ", load " $16 : "")
        }
        # the median of the space-separated numbers in s
        function median(s,   v, n, i, j, x) {
            n = split(s, v, " ")
            for (i = 2; i <= n; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
            return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        }
        NR > 1 && $1 == "sweep" && $5 != "cub" && $14 == "ok" && $11 + 0 > best[what()] + 0 {
            best[what()] = $11
            row[what()] = sprintf("%s (%s): %s GB/s, %s%% of the datasheet, %s x CUB", conf(), $6, $11, $12, $13)
        }
        $15 != "" { peak = $15 }
        NR > 1 && $1 == "confirm" && $14 == "ok" && $5 == "cub" { cub[$17] = cub[$17] " " $11 }
        NR > 1 && $1 == "confirm" && $14 == "ok" && $5 != "cub" {
            key = what() SUBSEP conf()
            if (!(key in gbps)) { order[++nkeys] = key; name[key] = what(); desc[key] = conf(); tm[key] = $17 }
            gbps[key] = gbps[key] " " $11
        }
        END {
            for (m in row) printf "sweep: best %s %s\n", m, row[m] | "sort"
            close("sort")
            for (i = 1; i <= nkeys; i++) {
                key = order[i]; med = median(gbps[key])
                if (!(name[key] in cbest) || med > cbest[name[key]]) { cbest[name[key]] = med; ckey[name[key]] = key }
            }
            for (m in cbest) {
                key = ckey[m]; line = sprintf("confirmed: best %s %s: %.1f GB/s", m, desc[key], cbest[m])
                if (peak != "") line = line sprintf(", %.1f%% of the datasheet", 100 * cbest[m] / peak)
                if (cub[tm[key]] != "") line = line sprintf(", %.3f x CUB", cbest[m] / median(cub[tm[key]]))
                print line " (medians of the rounds)" | "sort"
            }
        }' "$1"
}

# plot CSV PNG: GB/s against n, one line per method and setting.
plot() {
    local csv=$1 png=$2 data series gpu peak
    command -v gnuplot >/dev/null || { echo "$lesson: gnuplot not found: no plot (apt-get install gnuplot-nox)" >&2; return 1; }
    data=$(mktemp)
    awk -F, 'NR > 1 && $1 == "result" && $14 == "ok" && $6 != "library-again" {
                 key = $5 ($6 == "best-of-sweep" ? " (best of sweep)" : "")
                 if (!(key in pts)) order[++k] = key
                 pts[key] = pts[key] $3 " " $11 "\n" }
             END { for (i = 1; i <= k; i++) printf "%s\"%s\"\n%s", (i > 1 ? "\n\n" : ""), order[i], pts[order[i]] }' \
        "$csv" >"$data"
    series=$(grep -c '^"' "$data")
    gpu=$(awk -F, 'NR == 2 { print $2 }' "$csv")
    peak=$(awk -F, 'NR > 1 && $15 != "" { print $15; exit }' "$csv")
    gnuplot -e "data='$data'; out='$png'; series=$series; peak=${peak:-0}; gpu='$gpu'" "$here/bench.gp"
    local rc=$?
    rm -f "$data"
    return "$rc"
}

# report CSV [PNG]: table, sweep bests, summary, and the plot when PNG is given.
# The sweep rows come from CSV itself if it has them, else from the
# .sweep.csv beside it.
report() {
    local csv=$1 png=${2-} sweep=${1%.csv}.sweep.csv
    table "$csv"
    echo
    if grep -qE '^(sweep|confirm),' "$csv"; then
        best_settings "$csv"
    elif [ -f "$sweep" ]; then
        best_settings "$sweep"
    fi
    summary "$csv"
    [ -z "$png" ] || plot "$csv" "$png"
}

if [ "${1-}" = --report ]; then
    [ -f "${2-}" ] || { echo "usage: bench.sh --report CSV [PNG]" >&2; exit 2; }
    report "$2" "${3-}"
    exit $?
fi
[ $# -eq 0 ] || { echo "usage: bench.sh  (options for build/bench go in BENCH_ARGS), or bench.sh --report CSV [PNG]" >&2; exit 2; }

if ! slug=$("$top/scripts/gpu-slug.sh"); then
    echo "$lesson: no GPU found (nvidia-smi lists none): the benchmark needs one"
    echo "skipped: no GPU"
    exit 0
fi
[ -x "$here/build/bench" ] || { echo "$lesson: build/bench is missing: run make first" >&2; exit 1; }
out=${BENCH_OUT:-$top/docs/results/$slug}
mkdir -p "$out"
csv=$out/$lesson.csv
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

echo "$lesson: build/bench ${BENCH_ARGS:-} (progress below; results in ${out#"$top"/}/)"
# shellcheck disable=SC2086  # BENCH_ARGS is a list of options
"$here/build/bench" ${BENCH_ARGS:-} >"$raw"
rc=$?
if [ "$(head -c 6 "$raw")" != "table," ]; then
    echo "$lesson: build/bench failed (exit status $rc) before writing any result" >&2
    exit 1
fi
{ head -n 1 "$raw"; grep '^result,' "$raw"; } >"$csv"
if grep -qE '^(sweep|confirm),' "$raw"; then
    { head -n 1 "$raw"; grep -E '^(sweep|confirm),' "$raw"; } >"${csv%.csv}.sweep.csv"
else
    rm -f "${csv%.csv}.sweep.csv"
fi

gpu=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | head -n 1)
{
    echo "# \$ make bench (lessons/$lesson${BENCH_ARGS:+, BENCH_ARGS=$BENCH_ARGS})"
    IFS=, read -r name driver cc <<<"$gpu"
    echo "# GPU: ${name# }, driver ${driver# }, compute capability ${cc# }"
    echo "# CUDA: $(nvcc --version 2>/dev/null | sed -n 's/^Cuda compilation tools, //p')"
    echo "# host: $(uname -sm), $(nproc) CPUs"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# commit: ${COMMIT:-$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo
    report "$csv" "$out/$lesson.png"
    prc=$?
    [ "$prc" -eq 0 ] || echo "$lesson: no plot (exit status $prc)"
    [ "$rc" -eq 0 ] || echo "$lesson: build/bench exit status $rc"
} | tee "$out/$lesson.txt"
echo "$lesson: wrote ${out#"$top"/}/$lesson.{csv,sweep.csv,png,txt}"
[ "$rc" -eq 0 ]
