#!/bin/sh
# What the monitors cost the measured figure: directmap's host preset run
# PAIRS times with `--monitors off` and PAIRS times with `--monitors
# MONITORS` (basic), interleaved (off, on, off, on, ...) so that the host's
# drift falls on both sides alike; then `kvmbench compare` of the off runs
# (BASE, one invocation each) against the on runs (CAND), and per primary
# series the ratio on/off of the means (1 = no cost) with its 95% CI and
# the verdict (Welch on the logs, the runs as the units' invocations).
#
#   bench/monitors_cost.sh                  # 4 pairs of -r 3, 64M a thread
#   bench/monitors_cost.sh 6 5 all          # 6 pairs of -r 5, --monitors all
#   KVMBENCH_SETS="--set threads=1" bench/monitors_cost.sh
#
# Arguments: PAIRS (4), REPETITIONS a run (3), MONITORS (basic), the
# kvmbench program (build/kvmbench). The runs are kept in a new folder
# under $TMPDIR, named at the end.
set -eu
pairs=${1:-4}
reps=${2:-3}
level=${3:-basic}
kvmbench=${4:-build/kvmbench}
[ -x "$kvmbench" ] || { echo "monitors_cost.sh: no kvmbench at $kvmbench (cmake --build --preset default)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-monitors-cost-XXXXXX")
echo "directmap --preset host -r $reps ${KVMBENCH_SETS:-}: $pairs runs --monitors off and $pairs --monitors $level," \
     "interleaved; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
off=""
on=""
i=0
while [ "$i" -lt "$pairs" ]; do
    for m in off "$level"; do
        # shellcheck disable=SC2086 # KVMBENCH_SETS is words
        "$kvmbench" run directmap --preset host -r "$reps" ${KVMBENCH_SETS:-} --monitors "$m" \
            --out "$out/$m" >/dev/null 2>"$out/last.err" || { cat "$out/last.err" >&2; exit 1; }
        run=$(ls -d "$out/$m"/directmap-* | sort | tail -n 1)
        if [ "$m" = off ]; then off="${off:+$off,}$run"; else on="${on:+$on,}$run"; fi
    done
    i=$((i + 1))
done
csv="$out/compare.csv"
status=0
"$kvmbench" compare "$off" "$on" --format csv >"$csv" || status=$?
[ "$status" -le 3 ] || { echo "monitors_cost.sh: compare failed ($status)" >&2; exit 1; }
"$kvmbench" compare "$off" "$on" | sed -n '1,/^$/p'
# The ratio on/off of each tested series (the first table of the CSV):
# 1 + change, its CI likewise.
awk -F, '
    /^#/ { next }
    /^$/ { if (header) exit; next }
    !header { for (i = 1; i <= NF; i++) col[$i] = i; header = 1; next }
    $col["status"] == "tested" {
        printf "%-44s on/off %.4f [%.4f, %.4f] %s\n", $col["metric"], 1 + $col["change_pct"] / 100,
               1 + $col["change_ci low"] / 100, 1 + $col["change_ci high"] / 100, $col["verdict"]
    }' "$csv"
echo "runs kept in $out"
