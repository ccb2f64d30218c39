#!/usr/bin/env bash
# corpus/run.sh - runs warpsim's corpus under every scheduling model and
# checks each kernel's verdict against the one its source expects.
#
#   corpus/run.sh [--help] [-v] [-j N] [NAME...]
#
# Runs each built program build/corpus/NAME (make -C warpsim corpus builds
# them) under lockstep, its (forward and reverse order) and random (seeds 1
# and 2), with small hang bounds so that hangs and livelocks end fast, N
# kernels at a time (default 2), and prints one line per kernel: its name,
# the expected verdict and what each run gave. A verdict is right when it has the expected one and nothing
# beyond it and the file's `// also:` line (lib.sh lists the verdicts).
# Exit status: 0 when every run of every kernel was right, 1 when one was
# not, 2 for bad usage or a program that is not built.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=${CORPUS_BUILD:-$here/../build/corpus}
verbose=0

jobs=2

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

names=()
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage; exit 0 ;;
    -v) verbose=1 ;;
    -j) shift
        case ${1:-} in
        [1-9]|[1-9][0-9]) jobs=$1 ;;
        *) echo "run.sh: -j needs a number from 1 to 99 (try --help)" >&2; exit 2 ;;
        esac ;;
    -*) echo "run.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) names+=("${1%.cu}") ;;
    esac
    shift
done
if [ ${#names[@]} -eq 0 ]; then
    for f in "$here"/*.cu; do
        n=$(basename "$f" .cu)
        names+=("$n")
    done
fi

runs=("lockstep forward 1" "its forward 1" "its reverse 1" "random forward 1" "random forward 2")

# check_one NAME: prints the kernel's line; status 0 when every run was right.
check_one() {
    local n=$1 src=$here/$1.cu prog=$build/$1 also line="" ok=0 r want out status got
    local want_all want_lockstep
    also=$(corpus_also "$src")
    want_all=$(corpus_expect "$src")
    want_lockstep=$(corpus_expect "$src" lockstep)
    for r in "${runs[@]}"; do
        # shellcheck disable=SC2086
        set -- $r
        want=$want_all
        [ "$1" = lockstep ] && want=$want_lockstep
        out=$(WARPSIM_MODEL=$1 WARPSIM_ORDER=$2 WARPSIM_SEED=$3 WARPSIM_SPIN_LIMIT=100000 \
              WARPSIM_STEP_LIMIT=20000 timeout 20 "$prog" 2>&1)
        status=$?
        got=$(warpsim_verdict "$status" "$out")
        if verdict_ok "$want" "$also" "$got"; then
            line="$line, $got"
        else
            line="$line, $got (WRONG: expected $want)"
            ok=1
            [ $verbose = 1 ] && printf '# %s under %s:\n%s\n' "$n" "$r" "$out" | sed '2,$s/^/#   /'
        fi
    done
    printf '%-34s %-11s %s\n' "$n" "$want_all" "${line#, }"
    return $ok
}

for n in "${names[@]}"; do
    if [ ! -f "$here/$n.cu" ] || [ ! -x "$build/$n" ]; then
        echo "run.sh: no corpus program $n (run make -C warpsim corpus)" >&2
        exit 2
    fi
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
printf '%-34s %-11s %s\n' kernel expected "warpsim (lockstep, its, its reverse, random 1, random 2)"
i=0
for n in "${names[@]}"; do
    { check_one "$n" >"$tmp/$n.line"; echo $? >"$tmp/$n.status"; } &
    i=$((i + 1))
    [ $((i % jobs)) = 0 ] && wait
done
wait
bad=0
for n in "${names[@]}"; do
    cat "$tmp/$n.line"
    [ "$(cat "$tmp/$n.status")" = 0 ] || bad=$((bad + 1))
done
echo "$((${#names[@]} - bad)) of ${#names[@]} kernels right under every model"
[ $bad = 0 ]
