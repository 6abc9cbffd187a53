#!/bin/bash
# drcachesim_facts.sh - cachet run --compat drcachesim on the threadsig
# sample directory of the corpus gives every figure drcachesim printed
# there (tests/data/drcachesim-threadsig-facts.txt: tool, version and
# command in its header) with FIFO and LFU replacement, coherence, a
# warm-up by references, skip + simulated count, and a warm-up by fraction
# with LFU and coherence: per core L1I and L1D, the LL, the coherence
# totals.
source "$(dirname "$0")/lib.bash"
need_corpus
DIR=$CACHET_CORPUS/drmemtrace/drmemtrace_samples/threadsig.x86_64/drmemtrace.threadsig.2765542.9400.dir/trace
[ -d "$DIR" ] || { echo "skipped: no threadsig sample directory in $CACHET_CORPUS"; exit 77; }
python3 - "$CACHET" "$DIR" "$SRC/tests/data/drcachesim-threadsig-facts.txt" "$TMP" <<'PY'
import json, os, subprocess, sys
cachet, trace, facts, tmp = sys.argv[1:5]
sys.path.insert(0, os.path.join(os.path.dirname(facts), '..'))
from drcachesim_figures import figure, levels, same
# drcachesim options -> cachet options (the rest is drcachesim's default
# hierarchy, which --compat drcachesim without -c is)
def args(opts):
    o, a, i = opts.split(), [], 0
    while i < len(o):
        k, v = o[i], o[i + 1] if i + 1 < len(o) and not o[i + 1].startswith('-') else None
        i += 2 if v is not None else 1
        if k == '-replace_policy':
            a += sum([['-s', '%s.replacement=%s' % (l, v.lower())] for l in ('l1i', 'l1d', 'l2')], [])
        elif k == '-coherence':
            a += ['-s', 'system.coherence=msi']
        elif k == '-warmup_refs':
            a += ['--warmup', v]
        elif k == '-warmup_fraction':
            a += ['-s', 'system.warmup_fraction=' + v]
        elif k == '-skip_refs':
            a += ['--skip', v]
        elif k == '-sim_refs':
            a += ['-n', v]
        else:
            raise SystemExit('unknown option ' + k)
    return a
runs, cur = [], None
for line in open(facts):
    line = line.rstrip('\n')
    if not line or line.startswith('#'):
        continue
    if line.startswith('run '):
        cur = (line[4:], [])
        runs.append(cur)
        continue
    cache, rest = line.split(' ', 1)
    field, value = rest.split(': ')
    cur[1].append((cache, field, value))
bad = checked = 0
for opts, figures in runs:
    out = '%s/f.json' % tmp
    r = subprocess.run([cachet, 'run', '--compat', 'drcachesim', '-q', '--json', out] + args(opts) + [trace])
    if r.returncode != 0:
        print('BAD', opts, 'cachet failed')
        bad += 1
        continue
    d = json.load(open(out))
    lv = levels(d)
    n = 0
    for cache, field, value in figures:
        g = figure(d, lv, cache, field)
        n += 1
        if not same(value, g):
            bad += 1
            print('BAD', opts, cache, field, 'want', value, 'got', g)
    checked += n
    print('ok ' if n else 'BAD', opts, ':', n, 'figures')
print('checked', checked)
sys.exit(1 if bad or checked != 400 else 0)
PY
expect_eq "$?" 0 "every figure drcachesim printed on the threadsig sample, 6 runs"
finish
