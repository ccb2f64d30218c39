#!/usr/bin/env bash
# bench.sh - lesson 07's benchmark (run it with `make bench`).
#
# Runs build/bench (the lesson's block scan against cub::BlockScan, and its
# device-wide scans against cub::DeviceScan::InclusiveSum, sizes 2^24 to
# 2^30; build/bench --help), then writes, in docs/results/<gpu>/
# (scripts/gpu-slug.sh names the folder):
#   07-warp-scan.csv   the results, one row per method, setting and size
#   07-warp-scan.png   GB/s of the device-wide scans against n (gnuplot)
#   07-warp-scan.txt   the table below, headed with GPU, driver, CUDA, date
#                      and commit
# and prints the table. Its last lines start with "summary:": the block scan
# against cub::BlockScan; for each device scan the one setting (threads x
# items) reported at every size, of those measured at every size the one
# whose lowest ratio to CUB is highest; per size the device scans against
# CUB and the datasheet, and the bound of a three-pass scan (12 bytes per
# int at memcpy's rate, against CUB); the ablation table's rows (lookback-
# fast with one change taken back, at 2^28); the fastest setting of each
# block scan in both forms (the lesson's, CUB's faster algorithm, and the
# variants raking4, redux and total-first); then the goals (block scan >=
# 1.0x cub::BlockScan at the default settings of both forms, and at the
# fastest setting of each in the tile kernel and in the repeat form; multi-pass
# device scan >= 0.8x CUB; single-pass look-back >= 0.95x CUB, each at every
# size; lookback-fast >= 1.0x CUB at every size and >= 1.1x at 2^28).
#
# Environment: BENCH_ARGS passes options to build/bench (BENCH_ARGS="-n 256M
# -l 1" for a quick run); BENCH_OUT=dir writes there instead. Exit status:
# 0 done (or skipped: no GPU), 1 a check failed or a tool is missing.
#
# bench.sh --report CSV [PNG] redoes the table, the summary and the plot from
# an existing CSV (no GPU needed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lesson=07-warp-scan

# table CSV: the results as an aligned table.
table() {
    awk -F, '
        function pow2(n,   k) { k = 0; while (n > 1 && n % 2 == 0) { n /= 2; k++ } return n == 1 ? "2^" k : n }
        function d(v) { return v == "" || v == 0 ? "-" : v }
        NR == 1 { printf "%-6s %-6s %-22s %-8s %7s %5s %9s %8s %6s %6s %s\n", "table", "n", "method", "setting", "threads", "items", "ms", "GB/s", "%peak", "xCUB", "check"; next }
        {
            if (last != "" && $1 SUBSEP $3 != last) print ""
            last = $1 SUBSEP $3
            printf "%-6s %-6s %-22s %-8s %7s %5s %9s %8s %6s %6s %s\n", $1, pow2($3), $5, $6, d($7), d($8), $9, d($10), d($11), d($12), $13
        }' "$1"
}

# pick CSV: for each of the lesson's device scans, the setting reported at
# every size, as "method threads x items count": of the settings measured
# and right at every size, the one whose lowest ratio to CUB is highest
# (count: how many settings were measured at every size).
pick() {
    awk -F, '
        NR == 1 { next }
        $1 == "device" {
            if (!($3 in seen)) { seen[$3] = 1; nsizes++ }
            if ($5 != "cub" && $5 != "memcpy" && $13 == "ok") {
                c = $7 " x " $8
                if (!(($5 SUBSEP c) in nconf)) confs[$5] = confs[$5] SUBSEP c
                nconf[$5 SUBSEP c]++
                ratio[$3 SUBSEP $5 SUBSEP c] = $12
                sizes[$5 SUBSEP c] = sizes[$5 SUBSEP c] SUBSEP $3
            }
        }
        END {
            nm = split("reduce-then-scan lookback lookback-fast", ms, " ")
            for (j = 1; j <= nm; j++) {
                m = ms[j]; best = ""; low = -1; full = 0
                nc = split(substr(confs[m], 2), cs, SUBSEP)
                for (q = 1; q <= nc; q++) {
                    if (nconf[m SUBSEP cs[q]] < nsizes) continue
                    full++
                    worst = ""
                    ns = split(substr(sizes[m SUBSEP cs[q]], 2), sz, SUBSEP)
                    for (i = 1; i <= ns; i++) {
                        r = ratio[sz[i] SUBSEP m SUBSEP cs[q]] + 0
                        if (worst == "" || r < worst) worst = r
                    }
                    if (worst > low) { low = worst; best = cs[q] }
                }
                if (best != "") print m, best, full
            }
        }' "$1"
}

# summary CSV: the lines bench-all.sh collects, and the goals.
summary() {
    awk -F, -v picks="$(pick "$1")" '
        function pow2(n,   k) { k = 0; while (n > 1 && n % 2 == 0) { n /= 2; k++ } return n == 1 ? "2^" k : n }
        NR == 1 { next }
        $13 != "ok" { wrong++ }
        $14 != "" { peak = $14 }
        $1 == "block" && $6 == "default" && $5 ~ /-lesson$/ {
            kind = $5; sub(/-lesson$/, "", kind)
            printf "summary: block scan, %s (%s threads x %s items): lesson %.4f ms, %s x the faster cub::BlockScan\n", kind, $7, $8, $9, $12
            if ($12 + 0 < 1.0) block_goal = 0; else if (block_goal == "") block_goal = 1
        }
        # the fastest setting of each block scan, per form (repeat, tile)
        $1 == "block" && $13 == "ok" {
            form = $5; sub(/-.*/, "", form); who = $5; sub(/^[a-z]*-/, "", who)
            if (who ~ /^cub-/) { alg = who; sub(/^cub-/, "", alg); who = "cub" }
            k = form SUBSEP who
            if (!(k in fms) || $9 + 0 < fms[k]) { fms[k] = $9 + 0; fset[k] = $7 " x " $8; if (who == "cub") falg[form] = alg }
        }
        $1 == "block" && $6 == "default" && $5 == "repeat-redux" {
            printf "summary: block scan, repeat (%s threads x %s items), with __reduce_add_sync in warps_before (not the lesson'"'"'s): %.4f ms, %s x the faster cub::BlockScan\n", $7, $8, $9, $12
        }
        $1 == "device" {
            if (!($3 in seen)) { seen[$3] = 1; order[++nsizes] = $3 }
            if ($5 == "cub") { cub[$3] = $10; cubms[$3] = $9 }
            else if ($5 == "memcpy") { copy[$3] = $10; copyms[$3] = $9 }
            else {
                has[$5] = 1
                if ($13 == "ok") {
                    k = $3 SUBSEP $5 SUBSEP $7 " x " $8
                    gbps[k] = $10; ratio[k] = $12; pct[k] = $11
                }
            }
        }
        $1 == "ablation" { abl[++nabl] = $0; abln = $3 }
        END {
            rts_goal = 1; look_goal = 1; fast_goal = 1; fast_28 = ""
            nm = split("reduce-then-scan lookback lookback-fast", ms, " ")
            np = split(picks, pl, "\n")
            for (i = 1; i <= np; i++) {
                split(pl[i], f, " ")
                pick[f[1]] = f[2] " x " f[4]
                if (f[5] > 1)
                    printf "summary: %s: %s at every size: of the %d settings measured at every size, the one whose lowest ratio to CUB is highest\n", f[1], pick[f[1]], f[5]
            }
            for (i = 1; i <= nsizes; i++) {
                n = order[i]; single = ""
                printf "summary: n=%s: CUB %.1f GB/s, memcpy %.1f GB/s", pow2(n), cub[n], copy[n]
                if (peak != "") printf " (datasheet %.0f GB/s)", peak
                printf "\n"
                for (j = 1; j <= nm; j++) {
                    m = ms[j]
                    if (!(m in has)) continue
                    k = n SUBSEP m SUBSEP pick[m]
                    if (pick[m] == "" || !(k in gbps)) {
                        printf "summary: n=%s: %s: no result passed its check\n", pow2(n), m
                        if (j == 1) rts_goal = 0; else if (j == 3) fast_goal = 0
                        continue
                    }
                    printf "summary: n=%s: %s (%s): %.1f GB/s, %s%% of the datasheet, %s x CUB\n", pow2(n), m, pick[m], gbps[k], pct[k] == "" ? "?" : pct[k], ratio[k]
                    if (j == 1 && ratio[k] + 0 < 0.8) rts_goal = 0
                    if (j > 1 && (single == "" || ratio[k] + 0 > single)) single = ratio[k] + 0
                    if (j == 3 && ratio[k] + 0 < 1.0) fast_goal = 0
                    if (j == 3 && n == 268435456) fast_28 = ratio[k] + 0
                }
                if (single == "" || single < 0.95) look_goal = 0
                if (cubms[n] > 0 && copyms[n] > 0)
                    printf "summary: n=%s: bound of a three-pass scan (12 bytes per int at memcpy'"'"'s rate, 1.5 x %.4f ms): %.3f x CUB\n", pow2(n), copyms[n], cubms[n] / (1.5 * copyms[n])
            }
            for (i = 1; i <= nabl; i++) {
                split(abl[i], a, ",")
                if (a[5] == "cub") continue
                printf "summary: ablation, n=%s, %s x %s: %s: %.1f GB/s, %s x CUB%s\n", pow2(abln), a[7], a[8], a[5], a[10], a[12], a[13] == "ok" ? "" : " (" a[13] ")"
            }
            kl = "tile" SUBSEP "lesson"; kc = "tile" SUBSEP "cub"; kr = "tile" SUBSEP "raking4"
            if ((kl in fms) && (kc in fms)) {
                printf "summary: block scan, tile, the fastest setting of each: lesson %s %.4f ms, cub::BlockScan %s %s %.4f ms: %.3f x\n", fset[kl], fms[kl], falg["tile"], fset[kc], fms[kc], fms[kc] / fms[kl]
                tile_ratio = fms[kc] / fms[kl]; tile_goal = tile_ratio >= 1.0
                nv = split("raking4 redux total-first", vs, " ")
                for (v = 1; v <= nv; v++) {
                    kr = "tile" SUBSEP vs[v]
                    if (kr in fms)
                        printf "summary: block scan, tile, the fastest setting of each: %s (not the lesson'"'"'s) %s %.4f ms: %.3f x cub::BlockScan\n", vs[v], fset[kr], fms[kr], fms[kc] / fms[kr]
                }
            }
            kl = "repeat" SUBSEP "lesson"; kc = "repeat" SUBSEP "cub"; kr = "repeat" SUBSEP "raking4"
            if ((kl in fms) && (kc in fms)) {
                printf "summary: block scan, repeat, the fastest setting of each: lesson %s %.4f ms, cub::BlockScan %s %s %.4f ms: %.3f x\n", fset[kl], fms[kl], falg["repeat"], fset[kc], fms[kc], fms[kc] / fms[kl]
                if (kr in fms)
                    printf "summary: block scan, repeat, the fastest setting of each: raking4 (not the lesson'"'"'s) %s %.4f ms: %.3f x cub::BlockScan\n", fset[kr], fms[kr], fms[kc] / fms[kr]
            }
            printf "summary: goal, block scan at least 1.0x cub::BlockScan: %s\n", block_goal == "" ? "not measured" : block_goal ? "met" : "NOT met"
            kt = "tile" SUBSEP "total-first"
            if (!(("tile" SUBSEP "lesson") in fms) || !(("tile" SUBSEP "cub") in fms))
                print "summary: goal, block scan at least 1.0x cub::BlockScan in the tile kernel, the fastest setting of each: not measured"
            else
                printf "summary: goal, block scan at least 1.0x cub::BlockScan in the tile kernel, the fastest setting of each: %s by the lesson'"'"'s block_scan (%.3f x)%s\n", tile_goal ? "met" : "NOT met", tile_ratio, (kt in fms) ? sprintf(", %s by total-first (%.3f x)", (fms["tile" SUBSEP "cub"] / fms[kt] >= 1.0) ? "met" : "NOT met", fms["tile" SUBSEP "cub"] / fms[kt]) : ""
            if ((kl in fms) && (kc in fms))
                printf "summary: goal, block scan at least 1.0x cub::BlockScan in the repeat form, the fastest setting of each: %s by the lesson'"'"'s block_scan (%.3f x)%s\n", (fms[kc] / fms[kl] >= 1.0) ? "met" : "NOT met", fms[kc] / fms[kl], (kr in fms) ? sprintf(", %s by raking4 (%.3f x)", (fms[kc] / fms[kr] >= 1.0) ? "met" : "NOT met", fms[kc] / fms[kr]) : ""
            if (nsizes == 0) { print "summary: goal, device scans: not measured"; exit }
            printf "summary: goal, multi-pass device scan at least 0.8x CUB at every size: %s\n", rts_goal ? "met" : "NOT met"
            printf "summary: stretch, single-pass look-back at least 0.95x CUB at every size: %s\n", look_goal ? "met" : "NOT met"
            if ("lookback-fast" in has)
                printf "summary: goal, lookback-fast at least 1.0x CUB at every size and 1.1x at 2^28: %s\n", fast_28 == "" ? "not measured at 2^28" : (fast_goal && fast_28 >= 1.1) ? "met" : "NOT met"
            if (wrong) printf "summary: %d measurements FAILED their check\n", wrong
        }' "$1"
}

# plot CSV PNG: GB/s of the device-wide scans against n (default settings).
plot() {
    local csv=$1 png=$2 data series gpu peak
    command -v gnuplot >/dev/null || { echo "$lesson: gnuplot not found: no plot (apt-get install gnuplot-nox)" >&2; return 1; }
    data=$(mktemp)
    awk -F, -v picks="$(pick "$csv")" '
             BEGIN { np = split(picks, pl, "\n")
                     for (i = 1; i <= np; i++) { split(pl[i], f, " "); pick[f[1]] = f[2] "," f[4] } }
             NR > 1 && $1 == "device" && $13 == "ok" &&
             ($5 in pick ? $7 "," $8 == pick[$5] : $6 == "default") {
                 key = $5
                 if (!(key in pts)) order[++k] = key
                 pts[key] = pts[key] $3 " " $10 "\n" }
             END { for (i = 1; i <= k; i++) printf "%s\"%s\"\n%s", (i > 1 ? "\n\n" : ""), order[i], pts[order[i]] }' \
        "$csv" >"$data"
    series=$(grep -c '^"' "$data")
    gpu=$(awk -F, 'NR == 2 { print $2 }' "$csv")
    peak=$(awk -F, 'NR > 1 && $14 != "" { print $14; exit }' "$csv")
    gnuplot -e "data='$data'; out='$png'; series=$series; peak=${peak:-0}; gpu='$gpu'" "$here/bench.gp"
    local rc=$?
    rm -f "$data"
    return "$rc"
}

report() {
    table "$1"
    echo
    summary "$1"
    [ -z "${2-}" ] || plot "$1" "$2"
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

echo "$lesson: build/bench ${BENCH_ARGS:-} (progress below; results in ${out#"$top"/}/)"
# shellcheck disable=SC2086  # BENCH_ARGS is a list of options
"$here/build/bench" ${BENCH_ARGS:-} >"$csv"
rc=$?
if [ "$(head -c 6 "$csv")" != "table," ]; then
    echo "$lesson: build/bench failed (exit status $rc) before writing any result" >&2
    exit 1
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
echo "$lesson: wrote ${out#"$top"/}/$lesson.{csv,png,txt}"
[ "$rc" -eq 0 ]
