#!/bin/bash
# prefetch.sh - the hardware prefetchers seen from the command line: a
# constant-stride load stream, whose L1D misses the stride prefetcher must
# remove (at least 90% of them), and the per-level prefetch figures of the
# JSON and the table, whose rules are at the top of sim/hier.c ("Hardware
# prefetch").
source "$(dirname "$0")/lib.bash"

w=gen:stream:n=20K,stride=256,footprint=64M,ifetch=0
"$CACHET" run -q --json "$TMP/none.json" "$w" >/dev/null
"$CACHET" run -s l1d.prefetcher=stride --json "$TMP/stride.json" "$w" >"$TMP/stride.txt"
"$CACHET" run -s l1d.prefetcher=stream -s l1d.prefetch_degree=4 --json "$TMP/stream.json" \
    gen:stream:n=20K,stride=64,footprint=64M,ifetch=0 >"$TMP/stream.txt"
l1d='[l for l in d["levels"] if l["name"] == "l1d"][0]'
before=$(json_get "$TMP/none.json" "$l1d[\"by_kind\"][\"load\"][\"misses\"]")
after=$(json_get "$TMP/stride.json" "$l1d[\"by_kind\"][\"load\"][\"misses\"]")
expect_eq "$before" 20480 "every load of the stream misses without a prefetcher"
check "stride removes at least 90% of the L1D load misses ($before -> $after)" \
    test $((after * 10)) -le "$before"
# the worked example of configs/README.md ("Hardware prefetchers")
"$CACHET" run -q -c configs/default.ini -s l1d.prefetcher=stride --json "$TMP/we.json" \
    gen:stream:n=100K,stride=256,footprint=64M
expect_eq "$(json_get "$TMP/we.json" "[$l1d[k] for k in ('prefetches_issued',)] + \
    [$l1d['by_kind']['load']['misses'], $l1d['prefetch']['useful']]")" "[102384, 24, 102376]" \
    "the worked example: 102,384 issued, 24 load misses, 102,376 useful"
# the figures agree with each other: accuracy = useful / filled,
# coverage = useful / (useful + demand misses)
for f in stride stream; do
    check "$f: prefetch figures agree" python3 - "$TMP/$f.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l = [l for l in d["levels"] if l["name"] == "l1d"][0]
p = l["prefetch"]
demand = sum(l["by_kind"][k]["misses"] for k in ("ifetch", "load", "store", "atomic") if k in l["by_kind"])
assert p["filled"] == l["by_kind"]["hwprefetch"]["misses"], p
assert p["issued"] == l["prefetches_issued"] >= p["filled"] >= p["useful"] > 0, p
assert abs(p["accuracy"] - p["useful"] / p["filled"]) < 1e-12, p
assert abs(p["coverage"] - p["useful"] / (p["useful"] + demand)) < 1e-12, p
assert p["coverage"] > 0.9, p
PY
    check "$f: the table has a prefetch row" grep -qE "^l1d +0 $f +[0-9]+" "$TMP/$f.txt"
done
# no prefetcher: no prefetch object, no prefetch table
check "no prefetch object without a prefetcher" \
    test "$(json_get "$TMP/none.json" "'prefetch' in $l1d")" = False
"$CACHET" run "$w" >"$TMP/none.txt"
check "no prefetch table without a prefetcher" sh -c "! grep -q 'hardware prefetch' '$TMP/none.txt'"
finish
