#!/usr/bin/env bash
# docs/pictures.sh - draws every demonstration in docs/pictures.list from
# real runs on warpsim, the CPU emulator, into docs/_build/pictures/:
#
#   LESSON-NAME.svg        legacy under lockstep (left) beside legacy under its
#   LESSON-NAME.sync.svg   sync, the fixed version, under its
#                          (the full runs, as warpsim drew them, with the
#                          clock column left out and the legend completed:
#                          docs/trace_svg.py full)
# and from those, with docs/trace_svg.py focus (the site's pictures and the
# handouts'):
#   LESSON-NAME.its.svg, LESSON-NAME.lockstep.svg, LESSON-NAME.fix.svg
#                          each run's focused view: the lanes and rows that
#                          matter (the race's two accesses, the lanes that
#                          waited and where, the collective and its mask),
#                          400 px wide with 14 px text, chosen by what the
#                          list's caption names (and its LANES, if given)
#
# Each run records STEPS lane steps (--trace-steps, the list's fifth field;
# default 400): fewer make a shorter picture where the story is told early.
# Each is warp 0 of block 0 in the program's first launch (warpsim --trace;
# warpsim/README.md, "Pictures of a run"). The lessons' warpsim programs are
# built first (make -C lessons/LESSON emu).
#
# usage: docs/pictures.sh [-o DIR] [-l LIST] [LESSON...]
#   -o DIR    where the pictures go (default docs/_build/pictures)
#   -l LIST   the list (default docs/pictures.list)
#   LESSON    only these lessons (folder names, or their numbers: 01 03)
# The lines are drawn side by side, PICTURE_JOBS at a time (default: the
# number of CPUs); what each prints comes out in the list's order.
# Prints one line per picture; a demonstration whose program is missing, or
# that draws no picture, is one "pictures.sh: ..." line on stderr, and so is
# a caption (ITS, LOCKSTEP, FIX) that names a file:line, a 0x........ mask
# or a lane that its focused view does not show (docs/trace_svg.py check).
# Exit status: 0 all drawn as captioned, 1 some were not, 2 bad usage.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/docs/_build/pictures
list=$top/docs/pictures.list
usage() { sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        -o) [ $# -ge 2 ] || { echo "pictures.sh: -o needs a folder (try --help)" >&2; exit 2; }
            out=$2; shift 2 ;;
        -l) [ $# -ge 2 ] || { echo "pictures.sh: -l needs a file (try --help)" >&2; exit 2; }
            list=$2; shift 2 ;;
        -*) echo "pictures.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ -r "$list" ] || { echo "pictures.sh: cannot read the list $list" >&2; exit 2; }
only=("$@")
mkdir -p "$out" || exit 2
ws=$top/warpsim/build/warpsim

wanted() {
    local o
    [ ${#only[@]} -eq 0 ] && return 0
    for o in "${only[@]}"; do
        [ "$1" = "$o" ] || [ "${1%%-*}" = "$o" ] && return 0
    done
    return 1
}

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

# lanes_for MODEL LANES: the lanes LANES ("its=0,2 fix=0,1,31") gives MODEL.
lanes_for() {
    local w
    for w in $2; do
        [ "${w%%=*}" = "$1" ] && { printf '%s' "${w#*=}"; return; }
    done
}

# draw LESSON NAME ARGS TITLE STEPS ITS LOCKSTEP FIX LANES: the pictures of
# one line of the list; prints a line per picture drawn, and last
# "counts N NF FAILED".
draw() {
    local lesson=$1 name=$2 args=$3 title=$4 steps=$5 its=$6 lock=$7 fix=$8 pick=$9
    local dir=$top/lessons/$1 prog bin svg n=0 nf=0 failed=0 model src caption view lanes
    local -a models
    for prog in legacy sync; do
        bin=$dir/build/emu/$prog
        # shellcheck disable=SC2054   # lockstep,its is one argument
        case $prog in
            legacy) svg=$out/$lesson-$name.svg models=(--trace-models lockstep,its) ;;
            sync) svg=$out/$lesson-$name.sync.svg models=(--model its) ;;
        esac
        rm -f "$svg"
        if [ ! -x "$bin" ]; then
            echo "pictures.sh: $lesson $name: no $bin" >&2
            failed=$((failed + 1))
            continue
        fi
        # The programs' own verdicts and warpsim's reports are the lesson's
        # business: wrong results, races and hangs are what is drawn.
        # shellcheck disable=SC2086   # args holds several words
        timeout 120 "$ws" --spin-limit 200000 --trace "$svg" --trace-steps "${steps:-400}" \
            "${models[@]}" "$bin" $args >/dev/null 2>&1
        if [ -s "$svg" ] && grep -q '</svg>' "$svg"; then
            case $prog in
                legacy) echo "$(basename "$svg"): $title (legacy.cu: lockstep | its)" ;;
                sync) echo "$(basename "$svg"): $title (sync.cu, the fix, under its)" ;;
            esac
            n=$((n + 1))
        else
            echo "pictures.sh: $lesson $name: $prog $args drew no picture" >&2
            failed=$((failed + 1))
        fi
    done
    # the focused views, each checked against its caption; then the full
    # runs without their clock column
    for view in its lockstep fix; do
        case $view in
            its) src=$out/$lesson-$name.svg model=its caption=$its ;;
            lockstep) src=$out/$lesson-$name.svg model=lockstep caption=$lock ;;
            fix) src=$out/$lesson-$name.sync.svg model=its caption=$fix ;;
        esac
        [ -s "$src" ] || continue
        lanes=$(lanes_for "$view" "$pick")
        if python3 "$top/docs/trace_svg.py" focus "$src" "$out/$lesson-$name.$view.svg" \
                --run "$model" --caption "$caption" ${lanes:+--lanes "$lanes"} \
                --label "$([ "$view" = fix ] && echo sync.cu || echo legacy.cu) under $model" &&
           python3 "$top/docs/trace_svg.py" check "$out/$lesson-$name.$view.svg" "$caption" >&2; then
            nf=$((nf + 1))
        else
            echo "pictures.sh: $lesson $name: the $view view is not drawn as captioned (above)" >&2
            failed=$((failed + 1))
        fi
    done
    for svg in "$out/$lesson-$name.svg" "$out/$lesson-$name.sync.svg"; do
        [ -s "$svg" ] || continue
        if python3 "$top/docs/trace_svg.py" full "$svg" "$svg.tmp"; then
            mv "$svg.tmp" "$svg"
        else
            echo "pictures.sh: $lesson $name: docs/trace_svg.py could not read $(basename "$svg")" >&2
            failed=$((failed + 1))
        fi
    done
    echo "$lesson-$name.{its,lockstep,fix}.svg: $title (each run's focused view)"
    echo "counts $n $nf $failed"
}

# The lines are checked and the lessons built first; then each line is
# drawn in the background, PICTURE_JOBS at a time (default: the number of CPUs),
# and what each printed is shown in the list's order.
jobs=${PICTURE_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case "$jobs" in
    ''|*[!0-9]*|0) echo "pictures.sh: PICTURE_JOBS=$jobs: how many lines are drawn at once, a number from 1" >&2
                   exit 2 ;;
esac
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
built=" " failed=0 n=0 np=0 k=0 pids=()
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    IFS='|' read -r lesson name args title steps its lock fix pick <<<"$line"
    lesson=$(trim "$lesson") name=$(trim "$name") args=$(trim "$args") title=$(trim "$title")
    steps=$(trim "${steps-}") its=$(trim "${its-}") lock=$(trim "${lock-}")
    fix=$(trim "${fix-}") pick=$(trim "${pick-}")
    if [ -z "$lesson" ] || [ -z "$name" ] || [ -z "$title" ]; then
        echo "pictures.sh: $list: a line needs LESSON | NAME | ARGUMENTS | TITLE: $line" >&2
        exit 2
    fi
    case "${steps:-400}" in
        *[!0-9]*) echo "pictures.sh: $list: STEPS must be a number of lane steps: $line" >&2
                  exit 2 ;;
    esac
    wanted "$lesson" || continue
    if [ "${built#* "$lesson" }" = "$built" ]; then
        make -s --no-print-directory -C "$top/lessons/$lesson" emu >/dev/null 2>&1 ||
            echo "pictures.sh: make -C lessons/$lesson emu failed" >&2
        built="$built$lesson "
    fi
    k=$((k + 1))
    if [ "${#pids[@]}" -ge "$jobs" ]; then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
    fi
    draw "$lesson" "$name" "$args" "$title" "$steps" "$its" "$lock" "$fix" "$pick" \
        >"$tmp/$k.out" 2>"$tmp/$k.err" &
    pids+=("$!")
done <"$list"
wait
for ((i = 1; i <= k; i++)); do
    grep -v '^counts ' "$tmp/$i.out"
    cat "$tmp/$i.err" >&2
    read -r _ a b c < <(grep '^counts ' "$tmp/$i.out" || echo "counts 0 0 1")
    n=$((n + a)) np=$((np + b)) failed=$((failed + c))
done
if [ "$failed" -eq 0 ]; then
    echo "pictures.sh: $n pictures in $out, and $np focused views"
else
    echo "pictures.sh: $n pictures in $out, and $np focused views; $failed not drawn or not as captioned"
fi
[ "$failed" -eq 0 ]
