# tlb_config.sh - translation settings from the command line: the walk's
# shape that follows the granule, and errors that name what was set and
# what to change; the TLB rows of `cachet run --csv`.
source "$(dirname "$0")/lib.bash"

# a 64K granule alone: walks of 3 levels (4 would translate 68 bits)
expect_status 0 "-s walk.granule=64K alone" "$CACHET" config -s dtlb.entries=4 -s walk.granule=64K
expect_eq "$(sed -n '/^\[walk\]/,/^$/p' "$TMP/out" | grep '^levels')" "levels = 3" "64K: levels 3"
expect_status 0 "-s walk.granule=16K alone" "$CACHET" config -s dtlb.entries=4 -s walk.granule=16K
expect_eq "$(sed -n '/^\[walk\]/,/^$/p' "$TMP/out" | grep '^levels')" "levels = 4" "16K: levels 4"
expect_status 0 "a run with a 64K granule alone" "$CACHET" run -q -s dtlb.entries=4 \
    -s walk.granule=64K gen:stream:n=1K

# levels set too deep: the error is told at the -s setting, names where the
# granule came from and what to set
expect_status 2 "4 levels of 64K" "$CACHET" config -s dtlb.entries=4 -s walk.granule=64K -s walk.levels=4
expect_err_contains "-s walk.levels=4: [walk] levels: 4 levels of a 64K granule (granule from -s walk.granule=64K) translate 68 bits, more than 60: set [walk] levels to 3 or fewer" \
    "levels error names both settings and the fix"
printf '[dtlb]\n[walk]\nlevels = 4\n' >"$TMP/w.ini"
expect_status 2 "4 levels from a file, 64K from -s" "$CACHET" config -c "$TMP/w.ini" -s walk.granule=64K
expect_err_contains "$TMP/w.ini: [walk] levels: 4 levels of a 64K granule (granule from -s walk.granule=64K)" \
    "levels from the file, granule from -s"
expect_status 2 "a leaf level above the walk" "$CACHET" config -s dtlb.entries=4 -s walk.levels=2 -s walk.leaf_level=1
expect_err_contains "-s walk.leaf_level=1: [walk] leaf_level: a 4K granule with 2 levels has no blocks at level 1 (levels 2..3) (levels from -s walk.levels=2): set [walk] leaf_level to one of 2..3" \
    "leaf_level error names the levels setting and the fix"

# TLB rows in the CSV: the Fast Models example (17 fetches on 2 pages, a load
# and a store on 2 more; results/README.md has the columns), after the
# three cache levels, with the figures the JSON gives
FM=$(fm_example) || { echo "$FM_SKIP"; finish; exit; }
expect_status 0 "run with TLBs: CSV and JSON" "$CACHET" run -q -c "$SRC/configs/fastmodel-aemv8.ini" \
    --csv "$TMP/t.csv" --json "$TMP/t.json" "$FM"
python3 - "$TMP/t.csv" "$TMP/t.json" <<'PY' && ok || bad "TLB rows of the CSV"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
tlbs = json.load(open(sys.argv[2]))['tlbs']
fail = []
def want(what, got, exp):
    if got != exp:
        fail.append('%s: got %r, want %r' % (what, got, exp))
want('rows', [r['level'] for r in rows], ['l1i', 'l1d', 'l2', 'itlb', 'dtlb', 'stlb', 'walkcache'])
by = {r['level']: r for r in rows}
want('itlb lookups, misses, fetches', [by['itlb'][k] for k in ('accesses', 'misses', 'ifetch_accesses')],
     ['17', '2', '17'])
want('dtlb lookups, misses, loads, stores',
     [by['dtlb'][k] for k in ('accesses', 'misses', 'load_accesses', 'store_accesses')], ['2', '2', '1', '1'])
want('stlb geometry', [by['stlb'][k] for k in ('core', 'assoc', 'sets', 'latency')], ['0', '4', '256', '8'])
for t in tlbs:
    r = by[t['name']]
    for c, j in (('accesses', 'lookups'), ('hits', 'hits'), ('misses', 'misses'), ('assoc', 'assoc'),
                 ('sets', 'sets'), ('replacement', 'replacement')):
        want('%s %s as in the JSON' % (t['name'], c), r[c], str(t[j]))
    want('%s miss_rate' % t['name'], abs(float(r['miss_rate']) - t['miss_rate']) < 1e-6, True)
    for c in ('size', 'line', 'write_back', 'write_allocate', 'inclusion', 'writeback_accesses',
              'hwprefetch_misses', 'writebacks', 'compulsory'):
        want('%s %s empty' % (t['name'], c), r[c], '')
    want('%s whole-run columns' % t['name'], [r[c] for c in ('instructions', 'cycles', 'amat')],
         [by['l1i'][c] for c in ('instructions', 'cycles', 'amat')])
for f in fail:
    print('FAIL:', f, file=sys.stderr)
sys.exit(1 if fail else 0)
PY
# no TLB section, no TLB row
expect_status 0 "run without TLBs" "$CACHET" run -q -c "$SRC/configs/cfgB.ini" --csv "$TMP/n.csv" "$FM"
expect_eq "$(cut -d, -f7 "$TMP/n.csv" | tail -n +2 | tr '\n' ' ')" "l1i l1d l2 " "cache rows only"
finish
