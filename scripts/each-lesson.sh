#!/usr/bin/env bash
# each-lesson.sh TARGET LESSON_DIR...: runs `make TARGET` in every lesson,
# going on past failures; ends with one line per lesson and a total.
# Exit status 1 if any lesson failed; a skipped check (no GPU) is no failure.
#
# `make check` runs LESSON_JOBS lessons at a time (default: on warpsim, no
# GPU or EMU=1, one per core; on the GPU 1), each lesson's output shown
# whole, in order, as it ends; each lesson runs its expectations CHECK_JOBS
# at a time (default: the cores, twice over on warpsim, shared among the
# lessons running, at least 2). On the GPU the runs whose results depend on timing still have
# it alone (scripts/checklib.sh: a lock), so that their delays are not
# disturbed: with several lessons at a time they wait for each other's
# shared runs, which measured slower than one lesson at a time (H100, 16
# CPUs). On the GPU every lesson's programs start building at once, side
# by side, and each lesson's check starts as soon as its own build has
# ended (nvcc is most of a lesson's time from a clean folder). The other
# targets run one lesson at a time. Each lesson's line at the end says how
# long its make took (its check, where its build ran before), the last
# line the whole.
set -u
# A make -j at the top that runs this script passes its jobserver in
# MAKEFLAGS, but not the jobserver's file descriptors (its recipe is no
# recursive make): the lessons' makes would each warn "jobserver
# unavailable". They get the -j without it (mk/lesson.mk forces no -j of
# its own then).
MAKEFLAGS=$(printf '%s' "${MAKEFLAGS-}" | sed -E 's/(^| )--jobserver-(auth|fds)=[^ ]*//g')
export MAKEFLAGS
target=${1:?usage: each-lesson.sh TARGET LESSON_DIR...}
shift
make=${MAKE:-make}
lines=()
passed=0 failed=0 skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

jobs=1
cores=$(nproc 2>/dev/null || echo 1)
slots=$((2 * cores))     # warpsim's runs wait on nothing but the CPU
begin=$SECONDS
prebuild=
if [ "$target" = check ]; then
    if [ "${EMU:-}" = 1 ] || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        jobs=${LESSON_JOBS:-$cores}
        case "$jobs" in ''|*[!0-9]*|0) echo "each-lesson.sh: LESSON_JOBS=$jobs: a count of lessons, 1 or more" >&2; exit 2 ;; esac
        # warpsim first, once: the lessons' makes then find it built
        [ "$jobs" -eq 1 ] || [ $# -lt 2 ] || "$make" -s --no-print-directory -j"$cores" -C "$(dirname "$0")/../warpsim" >/dev/null 2>&1
    elif [ "${CHECK_JOBS:-}" != 1 ]; then
        prebuild=1
        jobs=${LESSON_JOBS:-1}
        slots=$cores     # a GPU program's run: a process and a GPU context each
        case "$jobs" in ''|*[!0-9]*|0) echo "each-lesson.sh: LESSON_JOBS=$jobs: a count of lessons, 1 or more" >&2; exit 2 ;; esac
    fi
    [ "$jobs" -le $# ] || jobs=$#
    [ "$jobs" -ge 1 ] || jobs=1
    if [ -z "${CHECK_JOBS:-}" ]; then
        CHECK_JOBS=$(( (slots + jobs - 1) / jobs ))
        [ "$CHECK_JOBS" -ge 2 ] || CHECK_JOBS=2
        export CHECK_JOBS
    fi
fi

# start I: runs lesson I's make in the background, its output in its log.
pids=()
began=()
start() {
    local dir=${dirs[$1]}
    [ -z "${builds[$1]:-}" ] || wait "${builds[$1]}"
    began[$1]=$SECONDS
    "$make" --no-print-directory -C "$dir" "$target" >"$tmp/$1.log" 2>&1 &
    pids[$1]=$!
}

dirs=("$@")
n=${#dirs[@]}
i=0
builds=()
if [ -n "$prebuild" ] && [ "$n" -gt 1 ]; then
    # A build that fails here fails again, with its errors shown, in its check.
    printf '# building every lesson'"'"'s programs, side by side; each lesson is checked once its own are built\n'
    for ((k = 0; k < n; k++)); do
        "$make" -s --no-print-directory -C "${dirs[$k]}" all build/verify >"$tmp/build$k.log" 2>&1 &
        builds[k]=$!
    done
fi
if [ "$jobs" -gt 1 ]; then
    while [ "$i" -lt "$n" ] && [ "$i" -lt "$jobs" ]; do start "$i"; i=$((i + 1)); done
fi
for ((k = 0; k < n; k++)); do
    dir=${dirs[$k]}
    name=$(basename "$dir")
    printf '\n==== %s: make %s\n' "$name" "$target"
    if [ "$jobs" -gt 1 ]; then
        wait "${pids[$k]}"; rc=$?
        took=$((SECONDS - began[k]))
        cat "$tmp/$k.log"
        if [ "$i" -lt "$n" ]; then start "$i"; i=$((i + 1)); fi
    else
        [ -z "${builds[k]:-}" ] || wait "${builds[k]}"
        began[k]=$SECONDS
        "$make" --no-print-directory -C "$dir" "$target" 2>&1 | tee "$tmp/$k.log"
        rc=${PIPESTATUS[0]}
        took=$((SECONDS - began[k]))
    fi
    last=$(grep -E '^(skipped: |[0-9]+ passed, [0-9]+ failed)' "$tmp/$k.log" | tail -n 1)
    if [ "$rc" -ne 0 ]; then
        failed=$((failed + 1)); lines+=("$name: FAILED${last:+ ($last)} in $took s")
    elif [ "${last#skipped: }" != "$last" ]; then
        skipped=$((skipped + 1)); lines+=("$name: skipped (${last#skipped: }) in $took s")
    else
        passed=$((passed + 1)); lines+=("$name: ok${last:+ ($last)} in $took s")
    fi
done

printf '\n==== make %s, lesson by lesson\n' "$target"
printf '%s\n' "${lines[@]}"
printf 'lessons: %d ok, %d failed, %d skipped in %d s\n' "$passed" "$failed" "$skipped" "$((SECONDS - begin))"
[ "$failed" -eq 0 ]
