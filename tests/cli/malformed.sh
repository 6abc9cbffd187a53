#!/bin/bash
# malformed.sh - bad inputs that do not depend on the format: every format
# (as `cachet info --help` lists them) on an empty file, a directory where a
# file is expected, a missing and an unreadable file; every compressed
# container truncated at every byte and damaged; bytes no format claims;
# synthetic workloads with impossible parameters; bad configurations. Each
# case ends with exit status 2 (1 for a command-line workload), a message
# naming the input, the position and the reason, and no output file left
# behind (lib.bash, bad_case). The formats' own cases are in
# malformed_FORMAT.sh and drmemtrace_bad_input.sh.
source "$(dirname "$0")/lib.bash"

formats=$("$CACHET" info --help | sed -n '/^formats:/,$p' | awk 'NR > 1 && NF {print $1}')
[ -n "$formats" ] || bad "no format list in cachet info --help"

# as_nobody COMMAND...: run as an unprivileged user when we are root (root
# reads anything), else as ourselves
as_nobody() {
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
    else
        "$@"
    fi
}

# ---- every format: no file, an empty one, a directory, an unreadable one ----
: > "$TMP/empty.trace"
mkdir -p "$TMP/adir"
printf '0 100\n' > "$TMP/secret.trace"
chmod 000 "$TMP/secret.trace"
chmod 755 "$TMP"
can_drop=1
if [ "$(id -u)" -eq 0 ] && ! setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
    can_drop=0
    echo "note: cannot run as nobody here; unreadable-file cases skipped"
fi
for fmt in $formats; do
    [ "$fmt" = gen ] && continue
    bad_case "$fmt: empty file" "empty.trace: empty file: no trace records" "$TMP/empty.trace" -f "$fmt"
    bad_case "$fmt: missing file" "nonexistent.trace: cannot open: No such file or directory" \
        "$TMP/nonexistent.trace" -f "$fmt"
    case $fmt in
    drmemtrace|tt6|tt6e) want="adir: directory holds no $fmt trace files" ;;
    *) want="adir: is a directory; the $fmt format reads files" ;;
    esac
    bad_case "$fmt: a directory where a file is expected" "$want" "$TMP/adir" -f "$fmt"
    if [ $can_drop = 1 ]; then
        mkdir -p "$TMP/nb" && chmod 777 "$TMP/nb" && rm -f "$TMP/nb/"*
        as_nobody "$CACHET" run -q -f "$fmt" --json "$TMP/nb/out.json" --csv "$TMP/nb/out.csv" \
            "$TMP/secret.trace" >/dev/null 2>"$TMP/err"
        st=$?
        if [ $st -eq 2 ] && grep -qF "secret.trace: cannot open: Permission denied" "$TMP/err" &&
            no_output_left "$TMP/nb" out.json out.csv; then ok
        else bad "$fmt: unreadable file: exit $st: $(cat "$TMP/err") $(ls "$TMP/nb")"; fi
    fi
done
# detection: the same, and bytes that no format claims
bad_case "detected: empty file" "empty.trace: empty file: no trace records" "$TMP/empty.trace"
bad_case "detected: directory" "adir: is a directory, and no format reads directories of this kind" \
    "$TMP/adir"
printf '\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b' > "$TMP/noise.bin"
bad_case "unrecognised bytes" "noise.bin: unknown trace format" "$TMP/noise.bin"

# ---- compressed containers ----
# A din trace of 12 lines inside each container that cachet opens by its
# magic bytes. Every cut of the container must be reported by the container
# (where it was cut), or, for cuts shorter than the magic bytes, by din
# reading the raw bytes; the whole container reads. compress (.Z) has no
# end mark or length: a cut there can only be seen by the format inside.
"$CACHET" convert gen:random:n=12,footprint=4K,writes=25 --to din -o "$TMP/c.din"
python3 - "$TMP" <<'PY'
import struct, sys, zipfile
d = sys.argv[1]
data = open(d + '/c.din', 'rb').read()
# snappy framing format: stream identifier, then uncompressed chunks with
# the masked CRC-32C of their data
def crc32c(b):
    crc = 0xffffffff
    for x in b:
        crc ^= x
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff
def masked(c):
    return ((((c >> 15) | (c << 17)) & 0xffffffff) + 0xa282ead8) & 0xffffffff
sz = b'\xff\x06\x00\x00sNaPpY'
for i in range(0, len(data), 50):
    part = data[i:i + 50]
    sz += bytes([1]) + struct.pack('<I', len(part) + 4)[:3] + struct.pack('<I', masked(crc32c(part))) + part
open(d + '/c.din.sz', 'wb').write(sz)
# compress (.Z): 9-bit literal codes only (fewer than 256 codes, so the
# width never changes): a valid stream any LZW decoder reads
codes, bits, nbits = bytearray(b'\x1f\x9d\x90'), 0, 0
for x in data[:100]:
    bits |= x << nbits
    nbits += 9
    while nbits >= 8:
        codes.append(bits & 0xff)
        bits >>= 8
        nbits -= 8
if nbits:
    codes.append(bits & 0xff)
open(d + '/c.din.Z', 'wb').write(bytes(codes))
open(d + '/z.din', 'wb').write(data[:100])
with zipfile.ZipFile(d + '/c.din.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('c.din', data)
PY
gzip -c "$TMP/c.din" > "$TMP/c.din.gz"
zstd -q -c "$TMP/c.din" > "$TMP/c.din.zst"
lz4 -q -c "$TMP/c.din" > "$TMP/c.din.lz4"
check "compress stream decodes" cmp <("$CACHET" convert --to din -o - "$TMP/c.din.Z") \
    <("$CACHET" convert --to din -o - "$TMP/z.din")
for c in gz:gzip:3 zst:zstd:4 lz4:lz4:4 sz:snappy:10; do
    ext=${c%%:*} name=${c#*:} magic=${name#*:} name=${name%:*}
    f="$TMP/c.din.$ext"
    n=$(wc -c < "$f")
    for ((i = 1; i <= n; i++)); do
        if [ $i -eq "$n" ]; then printf '%d\tok\n' $i
        elif [ $i -lt "$magic" ]; then printf '%d\ttext::1:1: label is not 0..5\n' $i
        elif [ $name = snappy ] && [ $i -eq 10 ]; then
            printf '%d\tempty file: no trace records (the compressed data holds no byte)\n' $i
        elif [ $name = snappy ] && [ $(( (i - 10) % 58 )) -eq 0 ]; then
            # between chunks: the framing has no end mark, din decides
            printf '%d\tmaybe::[0-9]+:[0-9]+: (expected|label)\n' $i
        else printf '%d\ttext:: compressed byte [0-9]+: %s stream truncated\n' $i "$name"; fi
    done > "$TMP/table"
    cut_table "$name: cut at every byte" "$f" "$TMP/table" -f din
done
n=$(wc -c < "$TMP/c.din.zip")
for ((i = 1; i <= n; i++)); do
    if [ $i -eq "$n" ]; then printf '%d\tok\n' $i
    elif [ $i -lt 4 ]; then printf '%d\ttext::1:1: label is not 0..5\n' $i
    else printf '%d\t: byte %d (the end of the file): zip archive truncated\n' $i $i; fi
done > "$TMP/table"
cut_table "zip: cut at every byte" "$TMP/c.din.zip" "$TMP/table" -f din
n=$(wc -c < "$TMP/c.din.Z")
for ((i = 1; i <= n; i++)); do
    if [ $i -eq "$n" ]; then printf '%d\tok\n' $i
    elif [ $i -lt 3 ]; then printf '%d\ttext::1:1: label is not 0..5\n' $i
    elif [ $i -lt 5 ]; then printf '%d\tempty file: no trace records\n' $i  # no whole code
    else printf '%d\tmaybe::[0-9]+:[0-9]+: (expected|label)\n' $i; fi
done > "$TMP/table"
cut_table "compress: cut at every byte" "$TMP/c.din.Z" "$TMP/table" -f din
# damaged data: each container names the compressed byte where it failed
damage() { # FILE OFFSET BYTES -> FILE.bad
    cp "$1" "$1.bad"
    printf "$3" | dd of="$1.bad" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
damage "$TMP/c.din.gz" 3 '\xff'
bad_case "gzip: reserved flag bits" "c.din.gz.bad: compressed byte 4: corrupt gzip data: unknown header flags set" \
    "$TMP/c.din.gz.bad" -f din
damage "$TMP/c.din.gz" 40 '\xff\xff\xff\xff\xff\xff'
bad_case "gzip: damaged deflate data" "c.din.gz.bad: compressed byte" "$TMP/c.din.gz.bad" -f din
damage "$TMP/c.din.zst" 40 '\xff\xff\xff\xff\xff\xff'
bad_case "zstd: damaged block" "corrupt zstd data" "$TMP/c.din.zst.bad" -f din
damage "$TMP/c.din.lz4" 4 '\x00'
bad_case "lz4: bad frame descriptor" "c.din.lz4.bad: compressed byte" "$TMP/c.din.lz4.bad" -f din
damage "$TMP/c.din.sz" 30 'XX'
bad_case "snappy: checksum mismatch" "c.din.sz.bad: compressed byte 10: " "$TMP/c.din.sz.bad" -f din
damage "$TMP/c.din.sz" 10 '\x05'
bad_case "snappy: reserved chunk type" \
    "c.din.sz.bad: compressed byte 10: reserved unskippable snappy chunk type" "$TMP/c.din.sz.bad" -f din
damage "$TMP/c.din.Z" 3 '\xff\xff'
bad_case "compress: code beyond the table" "c.din.Z.bad: compressed byte" "$TMP/c.din.Z.bad" -f din
printf '\x1f\x9d\x85' > "$TMP/bad.din.Z"
bad_case "compress: impossible header" "bad.din.Z: byte 2: compress header gives 5-bit codes (9..16 expected)" \
    "$TMP/bad.din.Z" -f din
damage "$TMP/c.din.zip" 45 '\xff\xff\xff\xff'
bad_case "zip: damaged member" "c.din.zip.bad:c.din: " "$TMP/c.din.zip.bad" -f din

# ---- synthetic workloads: a bad description is a usage error ----
for g in "gen:nope:unknown generator" "gen:random:n=abc:n=abc is not a number" \
         "gen:random:zz=1:unknown parameter" "gen:random:footprint=1:impossible parameters"; do
    spec=${g%:*} want=${g##*:}
    case $g in gen:nope:*) spec=gen:nope ;; esac
    expect_status 1 "$spec" "$CACHET" run -q "$spec"
    expect_err_contains "$spec: $want" "$spec names the reason"
done

# ---- configurations ----
# tests/configs/bad/*.ini: the first line says what the error must contain;
# the message names the file that holds the fault (an included file when
# the expectation starts with its name)
printf '0 100\n1 200\n' > "$TMP/good.din"
for f in tests/configs/bad/*.ini; do
    want=$(sed -n '1s/^; expect: //p' "$f")
    names=$f
    case $want in *.ini:*) names=${want%%:*} ;; esac
    BAD_CASE_CONVERT=0 BAD_CASE_NAMES=$names bad_case "config $f" "$want" "$TMP/good.din" -c "$f"
done
# a geometry the machine cannot hold: refused before anything is allocated
# (2^38 lines: were the check gone, the allocation itself would fail)
printf '[l3]\nsize = 1T\nline = 4\n' > "$TMP/huge.ini"
BAD_CASE_CONVERT=0 BAD_CASE_NAMES=huge.ini bad_case "config: caches larger than memory" \
    "huge.ini: [l3]: the caches need 2359296 MiB of tags (2359296 for l3), more than the " \
    "$TMP/good.din" -c "$TMP/huge.ini"
printf 'include = %s/tests/configs/bad/syntax.ini\n' "$(pwd)" > "$TMP/inc.ini"
BAD_CASE_CONVERT=0 BAD_CASE_NAMES=inc.ini bad_case "config: a fault in an included file" \
    "inc.ini: include: $(pwd)/tests/configs/bad/syntax.ini:3: syntax error: expected key = value" \
    "$TMP/good.din" -c "$TMP/inc.ini"
finish
