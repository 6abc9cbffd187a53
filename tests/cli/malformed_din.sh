#!/bin/bash
# malformed_din.sh - bad DineroIV din input (lib.bash, bad_case: exit 2,
# FILE:LINE:COLUMN and the reason, no output left behind).
#   truncated        cut after every byte of a trace holding every label
#   wrong magic      din has none: another format's bytes forced as din
#   impossible sizes an address wider than 64 bits (din has no sizes)
#   unknown kinds    a label outside 0..5
#   version          din has none
#   compression      malformed.sh (every container, din inside)
#   empty, directory, unreadable: malformed.sh (every format)
source "$(dirname "$0")/lib.bash"

# every label, in upper and lower case hex, with a blank-separated tail
printf '2 400000\n0 1000\n1 1ffc\n3 0\n4 ABCDEF01\n5 abcdef02\n2 400004 extra\n0 7fffffffffffffff\n' \
    > "$TMP/all.din"
expect_status 0 "the sample reads" "$CACHET" run -q -f din "$TMP/all.din"
text_cuts "$TMP/all.din" > "$TMP/table"
cut_table "din: cut after every byte" "$TMP/all.din" "$TMP/table" -f din
printf '0 100\n0' > "$TMP/cut.din"
bad_case "din: truncated mid-record" "cut.din:2:2: expected a blank after the label" "$TMP/cut.din"
printf '0 100\n1 \n' > "$TMP/noaddr.din"
bad_case "din: record cut after the label" "noaddr.din:2:3: expected a hex address" "$TMP/noaddr.din"

# another format's bytes
printf '\x19\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00' > "$TMP/binary.din"
bad_case "din: binary bytes" "binary.din:1:1: label is not 0..5" "$TMP/binary.din" -f din
printf '1 clk IT (1) 00001000 d503201f O EL1h_n : NOP\n' > "$TMP/tarmac.din"
bad_case "din: a Tarmac line" "tarmac.din:1:4: bad character in hex address" "$TMP/tarmac.din" -f din

printf '0 100\n1 12345678123456781\n' > "$TMP/wide.din"
bad_case "din: impossible address" "wide.din:2:20: address wider than 64 bits" "$TMP/wide.din"
printf '0 100\n1 12g4\n' > "$TMP/hex.din"
bad_case "din: address not hex" "hex.din:2:" "$TMP/hex.din" -f din
printf '0 100\n7 200\n' > "$TMP/label.din"
bad_case "din: unknown record kind (label)" "label.din:2:1: label is not 0..5" "$TMP/label.din"
printf '0 100\n12 200\n' > "$TMP/label2.din"
bad_case "din: two-digit label" "label2.din:2:" "$TMP/label2.din" -f din

# lenient mode skips what it can and counts it; framing-free text resumes
printf '0 100\n7 200\n1 300\n' > "$TMP/lenient.din"
expect_status 0 "din: lenient run" "$CACHET" run --lenient "$TMP/lenient.din"
expect_err_contains "skipped 1 malformed record: label is not 0..5 (first: " "lenient summary"
# ... up to [trace] max_errors, then it stops naming the last one
printf '0 100\n7 200\n8 300\n1 400\n' > "$TMP/limit.din"
bad_case "din: lenient limit reached" \
    "limit.din: 2 malformed records, giving up (the limit is [trace] max_errors); the last: $TMP/limit.din:3:1: label is not 0..5" \
    "$TMP/limit.din" -f din --lenient -s trace.max_errors=2
finish
