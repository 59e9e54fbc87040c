#!/bin/sh
# What `run --steady` does to the spread of directmap's host preset on this
# machine (issue #41): interleaved pairs of invocations, one plain and one
# with --steady, each
#   run directmap --preset host --set backings=anon-4k,thp --set threads=1
#       --set bytes=64M --set write-bandwidth=0 -r 5
# Plain runs meet the host as it is (here: free page reporting at order 9,
# ASLR 2); --steady holds page reporting off and ASLR off for its run
# (directmap measures THP, so THP defrag stays) and puts both back.
# Prints per series (backing/pinning) and arm: the geometric mean rate, the spread of the
# repetitions within a run (the sd of their logs, pooled over the runs, as
# a percentage), the range of all repetitions, and how much the runs differ
# (rates_lib.sh's invocation_spread: the unit `ab` and `gate` test).
#
#   bench/steady_spread.sh [PAIRS=10] [KVMBENCH=build/kvmbench]
set -u
pairs=${1:-10}
kvmbench=${2:-build/kvmbench}
out=$(mktemp -d /tmp/kvmbench-steady.XXXXXX)
. "$(dirname "$0")/rates_lib.sh"

invocation() {  # arm-dir [--steady]
    mkdir -p "$1"
    "$kvmbench" run directmap --preset host --set backings=anon-4k,thp --set threads=1 --set bytes=64M \
        --set write-bandwidth=0 -r 5 --out "$1" ${2:+"$2"} >/dev/null 2>"$1.err" ||
        { echo "run failed: $(tail -3 "$1.err")" >&2; exit 1; }
}

i=0
while [ "$i" -lt "$pairs" ]; do
    i=$((i + 1))
    # Alternate which arm goes first, so that a drift in time is shared.
    if [ $((i % 2)) = 1 ]; then
        invocation "$out/plain/$i"; invocation "$out/steady/$i" --steady
    else
        invocation "$out/steady/$i" --steady; invocation "$out/plain/$i"
    fi
done

# rates RUN...: "run series value" per measured repetition, the series the
# backing and pinning ("anon-4k/unpinned").
rates() {
    for run in "$@"; do
        awk -v run="$run" '/"metric":"faultin_rate",/ && !/"warmup":true/ {
            v = $0; sub(/.*"value":/, "", v); sub(/[,}].*/, "", v)
            b = $0; sub(/.*"backing":"/, "", b); sub(/".*/, "", b)
            w = $0; sub(/.*"variant":"/, "", w); sub(/".*/, "", w)
            print run, b "/" w, v }' "$run/samples.jsonl"
    done
}

# spread ARM: per series, the geometric mean; the sd of the repetitions'
# logs around their run's mean, pooled over runs (within a run); the range
# of all repetitions; the sd of the runs' log means (between runs).
spread() {
    rates "$out/$1"/*/*/ | awk -v arm="$1" '$3 > 0 { k = $2 SUBSEP $1; l = log($3)
            s[k] += l; ss[k] += l * l; n[k]++; ser[k] = $2; all[$2] += l; na[$2]++
            if (!($2 in lo) || $3 < lo[$2]) lo[$2] = $3; if ($3 > hi[$2]) hi[$2] = $3 }
        END { for (k in s) { v = ser[k]; m = s[k] / n[k]; d[v] += ss[k] - s[k] * m; df[v] += n[k] - 1
                             bm[v] += m; bmm[v] += m * m; bn[v]++ }
              for (v in d) printf "%-8s %-17s %6.3g %10.1f%% %9.3g-%-6.3g %10.1f%%\n", arm, v, exp(all[v] / na[v]),
                  100 * sqrt(d[v] / df[v]), lo[v], hi[v],
                  (bn[v] > 1 ? 100 * sqrt((bmm[v] - bm[v] * bm[v] / bn[v]) / (bn[v] - 1)) : 0) }' | sort -k2,2 -k1,1
}

printf '%-8s %-17s %6s %11s %16s %11s\n' arm series "GB/s" "within run" "range (GB/s)" "between"
{ spread plain; spread steady; } | sort -k2,2 -k1,1
echo "runs kept in $out"
