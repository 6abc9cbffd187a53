#!/bin/bash
# drcachesim_targets.sh - cachet run --compat drcachesim reproduces
# DynamoRIO's own test expectations, read from the expectation files
# themselves: offline-cpu.templatex (every number, -cpu_scheduling on
# drmemtrace.simple_app.trace.zip) and offline-snappy-serial.templatex (LL
# hits, -no_core_sharded on the chase-snappy directory); and a one-core run
# of one thread gives the core model's L1 misses (DineroIV's rules) when
# there is no prefetcher.
source "$(dirname "$0")/lib.bash"
need_corpus
T=$CACHET_CORPUS/drmemtrace/dynamorio-tests
CFG=$SRC/configs/drcachesim-exact.ini

check "offline-cpu run" "$CACHET" run -c "$CFG" -s trace.schedule=cpus -q --json "$TMP/cpu.json" \
    "$T/drmemtrace.simple_app.trace.zip"
python3 - "$T/offline-cpu.templatex" "$TMP/cpu.json" >"$TMP/cpu.txt" 2>&1 <<'PY'
import json, re, sys
tmpl, res = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
names = {('l1i', c): 'L1I%d' % c for c in range(4)}
names.update({('l1d', c): 'L1D%d' % c for c in range(4)})
names[('l2', None)] = 'LL'
levels = {names[(l['name'], l['core'])]: l['drcachesim'] for l in res['levels']}
fields = {'Hits': 'hits', 'Misses': 'misses', 'Compulsory misses': 'compulsory_misses',
          'Invalidations': 'invalidations', 'Prefetch hits': 'prefetch_hits',
          'Prefetch misses': 'prefetch_misses', 'Child hits': 'child_hits',
          'Miss rate': 'miss_rate', 'Local miss rate': 'miss_rate',
          'Total miss rate': 'total_miss_rate'}
cur, checked, bad = None, 0, 0
for line in tmpl.splitlines():
    m = re.match(r'\s*(L1[ID]\d|LL) ', line)
    if m:
        cur = m.group(1); continue
    m = re.match(r'\s*([A-Za-z ]+):\s*\*?(.*)$', line)
    if not m or cur is None or m.group(1) not in fields:
        continue
    text = m.group(2).replace('[,\\.]?', '').replace('[,\\.]', '.').replace('%', '')
    got = levels[cur][fields[m.group(1)]]
    if 'rate' in fields[m.group(1)]:
        ok = '%.2f' % (100 * got) == text
    else:
        ok = got == int(text)
    checked += 1
    bad += not ok
    print('ok ' if ok else 'BAD', cur, m.group(1), 'want', text, 'got', got)
print('checked', checked)
sys.exit(1 if bad or checked != 33 else 0)  # 5 + 7 + 5 + 7 + 9 figures
PY
status=$?
cat "$TMP/cpu.txt"
expect_eq "$status" 0 "every number of offline-cpu.templatex"

check "offline-snappy-serial run" "$CACHET" run -c "$CFG" -q --json "$TMP/sz.json" \
    "$T/drmemtrace.chase-snappy.x64.tracedir"
want=$(sed -n 's/^ *Hits: *\*\?\([0-9]*\)\[,\\\.\]?\([0-9]*\)$/\1\2/p' "$T/offline-snappy-serial.templatex")
got=$(json_get "$TMP/sz.json" "[l['drcachesim']['hits'] for l in d['levels'] if l['name']=='l2'][0]")
expect_eq "$got" "$want" "offline-snappy-serial LL hits"
expect_eq "$want" 78312 "the expectation was read"

# one core, one thread, no prefetcher: compat = drcachesim and the core
# model agree on L1 misses
ONE="$T/drmemtrace.chase-snappy.x64.tracedir/chase.20190225.185346.23699.memtrace.sz"
for m in none drcachesim; do
    check "one core ($m)" "$CACHET" run -c "$SRC/configs/drcachesim-default.ini" -s system.cores=1 \
        -s l1d.prefetcher=none -s system.compat=$m -q --json "$TMP/one-$m.json" "$ONE"
done
for lv in l1i l1d; do
    a=$(json_get "$TMP/one-none.json" "[l['misses'] for l in d['levels'] if l['name']=='$lv'][0]")
    b=$(json_get "$TMP/one-drcachesim.json" "[l['misses'] for l in d['levels'] if l['name']=='$lv'][0]")
    expect_eq "$b" "$a" "$lv misses of one core agree with the core model"
done
finish
