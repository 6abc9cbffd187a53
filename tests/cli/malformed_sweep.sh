#!/bin/bash
# malformed_sweep.sh - bad sweep files, and sweeps over bad traces: exit
# status 2, a message naming the file, where (line, [sweep] key or base)
# and why, and no output left behind: no OUT.csv, no OUT.fit.csv, no
# temporary file, and no journal unless finished points are in it.
source "$(dirname "$0")/lib.bash"

printf '0 100\n1 200\n2 300\n' > "$TMP/good.din"

# sweep_bad NAME EXPECT SWEEP [TRACE]: cachet sweep SWEEP -o OUT.csv TRACE
sweep_bad() {
    local name=$1 expect=$2 file=$3 trace=${4:-$TMP/good.din} st
    mkdir -p "$TMP/o"
    rm -f "$TMP/o/"*
    "$CACHET" sweep -q "$file" -o "$TMP/o/out.csv" "$trace" >/dev/null 2>"$TMP/err"
    st=$?
    if [ $st -ne 2 ]; then bad "$name: exit $st, want 2 ($(head -c 200 "$TMP/err"))"
    elif ! grep -qF -- "$expect" "$TMP/err"; then bad "$name: stderr lacks '$expect': $(head -c 300 "$TMP/err")"
    elif ! no_output_left "$TMP/o" out.csv out.fit.csv out.csv.partial; then
        bad "$name: output left behind: $(ls "$TMP/o")"
    else ok; fi
}

# sw NAME TEXT: a sweep file
sw() { printf "$2" > "$TMP/$1"; }

sw key.ini '[sweep]\nl1d.sise = 1K 2K\n'
sweep_bad "unknown key" "key.ini: [sweep] l1d.sise: unknown key" "$TMP/key.ini"
sw sect.ini '[sweep]\nl9.size = 1K 2K\n'
sweep_bad "unknown section in a key" "sect.ini: [sweep] l9.size: unknown section" "$TMP/sect.ini"
sw sect2.ini '[l9]\nsize = 1K\n[sweep]\nl1d.size = 1K\n'
sweep_bad "unknown inline section" "sect2.ini: [l9]: unknown section" "$TMP/sect2.ini"
sw value.ini '[sweep]\nl1d.size = 4K 4X\n'
sweep_bad "bad value" "value.ini: [sweep] l1d.size: \"4X\" is not a size" "$TMP/value.ini"
sw inline.ini '[l1d]\nreplacement = mru\n[sweep]\nl1d.size = 4K 8K\n'
sweep_bad "bad inline value" "inline.ini: [l1d] replacement: \"mru\" is not one of" "$TMP/inline.ini"
sw empty.ini '[sweep]\nl1d.size = 8K..4K x2\n'
sweep_bad "reversed range" "empty.ini: [sweep] l1d.size: \"8K..4K x2\" is an empty range" "$TMP/empty.ini"
sw nostep.ini '[sweep]\nl1d.size = 4K..8K\n'
sweep_bad "range without a step" "nostep.ini: [sweep] l1d.size: " "$TMP/nostep.ini"
expect_err_contains "needs a factor (x2) or a step" "range without a step: why"
sw never.ini '[sweep]\nl1d.size = 4K..8K x1\n'
sweep_bad "range that never ends" "never.ini: [sweep] l1d.size: " "$TMP/never.ini"
expect_err_contains "never reaches the end" "range that never ends: why"
sw zip.ini '[sweep]\nl1d.size = 4K 8K\nl1d.assoc = 1 2 4\nzip = l1d.size l1d.assoc\n'
sweep_bad "zipped lengths differ" "zip.ini: [sweep] zip: l1d.size has 2 values, l1d.assoc has 3" "$TMP/zip.ini"
sw twice.ini '[sweep]\nl1d.size = 4K\nl1d.size = 8K\n'
sweep_bad "key given twice" "twice.ini: [sweep] l1d.size: given twice" "$TMP/twice.ini"
sw syntax.ini '[sweep]\nl1d.size 4K\n'
sweep_bad "syntax error" "syntax.ini:2: syntax error: expected key = value" "$TMP/syntax.ini"
sw syntax2.ini '[sweep\nl1d.size = 4K\n'
sweep_bad "section syntax error" "syntax2.ini:1: syntax error: expected [section]" "$TMP/syntax2.ini"
sw top.ini 'colour = red\n[sweep]\nl1d.size = 4K\n'
sweep_bad "unknown top-level key" "top.ini: colour: unknown top-level key" "$TMP/top.ini"
sw nokeys.ini '[l1d]\nline = 64\n'
sweep_bad "no keys to vary" "nokeys.ini: [sweep]: no keys to vary" "$TMP/nokeys.ini"
sw many.ini '[sweep]\nl1d.latency = 1..1000 +1\nl2.latency = 1..1000 +1\n'
sweep_bad "too many points" "many.ini: [sweep] l2.latency: its 1000 values make more than 65536 points" \
    "$TMP/many.ini"
sw values.ini '[sweep]\nl1d.latency = 0..1000000 +1\n'
sweep_bad "too many values" "values.ini: [sweep] l1d.latency: more than 100000 values" "$TMP/values.ini"
sw geometry.ini '[sweep]\nl1d.size = 1K 2K\nl1d.assoc = 64 128\n'
sweep_bad "every combination impossible" \
    "geometry.ini: [sweep]: every combination is impossible (the first: l1d.size=1K l1d.assoc=64: [l1d] assoc: 64 ways exceed the 16 lines of the cache)" \
    "$TMP/geometry.ini"
sw base.ini 'base = nothere.ini\n[sweep]\nl1d.size = 4K\n'
sweep_bad "missing base" "base.ini: base: $TMP/nothere.ini: cannot open: No such file or directory" "$TMP/base.ini"
sw badbase.ini "base = $(pwd)/tests/configs/bad/unknown_key.ini\n[sweep]\nl1d.size = 4K\n"
sweep_bad "base with a bad key" "unknown_key.ini: [l1d] sise: unknown key" "$TMP/badbase.ini"
sw loop.ini "base = $(pwd)/tests/configs/bad/include_loop_a.ini\n[sweep]\nl1d.size = 4K\n"
sweep_bad "base with an include loop" "include loop: " "$TMP/loop.ini"

# not a sweep file at all
: > "$TMP/zero.ini"
sweep_bad "empty file" "zero.ini: [sweep]: no keys to vary" "$TMP/zero.ini"
mkdir "$TMP/dir.ini"
sweep_bad "directory" "dir.ini: is a directory, not an INI file" "$TMP/dir.ini"
sweep_bad "missing file" "absent.ini: cannot open: No such file or directory" "$TMP/absent.ini"
printf '[sweep]\nl1d.size = 4K\0\n' > "$TMP/nul.ini"
sweep_bad "NUL byte" "nul.ini:2: a NUL byte: not a text file" "$TMP/nul.ini"
python3 -c "import sys; open(sys.argv[1], 'w').write('[sweep]\n; ' + 'x' * 5000 + '\n')" "$TMP/long.ini"
sweep_bad "line too long" "long.ini:2: line longer than 4094 characters" "$TMP/long.ini"
sw secret.ini '[sweep]\nl1d.size = 4K 8K\n'
chmod 000 "$TMP/secret.ini"
if [ "$(id -u)" -ne 0 ]; then
    sweep_bad "unreadable file" "secret.ini: cannot open: Permission denied" "$TMP/secret.ini"
elif setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
    chmod 755 "$TMP"
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$CACHET" sweep "$TMP/secret.ini" --list \
        >/dev/null 2>"$TMP/err"
    st=$?
    if [ $st -eq 2 ] && grep -qF "secret.ini: cannot open: Permission denied" "$TMP/err"; then ok
    else bad "unreadable file: exit $st: $(cat "$TMP/err")"; fi
fi

# a good sweep on a bad trace: the trace's error; nothing finished, nothing kept
sw ok.ini '[sweep]\nl1d.size = 4K 8K\n'
printf '0 100\n7 200\n' > "$TMP/bad.din"
sweep_bad "bad trace" "bad.din:2:1: label is not 0..5" "$TMP/ok.ini" "$TMP/bad.din"
# ... after a good one: the finished points stay in the journal for --resume
rm -f "$TMP/o/"*
"$CACHET" sweep -q -j 1 "$TMP/ok.ini" -o "$TMP/o/out.csv" "$TMP/good.din" "$TMP/bad.din" 2>"$TMP/err"
st=$?
expect_eq "$st" 2 "bad second trace: exit status"
expect_err_contains "bad.din:2:1: label is not 0..5" "bad second trace: message"
if no_output_left "$TMP/o" out.csv out.fit.csv && [ "$(grep -c '^#done' "$TMP/o/out.csv.partial")" = 2 ]; then ok
else bad "bad second trace: want no CSV and a journal of 2 finished points: $(ls "$TMP/o")"; fi
finish
