#!/bin/bash
# tt6.sh - Amber TT6/TT6E from the command line: info counts, conversion,
# threads, options and the exit status of malformed input.
source "$(dirname "$0")/lib.bash"

# words FILE WORD... : big-endian 32-bit words (hex) into FILE
words() {
    local f=$1; shift
    python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(b"".join(struct.pack(">I", int(w, 16)) for w in sys.argv[2:]))' "$f" "$@"
}

# jvals FILE PATH...: "path=value" for each JSON path (a.b for nested keys),
# in one python run
jvals() {
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
out = []
for p in sys.argv[2:]:
    v = d
    for k in p.split("."):
        v = v[k]
    out.append("%s=%s" % (p, v))
print(" ".join(out))' "$@"
}

# 1000 gen accesses, every 4th a store, 4 bytes each, after a fetch from an
# 8-instruction loop: 1000 instructions plus one `b` inserted each time the
# loop wraps after a load or store (124 times), as the writer documents.
check "convert gen to tt6" "$CACHET" convert --to tt6 -o "$TMP/g.tt6" gen:stream:n=1000,size=4,writes=25
"$CACHET" info -f tt6 --json "$TMP/g.tt6" >"$TMP/g.json"
expect_eq "$(jvals "$TMP/g.json" format instructions accesses.load accesses.store load_bytes \
    store_bytes accesses.cacheop accesses.prefetch records)" \
    "format=tt6 instructions=1124 accesses.load=750 accesses.store=250 load_bytes=3000 store_bytes=1000 accesses.cacheop=0 accesses.prefetch=0 records=1125" \
    "info of the converted gen trace (records count INITIAL_PC)"

# the bytes do not say TT6: without -f it is not recognised
expect_status 2 "tt6 is not detected" "$CACHET" info "$TMP/g.tt6"
expect_err_contains "unknown trace format" "tt6 not detected"

# tt6 -> tt6 is stable, and [trace] format names the dialect too
check "tt6 to tt6" "$CACHET" convert -f tt6 --to tt6 -o "$TMP/g2.tt6" "$TMP/g.tt6"
check "tt6 to tt6 again" "$CACHET" convert -s trace.format=tt6 --to tt6 -o "$TMP/g3.tt6" "$TMP/g2.tt6"
check "tt6 conversion is stable" cmp -s "$TMP/g2.tt6" "$TMP/g3.tt6"

# TT6E: dcbz 0x3010 and dcbt 0x4000 carry addresses; lwz; dst of 2 blocks;
# a sync escape; twi and its synthetic pair
words "$TMP/e.tt6e" 00010000 7c0327ec 00003010 7c03222c 00004000 80640008 00005000 \
    7c0322ac 00006000 01020040 00200002 0000a000 00000001 0fe00000 48000702 00000700 \
    4c000064 00010014 60000000
# 8 instruction records: dcbz dcbt lwz dst twi b rfi ori (the escape is none)
"$CACHET" info -f tt6e --json "$TMP/e.tt6e" >"$TMP/e.json"
expect_eq "$(jvals "$TMP/e.json" instructions accesses.ifetch accesses.nofetch accesses.cacheop \
    accesses.prefetch load_bytes markers)" \
    "instructions=8 accesses.ifetch=6 accesses.nofetch=2 accesses.cacheop=1 accesses.prefetch=3 load_bytes=4 markers=1" \
    "tt6e: trap pair not fetched but counted, dcbz and dcbt addressed, 2 dst blocks, one sync marker"
"$CACHET" run -f tt6e --quiet --json "$TMP/e-run.json" "$TMP/e.tt6e"
expect_eq "$(jvals "$TMP/e-run.json" instructions accesses.ifetch accesses.nofetch)" \
    "instructions=8 accesses.ifetch=6 accesses.nofetch=2" "run counts the instructions info counts"
"$CACHET" info -f tt6e -s tt6.dst=off -s tt6.keep_trap_pair=yes --json "$TMP/e.tt6e" >"$TMP/e2.json"
expect_eq "$(jvals "$TMP/e2.json" accesses.prefetch accesses.ifetch)" \
    "accesses.prefetch=1 accesses.ifetch=8" "tt6e with dst off and the trap pair kept"
# the same bytes as TT6 lose their framing at the dcbz EA
expect_status 2 "tt6e read as tt6" "$CACHET" info -f tt6 "$TMP/e.tt6e"
check "a run over tt6e" "$CACHET" run -f tt6e --quiet "$TMP/e.tt6e"

# threads: two files, or a directory of them
mkdir "$TMP/threads"
cp "$TMP/g.tt6" "$TMP/threads/thread_001.tt6"
cp "$TMP/g2.tt6" "$TMP/threads/thread_002.tt6"
echo notes >"$TMP/threads/README"
"$CACHET" info -f tt6 --json -s system.cores=2 "$TMP/threads" >"$TMP/t.json"
expect_eq "$(jvals "$TMP/t.json" streams threads instructions)" \
    "streams=2 threads=2 instructions=2248" "a directory of two threads"
"$CACHET" info -f tt6 --json "$TMP/g.tt6" "$TMP/g2.tt6" >"$TMP/t2.json"
expect_eq "$(jvals "$TMP/t2.json" threads)" "threads=2" "two files, two threads"

# TT6 has no magic: an INITIAL_PC that happens to be a container's magic
# (gzip, zip, lz4, unix compress) is taken for one and fails, with the way
# out named; -s trace.containers=no reads the bytes as they are. A really
# compressed trace is still read by default.
for magic in 1f8b0800:gzip 504b0304:zip 04224d18:lz4 1f9d9000:compress; do
    pc=${magic%%:*}
    words "$TMP/m-$pc.tt6" "$pc" 7c632214 80640008 00005000 48000010 00010030 7c632214
    expect_status 2 "INITIAL_PC 0x$pc read as a container" "$CACHET" info -f tt6 "$TMP/m-$pc.tt6"
    expect_err_contains "m-$pc.tt6: " "INITIAL_PC 0x$pc: names the file"
    expect_err_contains "(the input starts like ${magic#*:} data; tt6 traces have no magic number, so if this one is not compressed, read it as it is with -s trace.containers=no)" \
        "INITIAL_PC 0x$pc: the way out"
    "$CACHET" info -f tt6 -s trace.containers=no --json "$TMP/m-$pc.tt6" >"$TMP/m.json"
    expect_eq "$(jvals "$TMP/m.json" records instructions accesses.load)" \
        "records=5 instructions=4 accesses.load=1" "INITIAL_PC 0x$pc read as it is"
done
gzip -c "$TMP/g.tt6" >"$TMP/g.tt6.gz"
"$CACHET" info -f tt6 --json "$TMP/g.tt6.gz" >"$TMP/gz.json"
expect_eq "$(jvals "$TMP/gz.json" instructions records)" "instructions=1124 records=1125" \
    "a gzip-compressed tt6 trace"
expect_status 2 "a compressed trace read as it is" "$CACHET" info -f tt6 -s trace.containers=no "$TMP/g.tt6.gz"
expect_err_contains "g.tt6.gz: offset " "a compressed trace read as it is: garbage, stopped"

# malformed input: exit 2, file, offset, record, class and reason
words "$TMP/odd.tt6" 00010000 7c632214
printf '\x7c' >>"$TMP/odd.tt6"
expect_status 2 "length not a multiple of 4" "$CACHET" info -f tt6 "$TMP/odd.tt6"
expect_err_contains "odd.tt6: offset 8 (0x8), record 2, partial word: file length is not a multiple of 4" "odd length"
expect_status 0 "lenient ignores the tail" "$CACHET" info -f tt6 --lenient "$TMP/odd.tt6"

words "$TMP/trunc.tt6" 00010000 7c632214 d8210008
expect_status 2 "truncated record" "$CACHET" info -f tt6 "$TMP/trunc.tt6"
expect_err_contains "offset 8 (0x8), record 2, MEMORY stfd: record truncated: 4 of 8 bytes" "truncated"

words "$TMP/esc.tt6" 00010000 00040003 00000001
expect_status 2 "escape past the end" "$CACHET" info -f tt6 --lenient "$TMP/esc.tt6"
expect_err_contains "record 1, ESCAPE 0x04: escape count 3 runs past the end" "escape count"

words "$TMP/flow.tt6" 00010000 4e800020 00020002
expect_status 2 "misaligned flow target" "$CACHET" info -f tt6 --lenient "$TMP/flow.tt6"
expect_err_contains "record 1, FLOW_ALTERING bclr: next address 0x00020002 is not 4-byte aligned: framing doubtful" "flow target"

words "$TMP/full.bin" a1118e17 00000000 00000000
expect_status 2 "FULL detected" "$CACHET" info "$TMP/full.bin"
expect_err_contains "FULL format is not supported" "FULL detected"
expect_status 2 "FULL forced" "$CACHET" info -f tt6e "$TMP/full.bin"
expect_err_contains "magic 0xA1118E17" "FULL forced"

expect_status 2 "bad dcbx list" "$CACHET" info -f tt6e -s tt6.dcbx=dcbz,dcbq "$TMP/e.tt6e"
expect_err_contains '[tt6] dcbx: "dcbq" is not a DCBX instruction' "bad dcbx list"

finish
