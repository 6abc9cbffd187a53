# sweep_corpus.sh - on every real trace of the corpus (Tarmac, din, VIXL and
# drmemtrace, files and trace directories; not the 61 M-access sample, which
# the benchmarks compare), four sweeps give byte-identical CSVs in one pass
# on two threads, in one pass on one thread, and point by point
# (--no-onepass). The sweeps: an L1D with the 3C split and flushed lines
# (every power-of-two set count and the fully-associative column); a
# write-through L1D whose sizes of 3 x 2^k give set counts that are not
# powers of two; an L2 alone, with 32-byte lines, that fetches reach too;
# the shipped l2-under-l1.ini (an L2 under fixed L1I and L1D). Where a trace
# cannot be simulated (VIXL logs that mask their addresses), the three runs
# must stop with the same status and message.
source "$(dirname "$0")/lib.bash"
need_corpus

cat >"$TMP/classes.ini" <<'EOF'
[system]
miss_classes = yes
flush_at_end = yes
[l1d]
line = 64
replacement = lru
[sweep]
l1d.size = 4K..512K x2
l1d.assoc = 1 2 4 8 16 32 64 full
EOF
cat >"$TMP/through.ini" <<'EOF'
[l1d]
line = 64
replacement = lru
write_back = no
[sweep]
l1d.size = 4K 8K 12K 16K 24K 32K 48K 64K
l1d.assoc = 1 2 3 4 8 full
EOF
cat >"$TMP/l2.ini" <<'EOF'
[l2]
line = 32
replacement = lru
[sweep]
l2.size = 8K..256K x2
l2.assoc = 1 2 4 8 16 full
EOF
sweeps="$TMP/classes.ini $TMP/through.ini $TMP/l2.ini $SRC/configs/sweeps/l2-under-l1.ini"

traces=$(find "$CACHET_CORPUS" -path '*/drmemtrace_samples' -prune -o -type f \
    \( -name '*.tarmac' -o -name '*.din*' -o -name 'log-*' -o -name '*.trace' \
       -o -name '*.trace.zip' -o -name '*.trace.gz' \) -print | grep -v '\.tracedir/' | sort)
traces="$traces $(find "$CACHET_CORPUS" -path '*/drmemtrace_samples' -prune -o -type d \
    -name '*.tracedir' -print | sort)"
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
