# validate_fm_example.sh - the acceptance case: the Fast Models AEMv8 example
# trace (fm_example in lib.bash) against configs/fastmodel-aemv8.ini
# (caches, TLBs and the walker reading the trace's TTW lines), and the
# geometry `cachet infer` reads from it.
source "$(dirname "$0")/lib.bash"
TR=$(fm_example) || { echo "$FM_SKIP"; exit 77; }
CFG=$SRC/configs/fastmodel-aemv8.ini
J=$TMP/v.json

# every CACHE, TLB and TTW line of the example matched: agreement 1, exit 0
expect_status 0 "validate the example" "$CACHET" validate -c "$CFG" --json "$J" "$TR"
# one Python run checks the report: prints what differs, exits 1 if anything does
python3 - "$J" <<'PY' && ok || bad "the report of the example"
import json, sys
d = json.load(open(sys.argv[1]))
S = {(s['name'], s['type']): s for s in d['structures']}
I, D = ('cpu.cpu0.l1icache', 'CACHE'), ('cpu.cpu0.l1dcache', 'CACHE')
L2 = ('Validation_ARMAEMv8AMPCT.cpu.l2_cache', 'CACHE')
IT, DT, ST = ('cpu.cpu0.ITLB', 'TLB'), ('cpu.cpu0.DTLB', 'TLB'), ('cpu.cpu0.S1TLB', 'TLB')
IW, DW = ('ITLB', 'TTW'), ('DTLB', 'TTW')
def c(name, op, key):
    return S[name]['ops'].get(op, {}).get(key, 0)
M = ('reference', 'matched', 'line_id_agree')
checks = [
    # every ALLOC of the example is matched with its LINE id: 0096 0182 0180 ...
    ('l1icache ALLOC', [c(I, 'ALLOC', k) for k in M], [3, 3, 3]),
    # ... 00aa and 0188, the descriptor fetch of the DTLB walk ...
    ('l1dcache ALLOC', [c(D, 'ALLOC', k) for k in M], [2, 2, 2]),
    # ... 04b0 0550 0c10 and 0c40
    ('l2 ALLOC', [c(L2, 'ALLOC', k) for k in M], [4, 4, 4]),
    # the walks at 1951 and 1953, with their descriptors (checked below by address)
    ('ITLB walk', [c(IW, 'WALK', k) for k in M], [1, 1, 1]),
    ('DTLB walk', [c(DW, 'WALK', k) for k in M], [1, 1, 1]),
    # the 64K fills of ITLB, DTLB and S1TLB, with their physical bases
    ('ITLB FILL', [c(IT, 'FILL', k) for k in M], [1, 1, 1]),
    ('DTLB FILL', [c(DT, 'FILL', k) for k in M], [1, 1, 1]),
    ('S1TLB FILL', [c(ST, 'FILL', k) for k in M], [2, 2, 2]),
    ('missing, extra', [d['totals']['missing'], d['totals']['extra']], [0, 0]),
    ('agreement 15 / 15', [d['totals']['matched'], d['agreement'], d['passed']], [15, 1.0, True]),
    ('no divergence', d['divergences'], []),
    # the cold model walks synthetic tables at 1939 (3 levels, before any TTW
    # line) and fills page 0x10000 in ITLB, S1TLB (1939) and DTLB (1948): apart
    ('cold-start extras', [c(IW, 'WALK', 'cold_start_extra'), c(IT, 'FILL', 'cold_start_extra'),
                           c(ST, 'FILL', 'cold_start_extra'), c(DT, 'FILL', 'cold_start_extra'),
                           c(DW, 'WALK', 'cold_start_extra')], [3, 1, 1, 1, 0]),
    ('every structure mapped', [s['name'] for s in d['structures'] if s['level'] is None], []),
    ('no other LINE id', d['totals']['line_id_differ'], 0),
    # the warm-cache start: the rule sets aside those 3 + 1 + 1 + 1 and the
    # cold model's 5 + 1 + 2 L1D, 7 L2 and 1 S1TLB lines
    ('cold-start allowance', d['cold_start'], {'allowance': 'rule', 'warm_until': None,
                                               'reference_set_aside': 0, 'model_set_aside': 22}),
    ('levels', [S[x]['level'] for x in (I, D, L2, IT, DT, ST, IW, DW)],
     ['l1i', 'l1d', 'l2', 'itlb', 'dtlb', 'stlb', 'itlb.walk', 'dtlb.walk']),
]
bad = [(what, got, want) for what, got, want in checks if got != want]
for what, got, want in bad:
    print('FAIL: %s: got %s, want %s' % (what, got, want), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
"$CACHET" validate -c "$CFG" "$TR" > "$TMP/text"
grep -q "agreement 1.0000 (min 1.0000): 15 agree of 15 reference + 0 extra; 0 paired with another LINE id, physical base or descriptor; 0 missing; 0 extra" "$TMP/text" \
    && ok || bad "text report names the agreement"
grep -q "^cold start: 22 model events set aside as cold-start extras by the rule" "$TMP/text" \
    && ok || bad "text report states the cold-start allowance"
grep -qx "verdict: PASS (agreement 1.0000 reaches 1.0000)" "$TMP/text" && ok || bad "text verdict"

# 4-way L1I: the same lines fill, in other slots (LINE 012c, 0104, 0100
# for 0096, 0182, 0180): three divergences, 12 of 15 agree, exit 3
expect_status 3 "a 4-way L1I fails" "$CACHET" validate -c "$CFG" -s l1i.assoc=4 --json "$J" "$TR"
expect_eq "$(json_get "$J" "d['agreement'], d['passed'], d['totals']['line_id_differ'], [(x['kind'], x['line'], x['model_line']) for x in d['divergences']]")" \
    "0.8 False 3 [('line_id', '0096', '012c'), ('line_id', '0182', '0104'), ('line_id', '0180', '0100')]" \
    "4-way L1I: three other LINE ids"
"$CACHET" validate -c "$CFG" -s l1i.assoc=4 "$TR" > "$TMP/text"
grep -q "^verdict: FAIL (agreement 0.8000 below 1.0000); first divergence: line_id cpu.cpu0.l1icache ALLOC 0x152112c0 LINE 0096 model LINE 012c at time 1947" "$TMP/text" \
    && ok || bad "text verdict names the first divergence"
expect_status 0 "--ignore-line-ids passes it" "$CACHET" validate -c "$CFG" -s l1i.assoc=4 --ignore-line-ids "$TR"
# the excerpt starts warm: without the rule the cold model's fills count
expect_status 3 "--cold fails the excerpt" "$CACHET" validate -c "$CFG" --cold --json "$J" "$TR"
expect_eq "$(json_get "$J" "d['totals']['extra'], d['totals']['cold_start_extra'], d['cold_start']['allowance']")" \
    "22 0 none" "--cold: the 22 are extras"
expect_status 3 "--warm-until 1948" "$CACHET" validate -c "$CFG" --warm-until 1948 --json "$J" "$TR"
expect_eq "$(json_get "$J" "d['cold_start']")" \
    "{'allowance': 'warm-until', 'warm_until': 1948, 'reference_set_aside': 2, 'model_set_aside': 14}" \
    "--warm-until: the events before 1948 set aside"
expect_status 1 "--cold with --warm-until" "$CACHET" validate -c "$CFG" --cold --warm-until 5 "$TR"

# the walks the model made: the descriptors of the trace's TTW lines, through
# the L1D and L2 (LINE 0188 and 0c40), then the 64K fills
expect_status 0 "run --events" "$CACHET" run -q -c "$CFG" --events "$TMP/ev.tarmac" "$TR"
for line in \
    '1952 clk cpu0 TTW ITLB LPAE 1:3 000016390010 00000000152204c3 : BLOCK ADDR=0x0000000015220000' \
    '1952 clk cpu0 TLB FILL cpu.cpu0.ITLB 64K 0x00020000:0x0015220000' \
    '1952 clk cpu0 TLB FILL cpu.cpu0.S1TLB 64K 0x00020000:0x0015220000' \
    '1953 clk cpu0 TTW DTLB LPAE 1:3 000016393100 0000000016000463 : BLOCK ADDR=0x0000000016000000' \
    '1953 clk cpu0 CACHE cpu.cpu0.l1dcache LINE 0188 ALLOC 0x000016393100' \
    '1953 clk cpu0 CACHE Validation_ARMAEMv8AMPCT.cpu.l2_cache LINE 0c40 ALLOC 0x000016393100' \
    '1953 clk cpu0 TLB FILL cpu.cpu0.DTLB 64K 0x06200000:0x0016000000_NS' \
    '1953 clk cpu0 TLB FILL cpu.cpu0.S1TLB 64K 0x06200000:0x0016000000_NS'; do
    expect_eq "$(grep -cxF "$line" "$TMP/ev.tarmac")" "1" "model event: $line"
done
expect_eq "$(grep -c 'CACHE cpu.cpu0.l1icache LINE 0180 ALLOC 0x000015223000$' "$TMP/ev.tarmac")" "1" "event line"
expect_eq "$(grep -c 'cpu.cpu0.l1dcache LINE 0100 DIRTY 0x00001600e000_NS$' "$TMP/ev.tarmac")" "1" "non-secure store"
expect_status 0 "info reads the event log" "$CACHET" info --json "$TMP/ev.tarmac"
expect_eq "$(json_get "$TMP/out" "d['events'], d['malformed']")" "$(wc -l < "$TMP/ev.tarmac") 0" "every event line read back"

# walk.cache = l2: the descriptor read skips the L1D, so the walk allocates
# 0x16393100 in the L2 only (LINE 0c40), and the reference's L1D line 0188
# is missing
expect_status 0 "run --events, walks through the L2" "$CACHET" run -q -c "$CFG" -s walk.cache=l2 \
    --events "$TMP/ev2.tarmac" "$TR"
expect_eq "$(grep -c ' CACHE .* 0x000016393100$' "$TMP/ev2.tarmac")" "1" "one line for the descriptor"
expect_eq "$(grep -cxF '1953 clk cpu0 CACHE Validation_ARMAEMv8AMPCT.cpu.l2_cache LINE 0c40 ALLOC 0x000016393100' "$TMP/ev2.tarmac")" \
    "1" "walk.cache=l2: the descriptor in L2 LINE 0c40"
expect_eq "$(grep -c 'l1dcache .* 0x000016393100' "$TMP/ev2.tarmac")" "0" "walk.cache=l2: no L1D line"
expect_status 3 "validate with walks through the L2" "$CACHET" validate -c "$CFG" -s walk.cache=l2 --json "$J" "$TR"
expect_eq "$(json_get "$J" "[(x['kind'], x['structure'], x['address']) for x in d['divergences']]")" \
    "[('missing', 'cpu.cpu0.l1dcache', '0x16393100')]" "walk.cache=l2: the L1D line 0188 is missing, nothing else"

# the trace's own tables are what reproduces the walks: with synthetic ones
# the descriptors (and the L1D and L2 lines they fill) are elsewhere
expect_status 3 "synthetic tables" "$CACHET" validate -c "$CFG" -s walk.tables=synthetic --json "$J" "$TR"
expect_eq "$(json_get "$J" "sorted((x['structure'], x['address']) for x in d['divergences'] if x['kind'] == 'missing')")" \
    "[('DTLB', '0x16393100'), ('ITLB', '0x16390010'), ('Validation_ARMAEMv8AMPCT.cpu.l2_cache', '0x16393100'), ('cpu.cpu0.l1dcache', '0x16393100')]" \
    "synthetic tables miss the walks and the descriptor fetch"
expect_status 0 "a lower bar passes" "$CACHET" validate -c "$CFG" -s walk.tables=synthetic --min-agreement 0.5 "$TR"
# without the end-of-trace fetch the branch target's line is missing
expect_status 3 "no next fetch" "$CACHET" validate -c "$CFG" -s trace.tarmac_next_fetch=no --json "$J" "$TR"
expect_eq "$(json_get "$J" "[s['ops']['ALLOC']['missing'] for s in d['structures'] if s['name'] == 'cpu.cpu0.l1icache'][0]")" "1" "the 0180 line needs the fetch of the branch target"

# usage and input errors
expect_status 1 "no config" "$CACHET" validate "$TR"
expect_status 1 "bad window" "$CACHET" validate -c "$CFG" --window x "$TR"
expect_status 2 "missing trace" "$CACHET" validate -c "$CFG" "$TMP/none.tarmac"
grep -v -e CACHE -e TLB -e TTW "$TR" > "$TMP/noevents.tarmac"
expect_status 2 "nothing to compare" "$CACHET" validate -c "$CFG" "$TMP/noevents.tarmac"
expect_err_contains "nothing to compare" "no CACHE, TLB, WALKCACHE or TTW lines"
sed 's/^1948 clk cpu0 MR8 .*/1948 clk cpu0 MR3 00011540 00/' "$TR" > "$TMP/bad.tarmac"
expect_status 2 "malformed trace" "$CACHET" validate -c "$CFG" "$TMP/bad.tarmac"
expect_err_contains "bad.tarmac:22:15: memory access size not in {1,2,4,8,16}" "error position"

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
