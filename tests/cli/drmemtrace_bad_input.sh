#!/bin/bash
# drmemtrace_bad_input.sh - malformed drmemtrace inputs, made here by a few
# lines of Python: exit status 2 and a message naming the file (and zip
# member), the byte offset, the record index and the reason; --lenient skips
# and counts what can be skipped. The malformed-input list (malformed.sh has
# what every format shares: empty file, directory, unreadable file, every
# container cut and damaged):
#   truncated        cut after every byte of a trace of 12-byte records
#   wrong magic      record 0 not a HEADER; a raw (pre-raw2trace) file
#   impossible sizes an encoding over 15 bytes, 12-byte records in a
#                    32-bit trace
#   unknown kinds    record type 99
#   version          version 9, version 0 (refused by number)
#   no footer        a trace cut at a record boundary
#   compression      a damaged gzip stream (with the record where the
#                    damage shows), a cut zstd stream, a zip member that
#                    fails its CRC, one that does not inflate (skipped
#                    whole by --lenient); a zip member that is not a chunk
# and a directory read by content: a *.memtrace.gz trace read, a file that
# is not a trace ignored and counted.
source "$(dirname "$0")/lib.bash"

python3 - "$TMP" <<'PY'
import gzip, struct, sys, zipfile
d = sys.argv[1]
def rec(t, s, a): return struct.pack('<HHQ', t, s, a)
head = (rec(25, 0, 7) + rec(28, 12, 7) + rec(28, 9, 0x240) + rec(22, 8, 5) + rec(24, 8, 1) +
        rec(28, 10, 64) + rec(28, 20, 0))                          # records 0..6
body = rec(10, 4, 0x400) + rec(0, 8, 0x800)                        # 7, 8
tail = rec(23, 8, 5) + rec(26, 0, 0)
open(d + '/ok.trace', 'wb').write(head + body + tail)
open(d + '/trunc.trace', 'wb').write(head + body + b'\x0a\x00\x04')  # record 9 cut
open(d + '/unknown.trace', 'wb').write(head + body + rec(99, 0, 0) + rec(1, 4, 0x900) + tail)
open(d + '/v9.trace', 'wb').write(rec(25, 0, 9) + head[12:] + body + tail)
open(d + '/v0.trace', 'wb').write(rec(25, 0, 0) + head[12:] + body + tail)
open(d + '/x.raw', 'wb').write(struct.pack('<Q', 0xc408000000000c40) + b'\0' * 8)
with zipfile.ZipFile(d + '/member.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('chunk.0000', head + body + rec(28, 21, 0))
    z.writestr('schedule.bin', b'not trace records at all')
    z.writestr('chunk.0002', body + tail)
good = gzip.compress(head + body * 200 + tail)
open(d + '/corrupt.trace.gz', 'wb').write(good[:len(good) // 2] + bytes(b ^ 0x55 for b in good[len(good) // 2:]))
open(d + '/footer-first.trace', 'wb').write(rec(26, 0, 0) + head[12:] + body + tail)
enc = rec(47, 8, 0) + rec(47, 8, 0)                                # 16 bytes of encoding
open(d + '/enc.trace', 'wb').write(head + enc + rec(10, 16, 0x400) + tail)
open(d + '/x86-32.trace', 'wb').write(head[:24] + rec(28, 9, 0x20) + head[36:] + body + tail)
with zipfile.ZipFile(d + '/crc.zip', 'w', zipfile.ZIP_STORED) as z:
    z.writestr('chunk.0000', head + body + tail)
raw = bytearray(open(d + '/crc.zip', 'rb').read())
raw[30 + len('chunk.0000') + 90] ^= 0xff                           # a byte of record 7
open(d + '/crc.zip', 'wb').write(bytes(raw))
chunks = (head + body * 3 + rec(28, 21, 0), body * 4 + rec(28, 21, 1), body * 5 + tail)
with zipfile.ZipFile(d + '/bad-member.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    for i, c in enumerate(chunks):
        z.writestr('chunk.%04d' % i, c)
    at = z.infolist()[1].header_offset
raw = bytearray(open(d + '/bad-member.zip', 'rb').read())
at += 30 + struct.unpack_from('<H', raw, at + 26)[0] + struct.unpack_from('<H', raw, at + 28)[0]
raw[at] = 0x07                                  # chunk.0001: a block of the reserved type 3
open(d + '/bad-member.zip', 'wb').write(bytes(raw))
PY

expect_status 0 "a good trace reads" "$CACHET" info "$TMP/ok.trace"

expect_status 2 "truncated record" "$CACHET" info "$TMP/trunc.trace"
expect_err_contains "trunc.trace: byte 108, record 9: truncated record: 3 of 12 bytes" "truncated record"

expect_status 2 "unknown record type" "$CACHET" info "$TMP/unknown.trace"
expect_err_contains "unknown.trace: byte 108, record 9: unknown record type 99" "unknown type"
expect_status 0 "unknown record type, lenient" "$CACHET" info --lenient --json "$TMP/unknown.trace"
expect_eq "$(json_get "$TMP/out" "d['malformed'], d['accesses']['store']")" "1 1" "skipped and counted"

expect_status 2 "unsupported version" "$CACHET" info "$TMP/v9.trace"
expect_err_contains "v9.trace: byte 0, record 0: unsupported trace version 9" "version"
expect_status 2 "version 0" "$CACHET" info "$TMP/v0.trace"
expect_err_contains "v0.trace: byte 0, record 0: unsupported trace version 0" "version 0"

expect_status 2 "raw file" "$CACHET" info -f drmemtrace "$TMP/x.raw"
expect_err_contains "run raw2trace" "raw file"

expect_status 2 "zip member that is not a trace" "$CACHET" info "$TMP/member.zip"
expect_err_contains "member.zip:schedule.bin: byte 0, record 0 (record 10 of the file): zip member is not a trace chunk" "member"
expect_status 0 "zip member that is not a trace, lenient" "$CACHET" info --lenient --json "$TMP/member.zip"
expect_eq "$(json_get "$TMP/out" "d['malformed'], d['instructions']")" "1 2" "resynchronised at the next chunk"

expect_status 2 "corrupt gzip stream" "$CACHET" info "$TMP/corrupt.trace.gz"
expect_err_contains "corrupt.trace.gz: compressed byte" "corrupt stream"
expect_err_contains "; the trace is read up to byte 0, record 0; the damage shows at byte " \
    "corrupt stream: where, in records"
rec=$(sed -n 's/.*the damage shows at byte \([0-9]*\), in record \([0-9]*\).*/\1 \2/p' "$TMP/err")
expect_eq "$(( ${rec% *} / 12 ))" "${rec#* }" "corrupt stream: the record is the byte offset / 12"
expect_status 2 "corrupt gzip stream, lenient too" "$CACHET" run --lenient -q "$TMP/corrupt.trace.gz"

# every cut of ok.trace (records of 12 bytes; records 0..1 are the HEADER
# and the VERSION marker): a cut between records from record 2 on is a
# trace without its FOOTER, any other cut is reported at the record it
# falls in; only the whole file is a trace
n=$(wc -c < "$TMP/ok.trace")
for ((i = 1; i <= n; i++)); do
    if [ $i -lt 16 ]; then
        printf '%d\tbyte 0, record 0: truncated: the file ends after %d bytes, inside the HEADER record\n' $i $i
    elif [ $i -eq $n ]; then printf '%d\tok\n' $i
    elif [ $((i % 12)) -eq 0 ]; then
        printf '%d\tbyte %d, record %d: truncated: no footer\n' $i $i $((i / 12))
    else
        printf '%d\tbyte %d, record %d: truncated record: %d of 12 bytes at the end of the file\n' \
            $i $((i / 12 * 12)) $((i / 12)) $((i % 12))
    fi
done > "$TMP/table"
cut_table "cut after every byte" "$TMP/ok.trace" "$TMP/table" -f drmemtrace

# a directory is read by content: per-thread traces under any name, files
# that are not traces ignored and counted, DynamoRIO's side files skipped
mkdir "$TMP/named"
gzip -c "$TMP/ok.trace" > "$TMP/named/app.5.memtrace.gz"
printf 'how it was traced\n' > "$TMP/named/README.txt"
printf 'x' > "$TMP/named/funclist.log"
expect_status 0 "directory of *.memtrace.gz" "$CACHET" run -q "$TMP/named"
expect_err_contains "note: ignored: 1 file that is not a trace (first: $TMP/named/README.txt)" \
    "the file that is not a trace is counted"
expect_status 0 "directory of *.memtrace.gz, info" "$CACHET" info --json "$TMP/named"
expect_eq "$(json_get "$TMP/out" "d['format'], d['streams'], d['instructions'], d['ignored_files']")" \
    "drmemtrace 1 1 1" "one stream read, one file ignored"

# without its FOOTER (DynamoRIO's raw2trace ends every trace with one):
# strict mode stops, lenient mode counts it and keeps every access
head -c $((n - 12)) "$TMP/ok.trace" | gzip -c > "$TMP/nofooter.trace.gz"
bad_case "no footer, gzip" "nofooter.trace.gz: byte $((n - 12)), record $((n / 12 - 1)): truncated: no footer" \
    "$TMP/nofooter.trace.gz"
expect_status 0 "no footer, lenient" "$CACHET" info --lenient --json "$TMP/nofooter.trace.gz"
expect_eq "$(json_get "$TMP/out" "d['malformed'], d['instructions'], d['accesses']['load']")" "1 1 1" \
    "no footer: counted, accesses kept"

bad_case "record 0 is not a HEADER" \
    "footer-first.trace: byte 0, record 0: not a drmemtrace trace (record 0 is not a HEADER record)" \
    "$TMP/footer-first.trace" -f drmemtrace
bad_case "encoding over 15 bytes" "enc.trace: byte 96, record 8: instruction encoding longer than 15 bytes" \
    "$TMP/enc.trace"
bad_case "32-bit file type, 12-byte records" \
    "x86-32.trace: byte 24, record 2: file type 0x20 names a 32-bit architecture but the records are 12 bytes wide" \
    "$TMP/x86-32.trace"
zstd -q -c "$TMP/ok.trace" | head -c 40 > "$TMP/cut.trace.zst"
bad_case "cut zstd stream" "cut.trace.zst: compressed byte 40: zstd stream truncated" "$TMP/cut.trace.zst"
bad_case "damaged zip member" "crc.zip:chunk.0000: uncompressed byte " "$TMP/crc.zip"
expect_err_contains "corrupt member: CRC error" "damaged zip member: why"
expect_err_contains "the member is read up to byte 0, record 0 (record 0 of the file); the damage shows at byte 132, in record 11" \
    "damaged zip member: the CRC is known at its end"

# a zip member that does not inflate: strict mode stops, lenient mode counts it
# and goes on with the next chunk
bad_case "zip member that does not inflate" \
    "bad-member.zip:chunk.0001: uncompressed byte 0: corrupt member: invalid block type; the member is read up to byte 0, record 0 (record 14 of the file)" \
    "$TMP/bad-member.zip"
expect_status 0 "zip member that does not inflate, lenient" "$CACHET" info --lenient --json "$TMP/bad-member.zip"
expect_eq "$(json_get "$TMP/out" "d['malformed'], d['instructions']")" "1 8" "chunks 0 and 2 read"
expect_status 0 "zip member that does not inflate, lenient run" "$CACHET" run -q --lenient "$TMP/bad-member.zip"
expect_err_contains "skipped 1 malformed record: zip member does not inflate" "the reason is named"
finish
