#!/bin/sh
# What `kvmbench ab -n auto` costs and buys on this machine (issue #41): its
# false alarms on A/A, its power on a planted regression and the boots it
# spends, through the real `ab` (its state, its looks, its verdict), with the
# process as the unit. This machine cannot kexec, so each experiment runs
# on a stub machine as tests/integration/ab_cli_test.cpp does: /proc and
# /sys files of its own under $KVMBENCH_SYSFS_ROOT, a kexec and a systemctl
# that succeed without booting, and this script "booting" each step (its
# marker on the stub's command line, a new boot id) and running `ab
# --resume` as the resume unit would. Each step's command is a fresh
# process measuring this host:
#   run directmap --preset host --set backings=thp --set threads=1
#       --set bytes=64M --set write-bandwidth=0 -r 3
# Planted: the candidate's steps run with transparent huge pages off
# (never, put back after each), so the thp backing faults in 4K pages
# (about 98 % slower here); root is needed for it.
#
#   [CASES="aa 20 6;planted 20 6"] [PAGE_REPORTING_ORDER=11] \
#       bench/ab_auto_rates.sh [EXPERIMENTS=100] [KVMBENCH=build/kvmbench]
#
# A case is "name M K": --max-regression M, --max-boots K. Prints per case
# how many experiments ended REGRESSION (exit 1), PASS (0), INCONCLUSIVE
# (3), each rate with its Wilson 95 % interval, and the mean boots a side
# they took.
set -u
experiments=${1:-100}
kvmbench=$(readlink -f "${2:-build/kvmbench}")
out=$(mktemp -d /tmp/kvmbench-ab-auto.XXXXXX)
. "$(dirname "$0")/rates_lib.sh"
hold_host_for_rates

stub_machine() {  # dir
    root=$1/root bin=$1/bin
    mkdir -p "$root/sys/kernel" "$root/proc/sys/kernel/random" "$root/proc/1" "$root/run/systemd/system" "$bin"
    echo 0 > "$root/sys/kernel/kexec_loaded"
    echo 0 > "$root/proc/sys/kernel/kexec_load_disabled"
    printf 'processor\t: 0\nflags\t\t: fpu\nbugs\t\t:\n\n' > "$root/proc/cpuinfo"
    echo "root=/dev/vda1 ro" > "$root/proc/cmdline"
    echo 00000000-0000-0000-0000-000000000000 > "$root/proc/sys/kernel/random/boot_id"
    echo systemd > "$root/proc/1/comm"
    printf '#!/bin/sh\nexit 0\n' > "$bin/kexec"
    printf '#!/bin/sh\n[ "$1" = cat ] && exit 1\nexit 0\n' > "$bin/systemctl"
    chmod +x "$bin/kexec" "$bin/systemctl"
    # A file with a bzImage's setup header ("HdrS" at 0x202).
    head -c 514 /dev/zero > "$1/bzImage"
    printf 'HdrS' >> "$1/bzImage"
    head -c 506 /dev/zero >> "$1/bzImage"
}

# The value of a top-level key of the state (a number or a string).
state_value() {  # state.json key
    sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1" | head -1
}

# The side of step N (0-based) in the state.
step_side() {  # state.json n
    awk -v want="$2" '/"side":/ { if (i++ == want) { gsub(/[",]/, "", $2); print $2; exit } }' "$1"
}

experiment() {  # dir M K planted -> prints "exit boots_a_side"
    dir=$1 margin=$2 most=$3 planted=$4
    stub_machine "$dir"
    env="KVMBENCH_SYSFS_ROOT=$dir/root KVMBENCH_AB_STATE=$dir/state PATH=$dir/bin:$PATH"
    env $env "$kvmbench" ab --base "$dir/bzImage" --cand "$dir/bzImage" -n auto --max-boots "$most" \
        --max-regression "$margin" --out "$dir/runs" -- run directmap --preset host --set backings=thp \
        --set threads=1 --set bytes=64M --set write-bandwidth=0 -r 3 >/dev/null 2>&1 || { echo "2 0"; return; }
    code=2
    for boot in $(seq $((2 * most + 2))); do
        state=$dir/state/state.json
        step=$(state_value "$state" kexec_step)
        id=$(state_value "$state" id)
        case $step in
            -1) marker="kvmbench.ab=$id:base" ;;
            -2|"") marker="" ;;
            *) marker="kvmbench.ab=$id:$step" ;;
        esac
        echo "root=/dev/vda1 ro $marker" > "$dir/root/proc/cmdline"
        printf '00000000-0000-0000-0000-%012d\n' "$boot" > "$dir/root/proc/sys/kernel/random/boot_id"
        p=0
        if [ "$planted" = 1 ] && [ "${step:--1}" -ge 0 ] && [ "$(step_side "$state" "$step")" = cand ]; then p=1; fi
        [ "$p" = 1 ] && echo never > "$thp"
        env $env "$kvmbench" ab --resume >/dev/null 2>&1
        code=$?
        [ "$p" = 1 ] && echo "$thp_was" > "$thp"
        [ "$(state_value "$dir/state/state.json" phase)" = done ] && break
        [ "$code" != 0 ] && break
    done
    code=$(state_value "$dir/state/state.json" result_code)
    boots=$(grep -c '"status": "done"' "$dir/state/state.json")
    echo "$code $boots"
}

cases=${CASES:-"aa 20 6;planted 20 6"}
IFS=';'
for case in $cases; do
    unset IFS
    set -- $case
    name=$1 margin=$2 most=$3
    planted=0; [ "$name" = planted ] && planted=1
    reg=0 pass=0 inc=0 bad=0 boots=0
    for e in $(seq "$experiments"); do
        set -- $(experiment "$out/$name-$e" "$margin" "$most" "$planted")
        case $1 in
            1) reg=$((reg + 1)) ;;
            0) pass=$((pass + 1)) ;;
            3) inc=$((inc + 1)) ;;
            *) bad=$((bad + 1)) ;;
        esac
        boots=$((boots + $2))
    done
    printf "%-8s M=%s%% K=%s  REGRESSION %d/%d: %s  PASS %d/%d: %s  INCONCLUSIVE %d/%d: %s\n" "$name" "$margin" \
        "$most" "$reg" "$experiments" "$(wilson "$reg" "$experiments")" "$pass" "$experiments" \
        "$(wilson "$pass" "$experiments")" "$inc" "$experiments" "$(wilson "$inc" "$experiments")"
    printf "         mean boots a side: %s" "$(echo "$boots $experiments" | awk '{ printf "%.2f", $1 / $2 / 2 }')"
    [ "$bad" -gt 0 ] && printf "  (%d failed to start or ended otherwise)" "$bad"
    printf "\n         invocations differ by %s\n" "$(invocation_spread "$out/$name-"*/runs)"
done
echo "runs kept in $out"
