# sweep.sh - cachet sweep end to end: every point equals its own `cachet run`
# (the L2 sweep, and all 64 points of the L1D size x associativity sweep),
# shards merge into the unsharded files and an incomplete set is refused,
# --resume after SIGKILL and SIGINT give the uninterrupted file, --sample
# gives estimates with honest errors, errors exit 2 without leaving output,
# plots.
. "$(dirname "$0")/lib.bash"

T1=gen:random:n=30000,footprint=96K,writes=25
T2=gen:chase:n=20000,footprint=64K,node=64
SW=$SRC/configs/sweeps/l2-under-l1.ini

# 1. every point's rows equal a separate run of that point's configuration
check "sweep runs" "$CACHET" sweep -q -j 2 -o "$TMP/all.csv" "$SW" "$T1" "$T2"
check "configs emitted" "$CACHET" sweep "$SW" --emit-configs "$TMP/pts"
npts=$(ls "$TMP/pts" | wc -l)
expect_eq "$npts" "$("$CACHET" sweep "$SW" --list | grep -c '^[0-9]')" "points listed"
bad_points=0
for i in $(seq 0 $((npts - 1))); do
    for t in "$T1" "$T2"; do
        "$CACHET" run -q -c "$TMP/pts/point-$i.ini" --csv "$TMP/run.csv" "$t" || bad_points=$((bad_points + 1))
        if [ "$(run_cols "$TMP/run.csv")" != "$(run_cols "$TMP/all.csv" "$t" "$i")" ]; then
            bad_points=$((bad_points + 1)); echo "point $i on $t differs" >&2
        fi
    done
done
expect_eq "$bad_points" 0 "every point equals cachet run"
expect_eq "$(run_cols "$TMP/all.csv" | wc -l)" "$((npts * 2 * 3))" "rows: traces x points x levels"

# 2. shards merge into the same files (rows and fits); an incomplete set is refused
check "shard 0" "$CACHET" sweep -q --shard 0/3 -o "$TMP/s0.csv" "$SW" "$T1" "$T2"
check "shard 1" "$CACHET" sweep -q --shard 1/3 -o "$TMP/s1.csv" "$SW" "$T1" "$T2"
check "shard 2" "$CACHET" sweep -q --shard 2/3 -o "$TMP/s2.csv" "$SW" "$T1" "$T2"
if ls "$TMP"/s*.fit.csv >/dev/null 2>&1; then bad "a shard wrote a fit file"; else ok; fi
expect_eq "$(head -n 1 "$TMP/s1.csv" | cut -d, -f1-4)" "#cachet-shard,1,3,$npts" "shard line"
check "merge" "$CACHET" merge -o "$TMP/merged.csv" "$TMP/s2.csv" "$TMP/s0.csv" "$TMP/s1.csv"
check "merged equals one run" cmp "$TMP/merged.csv" "$TMP/all.csv"
check "merged fits equal one run's" cmp "$TMP/merged.fit.csv" "$TMP/all.fit.csv"
expect_status 2 "merge refuses a duplicate" "$CACHET" merge -o "$TMP/dup.csv" "$TMP/s0.csv" "$TMP/s0.csv" "$TMP/s1.csv" "$TMP/s2.csv"
expect_err_contains "shard 0/3 given twice" "duplicate shard"
expect_status 2 "merge refuses a missing shard" "$CACHET" merge -o "$TMP/dup.csv" "$TMP/s0.csv" "$TMP/s2.csv"
expect_err_contains "shard 1/3 is missing" "missing shard"
head -n 7 "$TMP/s2.csv" > "$TMP/s2cut.csv"
expect_status 2 "merge refuses an incomplete shard" "$CACHET" merge -o "$TMP/dup.csv" "$TMP/s0.csv" "$TMP/s1.csv" "$TMP/s2cut.csv"
expect_err_contains "s2cut.csv, is incomplete" "incomplete shard"
expect_status 2 "merge refuses a file that is not a shard" "$CACHET" merge -o "$TMP/dup.csv" "$TMP/all.csv"
expect_err_contains "all.csv:1: not a shard" "not a shard"
check "another sweep's shard" "$CACHET" sweep -q --shard 1/3 -o "$TMP/o1.csv" "$SRC/configs/sweeps/l1d-size-assoc.ini" "$T1" "$T2"
expect_status 2 "merge refuses shards of two sweeps" "$CACHET" merge -o "$TMP/dup.csv" "$TMP/s0.csv" "$TMP/o1.csv" "$TMP/s2.csv"
expect_err_contains "not shards of one sweep" "shards of two sweeps"
if ls "$TMP"/dup* >/dev/null 2>&1; then bad "a refused merge left output"; else ok; fi

# 3. SIGKILL, then --resume: the journal's points are skipped, same file
SLOW=$SW
L1=gen:random:n=20K,footprint=256K,writes=25
L2=gen:random:n=150K,footprint=512K,writes=25,seed=7
check "reference" "$CACHET" sweep -q --no-onepass -j 2 -o "$TMP/ref.csv" "$SLOW" "$L1" "$L2"
"$CACHET" sweep -q --no-onepass -j 2 -o "$TMP/k.csv" "$SLOW" "$L1" "$L2" &
pid=$!
for _ in $(seq 2000); do grep -q '^#done' "$TMP/k.csv.partial" 2>/dev/null && break; sleep 0.01; done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
done_before=$(grep -c '^#done' "$TMP/k.csv.partial" 2>/dev/null || echo 0)
if [ "$done_before" -gt 0 ] && [ "$done_before" -lt 40 ] && [ ! -e "$TMP/k.csv" ]; then ok; else bad "SIGKILL landed mid-sweep ($done_before done)"; fi
expect_status 0 "resume" "$CACHET" sweep --resume --no-onepass -j 2 -o "$TMP/k.csv" "$SLOW" "$L1" "$L2"
expect_err_contains "resuming: $done_before finished" "resume skips the journal's points"
check "resumed equals uninterrupted" cmp "$TMP/k.csv" "$TMP/ref.csv"
if [ ! -e "$TMP/k.csv.partial" ]; then ok; else bad "journal removed after success"; fi

# 4. SIGINT stops cleanly: OUT.csv appears only complete, the journal keeps
# the finished points (the rule at the top of sim/cli/cmd_sweep.c)
echo "an earlier complete result" > "$TMP/i.csv"
"$CACHET" sweep -q --no-onepass -j 2 -o "$TMP/i.csv" "$SLOW" "$L1" "$L2" 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 2000); do grep -q '^#done' "$TMP/i.csv.partial" 2>/dev/null && break; sleep 0.01; done
kill -INT $pid; wait $pid; st=$?
expect_eq "$st" 130 "SIGINT exit status"
if grep -q "kept in $TMP/i.csv.partial; run again with --resume" "$TMP/int.err"; then ok; else bad "SIGINT message: $(cat "$TMP/int.err")"; fi
expect_eq "$(cat "$TMP/i.csv")" "an earlier complete result" "SIGINT leaves OUT.csv as it was"
done_int=$(grep -c '^#done' "$TMP/i.csv.partial" 2>/dev/null || echo 0)
if [ "$done_int" -gt 0 ]; then ok; else bad "the journal keeps the finished points ($done_int)"; fi
expect_status 0 "resume after SIGINT" "$CACHET" sweep --resume --no-onepass -j 2 -o "$TMP/i.csv" "$SLOW" "$L1" "$L2"
expect_err_contains "resuming: $done_int finished" "resume after SIGINT skips the journal's points"
check "resumed after SIGINT equals uninterrupted" cmp "$TMP/i.csv" "$TMP/ref.csv"
rm -f "$TMP/i.csv"
"$CACHET" sweep -q --no-onepass -j 2 -o "$TMP/i.csv" "$SLOW" "$L1" "$L2" 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 2000); do grep -q '^#done' "$TMP/i.csv.partial" 2>/dev/null && break; sleep 0.01; done
kill -TERM $pid; wait $pid; st=$?
expect_eq "$st" 130 "SIGTERM exit status"
if [ ! -e "$TMP/i.csv" ] && [ -s "$TMP/i.csv.partial" ]; then ok; else bad "SIGTERM: no OUT.csv, a journal"; fi
rm -f "$TMP/i.csv.partial"

# 4b. --resume checks what the journal belongs to: a journal left by a sweep
# whose output could not be made (OUT.csv a directory) holds every point
J=$TMP/j.csv SWJ=$TMP/sw.ini
cp "$SRC/tests/data/tiny.din" "$TMP/t.din"
printf '[sweep]\nl2.size = 64K 128K 256K\n' > "$SWJ"
mkdir "$J"
expect_status 2 "output is a directory" "$CACHET" sweep -q -o "$J" "$SWJ" "$TMP/t.din"
rmdir "$J"
cp "$J.partial" "$TMP/journal"
# a resume that cannot write its journal (a file size limit of 512 bytes)
# fails and leaves the journal as it was, its finished points kept
(trap '' XFSZ; ulimit -f 1; "$CACHET" sweep -q --resume -o "$J" "$SWJ" "$TMP/t.din") 2>"$TMP/err"
expect_eq "$?" 2 "resume with no room for the journal"
expect_err_contains "j.csv.partial: write error: File too large" "the journal's write error is named"
check "a failed resume keeps the journal" cmp "$J.partial" "$TMP/journal"
expect_status 0 "resume of an unchanged trace" "$CACHET" sweep --resume -o "$J" "$SWJ" "$TMP/t.din"
expect_err_contains "resuming: 3 finished" "every point resumed"
"$CACHET" sweep -q -o "$TMP/j-ref.csv" "$SWJ" "$TMP/t.din"
check "resumed equals a fresh run" cmp "$J" "$TMP/j-ref.csv"
# the trace rewritten in place with the same size
touch -r "$TMP/t.din" "$TMP/t.stamp"
sed -i 's/^0 /1 /' "$TMP/t.din"
cp "$TMP/journal" "$J.partial"; rm -f "$J"
expect_status 1 "resume after a rewrite in place" "$CACHET" sweep -q --resume -o "$J" "$SWJ" "$TMP/t.din"
expect_err_contains "j.csv.partial: not resumed: trace $TMP/t.din was modified since it was written" "the rewrite is named"
if [ ! -e "$J" ]; then ok; else bad "a refused resume wrote OUT.csv"; fi
# ... even with its old modification time: the content hash differs
touch -r "$TMP/t.stamp" "$TMP/t.din"
expect_status 1 "resume after a rewrite, time kept" "$CACHET" sweep -q --resume -o "$J" "$SWJ" "$TMP/t.din"
expect_err_contains "changed since it was written (its first or last megabyte differs)" "the content change is named"
# another size, another sweep file
cp "$SRC/tests/data/tiny.din" "$TMP/t.din"; echo "0 100" >> "$TMP/t.din"
cp "$TMP/journal" "$J.partial"
expect_status 1 "resume after the trace grew" "$CACHET" sweep -q --resume -o "$J" "$SWJ" "$TMP/t.din"
expect_err_contains "changed size since it was written" "the size change is named"
cp "$SRC/tests/data/tiny.din" "$TMP/t.din"
echo "; a comment" >> "$SWJ"
cp "$TMP/journal" "$J.partial"
expect_status 1 "resume after the sweep file changed" "$CACHET" sweep -q --resume -o "$J" "$SWJ" "$TMP/t.din"
expect_err_contains "the sweep file changed since it was written" "the sweep file change is named"
rm -f "$J.partial"

# 5. errors: exit 2, file and key named, nothing left behind
printf '[sweep]\nl1d.size = 4K..2K x2\n' > "$TMP/bad.ini"
expect_status 2 "bad range" "$CACHET" sweep -o "$TMP/bad.csv" "$TMP/bad.ini" "$T1"
expect_err_contains "bad.ini: [sweep] l1d.size: \"4K..2K x2\" is an empty range" "range error"
if ls "$TMP"/bad.csv* >/dev/null 2>&1; then bad "output left behind"; else ok; fi
expect_status 2 "bad trace" "$CACHET" sweep -q -o "$TMP/bad.csv" "$SW" "$TMP/nothere.din"
expect_err_contains "nothere.din" "trace error names the file"
if ls "$TMP"/bad.csv* >/dev/null 2>&1; then bad "output left behind after a trace error"; else ok; fi
expect_status 0 "one-pass noted" "$CACHET" sweep -o "$TMP/n.csv" "$SW" "$T1"
expect_err_contains "one-pass LRU for [l2]" "the sweep says it used one-pass"
# the note counts the threads that run the points (one-pass helpers too)
SWL1=$SRC/configs/sweeps/l1d-size-assoc.ini
expect_status 0 "one-pass on one thread" "$CACHET" sweep -j 1 -o "$TMP/n.csv" "$SWL1" "$T1"
expect_err_contains "(0 simulated one by one, 1 thread)" "one thread noted"
expect_status 0 "one-pass on three threads" "$CACHET" sweep -j 3 -o "$TMP/n.csv" "$SWL1" "$T1"
expect_err_contains "(0 simulated one by one, 3 threads)" "the helpers counted"
# which points a sample covers: at 0.1, set counts of 640 or more (4 direct-mapped
# points, 3 two-way, 2 four-way, 1 eight-way) and fully-associative caches of
# 2560 lines or more (256K, 512K); at 0.01 only the 8192-set cache
expect_status 0 "sampled at 0.1" "$CACHET" sweep -j 2 --sample 0.1 -o "$TMP/n.csv" "$SWL1" "$T1"
expect_err_contains "12 of the 64 points sampled (the others have too few sets or lines for the rate: exact)" "sampled points counted at 0.1"
expect_status 0 "sampled at 0.01" "$CACHET" sweep -j 2 --sample 0.01 -o "$TMP/n.csv" "$SWL1" "$T1"
expect_err_contains ", 1 of the 64 points sampled" "sampled points counted at 0.01"
printf 'base = %s/configs/cfgB.ini\n[sweep]\nl1d.size = 16K 32K\nl1d.assoc = 2 4\n' "$SRC" > "$TMP/l1under.ini"
expect_status 0 "one-pass impossible above another level" "$CACHET" sweep -o "$TMP/n.csv" "$TMP/l1under.ini" "$T1"
expect_err_contains "one-pass applies to the last level before memory; 4 points simulated one by one because a level below depends on [l1d]" "the sweep says why it simulated"

# 7. the 64 points of the L1D sweep (8 sizes x 8 associativities, up to fully
# associative, 14 set counts) each equal a separate run, on a random trace and
# on a blocked matrix product (much reuse at small depths)
SW64=$SRC/configs/sweeps/l1d-size-assoc.ini
R1=gen:random:n=100000,footprint=256K,writes=25
R2=gen:matmul:dim=40,tile=8
check "64 points emitted" "$CACHET" sweep "$SW64" --emit-configs "$TMP/p64"
for t in "$R1" "$R2"; do
    check "64-point sweep" "$CACHET" sweep -q -o "$TMP/s64.csv" "$SW64" "$t"
    fails=0
    for i in $(seq 0 63); do
        "$CACHET" run -q -c "$TMP/p64/point-$i.ini" --csv "$TMP/r64-$i.csv" "$t" || fails=$((fails + 1))
    done
    expect_eq "$fails" 0 "64 separate runs"
    if python3 - "$TMP/s64.csv" "$TMP" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
hdr = next(csv.reader(open(sys.argv[1])))
cols = hdr[hdr.index('config_hash'):hdr.index('mem_writes') + 1]
assert len(rows) == 64, len(rows)
bad = 0
for r in rows:
    run = list(csv.DictReader(open('%s/r64-%s.csv' % (sys.argv[2], r['point']))))
    assert len(run) == 1
    a = [r[c] for c in cols]; b = [run[0][c] for c in cols]
    if a != b:
        bad += 1
        print('point %s (%s x %s) differs: %s' % (r['point'], r['l1d.size'], r['l1d.assoc'],
              [(c, x, y) for c, x, y in zip(cols, a, b) if x != y][:4]), file=sys.stderr)
sys.exit(bad != 0)
PY
    then ok; else bad "64-point sweep differs from separate runs on $t"; fi
done

# 8. sampled mode: the rows say so, every estimate has an error and lies
# within a few errors of the exact figure; what is not sampled is exact, and
# its rows say sample_rate 1
check "exact" "$CACHET" sweep -q -o "$TMP/ex.csv" "$SW64" "$R1"
check "sampled" "$CACHET" sweep -q --sample 0.25 --sample-seed 3 -o "$TMP/sa.csv" "$SW64" "$R1"
if python3 - "$TMP/ex.csv" "$TMP/sa.csv" <<'PY'
import csv, sys
ex = {r['point']: r for r in csv.DictReader(open(sys.argv[1]))}
sa = list(csv.DictReader(open(sys.argv[2])))
sampled = within = exact = 0
for r in sa:
    e, x = float(r['miss_rate_error']), ex[r['point']]
    assert r['sample_rate'] in ('0.25', '1'), r['sample_rate']
    assert r['accesses'] == x['accesses']
    if r['sample_rate'] == '1':
        assert e == 0 and r['misses'] == x['misses'], (r['point'], r['misses'], x['misses'])
        exact += 1
        continue
    if e == 0:
        assert r['misses'] == x['misses'], (r['point'], r['misses'], x['misses'])
        continue
    sampled += 1
    within += abs(float(r['miss_rate']) - float(x['miss_rate'])) <= 3 * e
print('sampled %d, within 3 errors %d, exact %d' % (sampled, within, exact), file=sys.stderr)
sys.exit(not (sampled >= 10 and within >= 0.85 * sampled and exact >= 10))
PY
then ok; else bad "sampled estimates"; fi
expect_eq "$(python3 -c "import csv,sys; print(sorted({r['sample_rate'] for r in csv.DictReader(open(sys.argv[1]))}))" "$TMP/ex.csv")" "['1']" "exact rows say sample_rate 1"
# the 3C split is not sampled: a sampled sweep with it runs exactly, in one
# pass, and says so
{ cat "$SW64"; printf '[system]\nmiss_classes = yes\n'; } > "$TMP/sw3c.ini"
check "3C exact" "$CACHET" sweep -q -o "$TMP/3cx.csv" "$TMP/sw3c.ini" "$R1"
expect_status 0 "3C sampled" "$CACHET" sweep --sample 0.1 -o "$TMP/3cs.csv" "$TMP/sw3c.ini" "$R1"
expect_err_contains "one-pass LRU for [l1d]: 64 points, 14 set counts (not sampled: the 3C split needs every request) (0 simulated one by one" "3C not sampled, said"
if cmp -s "$TMP/3cx.csv" "$TMP/3cs.csv"; then ok; else bad "3C with --sample differs from exact"; fi
expect_status 1 "bad rate" "$CACHET" sweep -q --sample 1.5 -o "$TMP/bad.csv" "$SW64" "$R1"
expect_err_contains "--sample 1.5: expected a rate between 0 and 1" "bad rate named"

# 6. fits and plots
if python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(not any(x['level']=='l2' and x['trace'].startswith('gen:random') and 0<float(x['r2'])<=1 for x in r))" "$TMP/all.fit.csv"; then ok; else bad "fit file: $(head -3 "$TMP/all.fit.csv")"; fi
check "plot script" "$CACHET" plot "$TMP/all.csv" -o "$TMP/p.svg" --script "$TMP/p.gp"
if grep -q "set logscale x 2" "$TMP/p.gp" && grep -q "^e$" "$TMP/p.gp"; then ok; else bad "plot script content"; fi
if command -v gnuplot >/dev/null; then
    check "plot" "$CACHET" plot "$TMP/all.csv" -o "$TMP/p.svg"
    if grep -q "<svg" "$TMP/p.svg"; then ok; else bad "plot is not an SVG"; fi
else
    expect_status 2 "plot without gnuplot" env PATH=/nonexistent "$CACHET" plot "$TMP/all.csv"
    expect_err_contains "gnuplot is not installed" "plot explains"
fi
finish
