#!/usr/bin/env bash
# bench.sh PROGRAM: warpsim's throughput, emulated memory accesses per second
# (race detection on), for each scheduling model and two sizes, so that one
# can see the cost grow linearly with threads x accesses.
set -u
prog=${1:?usage: bench.sh build/tests/bench}
printf '%-9s %8s %8s %12s %9s %10s\n' model blocks rounds accesses seconds "M acc/s"
for model in lockstep its random; do
    for blocks in 8 32; do
        line=$(WARPSIM_MODEL=$model WARPSIM_STATS=1 "$prog" -n "$blocks" -r 64 2>&1 |
               grep '^warpsim: stats:') || { echo "bench.sh: $model run failed" >&2; exit 1; }
        acc=$(sed -n 's/.* \([0-9]*\) memory accesses.*/\1/p' <<<"$line")
        sec=$(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' <<<"$line")
        rate=$(sed -n 's/.*: \([0-9.]*\) M accesses\/s$/\1/p' <<<"$line")
        printf '%-9s %8s %8s %12s %9s %10s\n' "$model" "$blocks" 64 "$acc" "$sec" "$rate"
    done
done
