# tarmac_corpus.sh - every trace of the Tarmac corpus decodes without a
# malformed line, and its fetch, load and store counts (and bytes) equal an
# independent count of its lines made here in Python.
source "$(dirname "$0")/lib.bash"
need_corpus
DIR=$CACHET_CORPUS/tarmac
[ -d "$DIR" ] || { echo "skipped: no $DIR"; exit 77; }

cat > "$TMP/count.py" <<'PY'
# Count what Tarmac files hold, line by line, with regular expressions, and
# compare with what `cachet info --json` says of them.
import json, re, subprocess, sys
UNITS = {'clk', 'ns', 'ps', 'cs', 'cyc', 'tic', 'us'}
HEX = re.compile(r'[0-9a-fA-F]+$')

def count(path):
    n = dict(ifetch=0, load=0, store=0, load_bytes=0, store_bytes=0)

    def access(write, size):
        n['store' if write else 'load'] += 1
        n['store_bytes' if write else 'load_bytes'] += size

    def runs(write, words):
        text, run = ''.join(words), 0
        for p in [text[i:i + 2] for i in range(0, 32, 2)] + ['..']:
            if p != '..':
                run += 1
            elif run:
                access(write, run)
                run = 0

    prev = None  # (write, column of the address) of the last LD/ST line
    for raw in open(path, errors='replace'):
        line = raw.rstrip('\r\n')
        where = [m.start() for m in re.finditer(r'\S+', line)]
        toks = line.split()
        if not toks:
            continue
        if prev and where[0] == prev[1] and HEX.match(toks[0]):
            runs(prev[0], toks[1:])
            continue
        prev = None
        i = 0
        m = re.match(r'(\d+(\.\d+)?)(clk|ns|ps|cs|cyc|tic|us)?$', toks[0])
        if m:
            i = 1
            if not m.group(3) and len(toks) > 1 and toks[1] in UNITS:
                i = 2
        if i < len(toks) and toks[i].startswith('cpu') and len(toks[i]) > 3:
            i += 1
        if i >= len(toks):
            continue
        k, rest = toks[i], toks[i + 1:]
        if k in ('IT', 'IS', 'IF'):
            if not rest or rest[0] not in ('EXC', 'Reset'):
                n['ifetch'] += 1
        elif k == 'ES':
            if re.match(r'\(([0-9a-fA-F]+):([0-9a-fA-F]+)\)', ''.join(rest)):
                n['ifetch'] += 1
        elif k in ('LD', 'ST'):
            prev = (k == 'ST', where[i + 1] if i + 1 < len(where) else -1)
            runs(k == 'ST', rest[1:])
        elif re.match(r'[RW]0[1248]$', k):
            access(k[0] == 'W', int(k[1:]))
        elif k.startswith('M') and not k.startswith('MU'):
            m = re.match(r'M[A-Z]*?([RW])(\d+)', k)
            rtl = len(k) == 8 and '_' in k
            if not m or '(ABORTED)' in rest or 'TRANSFER' in rest:
                continue
            if (rtl and k[7] in 'IA') or re.search(r'_[IA]$', k):
                continue
            access(m.group(1) == 'W', int(m.group(2)))
    return n

cachet, failed = sys.argv[1], 0
for path in sys.argv[2:]:
    r = subprocess.run([cachet, 'info', '--json', path], capture_output=True, text=True)
    if r.returncode != 0:
        print('FAIL: %s: info failed: %s' % (path, r.stderr), file=sys.stderr)
        failed += 1
        continue
    d, n = json.loads(r.stdout), count(path)
    got = (d['format'], d['malformed'], d['accesses']['ifetch'], d['accesses']['load'],
           d['accesses']['store'], d['load_bytes'], d['store_bytes'])
    want = ('tarmac', 0, n['ifetch'], n['load'], n['store'], n['load_bytes'], n['store_bytes'])
    if got != want or n['load'] + n['store'] + n['ifetch'] == 0:
        print('FAIL: %s: (format, malformed, fetches, loads, stores, load and store bytes) '
              'got %s, want %s' % (path, got, want), file=sys.stderr)
        failed += 1
print('%d of %d traces agree with the independent count' % (len(sys.argv) - 2 - failed,
                                                            len(sys.argv) - 2))
sys.exit(1 if failed else 0)
PY

files=$(find "$DIR" -type f \( -name '*.tarmac' -o -name 'parsertest*.txt' \) | sort)
[ -n "$files" ] || { echo "skipped: no Tarmac traces in $DIR"; exit 77; }
check "info agrees with the independent count" python3 "$TMP/count.py" "$CACHET" $files
finish
