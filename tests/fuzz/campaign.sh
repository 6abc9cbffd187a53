#!/bin/bash
# campaign.sh - run fuzz targets of a CACHET_FUZZ build one after the other
# and summarise each: executions, seconds, corpus size, findings.
# Usage: tests/fuzz/campaign.sh BUILD_DIR LIMIT TARGET...
#   LIMIT is a libFuzzer option that ends each run: -runs=N or
#   -max_total_time=SECONDS, e.g.
#   nice -n 10 tests/fuzz/campaign.sh build-fuzz -runs=10000000 din tarmac sweep
# Each target runs through run.sh with LIMIT, -timeout=20 (a unit slower
# than 20 s is a hang) and -entropic=0: libFuzzer's entropic schedule spent
# 70% of the time updating its feature frequencies on these corpora, and
# the classic schedule runs eight times as many units in the same time
# (tarmac: 310 against 2615 per second). Its log is
# BUILD_DIR/fuzz-logs/TARGET.log,
# and one line per target is appended to BUILD_DIR/fuzz-logs/summary.md:
#   | target | executions | seconds | exec/s | corpus files | findings | peak RSS MB |
set -uo pipefail
build=$1 limit=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/fuzz-logs"
for t in "$@"; do
    log="$build/fuzz-logs/$t.log"
    start=$(date +%s)
    "$here/run.sh" "$build" "$t" "$limit" -timeout=20 -entropic=0 >"$log" 2>&1
    status=$?
    secs=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    corpus=$(find "$build/fuzz-corpus/$t" -type f | wc -l)
    found=$(find "$build/fuzz-findings/$t" -type f | wc -l)
    printf '| %s | %s | %s | %s | %s | %s | %s |%s\n' "$t" "${execs:-?}" "$secs" "${rate:-?}" \
        "$corpus" "$found" "${rss:-?}" "$([ $status -eq 0 ] || echo " exit $status")" \
        >>"$build/fuzz-logs/summary.md"
done
