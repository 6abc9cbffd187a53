#!/bin/bash
# memory.sh - memory does not grow with trace length: peak RSS replaying a
# trace and the same workload ten times longer differ by less than 10 %
# (or 4 MiB), for every format (din, din.zst, drmemtrace plain and zipped,
# TT6, Tarmac, Trace Matcher, VIXL, ctr) and the generators; and memory grows
# with the lines a trace touches, not with the size of the caches.
source "$(dirname "$0")/lib.bash"

# peak_rss_kib COMMAND...: the child's peak resident set, in KiB
peak_rss_kib() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

# A 64 GiB L2 (2^30 lines, 16 GiB of tags, flags and LRU stamps) on an
# 8-access trace: the arrays' pages that no line touches are never
# committed (sim/cache.h), so the run stays under 100 MB and counts as any
# other (7 L2 accesses, all compulsory misses; the first block is read
# twice and hits in the L1D). A machine with less memory than the arrays
# refuses the hierarchy before allocating, naming it.
printf '0 1000\n1 2000\n0 3000\n2 4000\n0 1000\n1 5000\n0 6000\n0 7000\n' > "$TMP/eight.din"
if [ "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)" -gt $((20 << 20)) ]; then
    rss=$(peak_rss_kib "$CACHET" run -q -s l2.size=64G "$TMP/eight.din") || bad "64 GiB L2: run failed"
    echo "64 GiB L2 on 8 accesses: peak RSS ${rss} KiB"
    if [ "${rss:-999999}" -lt $((100 * 1024)) ]; then ok; else bad "64 GiB L2: peak RSS $rss KiB"; fi
    "$CACHET" run -s l2.size=64G "$TMP/eight.din" > "$TMP/eight.out"
    if grep -Eq '^l2 +all +64G +16 +64 +7 +0 +7 ' "$TMP/eight.out"; then ok
    else bad "64 GiB L2 counts: $(grep '^l2' "$TMP/eight.out")"; fi
else
    expect_status 2 "64 GiB L2 on a small machine" "$CACHET" run -q -s l2.size=64G "$TMP/eight.din"
    expect_err_contains "more than the" "64 GiB L2 refusal"
fi

# bounded NAME SHORT LONG [options]: compare peak RSS of runs on SHORT and LONG
bounded() {
    local name=$1 short=$2 long=$3
    shift 3
    local a b
    a=$(peak_rss_kib "$CACHET" run -q "$@" "$short") || { bad "$name: short run failed"; return; }
    b=$(peak_rss_kib "$CACHET" run -q "$@" "$long") || { bad "$name: long run failed"; return; }
    echo "$name: peak RSS ${a} KiB (1x) vs ${b} KiB (10x)"
    if [ "$b" -le $(( a + a / 10 + 4096 )) ]; then ok; else bad "$name: RSS grew from $a to $b KiB"; fi
}

# din text and zstd-compressed din, 1x and 10x the same random workload
"$CACHET" convert gen:random:n=200K,footprint=4M,writes=25 --to din -o "$TMP/a.din"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$TMP/a.din"; done > "$TMP/b.din"
bounded "din" "$TMP/a.din" "$TMP/b.din" -c configs/default.ini
zstd -q "$TMP/a.din" -o "$TMP/a.din.zst"
zstd -q "$TMP/b.din" -o "$TMP/b.din.zst"
bounded "din.zst" "$TMP/a.din.zst" "$TMP/b.din.zst" -c configs/default.ini
# drmemtrace: a thread of 200K instructions with loads over 4 MiB, and the same
# body ten times (plain, and as a zip of ten chunks), also counted as drcachesim
python3 - "$TMP" <<'PY'
import struct, sys, zipfile
d = sys.argv[1]
def rec(t, s, a): return struct.pack('<HHQ', t, s, a)
head = (rec(25, 0, 7) + rec(28, 12, 7) + rec(28, 9, 0x240) + rec(22, 8, 7) + rec(24, 8, 7) +
        rec(28, 10, 64) + rec(28, 20, 200000))
x, body = 1, bytearray()
for i in range(200000):
    x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    body += rec(10, 4, 0x400000 + (i % 4096) * 4) + rec(0, 8, (x >> 20) % (4 << 20))
tail = rec(23, 8, 7) + rec(26, 0, 0)
open(d + '/a.trace', 'wb').write(head + body + tail)
open(d + '/b.trace', 'wb').write(head + body * 10 + tail)
with zipfile.ZipFile(d + '/b.trace.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    for k in range(10):
        z.writestr('chunk.%04d' % k, (head if k == 0 else b'') + body +
                   (rec(28, 21, k) if k < 9 else tail))
with zipfile.ZipFile(d + '/a.trace.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('chunk.0000', head + body + tail)
PY
bounded "drmemtrace" "$TMP/a.trace" "$TMP/b.trace" -c configs/default.ini
bounded "drmemtrace zip, drcachesim counting" "$TMP/a.trace.zip" "$TMP/b.trace.zip" \
    -c configs/drcachesim-exact.ini
# TT6 (binary), 1x and 10x the same kind of workload
"$CACHET" convert gen:random:n=200K,footprint=4M,writes=25 --to tt6 -o "$TMP/a.tt6"
"$CACHET" convert gen:random:n=2M,footprint=4M,writes=25 --to tt6 -o "$TMP/b.tt6"
bounded "tt6" "$TMP/a.tt6" "$TMP/b.tt6" -c configs/default.ini -f tt6
# text formats: Tarmac (the writer's IT and MR/MW lines), Trace Matcher and
# VIXL (written here), 50K accesses and the same ten times
"$CACHET" convert gen:random:n=50K,footprint=4M,writes=25 --to tarmac -o "$TMP/a.tarmac"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$TMP/a.tarmac"; done > "$TMP/b.tarmac"
bounded "tarmac" "$TMP/a.tarmac" "$TMP/b.tarmac" -c configs/default.ini -f tarmac
python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
x, tm, vx = 1, [], []
for i in range(50000):
    x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    pc, addr, st = 0x400000 + (i % 4096) * 4, 0x10000000 + ((x >> 20) % (4 << 20)) // 8 * 8, x >> 62 == 0
    tm.append('%d clk 0 IT (%d) %016x f9400000 A svc : ldr\n%d clk M%s8 %016x 0000000000000000\n'
              % (i, i, pc, i, 'W' if st else 'R', addr))
    vx.append('0x%016x  %s\t\t%s x2, [x0]\n#             x2: 0x0000000000000007 %s 0x%016x\n'
              % (pc, 'f9000002' if st else 'f9400002', 'str' if st else 'ldr', '->' if st else '<-', addr))
for name, lines in (('tm', tm), ('log', vx)):
    text = ''.join(lines)
    open(d + '/a.' + name, 'w').write(text)
    open(d + '/b.' + name, 'w').write(text * 10)
PY
bounded "tracematcher" "$TMP/a.tm" "$TMP/b.tm" -c configs/default.ini -f tracematcher
bounded "vixl" "$TMP/a.log" "$TMP/b.log" -c configs/default.ini -f vixl
# the native format, zstd-compressed
"$CACHET" convert --to ctr "$TMP/a.din" -o "$TMP/a.ctr.zst"
"$CACHET" convert --to ctr "$TMP/b.din" -o "$TMP/b.ctr.zst"
bounded "ctr" "$TMP/a.ctr.zst" "$TMP/b.ctr.zst" -c configs/default.ini
# generators stream too
bounded "gen" gen:stream:n=200K gen:stream:n=2M -c configs/default.ini
finish
