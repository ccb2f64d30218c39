#!/usr/bin/env bash
# docs/pictures.sh - draws every demonstration in docs/pictures.list from
# real runs on warpsim, the CPU emulator, into docs/_build/pictures/:
#
#   LESSON-NAME.svg       legacy under lockstep (left) beside legacy under its
#   LESSON-NAME.sync.svg  sync, the fixed version, under its
#
# Each is warp 0 of block 0 in the program's first launch (warpsim --trace;
# warpsim/README.md, "Pictures of a run"). The lessons' warpsim programs are
# built first (make -C lessons/LESSON emu).
#
# usage: docs/pictures.sh [-o DIR] [-l LIST] [LESSON...]
#   -o DIR    where the pictures go (default docs/_build/pictures)
#   -l LIST   the list (default docs/pictures.list)
#   LESSON    only these lessons (folder names, or their numbers: 01 03)
# Prints one line per picture; a demonstration whose program is missing, or
# that draws no picture, is one "pictures.sh: ..." line on stderr.
# Exit status: 0 every picture drawn, 1 some were not, 2 bad usage.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/docs/_build/pictures
list=$top/docs/pictures.list
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
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

built=" " failed=0 n=0
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    IFS='|' read -r lesson name args title <<<"$line"
    lesson=$(trim "$lesson") name=$(trim "$name") args=$(trim "$args") title=$(trim "$title")
    if [ -z "$lesson" ] || [ -z "$name" ] || [ -z "$title" ]; then
        echo "pictures.sh: $list: a line needs LESSON | NAME | ARGUMENTS | TITLE: $line" >&2
        exit 2
    fi
    wanted "$lesson" || continue
    dir=$top/lessons/$lesson
    if [ "${built#* "$lesson" }" = "$built" ]; then
        make -s --no-print-directory -C "$dir" emu >/dev/null 2>&1 ||
            echo "pictures.sh: make -C lessons/$lesson emu failed" >&2
        built="$built$lesson "
    fi
    for prog in legacy sync; do
        bin=$dir/build/emu/$prog
        # shellcheck disable=SC2054   # lockstep,its is one argument
        if [ "$prog" = legacy ]; then
            svg=$out/$lesson-$name.svg models=(--trace-models lockstep,its)
        else
            svg=$out/$lesson-$name.sync.svg models=(--model its)
        fi
        rm -f "$svg"
        if [ ! -x "$bin" ]; then
            echo "pictures.sh: $lesson $name: no $bin" >&2
            failed=$((failed + 1))
            continue
        fi
        # The programs' own verdicts and warpsim's reports are the lesson's
        # business: wrong results, races and hangs are what is drawn.
        # shellcheck disable=SC2086   # args holds several words
        timeout 120 "$ws" --spin-limit 200000 --trace "$svg" "${models[@]}" "$bin" $args \
            >/dev/null 2>&1
        if [ -s "$svg" ] && grep -q '</svg>' "$svg"; then
            if [ "$prog" = legacy ]; then
                echo "$(basename "$svg"): $title (legacy.cu: lockstep | its)"
            else
                echo "$(basename "$svg"): $title (sync.cu, the fix, under its)"
            fi
            n=$((n + 1))
        else
            echo "pictures.sh: $lesson $name: $prog $args drew no picture" >&2
            failed=$((failed + 1))
        fi
    done
done <"$list"
if [ "$failed" -eq 0 ]; then
    echo "pictures.sh: $n pictures in $out"
else
    echo "pictures.sh: $n pictures in $out, $failed not drawn"
fi
[ "$failed" -eq 0 ]
