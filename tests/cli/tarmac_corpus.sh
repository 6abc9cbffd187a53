# tarmac_corpus.sh - every trace of the Tarmac corpus decodes without a
# malformed line, and its fetch, load and store counts (and bytes) equal an
# independent count of its lines made here in Python.
source "$(dirname "$0")/lib.sh"
need_corpus
DIR=$CACHET_CORPUS/tarmac
[ -d "$DIR" ] || { echo "skipped: no $DIR"; exit 77; }

cat > "$TMP/count.py" <<'PY'
# Count what a Tarmac file holds, line by line, with regular expressions.
import re, sys
UNITS = {'clk', 'ns', 'ps', 'cs', 'cyc', 'tic', 'us'}
HEX = re.compile(r'[0-9a-fA-F]+$')
n = dict(ifetch=0, load=0, store=0, load_bytes=0, store_bytes=0)

def access(write, size):
    n['store' if write else 'load'] += 1
    n['store_bytes' if write else 'load_bytes'] += size

def runs(write, words):
    pairs, text = [], ''.join(words)
    for i in range(0, 32, 2):
        pairs.append(text[i:i + 2])
    run = 0
    for p in pairs + ['..']:
        if p != '..':
            run += 1
        elif run:
            access(write, run)
            run = 0

prev = None  # (write, column) of the last LD/ST line
for raw in open(sys.argv[1], errors='replace'):
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
        m = re.match(r'\(([0-9a-fA-F]+):([0-9a-fA-F]+)\)', ''.join(rest))
        if m:
            n['ifetch'] += 1
    elif k in ('LD', 'ST'):
        prev = (k == 'ST', where[i + 1] if i + 1 < len(where) else -1)
        runs(k == 'ST', rest[1:])
    elif re.match(r'[RW]0[1248]$', k):
        access(k[0] == 'W', int(k[1:]))
    elif k.startswith('MU'):
        pass  # atomics: counted apart (none in the corpus)
    elif k.startswith('M'):
        m = re.match(r'M[A-Z]*?([RW])(\d+)', k)
        rtl = len(k) == 8 and '_' in k
        if not m or '(ABORTED)' in rest or 'TRANSFER' in rest:
            continue
        if (rtl and k[7] in 'IA') or re.search(r'_[IA]$', k):
            continue
        access(m.group(1) == 'W', int(m.group(2)))
print(' '.join(str(n[x]) for x in ('ifetch', 'load', 'store', 'load_bytes', 'store_bytes')))
PY

files=$(find "$DIR" -type f \( -name '*.tarmac' -o -name 'parsertest*.txt' \) | sort)
[ -n "$files" ] || { echo "skipped: no Tarmac traces in $DIR"; exit 77; }
for f in $files; do
    "$CACHET" info --json "$f" > "$TMP/i.json" 2>"$TMP/err" || { bad "$f: info failed: $(cat "$TMP/err")"; continue; }
    got=$(json_get "$TMP/i.json" "d['format'], d['malformed'], d['accesses']['ifetch'], d['accesses']['load'], d['accesses']['store'], d['load_bytes'], d['store_bytes']")
    want="tarmac 0 $(python3 "$TMP/count.py" "$f")"
    expect_eq "$got" "$want" "$(basename "$f"): format, malformed, fetches, loads, stores, bytes"
done
finish
