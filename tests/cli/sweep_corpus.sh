# sweep_corpus.sh - on every real trace of the corpus (Tarmac, din, VIXL and
# drmemtrace, files and trace directories; not the 61 M-access sample, which
# the benchmarks compare), four sweeps give byte-identical CSVs in one pass
# on two threads, in one pass on one thread, and point by point
# (--no-onepass). The sweeps: an L1D with the 3C split and flushed lines
# (every power-of-two set count and the fully-associative column); a
# write-through L1D whose sizes of 3 x 2^k give set counts that are not
# powers of two; an L2 alone, with 32-byte lines, that fetches reach too
# (those three are in tests/configs/sweeps); the shipped l2-under-l1.ini (an
# L2 under fixed L1I and L1D). Where a trace cannot be simulated (VIXL logs
# that mask their addresses), the three runs must stop with the same status
# and message.
source "$(dirname "$0")/lib.bash"
need_corpus

S=$SRC/tests/configs/sweeps
sweeps="$S/classes.ini $S/through.ini $S/l2.ini $SRC/configs/sweeps/l2-under-l1.ini"

traces=$(corpus_traces)
n=0
for t in $traces; do
    n=$((n + 1))
    for s in $sweeps; do
        what="$(basename "$s") on ${t#"$CACHET_CORPUS"/}"
        "$CACHET" sweep -q -j 2 -o "$TMP/a.csv" "$s" "$t" 2>"$TMP/a.err"; ra=$?
        "$CACHET" sweep -q -j 1 -o "$TMP/b.csv" "$s" "$t" 2>"$TMP/b.err"; rb=$?
        "$CACHET" sweep -q --no-onepass -o "$TMP/c.csv" "$s" "$t" 2>"$TMP/c.err"; rc=$?
        if [ "$rc" -ne 0 ]; then
            if [ "$ra" -eq "$rc" ] && [ "$rb" -eq "$rc" ] && cmp -s "$TMP/a.err" "$TMP/c.err" &&
               cmp -s "$TMP/b.err" "$TMP/c.err"; then
                ok
            else
                bad "$what: exit $ra, $rb, $rc: $(head -c 300 "$TMP/a.err") | $(head -c 300 "$TMP/c.err")"
            fi
            continue
        fi
        check "$what: one pass on two threads equals simulation" cmp -s "$TMP/a.csv" "$TMP/c.csv"
        check "$what: one pass on one thread equals simulation" cmp -s "$TMP/b.csv" "$TMP/c.csv"
    done
done
check "the corpus has traces of every format" [ "$n" -ge 20 ]
finish
