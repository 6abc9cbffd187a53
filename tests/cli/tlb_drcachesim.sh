# tlb_drcachesim.sh - drcachesim's TLB simulator figures for the first 10
# references of the allasm trace (offline-one-early.templatex: L1I TLB 9
# hits, 1 miss), with configs/drcachesim-tlb.ini. Needs the corpus and a
# build that reads drmemtrace.
source "$(dirname "$0")/lib.bash"
need_corpus
T=$CACHET_CORPUS/drmemtrace/dynamorio-tests/drmemtrace.allasm_x86_64.trace.zip
if ! "$CACHET" info "$T" > /dev/null 2>&1; then
    echo "skipped: this build does not read drmemtrace traces"
    exit 77
fi
expect_status 0 "run the first 10 references" \
    "$CACHET" run -q -n 10 -c configs/drcachesim-tlb.ini --json "$TMP/r.json" "$T"
expect_eq "$(json_get "$TMP/r.json" "[(t['hits'], t['misses']) for t in d['tlbs'] if t['name'] == 'itlb' and t['core'] == 0][0]")" \
    "(9, 1)" "L1I TLB of core 0: 9 hits, 1 miss"
expect_eq "$(json_get "$TMP/r.json" "sum(t['lookups'] for t in d['tlbs'] if t['name'] == 'dtlb')")" \
    "0" "no data references among them"
finish
