#!/usr/bin/env bash
# bench.sh - lesson 04's benchmark, run by `make bench`: times the fallback
# loops against __match_any_sync by key cardinality (build/bench), and writes
# to docs/results/<gpu>/:
#   04-match-any.csv   the measurements (gpu,n,rounds,keys,method,ms,vs_native)
#   04-match-any.png   the slowdown of each fallback, by number of keys
#   04-match-any.txt   the summary table, headed with the GPU, CUDA and date
# With no GPU it says so and exits 0 having done nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name=04-match-any

if ! slug=$("$top/scripts/gpu-slug.sh"); then
    echo "$name: no GPU found (nvidia-smi lists none): nothing benchmarked"
    exit 0
fi
out=$top/docs/results/$slug
mkdir -p "$out"
csv=$out/$name.csv

echo "$name: benchmarking on $slug (progress below; CSV to ${csv#"$top"/})"
if ! "$here/build/bench" "$@" >"$csv.part"; then
    echo "$name: the benchmark failed; nothing written" >&2
    rm -f "$csv.part"
    exit 1
fi
mv "$csv.part" "$csv"

if command -v gnuplot >/dev/null 2>&1; then
    gnuplot -e "csv='$csv'; png='$out/$name.png'" "$here/bench.gp" &&
        echo "$name: plot in ${out#"$top"/}/$name.png"
else
    echo "$name: gnuplot not found: no plot (apt-get install gnuplot-nox)"
fi

# The table: for each number of keys, each method's median time and its
# ratio to the native instruction, for 16 rounds and for 1 round.
table() {
    awk -F, '
        NR == 1 { next }
        { key = $3 "," $4; ms[key "," $5] = $6; ratio[key "," $5] = $7
          if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
        END {
            for (pass = 16; pass >= 1; pass -= 15) {
                printf "\n%s grouping%s per thread:\n", pass, pass == 1 ? "" : "s"
                printf "%10s  %12s  %22s  %22s\n", "keys", "native ms", "per-lane ms (x native)", "per-group ms (x native)"
                for (i = 1; i <= n; i++) {
                    split(order[i], p, ",")
                    if (p[1] != pass) continue
                    k = order[i]
                    printf "%10s  %12.4f  %12.4f (%6.2fx)  %12.4f (%6.2fx)\n", p[2], ms[k ",native"],
                           ms[k ",per-lane"], ratio[k ",per-lane"], ms[k ",per-group"], ratio[k ",per-group"]
                }
            }
        }' "$csv"
}

{
    echo "# lesson 04 benchmark: the match fallbacks over __match_any_sync"
    echo "# GPU: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -n 1)"
    echo "# CUDA: $(nvcc --version 2>/dev/null | sed -n 's/^Cuda compilation tools, //p')"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: ${COMMIT:-$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "# n: $(awk -F, 'NR == 2 { print $2 }' "$csv") keys per run; median of the timed runs"
    table
} | tee "$out/$name.txt"
