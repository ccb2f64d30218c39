#!/usr/bin/env bash
# docs/pictures.sh - draws every demonstration in docs/pictures.list from
# real runs on warpsim, the CPU emulator, into docs/_build/pictures/:
#
#   LESSON-NAME.svg        legacy under lockstep (left) beside legacy under its
#   LESSON-NAME.sync.svg   sync, the fixed version, under its
# and from those, with docs/trace_svg.py (nothing redrawn):
#   LESSON-NAME.lockstep.svg, LESSON-NAME.its.svg, LESSON-NAME.fix.svg
#                          the same three runs each alone, without the
#                          legend (the site's page shows one as text), for
#                          a row of pictures that wraps on a phone
#   LESSON-NAME.print.svg  legacy under its cut to the rows around its first
#                          race (or a collective that LOOK names), its text
#                          enlarged, for the A4 handout: where it has races,
#                          from a third run drawn with at most 220 px of rows
#                          (WARPSIM_TRACE_HEIGHT), which keeps the rows
#                          around the races first
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
# a caption (LOOK, FIX) that names a file:line, a "race N" or a 0x........
# mask that the picture it describes does not show.
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

# shows SVG CAPTION WHAT: whether the picture holds what its caption names:
# each FILE.cu:LINE, each "race N" and each "0x" mask of the caption must be
# in its text; if not, one line on stderr and status 1.
shows() {
    local word bad=0 text
    text=$(sed 's/<[^>]*>/ /g' "$1")
    while IFS= read -r word; do
        [ -n "$word" ] || continue
        grep -qF -- "$word" <<<"$text" && continue
        echo "pictures.sh: $3 names '$word', which $(basename "$1") does not show" >&2
        bad=1
    done < <(grep -oE '[A-Za-z0-9_]+\.cu:[0-9]+|race [0-9]+|0x[0-9a-f]{8}' <<<"$2")
    return "$bad"
}

# draw LESSON NAME ARGS TITLE STEPS LOOK FIX: the pictures of one line of
# the list; prints a line per picture drawn, and last "counts N NP FAILED".
draw() {
    local lesson=$1 name=$2 args=$3 title=$4 steps=$5 look=$6 fix=$7
    local dir=$top/lessons/$1 prog bin svg n=0 np=0 failed=0
    local -a models
    for prog in legacy sync print; do
        bin=$dir/build/emu/${prog/print/legacy}
        # shellcheck disable=SC2054   # lockstep,its is one argument
        case $prog in
            legacy) svg=$out/$lesson-$name.svg models=(--trace-models lockstep,its) ;;
            sync) svg=$out/$lesson-$name.sync.svg models=(--model its) ;;
            print) svg=$out/.$lesson-$name.short.svg models=(--model its) ;;
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
        WARPSIM_TRACE_HEIGHT=$([ "$prog" = print ] && echo 220) \
            timeout 120 "$ws" --spin-limit 200000 --trace "$svg" --trace-steps "${steps:-400}" \
            "${models[@]}" "$bin" $args >/dev/null 2>&1
        if [ -s "$svg" ] && grep -q '</svg>' "$svg"; then
            case $prog in
                legacy) echo "$(basename "$svg"): $title (legacy.cu: lockstep | its)"
                        n=$((n + 1)) ;;
                sync) echo "$(basename "$svg"): $title (sync.cu, the fix, under its)"
                      n=$((n + 1)) ;;
                print) if python3 "$top/docs/trace_svg.py" split "$out/$lesson-$name.svg" \
                              "$out/$lesson-$name.lockstep.svg" "$out/$lesson-$name.its.svg" &&
                          python3 "$top/docs/trace_svg.py" panel "$out/$lesson-$name.sync.svg" \
                              "$out/$lesson-$name.fix.svg" &&
                          python3 "$top/docs/trace_svg.py" print "$out/$lesson-$name.svg" "$svg" \
                              "$out/$lesson-$name.print.svg" --look "$look"; then
                           echo "$lesson-$name.{lockstep,its,fix,print}.svg: $title (each run alone; the handout's)"
                           np=$((np + 1))
                       else
                           echo "pictures.sh: $lesson $name: docs/trace_svg.py could not cut the pictures" >&2
                           failed=$((failed + 1))
                       fi
                       rm -f "$svg" ;;
            esac
        else
            echo "pictures.sh: $lesson $name: $prog $args drew no picture" >&2
            failed=$((failed + 1))
            continue
        fi
        case $prog in
            legacy) shows "$svg" "$look" "$lesson $name: LOOK" || failed=$((failed + 1)) ;;
            sync) shows "$svg" "$fix" "$lesson $name: FIX" || failed=$((failed + 1)) ;;
        esac
    done
    echo "counts $n $np $failed"
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
    IFS='|' read -r lesson name args title steps look fix <<<"$line"
    lesson=$(trim "$lesson") name=$(trim "$name") args=$(trim "$args") title=$(trim "$title")
    steps=$(trim "${steps-}") look=$(trim "${look-}") fix=$(trim "${fix-}")
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
    draw "$lesson" "$name" "$args" "$title" "$steps" "$look" "$fix" >"$tmp/$k.out" 2>"$tmp/$k.err" &
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
    echo "pictures.sh: $n pictures in $out, and $np for the handouts"
else
    echo "pictures.sh: $n pictures in $out, and $np for the handouts; $failed not drawn or not as captioned"
fi
[ "$failed" -eq 0 ]
