#!/bin/bash
# malformed_ctr.sh - bad cachet traces (.ctr, .ctr.zst; frontends/CTR.md)
# (lib.bash, bad_case: exit 2, "FILE: byte B (record R): reason", no output
# left behind). The sample is CTR.md's example, three din lines, whose
# records after the header are, by hand:
#   07 01 00 | 50 04 80 80 80 04 | 51 04 80 40 | 58 08 | 27 03 00 00
#   state      ifetch              load          ifetch  end
#   truncated        cut after every byte: inside the magic, the fixed
#                    header, the header text, every record; a cut between
#                    records lacks the end record
#   wrong magic      one byte off
#   impossible sizes a header text over 64 KiB, a size over 32 bits, a
#                    varint over 64 bits, end totals that disagree
#   unknown kinds    record types 6 and up
#   version          another major version
#   compression      a damaged .ctr.zst (its checksum), a truncated one
#   empty, directory, unreadable: malformed.sh (every format)
source "$(dirname "$0")/lib.bash"

printf '2 400000\n0 1000\n2 400004\n' > "$TMP/ex.din"
"$CACHET" convert --to ctr-raw "$TMP/ex.din" -o "$TMP/ex.ctr"
hl=$(( 16 + $(od -An -tu4 -j12 -N4 "$TMP/ex.ctr") ))  # header with its text
expect_eq "$(od -An -tx1 -j$hl "$TMP/ex.ctr" | tr -d ' \n')" "07010050048080800451048040580827030000" \
    "the records are CTR.md's example"
n=$(wc -c < "$TMP/ex.ctr")
starts=($hl $((hl + 3)) $((hl + 9)) $((hl + 13)) $((hl + 15)))   # records 0..4
for ((i = 1; i <= n; i++)); do
    if [ $i -eq "$n" ]; then printf '%d\tok\n' $i
    elif [ $i -lt 16 ]; then printf '%d\tbyte %d: header cut short (%d of 16 bytes)\n' $i $i $i
    elif [ $i -lt $hl ]; then
        printf '%d\tbyte 16: header text cut short (%d of %d bytes)\n' $i $((i - 16)) $((hl - 16))
    else
        for ((k = 4; k >= 0; k--)); do [ ${starts[k]} -le $i ] && break; done
        if [ ${starts[k]} -eq $i ]; then
            printf '%d\tbyte %d (record %d): the stream ends without its end record (truncated)\n' \
                $i $i $k
        else
            printf '%d\tbyte %d (record %d): record cut short by the end of the stream (truncated)\n' \
                $i ${starts[k]} $k
        fi
    fi
done > "$TMP/table"
cut_table "ctr: cut after every byte" "$TMP/ex.ctr" "$TMP/table" -f ctr

# patch FILE OFFSET BYTES -> FILE.bad, and append BYTES: FILE -> FILE.more
patch() { cp "$1" "$1.bad"; printf "$3" | dd of="$1.bad" bs=1 seek="$2" conv=notrunc 2>/dev/null; }
patch "$TMP/ex.ctr" 1 'D'
bad_case "ctr: wrong magic" "ex.ctr.bad: byte 0: not a cachet trace (bad magic)" "$TMP/ex.ctr.bad" -f ctr
patch "$TMP/ex.ctr" 8 '\002\000'
bad_case "ctr: another major version" "ex.ctr.bad: byte 8: ctr version 2.0 (this cachet reads version 1)" \
    "$TMP/ex.ctr.bad"
patch "$TMP/ex.ctr" 12 '\001\000\001\000'
bad_case "ctr: header text too long" "ex.ctr.bad: byte 12: header text of 65537 bytes (at most 65536)" \
    "$TMP/ex.ctr.bad"
patch "$TMP/ex.ctr" $((hl + 3)) '\020\377\377\377\377\020'
bad_case "ctr: access size over 32 bits" "ex.ctr.bad: byte $((hl + 3)) (record 1): access size out of range" "$TMP/ex.ctr.bad"
{ head -c "$hl" "$TMP/ex.ctr"; printf '\007\377\377\377\377\377\377\377\377\377\377\001'; } > "$TMP/varint.ctr"
bad_case "ctr: corrupt varint" "varint.ctr: byte $hl (record 0): corrupt varint" "$TMP/varint.ctr"
patch "$TMP/ex.ctr" $((hl + 15)) '\047\004'
bad_case "ctr: end totals disagree" \
    "ex.ctr.bad: byte $((hl + 15)) (record 4): the end record counts 4/0/0 accesses/markers/events, the stream holds 3/0/0" \
    "$TMP/ex.ctr.bad"
for t in 6 7 31; do
    patch "$TMP/ex.ctr" $((hl + 15)) "\\$(printf '%03o' $(( t * 8 + 7 )))"
    bad_case "ctr: record type $t" "ex.ctr.bad: byte $((hl + 15)) (record 4): unknown record type" \
        "$TMP/ex.ctr.bad"
done
{ cat "$TMP/ex.ctr"; printf '\007\001\000'; } > "$TMP/more.ctr"
bad_case "ctr: bytes after the end record" "more.ctr: byte $n: bytes after the end record" "$TMP/more.ctr"
expect_status 2 "ctr: lenient does not resynchronise" "$CACHET" run --lenient "$TMP/varint.ctr"

"$CACHET" convert --to ctr "gen:random:n=4K" -o "$TMP/g.ctr.zst"
head -c 2000 "$TMP/g.ctr.zst" > "$TMP/cut.ctr.zst"
bad_case "ctr: truncated zstd" "cut.ctr.zst: compressed byte 2000: zstd stream truncated" "$TMP/cut.ctr.zst"
printf '\377\377\377\377\377\377' | dd of="$TMP/g.ctr.zst" bs=1 seek=200 conv=notrunc 2>/dev/null
bad_case "ctr: damaged zstd data" "g.ctr.zst: compressed byte " "$TMP/g.ctr.zst"
expect_err_contains "corrupt zstd data" "damaged zstd data is named"
finish
