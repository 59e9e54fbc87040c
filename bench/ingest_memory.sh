#!/bin/sh
# The peak memory of `kvmbench ingest` on a large kernel log (not part of
# ctest). Ingest reads a kernel log as a stream, a piece at a time, and
# holds what it keeps: the samples (and the records they come from), not
# the log. Its bound, checked here (exit 1 beyond it):
#   peak resident memory <= BASE_MIB MiB + PER_SAMPLE bytes per sample
# Measured with /usr/bin/time -v (Debian's time package) on a synthetic
# dmesg log that kvmbench_ingest_bench writes (its generator: one line in
# KVMBENCH_BENCH_RECORD_EVERY a record's, 50 by default).
#
#   ninja -C build kvmbench kvmbench_ingest_bench
#   bench/ingest_memory.sh                       # a 2 GiB log
#   KVMBENCH_BENCH_MB=216 bench/ingest_memory.sh
#   KVMBENCH_BENCH_RECORD_EVERY=4 bench/ingest_memory.sh
#   KVMBENCH_BENCH_BINARY=/tmp/other/kvmbench bench/ingest_memory.sh  # another build's kvmbench
# BUILD (first argument, default build) is where both programs are; the log
# and the run go under $TMPDIR and are removed.
set -eu
BASE_MIB=64
PER_SAMPLE=700
build=${1:-build}
kvmbench=${KVMBENCH_BENCH_BINARY:-$build/kvmbench}
mb=${KVMBENCH_BENCH_MB:-2048}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-memory-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
KVMBENCH_BENCH_MB=$mb "$build/bench/kvmbench_ingest_bench" --write-log="$tmp/kernel.log"
if ! /usr/bin/time -v "$kvmbench" ingest "$tmp/kernel.log" --out "$tmp/runs" --format csv \
        >/dev/null 2>"$tmp/time.txt"; then
    cat "$tmp/time.txt" >&2
    exit 1
fi
field() { sed -n "s/^[[:space:]]*$1: //p" "$tmp/time.txt"; }
rss_kib=$(field "Maximum resident set size (kbytes)")
# A log of several suites' records is a run per suite: their samples together.
samples=$(sed -n 's/^  "n_samples": \([0-9]*\).*/\1/p' "$tmp"/runs/*/meta.json | awk '{ n += $1 } END { print n }')
bound_kib=$((BASE_MIB * 1024 + samples * PER_SAMPLE / 1024))
echo "log: $(stat -c %s "$tmp/kernel.log") bytes, one line in ${KVMBENCH_BENCH_RECORD_EVERY:-50} a record's; $samples samples"
echo "ingest: peak resident $((rss_kib / 1024)) MiB ($rss_kib KiB), wall $(field "Elapsed (wall clock) time (h:mm:ss or m:ss)")"
echo "bound: $((bound_kib / 1024)) MiB ($BASE_MIB MiB + $PER_SAMPLE bytes x $samples samples)"
[ "$rss_kib" -le "$bound_kib" ]
