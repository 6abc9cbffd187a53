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
finish
