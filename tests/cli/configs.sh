#!/bin/bash
# configs.sh - every shipped configuration loads and simulates, and
# configs/README.md is exactly what the schema generates.
source "$(dirname "$0")/lib.bash"

for f in configs/*.ini; do
    check "$f loads" "$CACHET" config -c "$f"
    check "$f simulates" "$CACHET" run -q -c "$f" gen:stream:n=2000
done
"$CACHET" config --keys > "$TMP/keys.md"
check "configs/README.md matches the schema (regenerate: cachet config --keys > configs/README.md)" \
    cmp -s "$TMP/keys.md" configs/README.md
# cfgB is cfgA plus an L1I
"$CACHET" config -c configs/cfgB.ini > "$TMP/b.ini"
check "cfgB has l1i" grep -q '^\[l1i\]' "$TMP/b.ini"
check "cfgB inherits cfgA's l2" grep -q '^size = 1048576' "$TMP/b.ini"
# the worked example of configs/README.md ("Timing"): with default.ini a
# load that misses everywhere costs the memory's 200 cycles, the same load
# again an L1D hit's 4; an L2 hit costs the L2's 12, not 4 + 12
printf '2 0\n0 1000\n0 1000\n' > "$TMP/t.din"
"$CACHET" run -q -c configs/default.ini --json "$TMP/t.json" "$TMP/t.din"
expect_eq "$(json_get "$TMP/t.json" 'd["cycles"]')" $((200 + 200 + 4)) \
    "default.ini: an ifetch missing everywhere, a load missing everywhere, then hitting the L1D"
"$CACHET" run -q -c configs/default.ini -s l1d.size=64 -s l1d.assoc=1 --json "$TMP/t2.json" \
    <(printf '0 0\n0 40\n0 0\n')
expect_eq "$(json_get "$TMP/t2.json" 'd["cycles"]')" $((200 + 200 + 12)) \
    "default.ini, a 64-byte L1D: the line evicted from the L1D comes from the L2 at its 12 cycles"
finish
