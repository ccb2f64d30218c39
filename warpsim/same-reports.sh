#!/usr/bin/env bash
# same-reports.sh [options] BASE: whether this tree's warpsim runs every
# program as BASE's does: the same output (stdout and stderr: results,
# reports, hangs, summaries) and the same exit status, case by case.
#
# BASE's warpsim, its test programs, its corpus and the lessons' emulator
# programs are built in a temporary git worktree under build/ (removed
# afterwards), this tree's the same way in place, with the same compiler.
# Then each case runs under lockstep, its (orders forward, reverse and
# alternate) and random (seeds 1 and 2) in both trees:
#
#   corpus/*.cu         each kernel, with corpus/run.sh's hang bounds
#   tests/detect.cu     each case (-k 1..N), and again drawing a picture
#                       (WARPSIM_TRACE; the SVG is compared too)
#   tests/prims.cu      every primitive case
#   tests/bench.cu      2 blocks, with WARPSIM_STATS=1 (accesses and steps;
#                       the time and the rate are left out), and drawn
#   lessons/*/          each program `make -C lessons/NN emu` builds, each
#                       variant (-k 1..N) at -n 64K, with and without -j 200,
#                       and drawn (warp 0 of block 0) with -j 200
#
# Addresses in segmentation-fault reports ("touches address 0x...") may
# differ; nothing else may.
#
#   -j N        runs at a time (default: the number of CPUs)
#   -o DIR      keep every run's output in DIR/base and DIR/this
#   -h, --help  this text
#
# Environment: WS_CC, the compiler (default cc). Exit status: 0 every case
# the same, 1 a case differs (each is named, with the start of its diff),
# 2 bad usage or a build that failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
keep=''
base=''

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}
die() {
    echo "same-reports.sh: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    -j) [ $# -ge 2 ] || die "-j needs a number"
        case $2 in '' | *[!0-9]* | 0*) die "-j needs a positive number, not '$2'" ;; esac
        jobs=$2; shift ;;
    -o) [ $# -ge 2 ] || die "-o needs a folder"; keep=$2; shift ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) [ -z "$base" ] || die "one base commit only (try --help)"; base=$1 ;;
    esac
    shift
done
[ -n "$base" ] || die "usage: same-reports.sh [options] BASE (try --help)"
sha=$(git -C "$here" rev-parse --verify --quiet "$base^{commit}") ||
    die "'$base' is no commit of this repository"
cc=${WS_CC:-cc}
export WS_CC=$cc
for v in $(compgen -e | grep '^WARPSIM_'); do
    unset "$v"              # each case sets its own
done

work=$(mktemp -d "${TMPDIR:-/tmp}/same-reports.XXXXXX") || die "no temporary folder"
mkdir -p "$here/build"
wt=$(mktemp -d "$here/build/same-reports.XXXXXX") || die "no temporary worktree folder"
# shellcheck disable=SC2317
cleanup() {
    git -C "$here" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
    git -C "$here" worktree prune >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

# build ROOT NAME: warpsim, its tests and corpus, and every lesson's
# emulator programs in the tree at ROOT; exits 2 when a build fails.
build() {
    local root=$1 log=$work/build-$2.log d
    { make --no-print-directory -s -j"$jobs" -C "$root/warpsim" all &&
      make --no-print-directory -s -j"$jobs" -C "$root/warpsim" tests corpus; } >"$log" 2>&1 ||
        { tail -n 5 "$log" >&2; die "$2: warpsim did not build (WS_CC=$cc)"; }
    for d in "$root"/lessons/[0-9]*/; do
        [ -f "$d/Makefile" ] || continue
        make --no-print-directory -s -C "$d" emu >>"$log" 2>&1 ||
            { tail -n 5 "$log" >&2; die "$2: $(basename "$d")'s emulator programs did not build"; }
    done
}

echo "same-reports.sh: building $(git -C "$here" rev-parse --short "$sha") in ${wt#"$top"/} and this tree"
git -C "$here" worktree add --quiet --detach "$wt" "$sha" >"$work/worktree.log" 2>&1 ||
    die "no worktree for $base: $(tail -n 1 "$work/worktree.log")"
build "$wt" base
build "$top" this

# The cases, one per line: NAME<TAB>ENVIRONMENT<TAB>COMMAND (paths from the
# tree's top; @SVG@ in the environment stands for the case's picture).
models=("lockstep:WARPSIM_MODEL=lockstep"
        "its:WARPSIM_MODEL=its"
        "its-reverse:WARPSIM_MODEL=its WARPSIM_ORDER=reverse"
        "its-alternate:WARPSIM_MODEL=its WARPSIM_ORDER=alternate"
        "random-1:WARPSIM_MODEL=random WARPSIM_SEED=1"
        "random-2:WARPSIM_MODEL=random WARPSIM_SEED=2")
# variants PROGRAM: the largest -k its --help names (1 when it has none).
variants() {
    "$1" --help 2>/dev/null | sed -n 's/.*-k, --variant K.*(1\.\.\([0-9]*\),.*/\1/p' | head -n 1
}
cases() {
    local m name env f k p d n prog
    for m in "${models[@]}"; do
        name=${m%%:*} env=${m#*:}
        for f in "$wt"/warpsim/corpus/*.cu; do
            n=$(basename "$f" .cu)
            printf 'corpus-%s-%s\t%s WARPSIM_SPIN_LIMIT=100000 WARPSIM_STEP_LIMIT=20000\twarpsim/build/corpus/%s\n' \
                "$n" "$name" "$env" "$n"
        done
        n=$(variants "$wt/warpsim/build/tests/detect")
        for ((k = 1; k <= ${n:-1}; k++)); do
            printf 'detect-%d-%s\t%s\twarpsim/build/tests/detect -k %d\n' "$k" "$name" "$env" "$k"
            printf 'detect-%d-trace-%s\t%s WARPSIM_TRACE=@SVG@\twarpsim/build/tests/detect -k %d\n' \
                "$k" "$name" "$env" "$k"
        done
        printf 'prims-%s\t%s\twarpsim/build/tests/prims\n' "$name" "$env"
        printf 'bench-%s\t%s WARPSIM_STATS=1\twarpsim/build/tests/bench -n 2 -r 16\n' "$name" "$env"
        printf 'bench-trace-%s\t%s WARPSIM_STATS=1 WARPSIM_TRACE=@SVG@\twarpsim/build/tests/bench -n 2 -r 16\n' \
            "$name" "$env"
        for d in "$wt"/lessons/[0-9]*/; do      # what make emu built there
            for prog in "$d"build/emu/*; do
                if [ ! -f "$prog" ] || [ ! -x "$prog" ]; then
                    continue
                fi
                p=${prog#"$wt"/}
                n=$(variants "$prog")
                for ((k = 1; k <= ${n:-1}; k++)); do
                    printf 'lesson-%s-%s-k%d-%s\t%s\t%s -n 64K -k %d\n' "$(basename "$d")" \
                        "$(basename "$prog")" "$k" "$name" "$env" "$p" "$k"
                    printf 'lesson-%s-%s-k%d-j200-%s\t%s\t%s -n 64K -k %d -j 200\n' "$(basename "$d")" \
                        "$(basename "$prog")" "$k" "$name" "$env" "$p" "$k"
                    printf 'lesson-%s-%s-k%d-j200-trace-%s\t%s WARPSIM_TRACE=@SVG@\t%s -n 64K -k %d -j 200\n' \
                        "$(basename "$d")" "$(basename "$prog")" "$k" "$name" "$env" "$p" "$k"
                done
            done
        done
    done
}
cases >"$work/cases"
mkdir -p "$work/base" "$work/this"

# run_case SIDE ROOT NAME ENVIRONMENT COMMAND: one run; its output, with
# fault addresses masked, its exit status and its picture, in SIDE/NAME.
# shellcheck disable=SC2317
run_case() {
    local side=$1 root=$2 name=$3 env=$4 cmd=$5 out rc
    out=$work/$side/$name
    env=${env//@SVG@/$out.svg}
    # shellcheck disable=SC2086
    (cd "$root" && env $env timeout 120 $cmd) >"$out.raw" 2>&1
    rc=$?
    sed -e 's/touches address 0x[0-9a-f]*/touches address ADDRESS/' \
        -e 's/ in [0-9.]* s: [0-9.]* M accesses\/s$//' "$out.raw" >"$out"
    rm -f "$out.raw"
    echo "exit status $rc" >>"$out"
    [ "$rc" != 124 ] || echo "(timed out)" >>"$out"
    if [ -f "$out.svg" ]; then
        cat "$out.svg" >>"$out"
        rm -f "$out.svg"
    fi
}
export -f run_case
export work

total=$(wc -l <"$work/cases")
echo "same-reports.sh: $total cases, each run by both builds, $jobs at a time"
while IFS=$'\t' read -r name env cmd; do
    printf '%s\0%s\0%s\0%s\0%s\0' base "$wt" "$name" "$env" "$cmd"
    printf '%s\0%s\0%s\0%s\0%s\0' this "$top" "$name" "$env" "$cmd"
done <"$work/cases" | xargs -0 -n 5 -P "$jobs" bash -c 'run_case "$@"' run_case

differ=0
while IFS=$'\t' read -r name env cmd; do
    if ! cmp -s "$work/base/$name" "$work/this/$name" ||
        grep -q '^(timed out)$' "$work/base/$name" "$work/this/$name"; then
        differ=$((differ + 1))
        echo "differs: $name ($env $cmd)"
        diff "$work/base/$name" "$work/this/$name" | head -n 8 | sed 's/^/    /'
    fi
done <"$work/cases"
if [ -n "$keep" ]; then
    mkdir -p "$keep" && cp -r "$work/base" "$work/this" "$keep"/ && echo "same-reports.sh: outputs kept in $keep"
fi
if [ "$differ" -gt 0 ]; then
    echo "same-reports.sh: $differ of $total cases differ from $(git -C "$here" rev-parse --short "$sha")"
    exit 1
fi
echo "same-reports.sh: all $total cases the same as $(git -C "$here" rev-parse --short "$sha")'s"
exit 0
