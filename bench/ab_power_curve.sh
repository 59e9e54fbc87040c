#!/bin/sh
# How small a regression `kvmbench ab`'s verdict finds with N boots a side,
# on the noise this machine gives: the A/A experiments bench/ab_rates.sh
# kept (KEPT/aa-nN-*), judged again as ab judges them (gate over the
# invocations, --metrics faultin_rate) after the candidate's fault-in rates
# were multiplied by (1 - D/100). The regression is planted in the data, so
# its size is exact and the noise around it is the measured one; what it
# leaves out is a cost that changes the spread as well as the level (the
# THP-off case of ab_rates.sh plants a real one).
#
#   bench/ab_power_curve.sh KEPT [KVMBENCH=build/kvmbench] [N=3] [DROPS="2 5 10 20"]
#
# Prints, per D, in how many experiments the gate found the regression
# (exit 1), with its Wilson 95% interval. D = 0 is the A/A rate again.
set -u
kept=${1:?usage: bench/ab_power_curve.sh KEPT_DIR [KVMBENCH] [N] [DROPS]}
kvmbench=${2:-build/kvmbench}
n=${3:-3}
drops=${4:-"0 2 5 10 20"}
. "$(dirname "$0")/rates_lib.sh"
work=$(mktemp -d /tmp/kvmbench-ab-power.XXXXXX)
trap 'rm -rf "$work"' EXIT

# scaled RUN FACTOR DEST: a copy of run directory RUN whose faultin_rate
# samples are multiplied by FACTOR.
scaled() {
    mkdir -p "$3"
    cp -r "$1"/. "$3"/
    awk -v f="$2" '/"metric":"faultin_rate",/ {
        if (match($0, /"value":[-0-9.eE+]+/)) {
            v = substr($0, RSTART + 8, RLENGTH - 8) * f
            $0 = substr($0, 1, RSTART - 1) sprintf("\"value\":%.17g", v) substr($0, RSTART + RLENGTH)
        }
    } { print }' "$1/samples.jsonl" > "$3/samples.jsonl"
}

echo "the A/A invocations of one experiment differ by $(invocation_spread "$kept"/aa-n"$n"-*) (sd of their log means, pooled)"
for d in $drops; do
    factor=$(awk -v d="$d" 'BEGIN { printf "%.6f", 1 - d / 100 }')
    k=0 total=0 bad=0
    for e in "$kept"/aa-n"$n"-*; do
        [ -d "$e" ] || continue
        base="" cand=""
        for inv in "$e"/*-base/*/; do base="$base${base:+,}${inv%/}"; done
        for inv in "$e"/*-cand/*/; do
            dest="$work/$(basename "$e")/$(basename "$(dirname "$inv")")"
            scaled "${inv%/}" "$factor" "$dest"
            cand="$cand${cand:+,}$dest"
        done
        "$kvmbench" gate "$base" "$cand" --min-samples 2 --metrics faultin_rate >/dev/null 2>&1
        case $? in 1) k=$((k + 1)) ;; 0) ;; *) bad=$((bad + 1)) ;; esac
        total=$((total + 1))
        rm -rf "${work:?}/$(basename "$e")"
    done
    [ "$total" -gt 0 ] || { echo "no A/A experiments of N=$n under $kept" >&2; exit 2; }
    printf "%3s%% slower, N=%d: regression in %3d/%d: %s" "$d" "$n" "$k" "$total" "$(wilson "$k" "$total")"
    [ "$bad" -gt 0 ] && printf "  (%d unusable)" "$bad"
    printf "\n"
done
