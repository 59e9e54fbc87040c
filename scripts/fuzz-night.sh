#!/bin/sh
# The long fuzzing run, for the night: each fuzz target (tests/fuzz/) under
# libFuzzer, coverage-guided, with ASan and UBSan, for SECONDS each (an hour
# by default), from its seeds, its corpus kept in fuzz-corpus/<target>/ for
# the next night. A finding is saved as fuzz-findings/<target>/crash-*,
# timeout-* or oom-*; the script ends with 1 when there is one.
#
#   scripts/bootstrap.sh fuzz && cmake --preset fuzz && cmake --build --preset fuzz
#   cmake --build --preset tests --target kvmbench_fuzz    # lists the targets and seeds
#   scripts/fuzz-night.sh [SECONDS] [TARGET...]
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-3600}
[ $# -gt 0 ] && shift
libfuzzer=build-fuzz/tests/kvmbench_libfuzzer
driver=build/tests/kvmbench_fuzz
for p in "$libfuzzer" "$driver"; do
    [ -x "$p" ] || { echo "fuzz-night: $p is not built (see the comment at the top)" >&2; exit 2; }
done
targets=${*:-$("$driver" --list)}
found=0
for t in $targets; do
    mkdir -p "fuzz-corpus/$t" "fuzz-findings/$t"
    # The seeds into the corpus folder (libFuzzer takes folders; files
    # given alone are only run).
    n=0
    for f in $("$driver" --seeds "$t"); do
        n=$((n + 1))
        cp "$f" "fuzz-corpus/$t/seed-$n"
    done
    echo "fuzz-night: $t, $seconds s" >&2
    if ! KVMBENCH_FUZZ_TARGET=$t "$libfuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
            -artifact_prefix="fuzz-findings/$t/" -print_final_stats=1 "fuzz-corpus/$t" \
            2> "fuzz-findings/$t/libfuzzer.log"; then
        found=1
        tail -30 "fuzz-findings/$t/libfuzzer.log" >&2
    fi
done
exit $found
