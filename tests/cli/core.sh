#!/bin/bash
# core.sh - the cachet command: exit statuses, messages, outputs.
source "$(dirname "$0")/lib.bash"

# usage and help
expect_status 1 "no arguments" "$CACHET"
expect_status 1 "unknown command" "$CACHET" frobnicate
expect_err_contains 'unknown command "frobnicate"' "unknown command message"
expect_status 0 "top-level help" "$CACHET" --help
for c in run info convert config bench; do
    expect_status 0 "$c --help" "$CACHET" $c --help
done
expect_status 1 "run without trace" "$CACHET" run
expect_status 1 "bad option" "$CACHET" run --no-such-option x
expect_status 0 "version" "$CACHET" --version

# input errors: exit 2 with file and reason
expect_status 2 "missing trace" "$CACHET" run /nonexistent.din
expect_err_contains "/nonexistent.din: cannot open" "missing trace message"
printf '0 100\n9 200\n' > "$TMP/bad.din"
expect_status 2 "malformed din" "$CACHET" run "$TMP/bad.din"
expect_err_contains "$TMP/bad.din:2:1: label is not 0..5" "malformed din message"
expect_status 0 "lenient run" "$CACHET" run --lenient "$TMP/bad.din"
expect_err_contains "skipped 1 malformed record: label is not 0..5" "lenient summary"
expect_status 2 "bad config file" "$CACHET" run -c tests/configs/bad/bad_size.ini tests/data/tiny.din
expect_err_contains 'bad_size.ini: [l1d] size: "64kb" is not a size' "bad config message"
expect_status 2 "bad -s value" "$CACHET" run -s l1d.assoc=many tests/data/tiny.din
expect_err_contains '-s l1d.assoc=many: [l1d] assoc:' "bad -s message"
expect_status 1 "malformed -s" "$CACHET" run -s l1dsize tests/data/tiny.din
expect_status 1 "unknown format" "$CACHET" run -f nosuch tests/data/tiny.din

# a hand-checkable run: tiny.din with the built-in L1D 32K + L2 1M
# (fetches go to the L2: 4 fetches of one line = 1 miss, 3 hits;
#  data: 0x10000000 miss, 0x10000040 miss, 0x10000000 hit, 0x10000080 miss)
check "run --json" "$CACHET" run --json "$TMP/r.json" tests/data/tiny.din
expect_eq "$(json_get "$TMP/r.json" "d['instructions']")" 4 "instructions"
expect_eq "$(json_get "$TMP/r.json" "[l['misses'] for l in d['levels'] if l['name']=='l1d'][0]")" 3 "l1d misses"
expect_eq "$(json_get "$TMP/r.json" "[l['hits'] for l in d['levels'] if l['name']=='l1d'][0]")" 1 "l1d hits"
expect_eq "$(json_get "$TMP/r.json" "[l['by_kind']['store']['misses'] for l in d['levels'] if l['name']=='l1d'][0]")" 1 "l1d store misses"
expect_eq "$(json_get "$TMP/r.json" "[l['by_kind']['ifetch'] for l in d['levels'] if l['name']=='l2'][0]")" "{'accesses': 4, 'hits': 3, 'misses': 1}" "l2 ifetch"
expect_eq "$(json_get "$TMP/r.json" "[l['core'] for l in d['levels']]")" "[0, None]" "cores in json"
# cycles: fetches 100+12*3, loads 100+4+100, store 100 (defaults: l1d 4, l2 12, memory 100)
expect_eq "$(json_get "$TMP/r.json" "d['cycles']")" 440 "cycles"
expect_eq "$(json_get "$TMP/r.json" "d['traces'][0]['path']")" tests/data/tiny.din "provenance"

# by_kind names every kind a level counts, zeros included, at every level
expect_eq "$(json_get "$TMP/r.json" "sorted(set(tuple(sorted(l['by_kind'])) for l in d['levels']))")" \
    "[('atomic', 'cacheop', 'hwprefetch', 'ifetch', 'load', 'prefetch', 'store', 'walk', 'writeback')]" \
    "by_kind keys at every level"
expect_eq "$(json_get "$TMP/r.json" "[l['by_kind']['writeback'] for l in d['levels'] if l['name']=='l1d'][0]")" \
    "{'accesses': 0, 'hits': 0, 'misses': 0}" "by_kind: a kind that never came, as zeros"
expect_eq "$(json_get "$TMP/r.json" "[l['by_kind']['ifetch'] for l in d['levels'] if l['name']=='l1d'][0]")" \
    "{'accesses': 0, 'hits': 0, 'misses': 0}" "by_kind: fetches at the L1D of a config without L1I"

# ratios in JSON read back exactly: one miss in 235008 loads of one line
awk 'BEGIN { print "0 1000"; for (i = 1; i < 235008; i++) print "0 1004" }' > "$TMP/one.din"
printf '[l1d]\n' > "$TMP/l1.ini"
check "one miss" "$CACHET" run -q -c "$TMP/l1.ini" --json "$TMP/one.json" "$TMP/one.din"
expect_eq "$(json_get "$TMP/one.json" "[(l['misses'], l['accesses'], l['miss_rate'] == 1 / 235008) for l in d['levels']]")" \
    "[(1, 235008, True)]" "miss rate 1/235008 exactly"

# no instructions: CPI and MPKI have no value ("-", null, empty), other ratios do
check "run without fetches" "$CACHET" run --json "$TMP/nf.json" --csv "$TMP/nf.csv" "$TMP/one.din"
expect_eq "$(json_get "$TMP/nf.json" "(d['instructions'], d['cpi'], [l['mpki'] for l in d['levels']], d['amat']['load'] > 0)")" \
    "(0, None, [None, None], True)" "no instructions: cpi and mpki null in JSON"
expect_eq "$(python3 -c "import csv,sys; print([(r['mpki'], r['cpi'], r['miss_rate']) for r in csv.DictReader(open(sys.argv[1]))])" "$TMP/nf.csv")" \
    "[('', '', '0.000004'), ('', '', '1.000000')]" "no instructions: mpki and cpi empty in CSV"
"$CACHET" run "$TMP/one.din" > "$TMP/nf.txt"
expect_eq "$(grep -c 'CPI -$' "$TMP/nf.txt") $(awk '$1 == "l1d" || $1 == "l2" { print $10 }' "$TMP/nf.txt" | tr '\n' ' ')" \
    "1 - - " "no instructions: CPI and MPKI print as - in the table"
"$CACHET" run tests/data/tiny.din > "$TMP/t.txt"
expect_eq "$(grep -o 'CPI [0-9.]*$' "$TMP/t.txt") $(awk '$1 == "l1d" { print $10 }' "$TMP/t.txt")" \
    "CPI 110.0000 750.000" "with instructions: CPI and MPKI as numbers"

# stdin, gzip and zstd inputs give the same numbers
"$CACHET" run --json "$TMP/s.json" - < tests/data/tiny.din
expect_eq "$(json_get "$TMP/s.json" "d['cycles']")" 440 "stdin input"
gzip -c tests/data/tiny.din > "$TMP/tiny.gz"
"$CACHET" run --json "$TMP/g.json" "$TMP/tiny.gz"
expect_eq "$(json_get "$TMP/g.json" "d['cycles']")" 440 "gzip input (by magic, no .gz name needed)"

# CSV: header plus one row per level
check "run --csv" "$CACHET" run -q --csv "$TMP/r.csv" tests/data/tiny.din
expect_eq "$(wc -l < "$TMP/r.csv")" 3 "csv rows"
expect_eq "$(head -1 "$TMP/r.csv" | cut -d, -f1-7)" "cachet_version,config,config_hash,trace,trace_bytes,format,level" "csv header"

# outputs are written atomically: a failing run leaves no file behind
expect_status 2 "failing run with --json" "$CACHET" run --json "$TMP/none.json" "$TMP/bad.din"
check "no partial json" test ! -e "$TMP/none.json"
check "no temporary files" bash -c "! ls '$TMP' | grep -q tmp"

# info
check "info --json" bash -c "'$CACHET' info --json tests/data/tiny.din > '$TMP/i.json'"
expect_eq "$(json_get "$TMP/i.json" "(d['accesses']['load'], d['accesses']['store'], d['load_bytes'], d['malformed'], d['format'])")" "(3, 1, 12, 0, 'din')" "info counts"

# convert to din and back gives the same run
check "convert" "$CACHET" convert tests/data/tiny.din --to din -o "$TMP/c.din"
"$CACHET" run --json "$TMP/c.json" "$TMP/c.din"
expect_eq "$(json_get "$TMP/c.json" "d['cycles']")" 440 "converted run"

# config printing and the key reference
check "config" "$CACHET" config -c configs/default.ini
expect_status 0 "config with -s" "$CACHET" config -s l1d.size=64K -s l1d.assoc=4

# a synthetic workload runs through the same path
check "gen run" "$CACHET" run -q gen:matmul:dim=16
finish
