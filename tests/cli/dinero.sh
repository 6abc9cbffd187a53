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
# The 3C split as DineroIV defines it, on the L1D alone; DineroIV 7 (d4-7,
# built from its distribution) printed, on the uncompressed trace:
#   dineroIV -l1-dsize 4k -l1-dassoc 4 -l1-dbsize 32 -l1-dwback n -l1-dwalloc n -l1-dccc -informat d
#     compulsory 5280, capacity 34832, conflict 82 (reads 39/96/58)
#   dineroIV -l1-dsize 1k -l1-dassoc 1 -l1-dbsize 32 -l1-drepl f -l1-dccc -informat d
#     misses 9254: compulsory 5280, capacity 525, conflict 3449
printf '[system]\nmiss_classes = yes\n[l1d]\nsize = 4K\nassoc = 4\nline = 32\nwrite_back = no\nwrite_allocate = no\n' > "$TMP/c1.ini"
check "run 3C no-allocate" "$CACHET" run -q -c "$TMP/c1.ini" --json "$TMP/c1.json" "$T"
expect_eq "$(lv "$TMP/c1.json" l1d "['compulsory']"),$(lv "$TMP/c1.json" l1d "['capacity']"),$(lv "$TMP/c1.json" l1d "['conflict']")" \
    5280,34832,82 "3C without write-allocate"
expect_eq "$(lv "$TMP/c1.json" l1d "['by_kind']['load']['capacity']"),$(lv "$TMP/c1.json" l1d "['by_kind']['load']['conflict']")" \
    96,58 "3C without write-allocate, reads"
printf '[system]\nmiss_classes = yes\n[l1d]\nsize = 1K\nassoc = 1\nline = 32\nreplacement = fifo\n' > "$TMP/c2.ini"
check "run 3C FIFO" "$CACHET" run -q -c "$TMP/c2.ini" --json "$TMP/c2.json" "$T"
expect_eq "$(lv "$TMP/c2.json" l1d "['misses']"),$(lv "$TMP/c2.json" l1d "['compulsory']"),$(lv "$TMP/c2.json" l1d "['capacity']"),$(lv "$TMP/c2.json" l1d "['conflict']")" \
    9254,5280,525,3449 "3C under FIFO"
finish
