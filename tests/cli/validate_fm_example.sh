# validate_fm_example.sh - the acceptance case: the Fast Models AEMv8 example
# trace (tests/data/fm-aemv8-example.tarmac) against configs/fastmodel-aemv8.ini,
# and the geometry `cachet infer` reads from it.
source "$(dirname "$0")/lib.bash"
TR=$SRC/tests/data/fm-aemv8-example.tarmac
CFG=$SRC/configs/fastmodel-aemv8.ini
J=$TMP/v.json

# the walk's descriptor fetch is not modelled yet: agreement 7 / 9 < 1, exit 3
expect_status 3 "validate the example" "$CACHET" validate -c "$CFG" --json "$J" "$TR"
# one Python run checks the report: prints what differs, exits 1 if anything does
python3 - "$J" <<'PY' && ok || bad "the report of the example"
import json, sys
d = json.load(open(sys.argv[1]))
S = {s['name']: s for s in d['structures']}
I, D, L2 = 'cpu.cpu0.l1icache', 'cpu.cpu0.l1dcache', 'Validation_ARMAEMv8AMPCT.cpu.l2_cache'
def c(name, op, key):
    return S[name]['ops'].get(op, {}).get(key, 0)
checks = [
    # every ALLOC of the example is matched with its LINE id: 0096 0182 0180 ...
    ('l1icache ALLOC', [c(I, 'ALLOC', k) for k in ('reference', 'matched', 'line_id_agree')], [3, 3, 3]),
    # ... 00aa, but not 0188 ...
    ('l1dcache ALLOC', [c(D, 'ALLOC', k) for k in ('reference', 'matched', 'line_id_agree')], [2, 1, 1]),
    # ... 04b0 0550 0c10, but not 0c40
    ('l2 ALLOC', [c(L2, 'ALLOC', k) for k in ('reference', 'matched', 'line_id_agree')], [4, 3, 3]),
    ('missing, extra', [d['totals']['missing'], d['totals']['extra']], [2, 0]),
    # the two missing lines are the descriptor fetch of the DTLB walk
    ('divergences', sorted((x['kind'], x['structure'], x['address'], x['line']) for x in d['divergences']),
     [('missing', L2, '0x16393100', '0c40'), ('missing', D, '0x16393100', '0188')]),
    ('their lines', [x['source_line'] for x in d['divergences']], [44, 45]),
    ('with context', '1953 clk cpu0 CACHE cpu.cpu0.l1dcache LINE 0188 ALLOC 0x000016393100'
     in [x['text'] for x in d['divergences'][0]['context']], True),
    # the cold model fills lines of sets the warm reference never shows: apart
    ('cold-start extras', [c(I, 'ALLOC', 'cold_start_extra'), c(D, 'ALLOC', 'cold_start_extra'),
                           c(D, 'DIRTY', 'cold_start_extra'), c(L2, 'ALLOC', 'cold_start_extra')], [1, 1, 1, 3]),
    ('agreement 7 / 9', [d['agreement'], d['passed']], [0.777778, False]),
    # TLB and walk lines are reported, not mapped
    ('unmapped', sorted(s['name'] for s in d['structures'] if s['level'] is None),
     ['DTLB', 'ITLB', 'cpu.cpu0.DTLB', 'cpu.cpu0.ITLB', 'cpu.cpu0.S1TLB']),
    ('levels', [S[I]['level'], S[D]['level'], S[L2]['level'], S[L2]['core']], ['l1i', 'l1d', 'l2', None]),
]
bad = [(what, got, want) for what, got, want in checks if got != want]
for what, got, want in bad:
    print('FAIL: %s: got %s, want %s' % (what, got, want), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
expect_status 0 "a lower bar passes" "$CACHET" validate -c "$CFG" --min-agreement 0.75 "$TR"
grep -q "agreement 0.7778" "$TMP/out" && ok || bad "text report names the agreement"
# without the end-of-trace fetch the branch target's line is missing too
expect_status 3 "no next fetch" "$CACHET" validate -c "$CFG" -s trace.tarmac_next_fetch=no --json "$J" "$TR"
expect_eq "$(json_get "$J" "[s['ops']['ALLOC']['missing'] for s in d['structures'] if s['name'] == 'cpu.cpu0.l1icache'][0]")" "1" "the 0180 line needs the fetch of the branch target"

# usage and input errors
expect_status 1 "no config" "$CACHET" validate "$TR"
expect_status 1 "bad window" "$CACHET" validate -c "$CFG" --window x "$TR"
expect_status 2 "missing trace" "$CACHET" validate -c "$CFG" "$TMP/none.tarmac"
grep -v CACHE "$TR" > "$TMP/nocache.tarmac"
expect_status 2 "nothing to compare" "$CACHET" validate -c "$CFG" "$TMP/nocache.tarmac"
expect_err_contains "nothing to compare" "no CACHE lines"
sed 's/^1948 clk cpu0 MR8 .*/1948 clk cpu0 MR3 00011540 00/' "$TR" > "$TMP/bad.tarmac"
expect_status 2 "malformed trace" "$CACHET" validate -c "$CFG" "$TMP/bad.tarmac"
expect_err_contains "bad.tarmac:22:15: memory access size not in {1,2,4,8,16}" "error position"

# run --events writes the model's events as Tarmac lines the decoder reads
expect_status 0 "run --events" "$CACHET" run -q -c "$CFG" --events "$TMP/ev.tarmac" "$TR"
expect_eq "$(grep -c 'CACHE cpu.cpu0.l1icache LINE 0180 ALLOC 0x000015223000$' "$TMP/ev.tarmac")" "1" "event line"
expect_eq "$(grep -c 'cpu.cpu0.l1dcache LINE 0100 DIRTY 0x00001600e000_NS$' "$TMP/ev.tarmac")" "1" "non-secure store"
expect_status 0 "info reads the event log" "$CACHET" info --json "$TMP/ev.tarmac"
expect_eq "$(json_get "$TMP/out" "d['events'], d['malformed']")" "$(wc -l < "$TMP/ev.tarmac") 0" "every event line read back"

# infer: 64-byte lines, 2-way L1s, a 16-way L2, the smallest set counts
expect_status 0 "infer" "$CACHET" infer "$TR"
cp "$TMP/out" "$TMP/infer.txt"
python3 - "$TMP/infer.txt" <<'PY' && ok || bad "infer snippet"
import sys, configparser
text = open(sys.argv[1]).read()
ini = configparser.ConfigParser(comment_prefixes=(';',))
ini.read_string(text[text.index('\n['):])
want = {'l1i': ('32K', '2', '64'), 'l1d': ('32K', '2', '64'), 'l2': ('256K', '16', '64')}
got = {s: (ini[s]['size'], ini[s]['assoc'], ini[s]['line']) for s in ini.sections()}
assert got == want, got
assert 'line size: 64 bytes (determined)' in text, text
PY
finish
