#!/bin/bash
# drmemtrace_corpus.sh - cachet info on every drmemtrace file and directory
# of the corpus reports the instruction, load, store and no-fetch counts that
# $CACHET_CORPUS/SOURCES.md lists for it (directories: the sum of their
# files), instructions being the fetched ones (ifetch accesses; a no-fetch
# record repeats its instruction, as basic_counts counts), with no malformed
# record; the threadsig sample directory also
# matches the basic_counts totals of its README.txt.
source "$(dirname "$0")/lib.bash"
need_corpus

python3 - "$CACHET" "$CACHET_CORPUS" >"$TMP/report" 2>&1 <<'PY'
import collections, json, os, re, subprocess, sys
cachet, corpus = sys.argv[1], sys.argv[2]
want, dirs = {}, collections.defaultdict(lambda: [0, 0, 0, 0])
for line in open(os.path.join(corpus, 'SOURCES.md')):
    m = re.match(r'\| traces/(drmemtrace/\S+) \|', line)
    c = re.search(r'fetched instrs (\d+), loads (\d+), stores (\d+)'
                  r'(?:, non-fetched instrs (\d+))?', line)
    if m and c:
        counts = [int(x or 0) for x in c.groups()]
        want[m.group(1)] = counts
        d = os.path.dirname(m.group(1))
        if d.endswith('.tracedir') or d.endswith('/trace'):   # trace directories
            for i in range(4):
                dirs[d][i] += counts[i]
want.update(dirs)
readme = open(os.path.join(corpus, 'drmemtrace/drmemtrace_samples/threadsig.x86_64/README.txt')).read()
def total(label):
    return int(re.search(r'(\d+) total ' + label, readme).group(1))
want['drmemtrace/drmemtrace_samples/threadsig.x86_64/drmemtrace.threadsig.2765542.9400.dir'] = [
    total(r'\(fetched\) instructions'), total('data loads'), total('data stores'),
    total('non-fetched instructions')]
bad = 0
for path, counts in sorted(want.items()):
    r = subprocess.run([cachet, 'info', '--json', os.path.join(corpus, path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print('FAIL', path, r.stderr.strip()); bad += 1; continue
    d = json.loads(r.stdout)
    got = [d['accesses']['ifetch'], d['accesses']['load'], d['accesses']['store'],
           d['accesses']['nofetch']]
    if (got != counts or d['instructions'] != got[0] or d['malformed'] != 0
            or d['format'] != 'drmemtrace'):
        print('FAIL', path, 'got', got, 'want', counts, 'malformed', d['malformed']); bad += 1
    else:
        print('ok', path, got)
print('inputs', len(want))
sys.exit(1 if bad else 0)
PY
status=$?
cat "$TMP/report"
expect_eq "$status" 0 "every drmemtrace input matches SOURCES.md"
expect_eq "$(grep -c '^ok ' "$TMP/report")" "$(sed -n 's/^inputs //p' "$TMP/report")" "no input skipped"

# run counts instructions as info does, with either counting rule: a thread
# of the sample with 630000 no-fetch records (SOURCES.md: 790361 fetched)
T="$CACHET_CORPUS/drmemtrace/drmemtrace_samples/threadsig.x86_64/drmemtrace.threadsig.2765542.9400.dir/trace/drmemtrace.threadsig.2765543.2117.trace.zip"
if [ -f "$T" ]; then
    want=$("$CACHET" info --json "$T" | python3 -c 'import json,sys; print(json.load(sys.stdin)["instructions"])')
    for c in configs/default.ini configs/drcachesim-exact.ini; do
        got=$("$CACHET" run -q --json - -c "$CACHET_SRC/$c" "$T" |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["instructions"])')
        expect_eq "$got" "$want" "run -c $c: instructions as info counts them"
    done
    expect_eq "$want" 790361 "the thread's fetched instructions (SOURCES.md)"
fi

# The threads schedule places a thread at its first record, a marker too,
# as drcachesim's simulator does: thread 872903 of threadsig.x64.tracedir
# has markers long before its first access. Hits and misses DynamoRIO
# drcachesim (drmemtrace_launcher, DynamoRIO/dynamorio 05e316505) printed
# with -indir DIR -no_core_sharded; cachet placing threads at their first
# access gave L1I0 215,820 hits.
TD=$CACHET_CORPUS/drmemtrace/dynamorio-tests/drmemtrace.threadsig.x64.tracedir
"$CACHET" run -q --compat drcachesim -s trace.schedule=threads --json "$TMP/td.json" "$TD"
got=$(python3 - "$TMP/td.json" "$SRC/tests" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from drcachesim_figures import figure, levels
d = json.load(open(sys.argv[1]))
lv = levels(d)
print(' '.join('%s:%s/%s' % (c, figure(d, lv, c, 'Hits'), figure(d, lv, c, 'Misses'))
               for c in ('L1I0', 'L1D0', 'L1I1', 'L1D1', 'L1I2', 'L1D2', 'L1I3', 'L1D3', 'LL')))
PY
)
expect_eq "$got" "L1I0:195650/704 L1D0:81270/566 L1I1:116162/233 L1D1:47956/190 L1I2:113372/233 L1D2:46835/177 L1I3:239544/295 L1D3:99417/187 LL:1039/1546" "threadsig.x64.tracedir in the threads schedule: drcachesim's figures"
finish
