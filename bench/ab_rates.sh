#!/bin/sh
# What `kvmbench ab`'s verdict costs and buys on this machine (issue #30):
# its false-alarm rate when both sides are the same, and its power on a
# planted regression, with the invocation as the unit. This machine cannot
# kexec (no kernel of its own to boot), so each "boot" here is a fresh
# kvmbench process, and the verdict is the one ab computes: `kvmbench gate`
# (its default test on the logs) over the invocations of each side (gate BASE1,BASE2,..
# CAND1,CAND2,.., min 2 units a side), in ab's ABBA order. (ab also calls a
# pass with a significantly worse metric inconclusive; counted here as the
# gate does, as no regression.) On a lab machine the boot adds
# its own variance, which this leaves out (the boot is at least as noisy as
# a process).
#
#   [CASES="planted 3 1"] [RUN_ARGS="--warmup 1"] [PAGE_REPORTING_ORDER=11] \
#       bench/ab_rates.sh [EXPERIMENTS=40] [KVMBENCH=build/kvmbench]
#
# Per experiment, for N = 3 and N = 5: 2N invocations of
#   run directmap --preset host --set backings=thp --set threads=1
#       --set bytes=64M --set write-bandwidth=0 -r 3
# A/A: nothing differs. Planted: the candidate's invocations run with
# transparent huge pages off (/sys/kernel/mm/transparent_hugepage/enabled =
# never, put back after each), so the thp backing faults in 4K pages: a
# large, known cost. Root is needed for the planted case.
# Prints, per case, how many experiments gated exit 1 (a regression), the
# rate with its Wilson 95% CI, and the same A/A experiments judged with one
# invocation a side (its repetitions the units), to show what the boots buy;
# then each side's fault-in rate (geometric mean) and how much invocations
# differ (rates_lib.sh's invocation_spread: in a planted case the two sides
# are pooled as if one, so read it for A/A only).
# The A/A runs are kept: bench/ab_power_curve.sh judges them again with a
# smaller regression planted in their data.
set -u
experiments=${1:-40}
kvmbench=${2:-build/kvmbench}
out=$(mktemp -d /tmp/kvmbench-ab-rates.XXXXXX)
. "$(dirname "$0")/rates_lib.sh"
hold_host_for_rates

invocation() {  # dir planted(0|1)
    if [ "$2" = 1 ]; then echo never > "$thp"; fi
    "$kvmbench" run directmap --preset host --set backings=thp --set threads=1 --set bytes=64M \
        --set write-bandwidth=0 -r 3 ${RUN_ARGS:-} --out "$1" >/dev/null 2>&1
    if [ "$2" = 1 ]; then echo "$thp_was" > "$thp"; fi
    ls -d "$1"/*/ | head -1
}

experiment() {  # n planted -> prints "ab_exit single_exit"
    n=$1 planted=$2 dir=$3
    base="" cand=""
    i=0
    for side in $(seq $((2 * n))); do
        i=$((i + 1))
        case $(( (i - 1) % 4 )) in 0|3) s=base ;; *) s=cand ;; esac
        p=0; [ "$s" = cand ] && p=$planted
        run=$(invocation "$dir/$i-$s" "$p")
        if [ "$s" = base ]; then base="$base${base:+,}$run"; else cand="$cand${cand:+,}$run"; fi
    done
    "$kvmbench" gate "$base" "$cand" --min-samples 2 --metrics faultin_rate >/dev/null 2>&1
    ab=$?
    "$kvmbench" gate "${base%%,*}" "${cand%%,*}" --min-samples 2 --metrics faultin_rate >/dev/null 2>&1
    echo "$ab $?"
}

# CASES="planted 3 1" (name N planted, ';'-separated) runs only those.
cases=${CASES:-"aa 3 0;aa 5 0;planted 3 1"}
IFS=';'
for case in $cases; do
    unset IFS
    set -- $case
    name=$1 n=$2 planted=$3
    k=0 k1=0 bad=0
    for e in $(seq "$experiments"); do
        set -- $(experiment "$n" "$planted" "$out/$name-n$n-$e")
        [ "$1" = 1 ] && k=$((k + 1))
        [ "$1" = 2 ] && bad=$((bad + 1))
        [ "$2" = 1 ] && k1=$((k1 + 1))
    done
    printf "%-8s N=%d  regression in %2d/%d: %s" "$name" "$n" "$k" "$experiments" "$(wilson "$k" "$experiments")"
    [ "$bad" -gt 0 ] && printf "  (%d unusable)" "$bad"
    printf "   one invocation a side: %2d/%d: %s\n" "$k1" "$experiments" "$(wilson "$k1" "$experiments")"
    printf "         fault-in rate (geometric mean): base %s GB/s, cand %s GB/s; invocations differ by %s\n" \
        "$(geomean_rate "$out/$name-n$n-"*/*-base/*/)" "$(geomean_rate "$out/$name-n$n-"*/*-cand/*/)" \
        "$(invocation_spread "$out/$name-n$n-"*)"
done
echo "runs kept in $out"
