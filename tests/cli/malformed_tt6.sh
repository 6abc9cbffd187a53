#!/bin/bash
# malformed_tt6.sh - bad Amber TT6/TT6E traces (lib.bash, bad_case: exit 2,
# "FILE: offset O (0xO), record R, CLASS: reason", no output left behind).
# tt6.sh has further cases (odd length, FULL traces, misaligned targets).
#   truncated        cut after every byte of a trace with one record of
#                    each length: INITIAL_PC 0, add 4, lwz+EA 8, stfd+EA
#                    16, lswx+EA+XER 24, sync escape+2 36, escape 0x04+1
#                    48, b+target 56, add 64 (byte offsets, by hand)
#   wrong magic      TT6 has none: a misaligned INITIAL_PC; FULL: tt6.sh
#   impossible counts an escape count past the end (in the cuts above, and
#                    one of an undefined code)
#   unknown kinds    escape codes Amber does not define: skipped by their
#                    count and counted per code, not errors
#   version          FULL traces are refused (tt6.sh)
#   compression      a TT6 trace in a truncated zstd stream
#   empty, directory, unreadable: malformed.sh (every format); here a
#                    directory whose second thread is cut
source "$(dirname "$0")/lib.bash"

# words FILE WORD...: big-endian 32-bit words (hex) into FILE
words() {
    python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(b"".join(struct.pack(">I", int(w, 16)) for w in sys.argv[2:]))' "$@"
}

words "$TMP/s.tt6" 00010000 7c632214 80640008 00005000 d8210008 00005008 7c642c2a 00006000 \
    00000010 00200002 0000a000 00000001 00040001 00007000 48000010 00010030 7c632214
"$CACHET" info -f tt6 --json "$TMP/s.tt6" > "$TMP/s.json"
expect_eq "$(json_get "$TMP/s.json" "d['records'], d['instructions'], d['load_bytes'], d['markers']")" \
    "9 6 20 1" "the sample: 9 records, 6 instructions, lwz 4 + lswx 16 bytes, one sync marker"
starts=(0 4 8 16 24 36 48 56 64 68)
for ((i = 1; i <= 68; i++)); do
    for ((k = 9; k >= 0; k--)); do [ ${starts[k]} -le $i ] && break; done
    if [ ${starts[k]} -eq $i ]; then printf '%d\tok\n' $i
    else
        printf '%d\ttext:cut.s.tt6: offset %d \\(0x%x\\), record %d, .*(record truncated|partial word|runs past the end)\n' \
            $i ${starts[k]} ${starts[k]} $k
    fi
done > "$TMP/table"
cut_table "tt6: cut after every byte" "$TMP/s.tt6" "$TMP/table" -f tt6
cut_table "tt6e: cut after every byte" "$TMP/s.tt6" "$TMP/table" -f tt6e

words "$TMP/pc.tt6" 00010002 7c632214
bad_case "tt6: misaligned INITIAL_PC" \
    "pc.tt6: offset 0 (0x0), record 0, INITIAL_PC: 0x00010002 is not 4-byte aligned" "$TMP/pc.tt6" -f tt6
# undefined escape codes: 0x11 with two payload words that would read as
# lwz and its EA, 0x3a5 with none, 0x11 again at the very end
words "$TMP/esc.tt6" 00010000 7c632214 00110002 80640008 00005000 03a50000 7c632214 00110000
expect_status 0 "tt6: undefined escape codes are skipped" "$CACHET" info -f tt6 "$TMP/esc.tt6"
"$CACHET" info -f tt6 --json "$TMP/esc.tt6" > "$TMP/esc.json"
expect_eq "$(json_get "$TMP/esc.json" "d['records'], d['instructions'], d['accesses']['load'], d['malformed']")" \
    "6 2 0 0" "undefined escapes: 6 records, the two adds, no load from the payload"
expect_eq "$(json_get "$TMP/esc.json" "' / '.join('%d x %s at %s' % (r['count'], r['what'], r['first']) for r in d['ignored'])")" \
    "2 x TT6 escape 0x11 (undefined code): skipped at offset 8, record 2 / 1 x TT6 escape 0x3a5 (undefined code): skipped at offset 20, record 3" \
    "undefined escapes: counted per code, with the first place"
words "$TMP/esc-cut.tt6" 00010000 7c632214 00110003 00000001
bad_case "tt6: an undefined escape whose count runs past the end" \
    "esc-cut.tt6: offset 8 (0x8), record 2, ESCAPE 0x11: escape count 3 runs past the end" \
    "$TMP/esc-cut.tt6" -f tt6 --lenient
words "$TMP/dcbz.tt6e" 00010000 7c0327ec 00003010 7c0327ec
bad_case "tt6e: dcbz without its address" \
    "dcbz.tt6e: offset 12 (0xc), record 2, MEMORY dcbz: record truncated: 4 of 8 bytes" "$TMP/dcbz.tt6e" -f tt6e

zstd -q -c "$TMP/s.tt6" | head -c 20 > "$TMP/s.tt6.zst"
bad_case "tt6: truncated zstd" "s.tt6.zst: compressed byte 20: zstd stream truncated" "$TMP/s.tt6.zst" -f tt6

mkdir "$TMP/threads"
cp "$TMP/s.tt6" "$TMP/threads/thread_1.tt6"
head -c 30 "$TMP/s.tt6" > "$TMP/threads/thread_2.tt6"
bad_case "tt6: a directory with a cut thread" \
    "thread_2.tt6: offset 24 (0x18), record 4, MEMORY_EXTENDED lswx: record truncated: 6 of 12 bytes" \
    "$TMP/threads" -f tt6
finish
