#!/usr/bin/env bash
# bench.sh [options] PROGRAM: warpsim's throughput, emulated memory accesses
# per second (race detection on) under each scheduling model, for this build
# and, in the same run, for a base commit's build, with the ratio.
#
# PROGRAM is this build's tests/bench (make bench passes build/tests/bench).
# The base commit's warpsim and bench program are built in a temporary git
# worktree under build/ (removed afterwards) with the same compiler, and the
# program is kept in build/bench-base/COMMIT-CC/ for the next run. Runs of
# the two builds alternate, REPS times per model; each rate is the median,
# and the ratio the median of the REPS ratios of two runs made one after
# the other: a shared machine's speed drifts by a quarter and more over a
# few seconds (the same build at 17 and at 27 M accesses/s), which a pair
# of runs next to each other shares, and two medians of runs made apart
# do not.
# Both builds must make the same number of accesses and print the same
# summary of reports: if not, the comparison is not fair, and it says so.
# A second table gives the least CPU time of the same runs (user + system,
# whole process, startup included): other jobs on a shared machine only
# ever add to it, while they can halve the wall-clock rates of the first.
#
#   --base COMMIT  the base commit (default $WS_BENCH_BASE, else HEAD^, the
#                  previous commit); --base none measures this build alone
#   --reps N       runs per model and build (default 9)
#   -n BLOCKS      blocks of 256 threads (default 32)
#   -r ROUNDS      rounds of accesses per thread (default 64)
#   -h, --help     this text
#
# The last lines start with "summary:" (the top-level make bench shows
# them). Environment: WS_CC, the compiler (default cc); WS_BENCH_CACHE,
# where base builds are kept (build/bench-base). Exit status: 0 the
# measurements ran (where there is no previous commit, or the base does not
# build, it says so and measures this build alone), 1 a run failed or the
# two builds disagree, 2 bad usage (a --base that names no commit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
base=${WS_BENCH_BASE:-}
reps=9
blocks=32
rounds=64

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}
die() {
    echo "bench.sh: $*" >&2
    exit 2
}
count() {
    case $2 in
    '' | *[!0-9]* | 0*) die "$1 needs a positive number, not '$2' (try --help)" ;;
    esac
}

prog=
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --base) [ $# -ge 2 ] || die "--base needs a commit"; base=$2; shift ;;
    --reps) [ $# -ge 2 ] || die "--reps needs a number"; count --reps "$2"; reps=$2; shift ;;
    -n) [ $# -ge 2 ] || die "-n needs a number"; count -n "$2"; blocks=$2; shift ;;
    -r) [ $# -ge 2 ] || die "-r needs a number"; count -r "$2"; rounds=$2; shift ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) [ -z "$prog" ] || die "one program only (try --help)"; prog=$1 ;;
    esac
    shift
done
[ -n "$prog" ] || die "usage: bench.sh [options] build/tests/bench (try --help)"
[ -x "$prog" ] || die "$prog is not built (make -C warpsim build/tests/bench)"
cc=${WS_CC:-cc}
build=$here/build
cache=${WS_BENCH_CACHE:-$build/bench-base}

# base_program: builds the base commit's bench program (or finds it built);
# sets BASE_PROG and BASE_NAME, or BASE_WHY when there is none.
BASE_PROG='' BASE_NAME='' BASE_WHY=''
base_program() {
    local sha wt dir log jobs
    if [ "$base" = none ]; then
        BASE_WHY="no base asked for"
        return
    fi
    if [ -z "$base" ]; then
        if ! sha=$(git -C "$here" rev-parse --verify --quiet "HEAD^{commit}^" 2>/dev/null); then
            BASE_WHY="no previous commit (not a git clone, or its first commit)"
            return
        fi
    elif ! sha=$(git -C "$here" rev-parse --verify --quiet "$base^{commit}" 2>/dev/null); then
        die "--base: '$base' is no commit of this repository"
    fi
    BASE_NAME=$(git -C "$here" rev-parse --short "$sha")
    dir=$cache/$sha-$(basename "$cc")
    if [ -x "$dir/bench" ]; then
        BASE_PROG=$dir/bench
        return
    fi
    mkdir -p "$build/bench-base"
    wt=$(mktemp -d "$build/bench-base/worktree.XXXXXX") || { BASE_WHY="no temporary folder"; return; }
    jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
    log=$wt.log
    echo "bench.sh: building $BASE_NAME's warpsim in a temporary worktree (${wt#"$here"/})"
    if git -C "$here" worktree add --quiet --detach "$wt" "$sha" >"$log" 2>&1 &&
        [ -f "$wt/warpsim/tests/bench.cu" ] &&
        make --no-print-directory -s -j"$jobs" -C "$wt/warpsim" WS_CC="$cc" all >>"$log" 2>&1 &&
        make --no-print-directory -s -C "$wt/warpsim" WS_CC="$cc" build/tests/bench >>"$log" 2>&1; then
        mkdir -p "$dir"
        cp "$wt/warpsim/build/tests/bench" "$dir/bench"
        BASE_PROG=$dir/bench
    else
        BASE_WHY="$BASE_NAME's warpsim or its bench program did not build (its log: $(tail -n 1 "$log"))"
    fi
    git -C "$here" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
    git -C "$here" worktree prune >/dev/null 2>&1
    rm -f "$log"
}

# one PROG MODEL: one run; prints "RATE ACCESSES REPORTS CPU" (REPORTS: the
# summary line of reports, spaces as underscores; CPU: user + system
# seconds of the process).
one() {
    local out stats
    out=$({ TIMEFORMAT='bench.sh-cpu: %3U %3S'
            time WARPSIM_MODEL=$2 WARPSIM_STATS=1 "$1" -n "$blocks" -r "$rounds" 2>&1; } 2>&1) || {
        echo "bench.sh: $1 failed under $2:" >&2
        printf '%s\n' "$out" | grep -v '^bench.sh-cpu: ' | tail -n 3 >&2
        return 1
    }
    stats=$(grep '^warpsim: stats:' <<<"$out") || {
        echo "bench.sh: $1 printed no 'warpsim: stats:' line under $2" >&2
        return 1
    }
    printf '%s %s %s %s\n' \
        "$(sed -n 's/.*: \([0-9.]*\) M accesses\/s$/\1/p' <<<"$stats")" \
        "$(sed -n 's/.* \([0-9]*\) memory accesses.*/\1/p' <<<"$stats")" \
        "$(grep '^warpsim: [0-9]* race' <<<"$out" | tr ' ' _)" \
        "$(awk '/^bench.sh-cpu: / { printf "%.3f", $2 + $3 }' <<<"$out")"
}

median() {
    sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

base_program
if [ -n "$BASE_PROG" ]; then
    echo "warpsim throughput: $blocks blocks x 256 threads x $rounds rounds, this build and" \
         "$BASE_NAME's, median of $reps runs each (alternating), M memory accesses/s;" \
         "ratio: the median of the $reps pairs' ratios"
    printf '%-9s %12s %12s %8s %12s\n' model "$BASE_NAME" "this build" ratio accesses
else
    echo "bench.sh: no base to compare with: $BASE_WHY"
    echo "warpsim throughput: $blocks blocks x 256 threads x $rounds rounds, median of $reps runs," \
         "M memory accesses/s"
    printf '%-9s %12s %12s\n' model "this build" accesses
fi
status=0
summary=()
cpu_table=()
for model in lockstep its random; do
    new=() old=() cpu_new=() cpu_old=() acc_new='' acc_old='' rep_new='' rep_old=''
    for ((i = 0; i < reps; i++)); do
        # alternate which build runs first
        for who in $((i % 2)) $((1 - i % 2)); do
            if [ "$who" = 0 ]; then
                r=$(one "$prog" "$model") || exit 1
                read -r rate acc_new rep_new cpu <<<"$r"
                new+=("$rate")
                cpu_new+=("$cpu")
            elif [ -n "$BASE_PROG" ]; then
                r=$(one "$BASE_PROG" "$model") || exit 1
                read -r rate acc_old rep_old cpu <<<"$r"
                old+=("$rate")
                cpu_old+=("$cpu")
            fi
        done
    done
    m_new=$(printf '%s\n' "${new[@]}" | median)
    c_new=$(printf '%s\n' "${cpu_new[@]}" | sort -g | head -n 1)
    if [ -z "$BASE_PROG" ]; then
        printf '%-9s %12.2f %12s\n' "$model" "$m_new" "$acc_new"
        cpu_table+=("$(printf '%-9s %12.3f' "$model" "$c_new")")
        summary+=("warpsim $model: $m_new M accesses/s")
        continue
    fi
    m_old=$(printf '%s\n' "${old[@]}" | median)
    c_old=$(printf '%s\n' "${cpu_old[@]}" | sort -g | head -n 1)
    ratio=$(for ((i = 0; i < reps; i++)); do
                awk -v a="${new[i]}" -v b="${old[i]}" 'BEGIN { print (b > 0 ? a / b : 0) }'
            done | median | awk '{ printf "%.2f", $1 }')
    cpu_ratio=$(awk -v a="$c_new" -v b="$c_old" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
    printf '%-9s %12.2f %12.2f %7sx %12s\n' "$model" "$m_old" "$m_new" "$ratio" "$acc_new"
    cpu_table+=("$(printf '%-9s %12.3f %12.3f %7sx' "$model" "$c_old" "$c_new" "$cpu_ratio")")
    summary+=("warpsim $model: $m_new M accesses/s, ${ratio}x $BASE_NAME's $m_old")
    if [ "$acc_new" != "$acc_old" ]; then
        echo "bench.sh: under $model this build made $acc_new accesses and $BASE_NAME's $acc_old: not the same work" >&2
        status=1
    fi
    if [ "$rep_new" != "$rep_old" ]; then
        echo "bench.sh: under $model the two builds report differently: '${rep_new//_/ }' and '${rep_old//_/ }'" >&2
        status=1
    fi
done
if [ -n "$BASE_PROG" ]; then
    echo "CPU seconds of the same runs (user + system, whole process), the least of each; ratio: $BASE_NAME's over this build's"
    printf '%-9s %12s %12s %8s\n' model "$BASE_NAME" "this build" ratio
else
    echo "CPU seconds of the same runs (user + system, whole process), the least of each"
    printf '%-9s %12s\n' model "this build"
fi
printf '%s\n' "${cpu_table[@]}"
printf 'summary: %s\n' "${summary[@]}"
exit "$status"
