#!/bin/bash
# malformed_tarmac.sh - bad Tarmac and Trace Matcher text (lib.bash,
# bad_case: exit 2, FILE:LINE:COLUMN and the reason, no output left behind).
#   truncated        cut after every byte of a trace with instruction,
#                    memory, LD, CACHE, TLB and TTW lines (Tarmac), and of
#                    every record kind (Trace Matcher)
#   wrong magic      neither has one: binary bytes read as either
#   impossible sizes an access size outside 1 2 4 8 16, an opcode of odd
#                    width, a timestamp over 64 bits, an LD line of 17
#                    bytes, a walk level over 3, an asid over 16 bits, a cpu
#                    over 16 bits
#   unknown kinds    Tarmac: counted and named with their first line (its
#                    producers write many kinds; tarmac.c); Trace Matcher
#                    defines three: anything else is malformed
#   version          neither format has versions
#   compression      a Tarmac trace in a truncated gzip stream
#   empty, directory, unreadable: malformed.sh (every format)
source "$(dirname "$0")/lib.bash"

cat > "$TMP/s.tarmac" <<'EOF'
1948 clk cpu0 IT (1924) 000112c0:0000152112c0 f9400000 O EL3h_s : LDR x0,[x0,#0]
1948 clk cpu0 MR8 00011540:000015211540 00000000_13000000
1948 clk cpu0 R X0 0000000013000000
1949 clk cpu0 CACHE cpu.cpu0.l1dcache LINE 00aa ALLOC 0x000015211540
1950 clk cpu0 TLB FILL cpu.cpu0.DTLB 4K 0x06200000 EL1_n vmid=3, nG asid=0x2a:0x16000000_NS
1951 clk cpu0 TTW DTLB LPAE 1:3 000016390010 00000000152204c3 : BLOCK ADDR=0x15220000
    LD 000000007ff80fe0 ........ 44444444 ........ 2222..11    S:007ff80fe0    nGnRnE OSH
EOF
expect_status 0 "the Tarmac sample reads" "$CACHET" run -q -f tarmac "$TMP/s.tarmac"
text_cuts "$TMP/s.tarmac" > "$TMP/table"
cut_table "tarmac: cut after every byte" "$TMP/s.tarmac" "$TMP/table" -f tarmac

cat > "$TMP/s.tm" <<'EOF'
1 clk 0 IT (1) 00000004 3c080001 A svc : lui t0,0x1
10 clk MR8 00103fc4 0010400000000000
14 clk R r8 00000000
15 clk 3 IS (15) 0000000000000008 3c080001 A svc_ns : lui t0,0x1
15 clk MW4X 00103fc8 00000001
EOF
expect_status 0 "the Trace Matcher sample reads" "$CACHET" run -q -f tracematcher "$TMP/s.tm"
text_cuts "$TMP/s.tm" > "$TMP/table"
cut_table "tracematcher: cut after every byte" "$TMP/s.tm" "$TMP/table" -f tracematcher

# binary bytes
printf '\x19\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00' > "$TMP/binary.tarmac"
bad_case "tarmac: binary bytes" "binary.tarmac:1:1: unrecognised token" "$TMP/binary.tarmac" -f tarmac
bad_case "tracematcher: binary bytes" "binary.tarmac:1:1: unrecognised token" "$TMP/binary.tarmac" \
    -f tracematcher

# impossible sizes and counts
I='1 clk IT (1) 00001000 d503201f O EL1h_n : NOP'
tm() { printf '%s\n' "$I" "$2" > "$TMP/$1"; }
tm size.tarmac '2 clk MR3 00001000 000000'
bad_case "tarmac: access size 3" "size.tarmac:2:7: memory access size not in {1,2,4,8,16}" "$TMP/size.tarmac"
tm opcode.tarmac '2 clk IT (2) 00001004 d50320 O EL1h_n : NOP'
bad_case "tarmac: opcode of 6 digits" "opcode.tarmac:2:23: expected a hex opcode of 4, 8 or 16 digits" \
    "$TMP/opcode.tarmac" -f tarmac
tm time.tarmac '123456789012345678901 clk MR4 00001000 00000000'
bad_case "tarmac: timestamp over 64 bits" "time.tarmac:2:" "$TMP/time.tarmac" -f tarmac
expect_err_contains "timestamp too large" "timestamp: why"
tm ld.tarmac '    LD 00001000 ........ 44444444 ........ 2222..1100'
bad_case "tarmac: LD line of 17 bytes" "ld.tarmac:2:" "$TMP/ld.tarmac" -f tarmac
expect_err_contains "LD/ST line has more than 16 bytes" "LD line: why"
tm walk.tarmac '2 clk TTW DTLB LPAE 1:4 000016390010 00000000152204c3 : BLOCK'
bad_case "tarmac: walk level 4" "walk.tarmac:2:" "$TMP/walk.tarmac" -f tarmac
expect_err_contains "expected the lookup level after ':'" "walk level: why"
tm asid.tarmac '2 clk TLB FILL cpu.cpu0.DTLB 4K 0x06200000 EL1_n, nG asid=0x1ffff'
bad_case "tarmac: asid over 16 bits" "asid.tarmac:2:" "$TMP/asid.tarmac" -f tarmac
expect_err_contains "expected a 16-bit number after '='" "asid: why"
printf '1 clk 99999 IT (1) 00000004 3c080001 A svc : lui t0,0x1\n' > "$TMP/cpu.tm"
bad_case "tracematcher: cpu over 16 bits" "cpu.tm:1:7: cpu number too large" "$TMP/cpu.tm" -f tracematcher
printf '1 clk 0 IT (1) 00000004 3c080001 A svc : lui t0,0x1\n2 clk MR9 00001000 00\n' > "$TMP/size.tm"
bad_case "tracematcher: access size 9" "size.tm:2:7: memory access size not in {1,2,4,8,16}" "$TMP/size.tm"
printf '1 clk 0 IT 00000004 3c080001 A svc : lui t0,0x1\n' > "$TMP/index.tm"
bad_case "tracematcher: no instruction index" "index.tm:1:12: expected '(' before the instruction index" \
    "$TMP/index.tm" -f tracematcher

# unknown kinds
tm kind.tarmac '2 clk FOO bar'
expect_status 0 "tarmac: unknown line kind is counted" "$CACHET" run -q -f tarmac "$TMP/kind.tarmac"
expect_err_contains "note: 1 record of a kind not simulated: unknown line kind 'FOO' (first at $TMP/kind.tarmac:2)" \
    "tarmac: unknown line kind is named with its line"
printf '1 clk 0 IT (1) 00000004 3c080001 A svc : lui t0,0x1\n2 clk FOO bar\n' > "$TMP/kind.tm"
bad_case "tracematcher: unknown record kind" \
    "kind.tm:2:7: unknown record kind (Trace Matcher has IT/IS, M and R)" "$TMP/kind.tm"

# lenient: skipped and counted by reason
printf '%s\n' "$I" '2 clk MR3 00001000 000000' '3 clk MW4 00002000 00000000' > "$TMP/len.tarmac"
expect_status 0 "tarmac: lenient run" "$CACHET" run -q --lenient -f tarmac "$TMP/len.tarmac"
expect_err_contains "skipped 1 malformed record: memory access size not in {1,2,4,8,16} (first: $TMP/len.tarmac:2:7: " \
    "tarmac: lenient summary"

gzip -c "$TMP/s.tarmac" | head -c 100 > "$TMP/cut.tarmac.gz"
bad_case "tarmac: truncated gzip" "cut.tarmac.gz: compressed byte 100: gzip stream truncated" \
    "$TMP/cut.tarmac.gz" -f tarmac
finish
