#!/bin/sh
# The emulated lab's time on a quiet and on a busy machine (issue #27): each
# of `kvmbench lab probe` and `kvmbench lab run asid --preset lab`, N times
# quiet and N times with HOGS CPU busy loops beside it; per case the median
# and worst wall time, how many finished (exit 0), and the load average at
# the start. Run by hand, as root, from the repository root:
#   bench/lab_holds_up.sh [N=5] [HOGS=2] [KVMBENCH=build/kvmbench] [WHAT=all|probe|asid]
# Target: all finish, the busy median within 2.5x the quiet one.
set -u
n=${1:-5}
hogs=${2:-2}
kvmbench=${3:-build/kvmbench}
what=${4:-all}
out=$(mktemp -d /tmp/kvmbench-lab-bench.XXXXXX)
hog_pids=""
start_hogs() { for _ in $(seq "$1"); do (while :; do :; done) & hog_pids="$hog_pids $!"; done; }
stop_hogs() { [ -n "$hog_pids" ] && kill $hog_pids 2>/dev/null; hog_pids=""; }
trap 'stop_hogs' EXIT INT TERM

measure() {  # name hogs cmd...
    name=$1 h=$2
    shift 2
    times="" ok=0
    load=$(cut -d' ' -f1 /proc/loadavg)
    start_hogs "$h"
    for i in $(seq "$n"); do
        t0=$(date +%s.%N)
        if "$@" --lab-out "$out/$name.$i" >"$out/$name.$i.log" 2>&1 </dev/null; then ok=$((ok + 1)); fi
        times="$times $(echo "$(date +%s.%N) - $t0" | bc)"
    done
    stop_hogs
    echo "$times" | tr ' ' '\n' | grep . | sort -n | awk -v name="$name" -v ok="$ok" -v n="$n" -v load="$load" '
        { t[NR] = $1 } END {
            med = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            printf "%-12s median %7.1f s  worst %7.1f s  finished %d/%d  load at start %s\n", name, med, t[NR], ok, n, load
        }'
}

# measure appends `--lab-out D`: the lab's options come before its command.
probe() { "$kvmbench" lab "$@" probe; }
asid() { "$kvmbench" lab "$@" run asid --preset lab; }

if [ "$what" != asid ]; then
    measure probe-quiet 0 probe
    measure probe-busy "$hogs" probe
fi
if [ "$what" != probe ]; then
    measure asid-quiet 0 asid
    measure asid-busy "$hogs" asid
fi
echo "runs and logs in $out"
