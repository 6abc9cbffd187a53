#!/bin/bash
# run.sh - run one fuzz target of a CACHET_FUZZ build.
# Usage: tests/fuzz/run.sh BUILD_DIR TARGET [libFuzzer options...]
#   e.g. tests/fuzz/run.sh build-fuzz din -runs=10000000
#        tests/fuzz/run.sh build-fuzz config -max_total_time=600
# The corpus grows in BUILD_DIR/fuzz-corpus/TARGET (seeded from
# tests/fuzz/corpus/TARGET); crashes land in BUILD_DIR/fuzz-findings/TARGET.
# A finding, once fixed, is copied into tests/fuzz/corpus/TARGET so that the
# test suite replays it for ever.
set -euo pipefail
build=$1 target=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/fuzz-corpus/$target" "$build/fuzz-findings/$target"
cp -n "$src/corpus/$target"/* "$build/fuzz-corpus/$target/" 2>/dev/null || true
# UBSan reports stop the run too (the build also has -fno-sanitize-recover).
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
exec "$build/tests/fuzz_$target" -artifact_prefix="$build/fuzz-findings/$target/" \
    -print_final_stats=1 "$@" "$build/fuzz-corpus/$target"
