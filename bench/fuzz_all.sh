#!/bin/sh
# Every fuzz target for RUNS mutated inputs, one after another (not part
# of ctest, whose label `fuzz` gives each 4 seconds): per target the inputs
# it ran (its seeds, then the mutated ones), the seconds, the peak resident
# memory (/usr/bin/time -v, Debian's time package) and what it found. An
# input that found something is kept in ARTIFACTS (crash-TARGET-PID); copy
# it to tests/data/fuzz/TARGET/, named for what it found, and fix the
# reader. Exit 1 when a target found something.
#
#   cmake --build build --target kvmbench_fuzz
#   bench/fuzz_all.sh                       # 100,000 inputs a target, seed 28
#   bench/fuzz_all.sh 20000 7               # fewer, another seed
#   bench/fuzz_all.sh 100000 28 build-asan/tests/kvmbench_fuzz   # under the sanitizers
#   FUZZ_TARGETS="ab_state run_files" bench/fuzz_all.sh
#
# Arguments: RUNS (100000), SEED (28), the fuzz program
# (build/tests/kvmbench_fuzz), ARTIFACTS (a new folder under $TMPDIR, kept).
set -eu
runs=${1:-100000}
seed=${2:-28}
fuzz=${3:-build/tests/kvmbench_fuzz}
artifacts=${4:-$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-fuzz-XXXXXX")}
[ -x "$fuzz" ] || { echo "fuzz_all.sh: no fuzz program at $fuzz (cmake --build build --target kvmbench_fuzz)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "fuzz_all.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
mkdir -p "$artifacts"
targets=${FUZZ_TARGETS:-$("$fuzz" --list)}
log=$(mktemp "${TMPDIR:-/tmp}/kvmbench-fuzz-log-XXXXXX")
trap 'rm -f "$log"' EXIT INT TERM
echo "$fuzz, $runs mutated inputs a target, --seed=$seed; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %9s %9s %9s  %s\n' target inputs seconds "peak MiB" findings
found=0
for t in $targets; do
    status=0
    /usr/bin/time -v "$fuzz" "$t" --runs="$runs" --seed="$seed" --artifacts="$artifacts" >/dev/null 2>"$log" || status=$?
    # "kvmbench fuzz T: S seeds and M mutated inputs (--seed=N) in X s: ..."
    summary=$(sed -n "s/^kvmbench fuzz $t: \([0-9]*\) seeds and \([0-9]*\) mutated inputs .* in \([0-9.e+-]*\) s: .*/\1 \2 \3/p" "$log")
    rss_kib=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$log")
    if [ "$status" -eq 0 ] && [ -n "$summary" ]; then
        set -- $summary
        printf '%-18s %9d %9.1f %9d  %s\n' "$t" $(($1 + $2)) "$3" $((rss_kib / 1024)) none
    else
        found=1
        what=$(sed -n 's/^kvmbench fuzz: FINDING: //p' "$log" | head -1 | cut -c1-200)
        kept=$(sed -n 's/^kvmbench fuzz: the input is saved as //p' "$log" | head -1)
        printf '%-18s %9s %9s %9d  %s\n' "$t" - - $((rss_kib / 1024)) "FOUND (exit $status): ${what:-see below}; input: ${kept:-none}"
        grep -v '^[[:space:]]' "$log" | tail -5 >&2
    fi
done
echo "inputs that found something: $artifacts"
exit $found
