#!/bin/bash
# The emulated lab's time on a quiet and on a busy machine (issue #27): each
# of `kvmbench lab probe` and `kvmbench lab run asid --preset lab`, N times
# quiet and N times with HOGS CPU busy loops beside it; per run its wall
# time, the CPU time the lab took (QEMU, virtiofsd, kvmbench: user + sys),
# its exit status and the 1-minute load average before and after it; per
# case the median and worst wall time, the median CPU time and how many
# finished (exit 0). A busy run that needs more CPU time than a quiet one
# spends it on work that grows with the wall time (timers, polling), not
# on the command. Run
# by hand, as root, from the repository root:
#   bench/lab_holds_up.sh [N=5] [HOGS=2] [KVMBENCH=build/kvmbench] [WHAT=all|probe|asid|quiet|busy|probe-quiet|...]
# LAB_OPTS adds lab options to every run (e.g. LAB_OPTS='--lab-append
# clocksource=hpet'); KEEP=DIR keeps the runs and logs there.
# Target: all finish, the busy median within 2.5x the quiet one. The load
# average says how quiet "quiet" was: on a shared machine, not very.
set -u
n=${1:-5}
hogs=${2:-2}
kvmbench=${3:-build/kvmbench}
what=${4:-all}
out=${KEEP:-$(mktemp -d /tmp/kvmbench-lab-bench.XXXXXX)}
mkdir -p "$out"
hog_pids=""
start_hogs() { for _ in $(seq "$1"); do (while :; do :; done) & hog_pids="$hog_pids $!"; done; }
stop_hogs() { [ -n "$hog_pids" ] && kill $hog_pids 2>/dev/null; hog_pids=""; }
trap 'stop_hogs' EXIT INT TERM
load1() { cut -d' ' -f1 /proc/loadavg; }

measure() {  # name hogs cmd...
    name=$1 h=$2
    shift 2
    times="" cpus="" ok=0 loads=""
    start_hogs "$h"
    for i in $(seq "$n"); do
        l0=$(load1)
        # bash's time: real, then user and sys of the lab and its children.
        TIMEFORMAT="%R %U %S"
        # shellcheck disable=SC2086  # LAB_OPTS is words
        { time "$@" ${LAB_OPTS:-} --lab-out "$out/$name.$i" >"$out/$name.$i.log" 2>&1 </dev/null; } 2>"$out/$name.$i.time"
        rc=$?
        read -r t u s <"$out/$name.$i.time"
        cpu=$(echo "$u + $s" | bc)
        l1=$(load1)
        [ "$rc" -eq 0 ] && ok=$((ok + 1))
        times="$times $t"
        cpus="$cpus $cpu"
        loads="$loads $l0 $l1"
        printf '%-12s run %d: %7.1f s  cpu %7.1f s  exit %d  load %s -> %s\n' "$name" "$i" "$t" "$cpu" "$rc" "$l0" "$l1"
    done
    stop_hogs
    lmin=$(echo "$loads" | tr ' ' '\n' | grep . | sort -n | head -1)
    lmax=$(echo "$loads" | tr ' ' '\n' | grep . | sort -n | tail -1)
    cpu_med=$(echo "$cpus" | tr ' ' '\n' | grep . | sort -n | awk '{ t[NR] = $1 } END { print NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }')
    echo "$times" | tr ' ' '\n' | grep . | sort -n | awk -v name="$name" -v ok="$ok" -v n="$n" -v lmin="$lmin" -v lmax="$lmax" -v cpu="$cpu_med" '
        { t[NR] = $1 } END {
            med = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            printf "%-12s median %7.1f s  worst %7.1f s  cpu median %7.1f s  finished %d/%d  load %s..%s\n", name, med, t[NR], cpu, ok, n, lmin, lmax
        }'
}

# measure appends `--lab-out D`: the lab's options come before its command.
probe() { "$kvmbench" lab "$@" probe; }
asid() { "$kvmbench" lab "$@" run asid --preset lab; }

wanted() {  # case: is it in WHAT?
    case "$what" in
        all | "$1" | "${1%-*}" | "${1#*-}") return 0 ;;
    esac
    return 1
}
wanted probe-quiet && measure probe-quiet 0 probe
wanted probe-busy && measure probe-busy "$hogs" probe
wanted asid-quiet && measure asid-quiet 0 asid
wanted asid-busy && measure asid-busy "$hogs" asid
echo "runs and logs in $out"
