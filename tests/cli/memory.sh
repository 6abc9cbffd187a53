#!/bin/bash
# memory.sh - memory does not grow with trace length: peak RSS replaying a
# trace and the same workload ten times longer differ by less than 10 %
# (or 4 MiB). Formats add their pairs below.
source "$(dirname "$0")/lib.bash"

# peak_rss_kib COMMAND...: the child's peak resident set, in KiB
peak_rss_kib() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

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
# generators stream too
bounded "gen" gen:stream:n=200K gen:stream:n=2M -c configs/default.ini
finish
