#!/bin/bash
# text_lines.sh - the text-line rules of frontends/bytes.c and sim/ini.c:
# CR-only line endings and a UTF-8 byte-order mark are refused by name (din,
# Tarmac, VIXL, INI); a line longer than the input buffer (1 MiB, a zip
# member's 512 KiB) stops a strict read and is skipped and counted in
# lenient mode.
source "$(dirname "$0")/lib.bash"

TAR='0 clk IT (1) 00001000 d503201f O EL1h_n : NOP
1 clk IT (2) 00001004 f9400001 O EL1h_n : LDR x1,[x0]
1 clk MR8 00002000:000000002000 0000000000000000
2 clk IT (3) 00001008 d503201f O EL1h_n : NOP
'

# CR-only line endings: refused, not read as one record
printf '0 1000\r1 2000\r2 3000\r' > "$TMP/cr.din"
for f in "" "-f din"; do
    expect_status 2 "din: CR-only endings ($f)" "$CACHET" run -q $f "$TMP/cr.din"
    expect_err_contains "cr.din: CR-only line endings (a carriage return without a line feed at byte 6)" "din: CR-only named"
done
printf '%s' "$TAR" | tr '\n' '\r' > "$TMP/cr.tarmac"
expect_status 2 "Tarmac: CR-only endings" "$CACHET" run -q -f tarmac "$TMP/cr.tarmac"
expect_err_contains "cr.tarmac: CR-only line endings" "Tarmac: CR-only named"
tr '\n' '\r' < "$SRC/tests/data/vixl/forms.log" > "$TMP/cr.log"
expect_status 2 "VIXL: CR-only endings" "$CACHET" run -q -f vixl "$TMP/cr.log"
expect_err_contains "cr.log: CR-only line endings" "VIXL: CR-only named"
printf '[l1d]\rsize = 16K\r' > "$TMP/cr.ini"
expect_status 2 "INI: CR-only endings" "$CACHET" run -q -c "$TMP/cr.ini" "$SRC/tests/data/tiny.din"
expect_err_contains "cr.ini:1: CR-only line endings" "INI: CR-only named"
# CRLF is read as LF, and a last line ending in CR is one line
printf '0 1000\r\n1 2000\r\n2 3000\r' > "$TMP/crlf.din"
"$CACHET" info --json "$TMP/crlf.din" > "$TMP/crlf.json"
expect_eq "$(json_get "$TMP/crlf.json" "d['records']")" 3 "din: CRLF gives three records"

# a UTF-8 byte-order mark at byte 0
printf '\xef\xbb\xbf0 1000\n1 2000\n' > "$TMP/bom.din"
for f in "" "-f din"; do
    expect_status 2 "din: byte-order mark ($f)" "$CACHET" run -q $f "$TMP/bom.din"
    expect_err_contains "bom.din: UTF-8 byte-order mark at byte 0" "din: BOM named"
done
{ printf '\xef\xbb\xbf'; printf '%s' "$TAR"; } > "$TMP/bom.tarmac"
expect_status 2 "Tarmac: byte-order mark" "$CACHET" run -q -f tarmac "$TMP/bom.tarmac"
expect_err_contains "bom.tarmac: UTF-8 byte-order mark at byte 0" "Tarmac: BOM named"
printf '\xef\xbb\xbf[l1d]\nsize = 16K\n' > "$TMP/bom.ini"
expect_status 2 "INI: byte-order mark" "$CACHET" run -q -c "$TMP/bom.ini" "$SRC/tests/data/tiny.din"
expect_err_contains "bom.ini: UTF-8 byte-order mark at byte 0" "INI: BOM named"

# a line over the buffer: strict stops, lenient skips and counts it
{ printf '0 1000\n'; head -c 1100000 /dev/zero | tr '\0' x; printf '\n1 2000\n'; } > "$TMP/long.din"
expect_status 2 "din: line over 1 MiB (strict)" "$CACHET" run -q "$TMP/long.din"
expect_err_contains "long.din:2: line longer than 1048576 bytes" "din: long line named"
expect_status 0 "din: line over 1 MiB (lenient)" "$CACHET" run --lenient "$TMP/long.din"
expect_err_contains "skipped 1 malformed record: line longer than the input buffer" "din: long line counted"
"$CACHET" info --json --lenient "$TMP/long.din" > "$TMP/long.json"
expect_eq "$(json_get "$TMP/long.json" "[d['records'], d['malformed'], d['accesses']['load'], d['accesses']['store']]")" "[2, 1, 1, 1]" "din: the lines around it read"
# the same as a zip member (buffers of 512 KiB)
python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED).write(sys.argv[1], 't.din')" \
    "$TMP/long.din" "$TMP/long.zip"
expect_status 2 "zip din: long line (strict)" "$CACHET" run -q -f din "$TMP/long.zip"
expect_err_contains "long.zip:2: line longer than 524288 bytes" "zip din: long line named"
expect_status 0 "zip din: long line (lenient)" "$CACHET" run -q -f din --lenient "$TMP/long.zip"
# the last line, without a newline, over the 4 KiB a din tail may hold
{ printf '0 1000\n'; head -c 5000 /dev/zero | tr '\0' x; } > "$TMP/tail.din"
expect_status 2 "din: long last line (strict)" "$CACHET" run -q -f din "$TMP/tail.din"
expect_status 0 "din: long last line (lenient)" "$CACHET" run -q -f din --lenient "$TMP/tail.din"
# Tarmac
{ printf '%s' "$TAR" | head -n 2; head -c 1100000 /dev/zero | tr '\0' x; printf '\n'; printf '%s' "$TAR" | tail -n 2; } > "$TMP/long.tarmac"
expect_status 2 "Tarmac: line over 1 MiB (strict)" "$CACHET" run -q -f tarmac "$TMP/long.tarmac"
expect_err_contains "long.tarmac:3: line longer than 1048576 bytes" "Tarmac: long line named"
expect_status 0 "Tarmac: line over 1 MiB (lenient)" "$CACHET" run -q -f tarmac --lenient "$TMP/long.tarmac"
"$CACHET" info --json -f tarmac --lenient "$TMP/long.tarmac" > "$TMP/lt.json"
expect_eq "$(json_get "$TMP/lt.json" "[d['malformed'], d['accesses']['load']]")" "[1, 1]" "Tarmac: the long line counted, the load after it read"
finish
