#!/bin/bash
# dinero.sh - DineroIV 7's own numbers on the SPEC92 093.nasa7 din trace
# (write-back, write-allocate, LRU, 4-byte word references, everything
# copied back at the end). Needs CACHET_CORPUS.
source "$(dirname "$0")/lib.bash"
need_corpus
T="$CACHET_CORPUS/din/093.nasa7.din.Z"

cat > "$TMP/d1.ini" <<'INI'
[system]
flush_at_end = yes
[l1i]
size = 8K
assoc = 1
line = 32
[l1d]
size = 8K
assoc = 1
line = 32
INI
cat > "$TMP/d2.ini" <<'INI'
[system]
flush_at_end = yes
[l1i]
size = 16K
assoc = 2
line = 64
[l1d]
size = 32K
assoc = 4
line = 64
[l2]
size = 256K
assoc = 8
line = 64
INI
lv() { json_get "$1" "[l for l in d['levels'] if l['name']=='$2'][0]$3"; }

# the .Z file is read directly (unix compress is a byte source)
check "run d1" "$CACHET" run -q -c "$TMP/d1.ini" --json "$TMP/1.json" "$T"
expect_eq "$(lv "$TMP/1.json" l1i "['misses']")" 904 "8K DM L1I misses"
expect_eq "$(lv "$TMP/1.json" l1d "['misses']")" 5892 "8K DM L1D misses"
expect_eq "$(lv "$TMP/1.json" l1d "['by_kind']['load']['misses']")" 337 "8K DM L1D read misses"
expect_eq "$(lv "$TMP/1.json" l1d "['by_kind']['store']['misses']")" 5555 "8K DM L1D write misses"

# and through gzip -dc on stdin, as DineroIV users feed it
gzip -dc "$T" | "$CACHET" run -q -c "$TMP/d2.ini" --json "$TMP/2.json" -
expect_eq "$(lv "$TMP/2.json" l1i "['misses']")" 310 "16K 2-way L1I misses"
expect_eq "$(lv "$TMP/2.json" l1d "['misses']")" 2683 "32K 4-way L1D misses"
expect_eq "$(lv "$TMP/2.json" l1d "['by_kind']['load']['misses']")" 30 "L1D read misses"
expect_eq "$(lv "$TMP/2.json" l1d "['by_kind']['store']['misses']")" 2653 "L1D write misses"
expect_eq "$(lv "$TMP/2.json" l1d "['writebacks']")" 2665 "L1D write-backs"
expect_eq "$(lv "$TMP/2.json" l2 "['misses']")" 2971 "L2 misses"
finish
