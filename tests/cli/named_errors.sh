#!/bin/bash
# named_errors.sh - errors name the file and the reason: a full output
# (convert, sweep's journal), a masked trace (converted to CTR and run, or to
# Tarmac: nothing convertible, no output), a trace with nothing to compare
# (validate) or infer from, and merge's inputs (a second row of one level, a
# figure that is not a finite number, a file that is not text).
source "$(dirname "$0")/lib.bash"

python3 -c "
import sys
sys.stdout.write(''.join('%d %x\n' % (i % 3, 0x1000 + 64 * i) for i in range(200000)))" > "$TMP/big.din"

# convert onto a full device: the output and the reason, for every writer
if [ -w /dev/full ]; then
    for to in din tarmac tt6 ctr; do
        expect_status 2 "convert to $to on a full device" "$CACHET" convert --to $to -o /dev/full "$TMP/big.din"
        expect_err_contains "/dev/full: write error: No space left on device" "convert to $to names the output"
    done
    # a sweep whose journal cannot be written blames the journal, not the sweep file
    ln -s /dev/full "$TMP/o.csv.partial"
    expect_status 2 "sweep with a full journal" "$CACHET" sweep -q -o "$TMP/o.csv" \
        "$SRC/configs/sweeps/l2-under-l1.ini" "$SRC/tests/data/tiny.din"
    expect_err_contains "o.csv.partial: write error: No space left on device" "the journal is named"
    if grep -q "l2-under-l1.ini" "$TMP/err"; then bad "the sweep file is blamed: $(cat "$TMP/err")"; else ok; fi
    if [ ! -e "$TMP/o.csv" ]; then ok; else bad "a sweep with a full journal left o.csv"; fi
fi

# a trace that masks its addresses (VIXL's 0x~~~~~~~~~~~~~~~~)
printf '0x~~~~~~~~~~~~~~~~  f9000013\t\tstr x19, [x0]\n#      x19<63:0>: 0x0000000000000086 -> 0x~~~~~~~~~~~~~~~~\n' > "$TMP/masked.log"
expect_status 2 "masked VIXL to Tarmac" "$CACHET" convert --to tarmac -o "$TMP/masked.tarmac" -f vixl "$TMP/masked.log"
expect_err_contains "masked.log: the trace masks its memory addresses" "masked VIXL to Tarmac: named"
if [ ! -e "$TMP/masked.tarmac" ]; then ok; else bad "masked VIXL to Tarmac left an output"; fi
expect_status 0 "masked VIXL to CTR" "$CACHET" convert -o "$TMP/masked.ctr" -f vixl "$TMP/masked.log"
expect_status 2 "masked CTR run" "$CACHET" run -q "$TMP/masked.ctr"
expect_err_contains "masked.ctr: the trace masks its memory addresses" "masked CTR: named"

# nothing to compare, nothing to infer from
printf '0 clk IT (1) 00001000 d503201f O EL1h_n : NOP\n1 clk IT (2) 00001004 d503201f O EL1h_n : NOP\n' > "$TMP/noevents.tarmac"
expect_status 2 "validate: nothing to compare" "$CACHET" validate -c "$SRC/configs/fastmodel-aemv8.ini" "$TMP/noevents.tarmac"
expect_err_contains "noevents.tarmac: nothing to compare" "validate names the trace"
expect_status 2 "infer: no CACHE lines" "$CACHET" infer "$TMP/noevents.tarmac"
expect_err_contains "noevents.tarmac: nothing to infer from" "infer names the trace"

# merge: one row per (trace, point, level, core), finite figures, text only
SW=$SRC/configs/sweeps/l2-under-l1.ini
check "shard 0" "$CACHET" sweep -q --shard 0/2 -o "$TMP/s0.csv" "$SW" "$SRC/tests/data/tiny.din"
check "shard 1" "$CACHET" sweep -q --shard 1/2 -o "$TMP/s1.csv" "$SW" "$SRC/tests/data/tiny.din"
expect_status 0 "merge of the two shards" "$CACHET" merge -o "$TMP/m.csv" "$TMP/s0.csv" "$TMP/s1.csv"
sed '3p' "$TMP/s0.csv" > "$TMP/dup.csv"
expect_status 2 "merge: a duplicated row" "$CACHET" merge -o "$TMP/m2.csv" "$TMP/dup.csv" "$TMP/s1.csv"
expect_err_contains "dup.csv:4: a second row for trace" "merge: duplicated row named"
python3 - "$TMP/s0.csv" "$TMP/nan.csv" <<'PY'
import sys
lines = open(sys.argv[1]).read().split('\n')
head = lines[1].split(',')
f = lines[3].split(',')
f[head.index('miss_rate')] = 'nan'
lines[3] = ','.join(f)
open(sys.argv[2], 'w').write('\n'.join(lines))
PY
expect_status 2 "merge: nan" "$CACHET" merge -o "$TMP/m2.csv" "$TMP/nan.csv" "$TMP/s1.csv"
expect_err_contains 'nan.csv:4: miss_rate "nan" is not a finite number' "merge: nan named"
if [ ! -e "$TMP/m2.csv" ]; then ok; else bad "a refused merge left output"; fi
expect_status 2 "merge /dev/zero" timeout 20 "$CACHET" merge /dev/zero
expect_err_contains "/dev/zero: cannot read: a NUL byte at byte 0: not a text file" "merge: /dev/zero refused"
head -c 1200000 /dev/zero | tr '\0' x > "$TMP/oneline.csv"
expect_status 2 "merge: a line over 1 MiB" "$CACHET" merge "$TMP/oneline.csv"
expect_err_contains "oneline.csv: cannot read: a line longer than 1048576 bytes" "merge: long line refused"
finish
