#!/bin/bash
# sweep_memory.sh - a sweep's hierarchies are bounded per pass (the rule at
# the top of sim/sweep.c): under an address-space limit of 250 MB, 24 points
# whose caches need about 0.4 GB at once run in several passes and give the
# figures of one unlimited run.
source "$(dirname "$0")/lib.bash"

if [ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
    echo "skipped: a sanitizer build cannot run under an address-space limit"
    exit 77
fi
printf '[sweep]\nl2.size = 16M 32M 64M\nl1d.size = 4K 8K 16K 32K 64K 128K 256K 512K\n' > "$TMP/big.ini"
T=gen:random:n=20K,footprint=256K,writes=25
check "unlimited" "$CACHET" sweep -q -j 2 -o "$TMP/free.csv" "$TMP/big.ini" "$T"
(ulimit -v 250000; "$CACHET" sweep -q -j 2 -o "$TMP/capped.csv" "$TMP/big.ini" "$T") 2>"$TMP/err"
expect_eq "$?" 0 "24 large points under a 250 MB address-space limit ($(head -c 300 "$TMP/err"))"
check "the same figures" cmp "$TMP/capped.csv" "$TMP/free.csv"
# without the one-pass groups: every point a hierarchy of its own
(ulimit -v 250000; "$CACHET" sweep -q -j 2 --no-onepass -o "$TMP/capped1.csv" "$TMP/big.ini" "$T") 2>"$TMP/err"
expect_eq "$?" 0 "--no-onepass under the limit ($(head -c 300 "$TMP/err"))"
check "the same figures (--no-onepass)" cmp "$TMP/capped1.csv" "$TMP/free.csv"
finish
