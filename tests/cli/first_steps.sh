#!/bin/bash
# first_steps.sh - what a new user types first: help and version spelled as
# words, sizes written 32KB or 32KiB, keys of structures the configuration
# lacks.
source "$(dirname "$0")/lib.bash"

# `cachet help COMMAND` is `cachet COMMAND --help`; `cachet version` is --version
for c in run sweep convert; do
    "$CACHET" "$c" --help > "$TMP/want" 2>&1
    expect_status 0 "help $c" "$CACHET" help "$c"
    check "help $c prints the help of $c" cmp -s "$TMP/out" "$TMP/want"
done
expect_status 1 "help of an unknown command" "$CACHET" help frobnicate
expect_err_contains 'unknown command "frobnicate"' "help of an unknown command says so"
expect_status 0 "version" "$CACHET" version
"$CACHET" --version > "$TMP/want"
check "version is --version" cmp -s "$TMP/out" "$TMP/want"
# help and version describe themselves too (their man pages are made of it)
for a in "help --help:help" "help help:help" "version --help:version" "help version:version"; do
    # shellcheck disable=SC2086
    expect_status 0 "${a%:*}" "$CACHET" ${a%:*}
    check "${a%:*} prints the usage of ${a#*:}" grep -q "^usage: cachet ${a#*:}" "$TMP/out"
done

# sizes: 32K, 32KB and 32KiB are one size; 32Kb is refused
for s in 32K 32KB 32KiB; do
    expect_status 0 "l1d.size=$s" "$CACHET" config -s l1d.size=$s
    check "l1d.size=$s is 32768" grep -qx 'size = 32768' "$TMP/out"
done
expect_status 2 "l1d.size=32Kb" "$CACHET" config -s l1d.size=32Kb
expect_err_contains '-s l1d.size=32Kb: [l1d] size:' "32Kb refused with its key"

# a key of an absent cache or TLB is an error saying how to add it
expect_status 2 "l3.latency without an L3" "$CACHET" run -q -s l3.latency=30 tests/data/tiny.din
expect_err_contains "-s l3.latency=30: [l3] latency: this configuration has no [l3]; add it by setting its size too (l3.size=...) or with an [l3] section in the file" \
    "l3.latency message"
expect_status 0 "l3.latency with l3.size, either order" \
    "$CACHET" run -q -s l3.latency=30 -s l3.size=8M tests/data/tiny.din
expect_status 2 "itlb.latency without an ITLB" "$CACHET" run -q -s itlb.latency=1 tests/data/tiny.din
expect_err_contains "add it by setting its entries too (itlb.entries=...)" "itlb.latency message"

# the 3C split: in the table when computed; empty CSV fields when not
expect_status 0 "run with miss_classes" "$CACHET" run -s system.miss_classes=yes \
    --csv "$TMP/c.csv" tests/data/tiny.din
check "the table has the 3C part" grep -q '^misses by class (system.miss_classes = yes)' "$TMP/out"
check "the table's 3C row of l1d" grep -qE '^l1d +0 +3 +0 +0$' "$TMP/out"
expect_eq "$(python3 -c 'import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print(r["compulsory"], r["capacity"], r["conflict"])' "$TMP/c.csv")" \
    "3 0 0" "CSV 3C columns when computed"
expect_status 0 "run without miss_classes" "$CACHET" run --csv "$TMP/n.csv" tests/data/tiny.din
check "no 3C part in the table" test "$(grep -c 'misses by class' "$TMP/out")" = 0
expect_eq "$(python3 -c 'import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print(repr((r["compulsory"], r["capacity"], r["conflict"])))' "$TMP/n.csv")" \
    "('', '', '')" "CSV 3C columns empty when not computed"

# sweep -f FORMAT forces the format, as run -f does
printf '[sweep]\nl1d.size = 1K 2K\n' > "$TMP/s.ini"
expect_status 0 "sweep -f din" "$CACHET" sweep -q -f din -o "$TMP/f.csv" "$TMP/s.ini" tests/data/tiny.din
expect_eq "$(python3 -c 'import csv,sys; print(sorted({r["format"] for r in csv.DictReader(open(sys.argv[1]))}))' "$TMP/f.csv")" \
    "['din']" "sweep -f din: the din decoder read it"
expect_status 0 "sweep --format tarmac" "$CACHET" sweep -q --format tarmac -o "$TMP/t.csv" "$TMP/s.ini" tests/data/tiny.din
expect_eq "$(python3 -c 'import csv,sys; print(sorted({r["format"] for r in csv.DictReader(open(sys.argv[1]))}))' "$TMP/t.csv")" \
    "['tarmac']" "sweep --format tarmac: forced, not detected"
expect_status 1 "sweep -f nosuch" "$CACHET" sweep -q -f nosuch -o "$TMP/x.csv" "$TMP/s.ini" tests/data/tiny.din
expect_err_contains 'unknown format "nosuch"' "sweep -f nosuch names the format"

# a progress line on a terminal only (drawn from half a second on: a run
# that took longer than a second must have shown it)
if command -v script >/dev/null; then
    start=$(date +%s.%N)
    script -qec "\"$CACHET\" run gen:random:n=5M" /dev/null > "$TMP/tty" 2>&1
    took=$(python3 -c "import sys; print(int(float(sys.argv[2]) - float(sys.argv[1]) >= 1))" \
           "$start" "$(date +%s.%N)")
    if [ "$took" = 1 ]; then
        check "run shows progress on a terminal" grep -q 'M accesses/s' "$TMP/tty"
        check "and erases it" grep -q $'\r\033\\[K' "$TMP/tty"
    fi
    check "the table still follows" grep -q '^l1d ' "$TMP/tty"
    # validate draws the same line (through the library's progress callback),
    # with the share and time left of a file whose size it knows
    check "a trace to validate" "$CACHET" convert -o "$TMP/big.ctr.zst" gen:random:n=6M
    start=$(date +%s.%N)
    script -qec "\"$CACHET\" validate -c \"$SRC/configs/default.ini\" \"$TMP/big.ctr.zst\"" /dev/null \
        > "$TMP/tty" 2>&1
    # (drawn from half a second on, after a batch of 16384 accesses: a run
    # that took 0.8 s has shown it)
    took=$(python3 -c "import sys; print(int(float(sys.argv[2]) - float(sys.argv[1]) >= 0.8))" \
           "$start" "$(date +%s.%N)")
    if [ "$took" = 1 ]; then
        check "validate shows progress on a terminal" grep -qE 'M accesses/s  [0-9]+%  [0-9]+ s left' "$TMP/tty"
        check "and erases it" grep -q $'\r\033\\[K' "$TMP/tty"
    fi
    # (nothing to compare: the trace has no CACHE lines)
    check "the verdict still follows" grep -q 'nothing to compare' "$TMP/tty"
    rm -f "$TMP/big.ctr.zst"
else
    echo "script (util-linux) not installed: progress on a terminal not checked"
fi
"$CACHET" run gen:random:n=2M > /dev/null 2> "$TMP/pipe"
check "no progress when stderr is not a terminal" test ! -s "$TMP/pipe"

# compat = drcachesim counts no time: n/a, null, empty
expect_status 0 "run --compat drcachesim" "$CACHET" run --compat drcachesim \
    --json "$TMP/d.json" --csv "$TMP/d.csv" tests/data/tiny.din
check "table: cycles and CPI n/a" grep -q 'cycles n/a  CPI n/a' "$TMP/out"
check "table: AMAT n/a" grep -qx 'AMAT n/a' "$TMP/out"
expect_eq "$(json_get "$TMP/d.json" 'd["cycles"], d["cpi"], set(d["amat"].values())')" \
    "None None {None}" "JSON: cycles, cpi and amat null"
expect_eq "$(python3 -c 'import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print(repr((r["cycles"], r["cpi"], r["amat"], r["instructions"])))' "$TMP/d.csv")" \
    "('', '', '', '4')" "CSV: cycles, cpi and amat empty, instructions kept"

finish
