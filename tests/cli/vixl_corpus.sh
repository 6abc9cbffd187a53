# vixl_corpus.sh - VIXL's published reference logs: every one is decoded,
# and the counts by kind (and the bytes, where the layout prints the access
# size) equal an independent count of the lines made here with python.
# The logs mask their addresses, so `cachet run` must refuse them.
source "$(dirname "$0")/lib.bash"
need_corpus

count() { # FILE: "ifetch load store load_bytes store_bytes" counted from the text
    python3 - "$1" <<'EOF'
import re, sys
insn = re.compile(r"^[- ]?0x[0-9a-f~]{16}  [0-9a-f]{8}\t\t")
acc = re.compile(r"(0x[0-9a-f'~]+|0b[01 ]+?)\s*(\([^)]*\))?\s*(<-|->) 0x[0-9a-f~]{16}\s*$")
i = l = s = lb = sb = 0
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    t = re.sub(r"\x1b\[[0-9;]*m", "", line.rstrip("\n"))
    if insn.match(t):
        i += 1
        continue
    m = acc.search(t) if t.startswith("#") and not re.match(r"#\s*gcs", t) else None
    if not m:
        continue
    v = m.group(1)
    n = len(v[2:].replace("'", "")) // 2 if v.startswith("0x") else len(v[2:].replace(" ", "")) // 8
    if m.group(3) == "<-":
        l += 1; lb += n
    else:
        s += 1; sb += n
print(i, l, s, lb, sb)
EOF
}

files=0
for f in "$CACHET_CORPUS"/vixl/*/*; do
    files=$((files + 1))
    name=${f#"$CACHET_CORPUS"/}
    read -r wi wl ws wlb wsb <<<"$(count "$f")"
    if ! "$CACHET" info --json "$f" >"$TMP/info.json" 2>"$TMP/err"; then
        bad "$name: cachet info failed: $(head -c 300 "$TMP/err")"
        continue
    fi
    ok
    got=$(json_get "$TMP/info.json" "d['format'], d['accesses']['ifetch'], d['accesses']['load'], d['accesses']['store'], d['masked_addresses'], d['malformed']")
    expect_eq "$got" "vixl $wi $wl $ws $((wi + wl + ws)) 0" "$name: format, ifetch/load/store, masked, malformed"
    case "$name" in
    *v1.13/log-state) ;; # old layout without disassembly: load sizes are not in the text
    *)
        got=$(json_get "$TMP/info.json" "d['load_bytes'], d['store_bytes']")
        expect_eq "$got" "$wlb $wsb" "$name: load and store bytes"
        ;;
    esac
done
expect_eq "$([ "$files" -ge 12 ] && echo yes)" yes "the corpus holds the 12 VIXL logs"

# the full log has all three kinds, as SOURCES.md says
read -r wi wl ws _ <<<"$(count "$CACHET_CORPUS/vixl/test-trace-reference/log-all")"
expect_eq "$wi $wl $ws" "2657 2867 2628" "log-all: independent count agrees with SOURCES.md"

# masked addresses cannot be simulated: a clear message and exit status 2
expect_status 2 "run on a masked trace" "$CACHET" run "$CACHET_CORPUS/vixl/test-trace-reference/log-all"
expect_err_contains "masks its memory addresses" "run on a masked trace"
expect_err_contains "cannot be simulated" "run on a masked trace"
expect_status 2 "run on a masked colour trace" "$CACHET" run "$CACHET_CORPUS/vixl/test-trace-reference/log-regs-colour"
expect_err_contains "masks its memory addresses" "run on a masked colour trace"

finish
