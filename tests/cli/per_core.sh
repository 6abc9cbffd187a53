# per_core.sh - per-core figures of a two-core run, worked out by hand: a
# private level's MPKI divides its misses by its own core's instructions,
# a shared level's by all cores'; each core's instructions, cycles and CPI
# are in the table, JSON and CSV (rules at the top of sim/report.c). The
# compat = drcachesim output gains no per-core figures drcachesim does not
# print.
. "$(dirname "$0")/lib.bash"

# Core 0 runs a.din, core 1 runs b.din (din labels: 2 fetch, 0 load, 1
# store; hex addresses). Private 1 KiB direct-mapped L1I and L1D (16 sets
# of 64 B), a shared 4 KiB direct-mapped L2 (64 sets); a hit costs the
# level's latency (1, 2, 10), a miss to memory 100 (the timing rule).
printf '2 0\n0 1000\n2 4\n0 1000\n' >"$TMP/a.din"
printf '2 100\n0 2000\n0 3000\n2 104\n2 108\n1 2000\n2 10c\n' >"$TMP/b.din"
cat >"$TMP/two.ini" <<'EOF'
[system]
cores = 2
[l1i]
size = 1K
assoc = 1
line = 64
latency = 1
[l1d]
size = 1K
assoc = 1
line = 64
latency = 2
[l2]
size = 4K
assoc = 1
line = 64
latency = 10
[memory]
latency = 100
EOF
# By hand:
# core 0: fetch 0 misses everywhere (100), load 1000 misses (100), fetch 4
#   hits the L1I (1), load 1000 hits the L1D (2): 2 instructions,
#   203 cycles, CPI 101.5; L1I 1 miss, L1D 1 miss: MPKI 1000 * 1/2 = 500 each.
# core 1: fetch 100 misses (100), loads 2000 and 3000 miss (100 + 100;
#   both index L1D set 0, so 3000 evicts 2000), fetches 104 and 108 hit
#   (1 + 1), the store to 2000 misses again (100), fetch 10c hits (1):
#   4 instructions, 403 cycles, CPI 100.75; L1I 1 miss: MPKI 250; L1D
#   3 misses: MPKI 750.
# L2 (shared): every access misses (blocks 0, 0x40, 0x80, 0xc0 and 0x80
#   again share set 0; block 4 is cold): 6 misses over all 6 instructions:
#   MPKI 1000. The run: 6 instructions, 606 cycles, CPI 101.
check "two-core run" "$CACHET" run -q -c "$TMP/two.ini" --json "$TMP/r.json" --csv "$TMP/r.csv" \
    "$TMP/a.din" "$TMP/b.din"
"$CACHET" run -c "$TMP/two.ini" "$TMP/a.din" "$TMP/b.din" >"$TMP/table"

# table
expect_eq "$(awk '$1 ~ /^l[12]/ {print $1, $2, $10}' "$TMP/table" | tr '\n' ';')" \
    "l1i 0 500.000;l1i 1 250.000;l1d 0 500.000;l1d 1 750.000;l2 all 1000.000;" "table MPKI per core"
check "table: whole run" grep -qx "instructions 6  cycles 606  CPI 101.0000" "$TMP/table"
check "table: core 0" grep -qx "core 0  instructions 2  cycles 203  CPI 101.5000" "$TMP/table"
check "table: core 1" grep -qx "core 1  instructions 4  cycles 403  CPI 100.7500" "$TMP/table"

# JSON
expect_eq "$(json_get "$TMP/r.json" "[(l['name'], l['core'], l['mpki']) for l in d['levels']]")" \
    "[('l1i', 0, 500), ('l1i', 1, 250), ('l1d', 0, 500), ('l1d', 1, 750), ('l2', None, 1000)]" \
    "JSON mpki per core"
expect_eq "$(json_get "$TMP/r.json" "d['cores']")" \
    "[{'core': 0, 'instructions': 2, 'cycles': 203, 'cpi': 101.5}, {'core': 1, 'instructions': 4, 'cycles': 403, 'cpi': 100.75}]" \
    "JSON cores"
expect_eq "$(json_get "$TMP/r.json" "(d['instructions'], d['cycles'], d['cpi'])")" "(6, 606, 101)" "JSON run"

# CSV: the row's core's figures (all cores' for the shared L2)
# csv_cols FILE [COLUMN=VALUE]: level, core, mpki and the per-core columns
# of each row (with COLUMN=VALUE only the rows that have it), ";" between
csv_cols() { python3 -c "import csv,sys
want = sys.argv[2].split('=') if len(sys.argv) > 2 else None
print(';'.join(' '.join(r[c] for c in ('level', 'core', 'mpki', 'instructions', 'cycles',
                                      'core_instructions', 'core_cycles', 'core_cpi'))
               for r in csv.DictReader(open(sys.argv[1])) if not want or r[want[0]] == want[1]))" "$@"; }
expect_eq "$(csv_cols "$TMP/r.csv")" \
"l1i 0 500.000000 6 606 2 203 101.500000;l1i 1 250.000000 6 606 4 403 100.750000;\
l1d 0 500.000000 6 606 2 203 101.500000;l1d 1 750.000000 6 606 4 403 100.750000;\
l2 all 1000.000000 6 606 6 606 101.000000" "CSV per core"

# a sweep runs each trace alone: a.din on core 0 of the two, core 1 idle
# (no instructions: its MPKI and CPI empty); the L2 serves both cores, so
# its figures are the run's
printf 'base = two.ini\n[sweep]\nl2.latency = 10 20\n' >"$TMP/s.ini"
check "two-core sweep" "$CACHET" sweep -q -o "$TMP/s.csv" "$TMP/s.ini" "$TMP/a.din"
expect_eq "$(csv_cols "$TMP/s.csv" l2.latency=10)" \
"l1i 0 500.000000 2 203 2 203 101.500000;l1i 1  2 203 0 0 ;\
l1d 0 500.000000 2 203 2 203 101.500000;l1d 1  2 203 0 0 ;\
l2 all 1000.000000 2 203 2 203 101.500000" "sweep per core"

# compat = drcachesim: no per-core instructions, cycles or CPI (drcachesim
# prints none); MPKI per core as above
check "compat run" "$CACHET" run -q --compat drcachesim -c "$TMP/two.ini" --json "$TMP/d.json" \
    "$TMP/a.din" "$TMP/b.din"
"$CACHET" run --compat drcachesim -c "$TMP/two.ini" "$TMP/a.din" "$TMP/b.din" >"$TMP/dtable"
if grep -q "^core " "$TMP/dtable"; then bad "compat table has per-core lines"; else ok; fi
expect_eq "$(json_get "$TMP/d.json" "'cores' in d")" "False" "compat JSON has no cores"
expect_eq "$(json_get "$TMP/d.json" "[l['mpki'] for l in d['levels']]")" "[500, 250, 500, 750, 1000]" \
    "compat mpki per core"
finish
