#!/usr/bin/env bash
# bench.sh [a] [b] [c] - lesson 05's benchmarks, run by `make bench` (all
# three when none is named). Writes to docs/results/<gpu>/:
#   05-one-counter.csv/.png   (a) one counter, warp-uniform address
#   05-sass.txt               (a) and (b): the atomics in the compiled kernels
#   05-histogram.csv/.png     (b) data-dependent counters, by bins and skew
#   05-scatter-add.csv/.png   (c) scatter-add, methods A B C D, and the
#                             answer's Quadro P6000 figures beside ours
#   05-aggregated-atomics.txt the summary tables, headed with GPU, CUDA, date
# With no GPU it says so and exits 0 having done nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name=05-aggregated-atomics

which=${*:-a b c}
for w in $which; do
    case "$w" in a|b|c) ;; *) echo "usage: bench.sh [a] [b] [c]" >&2; exit 2 ;; esac
done
if ! slug=$("$top/scripts/gpu-slug.sh"); then
    echo "$name: no GPU found (nvidia-smi lists none): nothing benchmarked"
    exit 0
fi
out=$top/docs/results/$slug
mkdir -p "$out"
have_gnuplot=1
command -v gnuplot >/dev/null 2>&1 || {
    have_gnuplot=0
    echo "$name: gnuplot not found: no plots (apt-get install gnuplot-nox)"
}

# measure PROGRAM CSV: runs build/PROGRAM into CSV (kept only if it succeeds).
measure() {
    echo "$name: build/$1 (progress below; CSV to ${2#"$top"/})"
    if ! "$here/build/$1" >"$2.part"; then
        echo "$name: build/$1 failed; nothing written" >&2
        rm -f "$2.part"
        return 1
    fi
    mv "$2.part" "$2"
}

# plot GP CSV PNG
plot() {
    [ "$have_gnuplot" = 1 ] || return 0
    # (a panel with no points, such as C at outLen 32768, is not worth a warning)
    gnuplot -e "csv='$2'; png='$3'" "$here/$1" 2>&1 | grep -v 'no valid points'
    [ -s "$3" ] && echo "$name: plot in ${3#"$top"/}"
}

# The compiled kernels' atomics, from cuobjdump -sass, per function.
sass_report() {
    local dump cc cuobjdump
    cuobjdump=$(command -v cuobjdump || { [ -x /usr/local/cuda/bin/cuobjdump ] && echo /usr/local/cuda/bin/cuobjdump; })
    if [ -z "$cuobjdump" ]; then
        echo "cuobjdump not found (it comes with the CUDA Toolkit): no SASS report"
        return
    fi
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
    for bin in bench-one-counter bench-histogram; do
        dump=$("$cuobjdump" -sass -arch "sm_$cc" "$here/build/$bin" 2>/dev/null)
        [ -n "$dump" ] || dump=$("$cuobjdump" -sass "$here/build/$bin" 2>&1)
        printf '%s\n' "$dump" | awk -v bin="$bin" -v cc="$cc" '
            /Function : / { f = $3; if (f in seen) f = ""; else { seen[f] = 1; order[++n] = f }; next }
            f == "" { next }
            / (ATOMG|REDG|ATOM|RED)\./ { g[f]++; keep = 1 }
            / ATOMS\./ { s[f]++; keep = 1 }
            / VOTEU?\./ { v[f]++; keep = 1 }
            / POPC / { p[f]++; keep = 1 }
            / U?FLO\./ { keep = 1 }
            / MATCH\./ { m[f]++; keep = 1 }
            / SHFL\./ { keep = 1 }
            keep { sub(/^ *\/\*[0-9a-f]+\*\/ */, ""); sub(/ *\/\*.*$/, ""); lines[f] = lines[f] "      " $0 "\n"; keep = 0 }
            END {
                printf "%s (sm_%s):\n", bin, cc
                for (i = 1; i <= n; i++) {
                    k = order[i]
                    printf "  %s: %d global atomic instructions, %d shared, %d VOTE, %d POPC, %d MATCH\n",
                           k, g[k], s[k], v[k], p[k], m[k]
                    printf "%s", lines[k]
                }
                if ("filter_plain" in seen)
                    print (g["filter_plain"] == 1 && v["filter_plain"] > 0 && p["filter_plain"] > 0) ? \
                        "=> filter_plain: nvcc aggregated atomicAdd(count, 1) itself: one atomic per warp, adding the POPC of a VOTE" : \
                        "=> filter_plain: no sign that nvcc aggregated atomicAdd(count, 1)"
                if ("hist_plain" in seen)
                    print p["hist_plain"] + 0 == 0 ? \
                        "=> hist_plain: atomicAdd(&hist[key], 1) stays one atomic per lane (no POPC): the address depends on the data" : \
                        "=> hist_plain: a POPC appears: check the lines above"
            }'
    done
}

# ---- (a) one counter ------------------------------------------------------
table_a() {
    echo
    echo "(a) filter through one counter, warp-uniform address"
    awk -F, 'NR == 1 { next }
        NR == 2 { printf "    n=%s, %s kept\n", $2, $3
                  printf "    %-12s %10s %9s %9s\n", "method", "ms", "GB/s", "x plain" }
        { printf "    %-12s %10.4f %9.1f %9.3f\n", $4, $5, $6, $7 }' "$out/05-one-counter.csv"
}

# ---- (b) histogram ---------------------------------------------------------
table_b() {
    echo
    echo "(b) histogram, data-dependent counters: ms, and speedup over plain"
    awk -F, 'NR == 1 { next }
        { k = $4 "," $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k; kpw[k] = $5 }
          ms[k "," $6] = $7 }
        END {
            for (i = 1; i <= n; i++) {
                split(order[i], a, ",")
                if (a[1] != last) {
                    printf "  %s keys\n    %7s %9s %10s  %18s  %18s  %18s\n", a[1], "bins", "keys/warp",
                           "plain ms", "match", "shared", "shared+match"
                    last = a[1]
                }
                k = order[i]; pl = ms[k ",plain"]
                printf "    %7s %9s %10.4f", a[2], kpw[k], pl
                split("match shared shared+match", mm, " ")
                for (j = 1; j <= 3; j++) {
                    t = ms[k "," mm[j]]
                    if (t == "") printf "  %18s", "n/a"
                    else printf "  %9.4f (%5.2fx)", t, pl / t
                }
                printf "\n"
            }
        }' "$out/05-histogram.csv"
}

# ---- (c) scatter-add, beside the answer's Quadro P6000 figures ---------------
# inLen outLen A B C, in seconds as the answer gives them (- where it has none).
p6000() {
    cat <<'EOF'
32 32 0.000067 0.000071 0.000039
1024 32 0.000244 0.000044 0.000071
1024 1024 0.000265 0.000043 0.000064
32768 32 0.000290 0.000077 0.000080
32768 1024 0.000287 0.000059 0.000096
32768 32768 0.000762 0.000111 -
1048576 32 0.000984 0.000793 0.000254
1048576 1024 0.001381 0.000343 0.002302
1048576 32768 0.017547 0.000899 -
33554432 32 0.021068 0.022684 0.008079
33554432 1024 0.032839 0.008190 0.014071
33554432 32768 0.013734 0.011915 -
EOF
}

table_c() {
    echo
    echo "(c) scatter-add of doubles: ms here; B/D = how many times faster D is than B;"
    echo "    P6000: the answer's figures (read as seconds, shown in ms)"
    p6000 | awk -F, -v seedfile=/dev/stdin 'BEGIN {
            while ((getline line < seedfile) > 0) {
                split(line, f, " ")
                for (j = 3; j <= 5; j++) seed[f[1] "," f[2] "," j] = f[j] == "-" ? "n/a" : sprintf("%.3f", f[j] * 1000)
            }
        }
        FNR == 1 { next }
        { k = $2 "," $3 "," $4; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
          ms[k "," $5] = $6 }
        END {
            for (i = 1; i <= n; i++) {
                split(order[i], a, ",")
                if (a[1] != last) {
                    printf "  outInd from the %s bits of i\n", a[1]
                    printf "    %9s %7s %9s %9s %9s %9s %7s | P6000: %7s %7s %7s\n", "inLen", "outLen",
                           "A", "B", "C", "D", "B/D", "A", "B", "C"
                    last = a[1]
                }
                k = order[i]
                printf "    %9s %7s", a[2], a[3]
                split("A B C D", mm, " ")
                for (j = 1; j <= 4; j++) {
                    t = ms[k "," mm[j]]
                    if (t == "") printf " %9s", "n/a"; else printf " %9.4f", t
                }
                b = ms[k ",B"]; d = ms[k ",D"]
                if (b != "" && d != "" && d > 0) printf " %6.2fx", b / d; else printf " %7s", "n/a"
                s = a[2] "," a[3]
                printf " | %7s %7s %7s %7s\n", "", (s ",3" in seed) ? seed[s ",3"] : "", \
                       (s ",4" in seed) ? seed[s ",4"] : "", (s ",5" in seed) ? seed[s ",5"] : ""
            }
        }' "$out/05-scatter-add.csv"
}

status=0
for w in $which; do
    case "$w" in
        a) measure bench-one-counter "$out/05-one-counter.csv" &&
               plot bench-one-counter.gp "$out/05-one-counter.csv" "$out/05-one-counter.png" ||
               status=1 ;;
        b) measure bench-histogram "$out/05-histogram.csv" &&
               plot bench-histogram.gp "$out/05-histogram.csv" "$out/05-histogram.png" ||
               status=1 ;;
        c) measure bench-scatter-add "$out/05-scatter-add.csv" &&
               plot bench-scatter-add.gp "$out/05-scatter-add.csv" "$out/05-scatter-add.png" ||
               status=1 ;;
    esac
done
case " $which " in *" a "*|*" b "*) sass_report >"$out/05-sass.txt"; cat "$out/05-sass.txt" ;; esac

{
    echo "# lesson 05 benchmarks: warp-aggregated atomics"
    echo "# GPU: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -n 1)"
    echo "# CUDA: $(nvcc --version 2>/dev/null | sed -n 's/^Cuda compilation tools, //p')"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: ${COMMIT:-$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "# median of the timed runs (CUDA events); every result checked before timing"
    [ -f "$out/05-one-counter.csv" ] && table_a
    [ -f "$out/05-histogram.csv" ] && table_b
    [ -f "$out/05-scatter-add.csv" ] && table_c
} | tee "$out/$name.txt"
exit "$status"
