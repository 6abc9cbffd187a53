#!/bin/bash
# malformed.sh - bad inputs of every kind: each must end with exit status 2,
# a message naming the file, the position and the reason, no signal, and no
# output file left behind. Formats add their cases below.
source "$(dirname "$0")/lib.bash"

# bad_case NAME EXPECT FILE [cachet options...]: run `cachet run` on FILE with
# a --json output; exit 2, stderr contains EXPECT and the file name, no JSON.
bad_case() {
    local name=$1 expect=$2 file=$3
    shift 3
    rm -f "$TMP/out.json"
    "$CACHET" run "$@" --json "$TMP/out.json" "$file" >"$TMP/out" 2>"$TMP/err"
    local st=$?
    if [ $st -ne 2 ]; then bad "$name: exit $st, want 2 ($(head -c 200 "$TMP/err"))"; return; fi
    if ! grep -qF -- "$expect" "$TMP/err"; then bad "$name: stderr lacks '$expect': $(head -c 300 "$TMP/err")"; return; fi
    if ! grep -qF -- "$(basename "$file")" "$TMP/err"; then bad "$name: message does not name the file"; return; fi
    if [ -e "$TMP/out.json" ] || ls "$TMP" | grep -q '\.tmp\.'; then bad "$name: output left behind"; return; fi
    ok
}

# ---- generic ----
: > "$TMP/empty.din"
bad_case "empty file" "empty file" "$TMP/empty.din"
mkdir -p "$TMP/adir"
bad_case "directory where a file is expected" "is a directory" "$TMP/adir" -f din
bad_case "missing file" "cannot open" "$TMP/nonexistent.din"
printf '0 100\n' > "$TMP/secret.din"
chmod 000 "$TMP/secret.din"
if [ "$(id -u)" -eq 0 ]; then
    # root reads anything: run as nobody to see a permission error
    chmod 755 "$TMP"
    if setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$CACHET" run "$TMP/secret.din" \
            >/dev/null 2>"$TMP/err"
        st=$?
        if [ $st -eq 2 ] && grep -q "secret.din: cannot open: Permission denied" "$TMP/err"; then ok
        else bad "unreadable file: exit $st: $(cat "$TMP/err")"; fi
    fi
else
    bad_case "unreadable file" "Permission denied" "$TMP/secret.din"
fi
head -c 300 /dev/urandom > "$TMP/noise.bin"
printf '\x01\x02' | cat - "$TMP/noise.bin" > "$TMP/noise2.bin"
bad_case "unrecognised bytes" "unknown trace format" "$TMP/noise2.bin"

# ---- din ----
printf '0 100\n1 200\n' > "$TMP/good.din"
printf '0 100\n7 200\n' > "$TMP/label.din"
bad_case "din: unknown record kind (label)" "label.din:2:1: label is not 0..5" "$TMP/label.din"
printf '0 100\n1 \n' > "$TMP/noaddr.din"
bad_case "din: record cut after the label" "noaddr.din:2:3: expected a hex address" "$TMP/noaddr.din"
printf '0 100\n1 12345678123456781\n' > "$TMP/wide.din"
bad_case "din: impossible address" "wide.din:2:20: address wider than 64 bits" "$TMP/wide.din"
printf '0 100\n0' > "$TMP/cut.din"
bad_case "din: truncated mid-record" "cut.din:2:2: expected a blank after the label" "$TMP/cut.din"
gzip -c "$TMP/good.din" | head -c 20 > "$TMP/cut.din.gz"
bad_case "din: truncated gzip stream" "gzip stream truncated" "$TMP/cut.din.gz"
zstd -q -c "$TMP/good.din" > "$TMP/good.din.zst"
head -c $(( $(wc -c < "$TMP/good.din.zst") - 3 )) "$TMP/good.din.zst" > "$TMP/cut.din.zst"
bad_case "din: truncated zstd stream" "zstd stream truncated" "$TMP/cut.din.zst"
printf '\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbagegarbage' > "$TMP/bad.din.gz"
bad_case "din: corrupt gzip stream" "corrupt gzip data" "$TMP/bad.din.gz"
printf '\x1f\x9d\x85' > "$TMP/bad.din.Z"
bad_case "din: impossible compress header" "compress header" "$TMP/bad.din.Z"
# lenient mode skips what it can and counts it; framing-free text resumes
printf '0 100\n7 200\n1 300\n' > "$TMP/lenient.din"
expect_status 0 "din: lenient run" "$CACHET" run --lenient "$TMP/lenient.din"
expect_err_contains "skipped 1 malformed record: label is not 0..5 (first: " "lenient summary"
# ... up to [trace] max_errors, then it stops naming the last one
printf '0 100\n7 200\n8 300\n1 400\n' > "$TMP/limit.din"
bad_case "din: lenient limit reached" \
    "limit.din: 2 malformed records, giving up (the limit is [trace] max_errors); the last: $TMP/limit.din:3:1: label is not 0..5" \
    "$TMP/limit.din" -f din --lenient -s trace.max_errors=2

# ---- vixl ----
printf '0x0000000000400000  b9400002\t\tldr w2, [x0]\n' > "$TMP/insn.log"
{ cat "$TMP/insn.log"; printf '#             w2:         0x0000007 <- 0x0000000000010000\n'; } > "$TMP/odd.log"
bad_case "vixl: odd hex digits" "odd.log:2:27: odd number of hex digits in value" "$TMP/odd.log"
{ cat "$TMP/insn.log"; printf '#             w2:         0x00000007 <- 0x10000\n'; } > "$TMP/arrow.log"
bad_case "vixl: arrow without address" "arrow.log:2:38: arrow without 16-digit address" "$TMP/arrow.log"
printf '0x0000000000400000  b940000\t\tldr w2, [x0]\n#             w2:         0x00000007 <- 0x0000000000010000\n' > "$TMP/enc.log"
bad_case "vixl: bad encoding" "enc.log:1:28: instruction line: expected 8 hex digits" "$TMP/enc.log" -f vixl
printf '0x~~~~~~~~~~~~~~~~  b9400002\t\tldr w2, [x0]\n#             w2:         0x00000007 <- 0x~~~~~~~~~~~~~~~~\n' > "$TMP/masked.log"
bad_case "vixl: masked addresses cannot be simulated" "masks its memory addresses" "$TMP/masked.log"

# ---- ctr ----
"$CACHET" convert --to ctr-raw "$TMP/good.din" -o "$TMP/good.ctr"
head -c $(( $(wc -c < "$TMP/good.ctr") - 2 )) "$TMP/good.ctr" > "$TMP/cut.ctr"
bad_case "ctr: truncated" "truncated" "$TMP/cut.ctr"
{ head -c 8 "$TMP/good.ctr"; printf '\002\000'; tail -c +11 "$TMP/good.ctr"; } > "$TMP/v2.ctr"
bad_case "ctr: another major version" "byte 8: ctr version 2.0" "$TMP/v2.ctr"
hl=$(( 16 + $(od -An -tu4 -j12 -N4 "$TMP/good.ctr") ))
{ head -c "$hl" "$TMP/good.ctr"; printf '\007\377\377\377\377\377\377\377\377\377\377\001'; } > "$TMP/varint.ctr"
bad_case "ctr: corrupt varint" "byte $hl (record 0): corrupt varint" "$TMP/varint.ctr"
"$CACHET" convert --to ctr "gen:random:n=4K" -o "$TMP/g.ctr.zst"
printf '\377\377\377\377\377\377' | dd of="$TMP/g.ctr.zst" bs=1 seek=200 conv=notrunc 2>/dev/null
bad_case "ctr: damaged zstd data" "zstd" "$TMP/g.ctr.zst"
expect_status 2 "ctr: lenient does not resynchronise" "$CACHET" run --lenient "$TMP/varint.ctr"

# ---- configurations ----
for f in tests/configs/bad/*.ini; do
    want=$(sed -n '1s/^; expect: //p' "$f")
    rm -f "$TMP/out.json"
    "$CACHET" run -c "$f" --json "$TMP/out.json" "$TMP/good.din" >/dev/null 2>"$TMP/err"
    st=$?
    if [ $st -eq 2 ] && grep -qF -- "$want" "$TMP/err" && [ ! -e "$TMP/out.json" ]; then ok
    else bad "config $f: exit $st, $(head -c 200 "$TMP/err")"; fi
done
finish
