#!/bin/bash
# malformed_vixl.sh - bad VIXL simulator traces (lib.bash, bad_case: exit 2,
# FILE:LINE:COLUMN and the reason, no output left behind).
#   truncated        cut after every byte of a trace with colour codes,
#                    register, lane and store lines
#   wrong magic      VIXL logs have none, and lines that are not VIXL's
#                    (the simulated program's own output) are skipped and
#                    counted by design: a din file read as VIXL says so
#   impossible sizes value widths: odd digits, a width that disagrees with
#                    the bit range, a predicate of no whole byte
#   unknown kinds    an arrow line of no known shape (three arrows, a copy
#                    line of the wrong form)
#   version          the layout before November 2019 is read (test_vixl.c)
#   compression      malformed.sh; here a VIXL log in a truncated gzip
#   empty, directory, unreadable: malformed.sh (every format)
source "$(dirname "$0")/lib.bash"

head -9 tests/data/vixl/colour.log > "$TMP/colour.log"   # with a lane line
text_cuts "$TMP/colour.log" > "$TMP/table"
cut_table "vixl: cut after every byte" "$TMP/colour.log" "$TMP/table" -f vixl

printf '0x0000000000400000  b9400002\t\tldr w2, [x0]\n' > "$TMP/insn.log"
{ cat "$TMP/insn.log"; printf '#             w2:         0x0000007 <- 0x0000000000010000\n'; } > "$TMP/odd.log"
bad_case "vixl: odd hex digits" "odd.log:2:27: odd number of hex digits in value" "$TMP/odd.log"
{ cat "$TMP/insn.log"; printf '#       x2<15:0>:         0x00000007 -> 0x0000000000010004\n'; } > "$TMP/range.log"
bad_case "vixl: width against bit range" \
    "range.log:2:27: value width does not match the register bit range" "$TMP/range.log" -f vixl
{ cat "$TMP/insn.log"; printf '#             w2:         0x00000007 <- 0x10000\n'; } > "$TMP/arrow.log"
bad_case "vixl: arrow without address" "arrow.log:2:38: arrow without 16-digit address" "$TMP/arrow.log"
{ cat "$TMP/insn.log"; printf '#             w2: 0x07 <- 0x0000000000010000 <- 0x0000000000010000 <- 0x0000000000010000\n'; } > "$TMP/three.log"
bad_case "vixl: three arrows" "three.log:2:" "$TMP/three.log" -f vixl
expect_err_contains "more than two arrows" "three arrows"
{ cat "$TMP/insn.log"; printf '#             w2:         0x00000007 <- 0x00000000000100zz\n'; } > "$TMP/addr.log"
bad_case "vixl: address not hex" "addr.log:2:" "$TMP/addr.log" -f vixl
printf '0x0000000000400000  b940000\t\tldr w2, [x0]\n#             w2:         0x00000007 <- 0x0000000000010000\n' > "$TMP/enc.log"
bad_case "vixl: bad encoding" "enc.log:1:28: instruction line: expected 8 hex digits" "$TMP/enc.log" -f vixl
printf '0x0000000000400000  b9400002 ldr w2, [x0]\n' > "$TMP/tabs.log"
bad_case "vixl: no tabs before the disassembly" "tabs.log:1:" "$TMP/tabs.log" -f vixl
printf '0x~~~~~~~~~~~~~~~~  b9400002\t\tldr w2, [x0]\n#             w2:         0x00000007 <- 0x~~~~~~~~~~~~~~~~\n' > "$TMP/masked.log"
bad_case "vixl: masked addresses cannot be simulated or written as din" "masks its memory addresses" "$TMP/masked.log"
for to in tt6 tt6e; do
    expect_status 2 "vixl: masked addresses cannot be written as $to" \
        "$CACHET" convert --to $to -o "$TMP/bc/masked.$to" "$TMP/masked.log"
    expect_err_contains "masked.log: the trace masks its memory addresses (as 0x~~~~~~~~~~~~~~~~), so it cannot be written as $to" \
        "vixl: masked addresses to $to: the message"
    check "vixl: masked addresses to $to: no output left" test ! -e "$TMP/bc/masked.$to"
done

# not VIXL at all: counted, named, and nothing to simulate
expect_status 0 "a din file read as VIXL" "$CACHET" run -q -f vixl tests/data/tiny.din
expect_err_contains "lines that are not VIXL trace output" "foreign lines are counted"
expect_err_contains "(first at tests/data/tiny.din:1:1)" "... with the first position"

gzip -c tests/data/vixl/forms.log | head -c 300 > "$TMP/cut.log.gz"
bad_case "vixl: truncated gzip" "cut.log.gz: compressed byte 300: gzip stream truncated" \
    "$TMP/cut.log.gz" -f vixl
finish
