#!/bin/bash
# uncached.sh - memory the caches never hold (rule "Uncached memory" at the
# top of sim/hier.c; ranges in sim/uncached.c): the Tarmac samples whose
# LD/ST lines say nGnRnE (Device memory, the MMU off), uncached ranges from
# the command line, and bad ranges refused with the key and the reason.
source "$(dirname "$0")/lib.bash"

# ranges: two loads and a store in 0x1000-0x1fff, one load outside
printf '0 1000\n0 1008\n1 1ff0\n0 3000\n' > "$TMP/r.din"
"$CACHET" run -q -c configs/default.ini -s system.uncached=0x1000-0x1fff --json "$TMP/r.json" \
    "$TMP/r.din"
expect_eq "$(json_get "$TMP/r.json" 'd["uncached"]')" "{'load': 2, 'store': 1}" \
    "three accesses in the range are uncached"
expect_eq "$(json_get "$TMP/r.json" '[d["memory"]["reads"], d["memory"]["writes"]]')" "[3, 1]" \
    "each uncached access is one memory access; the load outside misses to memory"
expect_eq "$(json_get "$TMP/r.json" '[l["accesses"] for l in d["levels"] if l["name"] == "l1d"]')" \
    "[1]" "the L1D sees only the load outside the range"
expect_eq "$(json_get "$TMP/r.json" 'd["cycles"]')" 800 "every access costs the memory's 200 cycles"
for v in "0x2000-0x1000" "12" "0x10-0x20 zz" "4K-8K"; do
    expect_status 2 "uncached = $v is refused" "$CACHET" run -q -s "system.uncached=$v" "$TMP/r.din"
    expect_err_contains "[system] uncached" "uncached = $v names the key"
done

# the worked example of configs/README.md ("Uncached memory")
"$CACHET" run -q -c configs/default.ini -s system.uncached=0x10000000-0x1000ffff \
    --json "$TMP/we.json" gen:random:n=100K,footprint=128K,writes=25
expect_eq "$(json_get "$TMP/we.json" '[d["uncached"], d["memory"]["reads"], d["memory"]["writes"],
    [l["accesses"] for l in d["levels"] if l["name"] == "l1d"]]')" \
    "[{'load': 38273, 'store': 12932}, 39298, 12932, [51195]]" \
    "the worked example: its uncached counts, memory reads and writes, L1D accesses"

need_corpus
t="$CACHET_CORPUS/tarmac/tarmac-trace-utilities/samples/calculator-aarch64-es-ld-st-style.tarmac"
"$CACHET" info --json "$t" > "$TMP/i.json"
loads=$(json_get "$TMP/i.json" 'd["accesses"]["load"]')
stores=$(json_get "$TMP/i.json" 'd["accesses"]["store"]')
"$CACHET" run -q -c configs/cfgB.ini --json "$TMP/dev.json" "$t"
expect_eq "$(json_get "$TMP/dev.json" 'd["uncached"]')" "{'load': $loads, 'store': $stores}" \
    "every LD/ST of the MMU-off sample is Device memory, uncached"
expect_eq "$(json_get "$TMP/dev.json" '[l["accesses"] for l in d["levels"] if l["name"] == "l1d"]')" \
    "[0]" "the L1D sees none of them"
"$CACHET" run -q -c configs/cfgB.ini -s system.device_uncached=no --json "$TMP/cached.json" "$t"
expect_eq "$(json_get "$TMP/cached.json" '"uncached" in d')" False "device_uncached = no: all cached"
expect_eq "$(json_get "$TMP/cached.json" '[l["accesses"] for l in d["levels"] if l["name"] == "l1d"]')" \
    "[$((loads + stores))]" "device_uncached = no: the L1D sees every load and store"
# the mark survives conversion to ctr
"$CACHET" convert "$t" -o "$TMP/t.ctr" 2>/dev/null
"$CACHET" run -q -c configs/cfgB.ini --json "$TMP/ctr.json" "$TMP/t.ctr"
expect_eq "$(json_get "$TMP/ctr.json" 'd["uncached"]')" "{'load': $loads, 'store': $stores}" \
    "a ctr made from the Tarmac keeps Device memory"
finish
