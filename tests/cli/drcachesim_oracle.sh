#!/bin/bash
# drcachesim_oracle.sh - random comparison with DynamoRIO's drcachesim:
# random configurations (cores, L1I/L1D/LL sizes and ways, line size, LRU,
# FIFO or LFU, next-line prefetch or none, coherence, warm-up by references
# or by fraction, skip, simulated count) x the drmemtrace traces of the
# corpus x the scheduling modes (threads in order of appearance:
# -no_core_sharded; traced cpus: -cpu_scheduling), each run by drcachesim
# and by cachet run --compat drcachesim; every figure drcachesim prints
# (per core L1I and L1D, the LL, the coherence totals) must be cachet's.
#
# Needs DRCACHESIM (the drmemtrace_launcher binary) and CACHET_CORPUS; skips
# otherwise. ORACLE_PAIRS (default 12) pairs, ORACLE_SEED (default 1);
# ORACLE_BIG=1 adds the 61 M-record threadsig sample directory to the
# traces (slow in drcachesim).
source "$(dirname "$0")/lib.bash"
need_corpus
if [ -z "${DRCACHESIM:-}" ] || [ ! -x "$DRCACHESIM" ]; then
    echo "skipped: DRCACHESIM is not set (the path of DynamoRIO's drmemtrace_launcher)"
    exit 77
fi
PAIRS=${ORACLE_PAIRS:-12}
SEED=${ORACLE_SEED:-1}
D=$CACHET_CORPUS/drmemtrace/dynamorio-tests
# TRACE:MODES (both: threads and cpus)
traces="$D/drmemtrace.threadsig.x64.tracedir:both $D/drmemtrace.simple_app.trace.zip:both $D/drmemtrace.chase-snappy.x64.tracedir:both"
if [ "${ORACLE_BIG:-0}" = 1 ]; then
    traces="$traces $CACHET_CORPUS/drmemtrace/drmemtrace_samples/threadsig.x86_64/drmemtrace.threadsig.2765542.9400.dir/trace:threads"
fi

TESTS_DIR=$SRC/tests python3 - "$CACHET" "$DRCACHESIM" "$PAIRS" "$SEED" "$TMP" $traces <<'PY'
import json, os, random, subprocess, sys
cachet, drc, pairs, seed, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, os.environ['TESTS_DIR'])
from drcachesim_figures import FIELDS, figure, levels, parse, same
traces = [t.rsplit(':', 1) for t in sys.argv[6:]]
rng = random.Random(seed)

def config(modes):
    line = rng.choice([32, 64, 128])
    c = {'cores': rng.choice([1, 2, 3, 4]), 'line': line,
         'l1i': (rng.choice([2, 4, 8, 16, 32]) * 1024, rng.choice([1, 2, 4, 8])),
         'l1d': (rng.choice([2, 4, 8, 16, 32]) * 1024, rng.choice([1, 2, 4, 8])),
         'll': (rng.choice([64, 256, 1024, 8192]) * 1024, rng.choice([4, 8, 16])),
         'policy': rng.choice(['lru', 'fifo', 'lfu']),
         'prefetch': rng.choice(['nextline', 'none']),
         'coherence': rng.random() < 0.4,
         'mode': rng.choice(['threads', 'cpus'] if modes == 'both' else [modes]),
         'skip': 0, 'warmup': 0, 'fraction': 0.0, 'sim': 0}
    if rng.random() < 0.3:
        c['skip'] = rng.randrange(1, 200000)
    r = rng.random()
    if r < 0.3:
        c['warmup'] = rng.randrange(1, 300000)
    elif r < 0.45:
        c['fraction'] = rng.choice([0.05, 0.2, 0.5])
    if rng.random() < 0.3:
        c['sim'] = rng.randrange(1, 400000)
    return c

def dr_args(c, trace):
    a = [drc, '-indir' if not trace.endswith('.zip') else '-infile', trace,
         '-cores', str(c['cores']), '-line_size', str(c['line']),
         '-L1I_size', str(c['l1i'][0]), '-L1I_assoc', str(c['l1i'][1]),
         '-L1D_size', str(c['l1d'][0]), '-L1D_assoc', str(c['l1d'][1]),
         '-LL_size', str(c['ll'][0]), '-LL_assoc', str(c['ll'][1]),
         '-replace_policy', c['policy'].upper(), '-data_prefetcher', c['prefetch']]
    a += ['-no_core_sharded'] if c['mode'] == 'threads' else ['-cpu_scheduling']
    if c['coherence']:
        a.append('-coherence')
    if c['skip']:
        a += ['-skip_refs', str(c['skip'])]
    if c['warmup']:
        a += ['-warmup_refs', str(c['warmup'])]
    if c['fraction']:
        a += ['-warmup_fraction', str(c['fraction'])]
    if c['sim']:
        a += ['-sim_refs', str(c['sim'])]
    return a

def cachet_args(c, trace, out):
    s = {'system.cores': c['cores'], 'trace.schedule': c['mode'],
         'l1d.prefetcher': c['prefetch'], 'l2.shared': 'yes'}
    for lv, k in (('l1i', 'l1i'), ('l1d', 'l1d'), ('l2', 'll')):
        s[lv + '.size'], s[lv + '.assoc'] = c[k]
        s[lv + '.line'] = c['line']
        s[lv + '.replacement'] = c['policy']
    if c['coherence']:
        s['system.coherence'] = 'msi'
    if c['fraction']:
        s['system.warmup_fraction'] = c['fraction']
    a = [cachet, 'run', '--compat', 'drcachesim', '-q', '--json', out]
    for k, v in s.items():
        a += ['-s', '%s=%s' % (k, v)]
    if c['skip']:
        a += ['--skip', str(c['skip'])]
    if c['warmup']:
        a += ['--warmup', str(c['warmup'])]
    if c['sim']:
        a += ['-n', str(c['sim'])]
    return a + [trace]

bad_pairs = 0
figures = 0
for p in range(pairs):
    trace, modes = rng.choice(traces)
    c = config(modes)
    out = '%s/o%d.json' % (tmp, p)
    dr = subprocess.run(dr_args(c, trace), capture_output=True, text=True)
    ct = subprocess.run(cachet_args(c, trace, out), capture_output=True, text=True)
    desc = 'pair %d: %s %s' % (p, trace.split('/')[-1], json.dumps(c, sort_keys=True))
    if dr.returncode != 0 or 'Cache simulation results' not in dr.stderr:
        print('BAD', desc, 'drcachesim failed:', dr.stderr[-400:])
        bad_pairs += 1
        continue
    if ct.returncode != 0:
        print('BAD', desc, 'cachet failed:', ct.stderr[-400:])
        bad_pairs += 1
        continue
    want, printed = parse(dr.stderr)
    got = json.load(open(out))
    lv = levels(got)
    diffs = []
    for cache, fields in want.items():
        for f, v in fields.items():
            if cache != 'coherence' and f not in FIELDS:
                continue
            g = figure(got, lv, cache, f)
            figures += 1
            if not same(v, g):
                diffs.append('%s %s want %s got %s' % (cache, f, v, g))
        if cache == 'coherence':
            continue
        # a figure drcachesim prints only when not zero is zero in cachet
        for f in ('Flushes', 'Prefetch hits', 'Prefetch misses', 'Child hits'):
            if f not in fields and cache in lv:
                obj, key = FIELDS[f]
                figures += 1
                if lv[cache].get(obj, {}).get(key, 0) != 0:
                    diffs.append('%s %s not printed, got %s' % (cache, f, lv[cache][obj][key]))
    # the cores drcachesim leaves out saw nothing in cachet
    for name, l in lv.items():
        if name != 'LL' and int(name[3:]) not in printed:
            figures += 1
            if l['drcachesim']['hits'] + l['drcachesim']['misses'] != 0:
                diffs.append('%s not printed by drcachesim, cachet counted accesses' % name)
    if diffs:
        bad_pairs += 1
        print('BAD', desc)
        for d in diffs[:20]:
            print('   ', d)
    else:
        print('ok ', desc)
print('pairs %d, with a difference %d, figures compared %d' % (pairs, bad_pairs, figures))
sys.exit(1 if bad_pairs else 0)
PY
expect_eq "$?" 0 "every figure drcachesim printed, on $PAIRS random pairs (seed $SEED)"
finish
