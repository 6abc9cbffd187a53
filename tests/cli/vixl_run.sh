# vixl_run.sh - hand-written VIXL traces with real addresses are detected,
# counted and simulated; a malformed line fails with exit status 2.
source "$(dirname "$0")/lib.bash"

forms="$SRC/tests/data/vixl/forms.log"

"$CACHET" info --json "$forms" >"$TMP/info.json"
expect_eq "$(json_get "$TMP/info.json" "d['format'], d['accesses']['ifetch'], d['accesses']['load'], d['accesses']['store'], d['load_bytes'], d['store_bytes']")" \
    "vixl 16 15 17 87 94" "forms.log counts"

# two fully associative 1K levels, small enough to count by hand: the code
# fits one 64-byte line (0x400000-0x40003c); the data touch the lines at
# 0x10000, 0x20000 and 0x20040 (dc zva); every line misses once.
cat >"$TMP/small.ini" <<'INI'
[l1i]
size = 1K
assoc = full
line = 64
[l1d]
size = 1K
assoc = full
line = 64
INI
expect_status 0 "run forms.log" "$CACHET" run -c "$TMP/small.ini" --json "$TMP/run.json" "$forms"
expect_eq "$(json_get "$TMP/run.json" "[(l['name'], l['accesses'], l['misses']) for l in d['levels']]")" \
    "[('l1i', 16, 1), ('l1d', 32, 3)]" "forms.log on two 1K levels"

# colour codes change nothing
"$CACHET" info --json "$SRC/tests/data/vixl/colour.log" >"$TMP/colour.json"
expect_eq "$(json_get "$TMP/colour.json" "d['format'], d['accesses']['load'], d['accesses']['store']")" \
    "vixl 5 1" "colour.log counts"

# a malformed line: exit 2 with file:line:col
printf '0x0000000000400000  b9400002\t\tldr w2, [x0]\n#             w2:         0x0000007 <- 0x0000000000010000\n' >"$TMP/bad.log"
expect_status 2 "malformed VIXL line" "$CACHET" run "$TMP/bad.log"
expect_err_contains "bad.log:2:27: odd number of hex digits in value" "malformed VIXL line"
expect_status 0 "malformed VIXL line, lenient" "$CACHET" info --lenient "$TMP/bad.log"

finish
