#!/bin/bash
# drcachesim_targets.sh - cachet run --compat drcachesim reproduces
# DynamoRIO's own test expectations, read from the expectation files
# themselves: offline-cpu.templatex (every number, -cpu_scheduling on
# drmemtrace.simple_app.trace.zip) and offline-snappy-serial.templatex (LL
# hits, -no_core_sharded on the chase-snappy directory); the per-core
# hardware-prefetch counters of the offline-cpu run; one-core runs of
# simple_app against an independent Python reference of the L1s, in both
# counting modes; and a one-core run of one thread gives the core model's L1
# misses (DineroIV's rules) when there is no prefetcher.
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

# the per-core prefetch counters (by_kind.hwprefetch) of the same run: each
# L1D's and the LL's equal the template's "Prefetch hits/misses" (the trace
# has no software prefetch), each demand miss at an L1D issued one
# next-line prefetch there, and the LL saw exactly the prefetches the L1Ds
# missed
python3 - "$T/offline-cpu.templatex" "$TMP/cpu.json" >"$TMP/pf.txt" 2>&1 <<'PY'
import json, re, sys
tmpl, res = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
want, cur = {}, None
for line in tmpl.splitlines():
    m = re.match(r'\s*(L1[ID]\d|LL) ', line)
    if m:
        cur = m.group(1); continue
    m = re.match(r'\s*(Misses|Prefetch hits|Prefetch misses):\s*\*?(.*)$', line)
    if m and cur:
        want[cur, m.group(1)] = int(m.group(2).replace('[,\\.]?', ''))
bad, checked, ll_from_l1 = 0, 0, 0
def expect(what, got, w):
    global bad, checked
    checked += 1
    ok = got == w
    bad += not ok
    print('ok ' if ok else 'BAD', what, 'got', got, 'want', w)
for l in res['levels']:
    name = 'LL' if l['name'] == 'l2' else '%s%d' % (l['name'].upper(), l['core'])
    hw = l['by_kind'].get('hwprefetch', {'accesses': 0, 'hits': 0, 'misses': 0})
    expect(name + ' no software prefetch', l['by_kind'].get('prefetch', {}).get('accesses', 0), 0)
    if l['name'] == 'l1i':
        expect(name + ' hwprefetch accesses', hw['accesses'], 0)
        continue
    if (name, 'Prefetch hits') not in want:    # cores without traced cpus
        expect(name + ' hwprefetch accesses', hw['accesses'], 0)
        continue
    expect(name + ' hwprefetch hits', hw['hits'], want[name, 'Prefetch hits'])
    expect(name + ' hwprefetch misses', hw['misses'], want[name, 'Prefetch misses'])
    expect(name + ' hwprefetch accesses', hw['accesses'], hw['hits'] + hw['misses'])
    if l['name'] == 'l1d':
        expect(name + ' prefetches issued', l['prefetches_issued'], want[name, 'Misses'])
        ll_from_l1 += hw['misses']
    else:
        expect(name + ' hwprefetch accesses from the L1Ds', hw['accesses'], ll_from_l1)
print('checked', checked)
sys.exit(1 if bad or checked < 20 else 0)
PY
status=$?
cat "$TMP/pf.txt"
expect_eq "$status" 0 "by_kind.hwprefetch per core against offline-cpu.templatex"

check "offline-snappy-serial run" "$CACHET" run -c "$CFG" -q --json "$TMP/sz.json" \
    "$T/drmemtrace.chase-snappy.x64.tracedir"
want=$(sed -n 's/^ *Hits: *\*\?\([0-9]*\)\[,\\\.\]?\([0-9]*\)$/\1\2/p' "$T/offline-snappy-serial.templatex")
got=$(json_get "$TMP/sz.json" "[l['drcachesim']['hits'] for l in d['levels'] if l['name']=='l2'][0]")
expect_eq "$got" "$want" "offline-snappy-serial LL hits"
expect_eq "$want" 78312 "the expectation was read"

# one core, no prefetcher, against an independent reference: a short Python
# decoder and 32K 8-way LRU L1I/L1D with line splitting
# (tests/drmemtrace_l1_reference.py) gives the L1 accesses and misses of
# drmemtrace.simple_app.trace.zip, by drcachesim's size-0 rule for
# compat = drcachesim and by the core model's (sim/hier.c) for none
REF=$SRC/tests/drmemtrace_l1_reference.py
APP=$T/drmemtrace.simple_app.trace.zip
for m in none drcachesim; do
    check "simple_app, one core ($m)" "$CACHET" run -c "$SRC/configs/drcachesim-default.ini" \
        -s system.cores=1 -s l1d.prefetcher=none -s system.compat=$m -q --json "$TMP/app-$m.json" "$APP"
    python3 "$REF" "$APP" "$([ $m = none ] && echo core || echo drcachesim)" > "$TMP/ref-$m.json"
    expect_eq "$?" 0 "the reference read simple_app ($m)"
    for lv in l1i l1d; do
        if [ $m = none ]; then
            got=$(json_get "$TMP/app-$m.json" "[[l['accesses'], l['misses']] for l in d['levels'] if l['name']=='$lv'][0]")
        else
            got=$(json_get "$TMP/app-$m.json" "[[l['drcachesim']['hits'] + l['drcachesim']['misses'], l['drcachesim']['misses']] for l in d['levels'] if l['name']=='$lv'][0]")
        fi
        want=$(json_get "$TMP/ref-$m.json" "d['$lv']")
        expect_eq "$got" "$want" "simple_app $lv accesses and misses ($m) equal the reference"
    done
done

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
