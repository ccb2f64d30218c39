#!/usr/bin/env bash
# cross-check.sh [ARCH] - warpsim built for another processor (default
# aarch64: the arm64 of Apple silicon and of ARM Linux machines) and run
# under qemu-user, checked against the native build:
#
#   1. the library and the driver, built by ARCH-linux-gnu-gcc, and the
#      test programs (C++) by ARCH-linux-gnu-g++, into build/ARCH;
#   2. tests/prims, tests/cxx and every case of tests/detect and
#      tests/device (but the abort in host code of device -k 14) under
#      lockstep, its and random: the same output and exit status as the
#      native programs;
#   3. the corpus, when there is one: corpus/run.sh on the ARCH programs;
#   4. lessons 01 and 03: their own checkers (make check EMU=1) on the
#      ARCH programs.
#
# The ARCH programs run through small scripts that exec qemu, so that the
# checkers need no change. `cross-check.sh clang` does the same with clang
# on this machine (build/clang, no qemu) against the native gcc build,
# variable names included (the reports name clang's "function.s" and gcc's
# "s.N" both s).
#
# Settings (environment): CROSS_CC (ARCH-linux-gnu-gcc; clang), CROSS_CXX
# (ARCH-linux-gnu-g++; clang++), QEMU
# (qemu-ARCH; none: run directly), QEMU_LD_PREFIX (/usr/ARCH-linux-gnu),
# LESSONS (folder names under lessons/), CORPUS=0 to leave the corpus out,
# CROSS_JOBS (runs of step 2 at a time; default: the number of CPUs).
# Exit status: 0 everything as expected, 1 a difference or a failed check,
# 2 bad usage or a failed build, 77 no cross compiler or no qemu (Debian:
# gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
# qemu-user).
set -u
case ${1:-} in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
esac
arch=${1:-aarch64}
case $arch in
    *[!a-z0-9_]*|'') echo "cross-check.sh: bad ARCH '$arch'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
if [ "$arch" = clang ]; then
    cc=${CROSS_CC:-clang} cxx=${CROSS_CXX:-clang++} qemu=${QEMU:-none}
else
    cc=${CROSS_CC:-$arch-linux-gnu-gcc} cxx=${CROSS_CXX:-$arch-linux-gnu-g++} qemu=${QEMU:-qemu-$arch}
fi
sysroot=${QEMU_LD_PREFIX:-/usr/$arch-linux-gnu}
lessons=${LESSONS:-01-shfl-reduction 03-syncwarp-races}
tools=("$cc" "$cxx")
[ "$qemu" = none ] || tools+=("$qemu")
for t in "${tools[@]}"; do
    if ! command -v "$t" >/dev/null 2>&1; then
        echo "cross-check.sh: $t not found (Debian: apt-get install gcc-$arch-linux-gnu" \
             "g++-$arch-linux-gnu libc6-dev-${arch/aarch64/arm64}-cross qemu-user)" >&2
        exit 77
    fi
done

B=build/$arch
bad=0
say() { printf '%s\n' "$*"; }
fail() { printf 'not ok: %s\n' "$*"; bad=1; }

# wrap DIR PROG...: DIR/NAME runs PROG under qemu (or directly), for each.
wrap() {
    local dir=$1 p
    shift
    mkdir -p "$dir"
    for p in "$@"; do
        if [ "$qemu" = none ]; then
            printf '#!/bin/sh\nexec %s "$@"\n' "$p"
        else
            printf '#!/bin/sh\nexec %s -L %s %s "$@"\n' "$qemu" "$sysroot" "$p"
        fi >"$dir/$(basename "$p")"
        chmod +x "$dir/$(basename "$p")"
    done
}


say "# building warpsim natively and for $arch ($cc)"
make -s --no-print-directory -C "$here" all tests >/dev/null || exit 2
make -s --no-print-directory -C "$here" WS_CC="$cc" WS_CXX="$cxx" WS_B="$B" all tests >/dev/null || exit 2
file_out=$(od -An -tx1 -j18 -N2 "$here/$B/tests/prims" | tr -d ' ')
[ "$file_out" = b700 ] || [ "$arch" != aarch64 ] || { fail "$B/tests/prims is not an aarch64 program"; exit 1; }
wrap "$here/$B/run" "$here/$B/warpsim" "$here/$B/tests/prims" "$here/$B/tests/detect" \
    "$here/$B/tests/cxx" "$here/$B/tests/device"

# same NAME -- ENV... -- ARGS...: runs the native and the $arch program
# with the same settings; both outputs and exit statuses must match.
same() {
    local name=$1 envs=() n_out x_out n_rc x_rc
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    n_out=$(env "${envs[@]}" timeout 60 "$here/build/tests/$name" "$@" 2>&1); n_rc=$?
    x_out=$(env "${envs[@]}" timeout 120 "$here/$B/run/$name" "$@" 2>&1); x_rc=$?
    if [ "$n_out" != "$x_out" ] || [ $n_rc -ne $x_rc ]; then
        fail "$name $* (${envs[*]}): native exit $n_rc, $arch exit $x_rc"
        diff <(printf '%s\n' "$n_out") <(printf '%s\n' "$x_out") | head -n 10 | sed 's/^/#   /'
        return 1
    fi
    return 0
}

say "# the primitives, the device API and the detector cases, native and $arch, every model"
ncases=$("$here/build/tests/detect" --help | sed -n 's/.*which case (1\.\.\([0-9]*\).*/\1/p')
[ -n "$ncases" ] || { echo "cross-check.sh: cannot read the number of detect cases" >&2; exit 2; }
ndevice=$("$here/build/tests/device" --help | grep -cE '^ +[0-9]+  ')
# device -k 14 aborts in host code, which qemu says in a line of its own.
devices=$(seq 1 "$ndevice" | grep -vx 14 | sed 's/^/d/')
# The runs are independent: CROSS_JOBS (default: the number of CPUs) at a
# time, each writing what `same` says to its own file, read back in order.
jobs=${CROSS_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
case $jobs in ''|*[!0-9]*|0) jobs=2 ;; esac
results=$(mktemp -d) || exit 2
trap 'rm -rf "$results"' EXIT
n=0
for model in lockstep its random; do
    envs=("WARPSIM_MODEL=$model" WARPSIM_SPIN_LIMIT=100000)
    for k in prims cxx $(seq 1 "$ncases") $devices; do
        n=$((n + 1))
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
            wait -n
        done
        case $k in
        prims|cxx) { same "$k" -- "${envs[@]}" -- && echo ok; } >"$results/$n" 2>&1 & ;;
        d*) { same device -- "${envs[@]}" -- -k "${k#d}" && echo ok; } >"$results/$n" 2>&1 & ;;
        *) { same detect -- "${envs[@]}" -- -k "$k" && echo ok; } >"$results/$n" 2>&1 & ;;
        esac
    done
done
wait
ok=0
for i in $(seq 1 "$n"); do
    if [ "$(tail -n 1 "$results/$i")" = ok ]; then
        ok=$((ok + 1))
    else
        cat "$results/$i"
    fi
done
say "ok: $ok of $n runs of prims, cxx, detect and device gave the same output on $arch as natively"
[ $ok -eq $n ] || bad=1

if [ "${CORPUS:-1}" != 0 ] && [ -x "$here/corpus/run.sh" ]; then
    say "# the corpus on $arch"
    if make -s --no-print-directory -C "$here" WS_CC="$cc" WS_CXX="$cxx" WS_B="$B" corpus >/dev/null; then
        wrap "$here/$B/corpus-run" "$here/$B"/corpus/*
        if CORPUS_BUILD="$here/$B/corpus-run" "$here/corpus/run.sh" >"$here/$B/corpus.log" 2>&1; then
            say "ok: the corpus on $arch ($(grep -c . "$here/$B/corpus.log") lines in $B/corpus.log)"
        else
            fail "the corpus on $arch (see $B/corpus.log)"
            { grep WRONG "$here/$B/corpus.log" || tail -n 3 "$here/$B/corpus.log"; } |
                head -n 5 | sed 's/^/#   /'
        fi
    else
        fail "building the corpus for $arch"
    fi
fi

# A lesson's programs for $arch, built by its own Makefile into
# build/emu-$arch-bin; build/emu-$arch holds scripts that run them under
# qemu, and the harness object they were linked with, made newer than
# everything they depend on (after a dry run has written the native flags
# stamp there), so that `make check EMU=1` takes them as built and runs
# the lesson's own checker on them, with the native library and driver.
for l in $lessons; do
    d=$top/lessons/$l
    [ -d "$d" ] || { fail "no lesson $l"; continue; }
    say "# lesson $l on $arch"
    if ! make -s --no-print-directory -C "$d" emu WS_CC="$cc" WS_CXX="$cxx" WS_B="$B" \
            EMU_BUILD="build/emu-$arch-bin" >/dev/null; then
        fail "building lesson $l for $arch"
        continue
    fi
    progs=()
    for p in "$d/build/emu-$arch-bin"/*; do
        [ -f "$p" ] && [ -x "$p" ] && progs+=("$p")
    done
    make -s --no-print-directory -C "$d" -n check EMU=1 EMU_BUILD="build/emu-$arch" >/dev/null 2>&1
    sleep 1
    mkdir -p "$d/build/emu-$arch"
    [ ! -f "$d/build/emu-$arch-bin/harness.o" ] ||
        cp "$d/build/emu-$arch-bin/harness.o" "$d/build/emu-$arch/harness.o"
    wrap "$d/build/emu-$arch" "${progs[@]}"
    out=$(make --no-print-directory -C "$d" check EMU=1 EMU_BUILD="build/emu-$arch" 2>&1)
    rc=$?
    if ! grep -q "emu-$arch-bin" "$d/build/emu-$arch/sync" 2>/dev/null; then
        fail "make check rebuilt lesson $l's programs natively instead of running the $arch ones"
        continue
    fi
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
    if [ $rc -eq 0 ] && [ -n "$summary" ]; then
        say "ok: lesson $l's checker on $arch: $summary"
    else
        fail "lesson $l's checker on $arch (exit $rc): ${summary:-no summary}"
        grep -E '^not ok' <<<"$out" | head -n 5 | sed 's/^/#   /'
    fi
done

if [ $bad -eq 0 ]; then
    say "cross-check: $arch as native"
else
    say "cross-check: $arch differs (above)"
fi
exit $bad
