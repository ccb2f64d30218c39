#!/usr/bin/env bash
# experiment-activemask.sh: how often does each way of naming the group
# lose slots when the odd lanes come 200 ns late and each group's leader
# sleeps 200 ns before its atomicAdd? (GPU only; about a minute.)
#
# Runs legacy.cu variant 3 (__activemask()) as it is, with __syncwarp(mask)
# before the broadcast, and with the leader not delayed; sync.cu variant 1
# (a ballot before the branch); cg.cu variant 1 (coalesced_threads()) and
# variant 3 (binary_partition before the branch). The two edited copies of
# legacy.cu are made in build/ and differ from it only inside agg_inc_active.
# Prints, for each, the runs with any slot lost or written twice.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 2
make -s build/legacy build/sync build/cg || exit 2
nvidia-smi -L >/dev/null 2>&1 || { echo "experiment-activemask.sh: no GPU found"; exit 77; }

# edit WHAT: legacy.cu with agg_inc_active changed by the awk program WHAT.
edit() {
    awk -v what="$1" '
        /^__device__ unsigned agg_inc_active\(/ { inside = 1 }
        inside && what == "syncwarp" && /base = __shfl_sync\(mask, base, leader\)/ {
            print "    __syncwarp(mask);"
        }
        inside && what == "nodelay" && /jitter_sleep\(jitter, lane == leader\)/ { next }
        { print }
        inside && /^}/ { inside = 0 }' legacy.cu
}
flags=$(sed -n 's/^nvcc //p' build/.nvccflags)
for what in syncwarp nodelay; do
    edit "$what" >"build/legacy-$what.cu"
    cmp -s legacy.cu "build/legacy-$what.cu" && { echo "edit $what changed nothing"; exit 1; }
    # shellcheck disable=SC2086
    nvcc $flags "build/legacy-$what.cu" -o "build/legacy-$what" || exit 2
done

runs() {
    local label=$1; shift
    local line="" spec n seeds s wrong
    for spec in "3000017 6" "1000 10" "32 30" "5000 10"; do
        read -r n seeds <<<"$spec"
        wrong=0
        for s in $(seq 1 "$seeds"); do
            "$@" -n "$n" -j 200 -s "$s" | grep -q '^result: ok' || wrong=$((wrong + 1))
        done
        line="$line n=$n: $wrong of $seeds;"
    done
    printf '%-58s %s\n' "$label" "$line"
}

echo "runs with lost or doubled slots, odd lanes and leaders 200 ns late:"
runs "legacy -k 3: __activemask()" build/legacy -k 3
runs "legacy -k 3 with __syncwarp(mask) before the broadcast" build/legacy-syncwarp -k 3
runs "legacy -k 3 with the leader not delayed" build/legacy-nodelay -k 3
runs "cg -k 1: cg::coalesced_threads()" build/cg -k 1
runs "cg -k 3: cg::binary_partition before the branch" build/cg -k 3
runs "sync -k 1: __ballot_sync before the branch" build/sync -k 1
