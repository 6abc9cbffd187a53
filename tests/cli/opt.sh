#!/bin/bash
# opt.sh - replacement = opt (rules at the top of sim/policy/opt.c): hand
# examples where OPT keeps what LRU, LFU and FIFO throw away; the two passes
# on files, directories and gen: streams, refused on stdin; the
# configurations whose stream a first pass cannot record, refused with the
# reason; no temporary file left behind, also after SIGINT; other commands
# refuse it; and on every corpus trace no policy misses less than OPT at the
# same geometry, at a first level and at an L2.
source "$(dirname "$0")/lib.bash"

# misses FILE.json LEVEL: the level's misses (summed over its instances)
misses() { json_get "$1" "sum(l['misses'] for l in d['levels'] if l['name'] == '$2')"; }
hits() { json_get "$1" "sum(l['hits'] for l in d['levels'] if l['name'] == '$2')"; }
# two_way TRACE POLICY...: TRACE through one 2-way set of an L1D per policy,
# the figures in $TMP/POLICY.json
two_way() {
    local t=$1 p
    shift
    for p in "$@"; do
        "$CACHET" run -q --json "$TMP/$p.json" -s l1d.size=128 -s l1d.assoc=2 \
            -s "l1d.replacement=$p" "$t"
    done
}

# A B C A B in one 2-way set (64-byte lines at 0x0, 0x40, 0x80). LRU and
# FIFO miss all five. OPT at C: A's next use (3) is nearer than B's (4),
# B goes; A hits, B misses: 4 misses, 1 hit.
printf '0 0\n0 40\n0 80\n0 0\n0 40\n' >"$TMP/abcab.din"
two_way "$TMP/abcab.din" lru fifo opt
expect_eq "$(misses "$TMP/lru.json" l1d)/$(misses "$TMP/fifo.json" l1d)" 5/5 "A B C A B: LRU, FIFO"
expect_eq "$(misses "$TMP/opt.json" l1d)/$(hits "$TMP/opt.json" l1d)" 4/1 \
    "A B C A B: OPT evicts B (next use 4) for C, keeps A (next use 3)"

# A B A C B: at C, LRU and LFU evict B (least recent; used once), OPT
# evicts A (never used again), so B hits: 3 misses against 4.
printf '0 0\n0 40\n0 0\n0 80\n0 40\n' >"$TMP/abacb.din"
two_way "$TMP/abacb.din" lru lfu opt
expect_eq "$(misses "$TMP/lru.json" l1d)/$(misses "$TMP/lfu.json" l1d)" 4/4 "A B A C B: LRU, LFU"
expect_eq "$(misses "$TMP/opt.json" l1d)" 3 "A B A C B: OPT evicts A, never used again"

# Write-backs are uses. Stores to A B C A B through a one-line write-back
# L1D: the L2 (2 ways) sees A B A(wb) C B(wb) A C(wb) B A(wb), positions 0-8
# (a miss fetches, then its dirty victim goes down). LRU: every arrival but
# the first write-back misses (8 misses). OPT: A0 m, B1 m, A2 h, C3 m
# evicts A (next 5; B's is 4), B4 h, A5 m evicts B (next 7; C's is 6), C6
# h, B7 m evicts C (never again), A8 h: 5 misses, 4 hits.
printf '1 0\n1 40\n1 80\n1 0\n1 40\n' >"$TMP/wb.din"
for p in lru opt; do
    "$CACHET" run -q --json "$TMP/$p.json" -s l1d.size=64 -s l1d.assoc=1 -s l2.size=128 \
        -s l2.assoc=2 -s "l2.replacement=$p" "$TMP/wb.din"
done
expect_eq "$(misses "$TMP/lru.json" l2)/$(hits "$TMP/lru.json" l2)" 8/1 "write-backs at an LRU L2"
expect_eq "$(misses "$TMP/opt.json" l2)/$(hits "$TMP/opt.json" l2)" 5/4 \
    "write-backs arriving from above are uses of the OPT L2"

# Temporary files: in $TMPDIR, gone when the run ends (they are unlinked at
# once), also when a signal stops the first or the second pass.
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$CACHET" run -q --json "$TMP/opt.json" -s l1d.replacement=opt \
    "$TMP/abcab.din"
expect_eq "$(ls -A "$TMP/tmpdir" | wc -l)" 0 "no temporary file left in TMPDIR"
TMPDIR="$TMP/tmpdir" "$CACHET" run -q -s l1d.replacement=opt \
    "gen:random:n=500M,footprint=64M" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
expect_eq "$? $(ls -A "$TMP/tmpdir" | wc -l)" "130 0" "SIGINT: exit 130, no temporary file left"
expect_err_contains "interrupted" "SIGINT names the interruption"
expect_status 2 "an unwritable TMPDIR is an error" \
    env TMPDIR="$TMP/nonexistent" "$CACHET" run -q -s l1d.replacement=opt "$TMP/abcab.din"
expect_err_contains "temporary file in $TMP/nonexistent" "the error names the directory"

# Inputs read twice: gen: streams are seeded and replay; stdin is refused.
"$CACHET" run -q --json "$TMP/gl.json" -s l1d.size=4K "gen:random:n=20000,footprint=16K"
"$CACHET" run -q --json "$TMP/go.json" -s l1d.size=4K -s l1d.replacement=opt \
    "gen:random:n=20000,footprint=16K"
check "gen:random: OPT misses less than LRU" \
    test "$(misses "$TMP/go.json" l1d)" -lt "$(misses "$TMP/gl.json" l1d)"
# Two cores, each with its opt L1D, and a window: both passes take the same
# references (the second pass checks it saw exactly the first's arrivals).
two=(-s system.cores=2 -s l1d.size=2K --skip 100 --warmup 1000 -n 20000
     "gen:random:n=20000,footprint=16K,seed=1" "gen:random:n=20000,footprint=16K,seed=2")
"$CACHET" run -q --json "$TMP/wl.json" "${two[@]}"
check "two cores and a window with opt L1Ds" \
    "$CACHET" run -q --json "$TMP/wo.json" -s l1d.replacement=opt "${two[@]}"
check "two cores: each opt L1D misses less than its LRU one" python3 -c "
import json
l, o = (json.load(open(f)) for f in ('$TMP/wl.json', '$TMP/wo.json'))
m = lambda d: [x['misses'] for x in d['levels'] if x['name'] == 'l1d']
assert len(m(o)) == 2 and all(a < b for a, b in zip(m(o), m(l))), (m(o), m(l))"
expect_status 1 "stdin is refused" \
    bash -c "\"$CACHET\" run -q -s l1d.replacement=opt - <\"$TMP/abcab.din\""
expect_err_contains "reads the trace twice" "stdin: the reason"
expect_err_contains "not stdin" "stdin: named"

# Configurations whose stream a first pass cannot record.
refused() {
    local what=$1 text=$2
    shift 2
    expect_status 2 "$what is refused" "$CACHET" run -q "$@" "$TMP/abcab.din"
    expect_err_contains "replacement = opt: $text" "$what: the reason"
}
refused "a prefetcher at the opt level" "the level's own prefetcher" \
    -s l1d.replacement=opt -s l1d.prefetcher=nextline
refused "two opt levels on a path" "a level above it is opt too" \
    -s l1d.replacement=opt -s l2.replacement=opt
refused "an inclusive level below an opt level with levels above" "an inclusive level" \
    -s l2.replacement=opt -s l3.size=2M -s l3.inclusion=inclusive
refused "miss classification" "miss classification" -s l1d.replacement=opt -s system.miss_classes=yes
expect_status 2 "opt in a TLB is refused" "$CACHET" run -q -s dtlb.entries=64 \
    -s dtlb.replacement=opt "$TMP/abcab.din"
expect_err_contains "opt is for cache levels" "TLB: the reason"
# an opt L1I and an opt L1D are on different paths; an exclusive opt L2
"$CACHET" run -q --json "$TMP/two.json" -s l1i.size=4K -s l1i.replacement=opt \
    -s l1d.replacement=opt "gen:matmul:dim=24"
expect_eq "$(json_get "$TMP/two.json" "[l['replacement'] for l in d['levels']][:2]")" \
    "['opt', 'opt']" "opt at the L1I and the L1D"
check "an exclusive opt L2 runs" "$CACHET" run -q -s l2.inclusion=exclusive \
    -s l2.replacement=opt "gen:matmul:dim=24"

# One pass only elsewhere: a sweep point with opt is refused with the reason.
cat >"$TMP/sw.ini" <<'EOF'
[l1d]
size = 128
assoc = 2
[sweep]
l1d.replacement = lru opt
EOF
expect_status 1 "a sweep with an opt point is refused" "$CACHET" sweep -q "$TMP/sw.ini" \
    "$TMP/abcab.din"
expect_err_contains "only \`cachet run\` makes" "sweep: the reason"

need_corpus
# On every corpus trace the model can simulate (first 20,000 references),
# at a 4 KiB 4-way L1I and L1D, and at a 16 KiB 8-way L2 under 1 KiB LRU
# L1s, OPT misses no more than any other policy: the other policies in one
# sweep over all traces per case, OPT by cachet run.
others=$("$CACHET" config --keys | grep -m1 '^| `replacement`' | grep -o 'lru|[a-z|]*' |
         tr '|' '\n' | grep -vx opt | tr '\n' ' ')
printf '[l1i]\nsize = 4K\nassoc = 4\n[l1d]\nsize = 4K\nassoc = 4\n[l2]\nsize = 16K\nassoc = 8\n' \
    >"$TMP/a.ini"
printf 'base = a.ini\n[sweep]\nl1i.replacement = %s\nl1d.replacement = %s\n' "$others" "$others" \
    >"$TMP/a-sweep.ini"
printf 'zip = l1i.replacement l1d.replacement\n' >>"$TMP/a-sweep.ini"
printf '[l1i]\nsize = 1K\nassoc = 2\n[l1d]\nsize = 1K\nassoc = 2\n[l2]\nsize = 16K\nassoc = 8\n' \
    >"$TMP/b.ini"
printf 'base = b.ini\n[sweep]\nl2.replacement = %s\n' "$others" >"$TMP/b-sweep.ini"
traces=()
n=0
while read -r t; do
    n=$((n + 1))
    if ! "$CACHET" run -q -n 20000 --json "$TMP/a-$n.json" -c "$TMP/a.ini" \
            -s l1i.replacement=opt -s l1d.replacement=opt "$t" 2>"$TMP/err"; then
        grep -q "masks its memory addresses" "$TMP/err" ||
            bad "$t: opt at the L1s failed: $(head -c 300 "$TMP/err")"
        continue
    fi
    "$CACHET" run -q -n 20000 --json "$TMP/b-$n.json" -c "$TMP/b.ini" -s l2.replacement=opt \
        "$t" || bad "$t: opt at the L2 failed"
    traces+=("$t")
    echo "$n $t" >>"$TMP/list"
done < <(corpus_traces)
check "the corpus has traces to simulate" test "${#traces[@]}" -gt 20
"$CACHET" sweep -q "$TMP/a-sweep.ini" -n 20000 -o "$TMP/a.csv" "${traces[@]}" ||
    bad "the sweep of the other policies at the L1s failed"
"$CACHET" sweep -q "$TMP/b-sweep.ini" -n 20000 -o "$TMP/b.csv" "${traces[@]}" ||
    bad "the sweep of the other policies at the L2 failed"
python3 - "$TMP" $others >"$TMP/verdict" <<'PY'
import csv, json, sys
tmp, pols = sys.argv[1], sys.argv[2:]
traces = dict(line.rstrip('\n').split(' ', 1) for line in open(tmp + '/list'))
for case, names, key in (('a', ('l1i', 'l1d'), 'l1d.replacement'),
                         ('b', ('l2',), 'l2.replacement')):
    swept = {}
    for r in csv.DictReader(open('%s/%s.csv' % (tmp, case))):
        k = (r['trace'], r[key], r['level'])
        swept[k] = swept.get(k, 0) + int(r['misses'])
    for n, trace in traces.items():
        d = json.load(open('%s/%s-%s.json' % (tmp, case, n)))
        for name in names:
            opt = sum(l['misses'] for l in d['levels'] if l['name'] == name)
            for p in pols:
                other = swept.get((trace, p, name))
                if other is None:
                    print('FAIL: %s: no %s row for %s' % (trace, name, p))
                elif other < opt:
                    print('FAIL: %s: %s: %s misses %d, opt %d' % (trace, name, p, other, opt))
                else:
                    print('ok')
PY
expect_eq "$(grep -c '^ok' "$TMP/verdict")" "$((${#traces[@]} * 3 * $(echo $others | wc -w)))" \
    "OPT misses no more than any other policy at every level and trace"
grep FAIL "$TMP/verdict" | head -n 20 >&2
finish
