#!/bin/bash
# drcachesim_compat.sh - `cachet run --compat drcachesim` without -c runs
# drcachesim's default hierarchy (configs/drcachesim-default.ini's values:
# 4 cores, L1I/L1D 32K 8-way, a shared LL 8M 16-way, 64-byte lines,
# next-line prefetch at the L1D) counted by its rules: the same figures and
# the same resolved configuration as -c configs/drcachesim-exact.ini; -s
# settings apply on top; with -c the file's hierarchy is kept.
source "$(dirname "$0")/lib.bash"
W=gen:matmul:dim=24

check "compat without -c" "$CACHET" run --compat drcachesim -q --json "$TMP/a.json" "$W"
check "the shipped configuration" "$CACHET" run -c "$SRC/configs/drcachesim-exact.ini" -q \
    --json "$TMP/b.json" "$W"
expect_eq "$(json_get "$TMP/a.json" "json.dumps([d['levels'], d['resolved_config']], sort_keys=True)")" \
    "$(json_get "$TMP/b.json" "json.dumps([d['levels'], d['resolved_config']], sort_keys=True)")" \
    "same levels, same figures, same resolved configuration"
expect_eq "$(json_get "$TMP/a.json" "d['resolved_config']['system']['cores'], d['resolved_config']['l1d']['prefetcher'], d['resolved_config']['l2']['size'], d['resolved_config']['l2']['assoc'], d['resolved_config']['system']['compat']")" \
    "4 nextline 8388608 16 drcachesim" "drcachesim's default hierarchy"
expect_eq "$(json_get "$TMP/a.json" "sum(l['drcachesim']['hits'] + l['drcachesim']['misses'] for l in d['levels'] if l['name'] == 'l1d') > 0")" \
    "True" "the accesses were counted"

check "compat with -s" "$CACHET" run --compat drcachesim -s system.cores=1 -s l2.size=1M -q \
    --json "$TMP/c.json" "$W"
expect_eq "$(json_get "$TMP/c.json" "len(d['levels']), d['resolved_config']['l2']['size']")" \
    "3 1048576" "-s applies on top: one core, a 1M LL"

check "compat with -c" "$CACHET" run --compat drcachesim -c "$SRC/configs/default.ini" -q \
    --json "$TMP/d.json" "$W"
expect_eq "$(json_get "$TMP/d.json" "[l['name'] for l in d['levels']], d['resolved_config']['system']['compat']")" \
    "['l1i', 'l1d', 'l2', 'l3'] drcachesim" "-c keeps the file's hierarchy"

"$CACHET" run --help > "$TMP/help"
if grep -q "without -c" "$TMP/help" && grep -q "drcachesim-default.ini" "$TMP/help"; then ok
else bad "run --help documents --compat without -c"; fi
finish
