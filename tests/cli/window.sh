#!/bin/bash
# window.sh - cachet run and sweep --skip, --warmup and -n (sim/window.c): counts are
# checked, the window's figures land in the JSON, a warm-up resets the
# counters (its hits and misses are kept under compat = drcachesim), -n
# stops after that many references whatever the mode, and on the threadsig
# directory of the corpus a thread exit counts as a reference.
source "$(dirname "$0")/lib.bash"
W=gen:matmul:dim=16

for opt in --skip --warmup -n; do
    expect_status 1 "$opt takes a count" "$CACHET" run -q $opt -5 "$W"
    expect_err_contains "takes a count of references" "$opt -5"
done

for m in none drcachesim; do
    check "-n ($m)" "$CACHET" run -q -s system.compat=$m -n 1000 --json "$TMP/n.json" "$W"
    expect_eq "$(json_get "$TMP/n.json" "d['window']['simulated'], sum(d['accesses'].values())")" \
        "1000 1000" "-n 1000 simulates 1000 accesses ($m)"
    # -n counts from the first simulated reference, the warm-up's included
    # but for the one that ends it: 3500 - 1999 after the warm-up
    check "skip, warm-up, -n ($m)" "$CACHET" run -q -s system.compat=$m --skip 300 --warmup 2000 \
        -n 3500 --json "$TMP/w.json" "$W"
    expect_eq "$(json_get "$TMP/w.json" "d['window']['skipped'], d['window']['warmup'], d['window']['warmed'], d['window']['simulated'], sum(d['accesses'].values())")" \
        "300 2000 True 1501 1501" "the window's figures ($m)"
    # a warm-up longer than -n: the count wraps, as drcachesim's does, and
    # the run goes on to the end
    check "all ($m)" "$CACHET" run -q -s system.compat=$m --json "$TMP/all.json" "$W"
    check "warm-up longer than -n ($m)" "$CACHET" run -q -s system.compat=$m --skip 300 \
        --warmup 2000 -n 1500 --json "$TMP/x.json" "$W"
    expect_eq "$(json_get "$TMP/x.json" "d['window']['simulated']")" \
        "$(json_get "$TMP/all.json" "sum(d['accesses'].values()) - 2300")" "-n wraps ($m)"
    # the warm-up's accesses are gone from the counters: the L1D saw the
    # loads and stores of the last 1500 accesses only
    expect_eq "$(json_get "$TMP/w.json" "sum(k['accesses'] for l in d['levels'] if l['name'] == 'l1d' for n, k in l['by_kind'].items() if n in ('load', 'store')) == d['accesses']['load'] + d['accesses']['store']")" \
        "True" "counters start after the warm-up ($m)"
done
expect_eq "$(json_get "$TMP/w.json" "[l['drcachesim_warmup']['hits'] + l['drcachesim_warmup']['misses'] > 0 for l in d['levels'] if l['name'] == 'l1d']")" \
    "[True]" "compat = drcachesim keeps the warm-up's hits and misses"

# skipping k then simulating n is the same as simulating k + n of a cache
# that starts where the skipped references would have left nothing: checked
# here as -n k+n minus the -n k part on a stream with no reuse across the
# cut (a fully associative L1D larger than the footprint: every miss is a
# first touch)
check "-n 400" "$CACHET" run -q -s l1d.size=1M -n 400 --json "$TMP/a.json" "$W"
check "--skip 400 -n 600" "$CACHET" run -q -s l1d.size=1M --skip 400 -n 600 --json "$TMP/b.json" "$W"
check "-n 1000" "$CACHET" run -q -s l1d.size=1M -n 1000 --json "$TMP/c.json" "$W"
a=$(json_get "$TMP/a.json" "d['accesses']['load']")
b=$(json_get "$TMP/b.json" "d['accesses']['load']")
c=$(json_get "$TMP/c.json" "d['accesses']['load']")
expect_eq "$((a + b))" "$c" "the skipped references are the first ones"

# sweep takes the same window: each point's row is that of cachet run on the
# point's configuration with the same options
check "sweep with a window" "$CACHET" sweep "$SRC/configs/sweeps/l1d-size-assoc.ini" -q -j 1 \
    --skip 100 --warmup 1000 -n 5000 -o "$TMP/sw.csv" "$W"
check "the points' configurations" "$CACHET" sweep "$SRC/configs/sweeps/l1d-size-assoc.ini" \
    --emit-configs "$TMP/pts"
for p in 0 9 27; do
    check "run point $p" "$CACHET" run -q -c "$TMP/pts/point-$p.ini" --skip 100 --warmup 1000 \
        -n 5000 --csv "$TMP/p$p.csv" "$W"
    want=$(python3 -c "import csv,sys; r=[x for x in csv.DictReader(open(sys.argv[1]))][0]; print(r['accesses'], r['misses'])" "$TMP/p$p.csv")
    got=$(python3 -c "import csv,sys; r=[x for x in csv.DictReader(open(sys.argv[1])) if x['point'] == sys.argv[2]][0]; print(r['accesses'], r['misses'])" "$TMP/sw.csv" "$p")
    expect_eq "$got" "$want" "sweep point $p with a window = run"
done
expect_status 1 "sweep -n takes a count" "$CACHET" sweep "$SRC/configs/sweeps/l1d-size-assoc.ini" -n x "$W"
expect_err_contains "takes a count of references" "sweep -n x"

"$CACHET" run --help > "$TMP/help"
if grep -q -- "--skip N" "$TMP/help" && grep -q -- "--warmup N" "$TMP/help" && grep -q "warmup_fraction" "$TMP/help"; then ok
else bad "run --help documents --skip, --warmup and warmup_fraction"; fi

if [ -n "${CACHET_CORPUS:-}" ] && [ -d "$CACHET_CORPUS/drmemtrace/dynamorio-tests" ]; then
    D=$CACHET_CORPUS/drmemtrace/dynamorio-tests/drmemtrace.threadsig.x64.tracedir
    check "threadsig, a window larger than the trace" "$CACHET" run -q --compat drcachesim \
        -n 100000000 --json "$TMP/t.json" "$D"
    # 9 threads, each ending with a thread exit: 9 references more than accesses
    expect_eq "$(json_get "$TMP/t.json" "d['window']['simulated'] - sum(d['accesses'].values())")" \
        "9" "a thread exit is a reference"
else
    echo "note: CACHET_CORPUS unset: the thread-exit check on the corpus is skipped"
fi
finish
