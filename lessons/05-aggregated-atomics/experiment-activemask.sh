#!/usr/bin/env bash
# experiment-activemask.sh: how often do the programs of this lesson, built
# by this toolkit, lose or double slots when lanes are delayed? (GPU only;
# about a minute.)
#
# sync.cu and cg.cu variant 2 are the opportunistic form (the group is
# whoever __activemask() or cg::coalesced_threads() finds here): correct
# code, which the programming model allows. With CUDA 13.0 it lost slots on
# an H200 and an H100 once lanes were delayed: ptxas treats popc(mask) as
# the same in every lane that reaches the leader's atomicAdd together, which
# independent thread scheduling does not promise (a compiler bug:
# investigation/README.md reduces it step by step). Variant 1, whose group
# is named before the branch, is the control. Every run is judged by
# build/verify; the script prints, for each program and sleeper pattern,
# the runs with any slot lost or written twice.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 2
make -s build/legacy build/sync build/cg build/verify || exit 2
nvidia-smi -L >/dev/null 2>&1 || { echo "experiment-activemask.sh: no GPU found"; exit 77; }
nvcc --version | tail -n 1

runs() {
    local label=$1; shift
    local line="" spec n seeds s wrong
    for spec in "3000017 6" "1000 10" "32 30" "5000 10"; do
        read -r n seeds <<<"$spec"
        wrong=0
        for s in $(seq 1 "$seeds"); do
            build/verify "$@" -n "$n" -j 200 -s "$s" | grep -q '^result: ok' || wrong=$((wrong + 1))
        done
        line="$line n=$n: $wrong of $seeds;"
    done
    printf '%-52s %s\n' "$label" "$line"
}

echo "runs with lost or doubled slots, the --sleepers lanes 200 ns late at each delay point:"
for sleepers in odd leader random; do
    runs "sync -k 2 (__activemask()), $sleepers" build/sync -k 2 --sleepers "$sleepers"
    runs "cg -k 2 (coalesced_threads()), $sleepers" build/cg -k 2 --sleepers "$sleepers"
    runs "sync -k 1 (ballot before the branch), $sleepers" build/sync -k 1 --sleepers "$sleepers"
    runs "cg -k 1 (binary_partition), $sleepers" build/cg -k 1 --sleepers "$sleepers"
done
