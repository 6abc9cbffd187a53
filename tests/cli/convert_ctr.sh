# convert_ctr.sh - cachet convert to the cachet trace format and back:
# replaying a converted trace gives the same results as the original (din,
# synthetic and VIXL inputs); the output format follows the file name;
# damaged .ctr files fail with exit status 2; din and Tarmac output.
source "$(dirname "$0")/lib.bash"

# a hierarchy with an L1I, small caches (many misses), a prefetcher and
# the 3C split, so that differences in the stream show in the numbers
cat >"$TMP/cfg.ini" <<'INI'
[system]
miss_classes = yes
flush_at_end = yes
[l1i]
size = 4K
assoc = 2
line = 32
[l1d]
size = 8K
assoc = 4
line = 64
prefetcher = nextline
[l2]
size = 64K
assoc = 8
line = 64
INI

# same_results ORIGINAL CONVERTED: the two runs' JSON reports are equal
# except for the trace names, sizes and format
same_results() {
    "$CACHET" run -q -c "$TMP/cfg.ini" --json "$TMP/a.json" "$1" 2>/dev/null &&
        "$CACHET" run -q -c "$TMP/cfg.ini" --json "$TMP/b.json" "$2" 2>/dev/null &&
        python3 - "$TMP/a.json" "$TMP/b.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("traces"); d.pop("format")
sys.exit(0 if a == b and a["instructions"] + sum(a["accesses"].values()) > 0 else 1)
EOF
}

printf '2 400000\n0 1000\n1 2000\n2 400004\n0 1040\n3 0\n2 400008\n4 0\n1 1000\n5 0\n2 40000c\n' >"$TMP/small.din"
for input in "$TMP/small.din" \
             "gen:random:n=50K,footprint=64K,writes=25" \
             "gen:matmul:dim=24,tile=8" \
             "gen:chase:n=20K,footprint=256K" \
             "gen:stream:n=30K,stride=72,writes=50" \
             "$SRC/tests/data/vixl/forms.log" \
             "$SRC/tests/data/vixl/old-layout.log"; do
    name=$(basename "$input")
    expect_status 0 "convert $name to .ctr.zst" "$CACHET" convert "$input" -o "$TMP/t.ctr.zst"
    expect_eq "$(head -c 4 "$TMP/t.ctr.zst" | od -An -tx1 | tr -d ' ')" "28b52ffd" \
        "$name: .ctr.zst is a zstd frame"
    check "$name: same results from .ctr.zst" same_results "$input" "$TMP/t.ctr.zst"
    expect_status 0 "convert $name to plain ctr" "$CACHET" convert --to ctr-raw "$input" -o "$TMP/t.ctr"
    expect_eq "$(head -c 4 "$TMP/t.ctr" | od -An -tx1 | tr -d ' ')" "89435452" \
        "$name: ctr-raw starts with the magic"
    check "$name: same results from plain ctr" same_results "$input" "$TMP/t.ctr"
    # and back to din: the same din text as converting the original
    "$CACHET" convert "$input" -o "$TMP/direct.din" 2>/dev/null
    "$CACHET" convert "$TMP/t.ctr.zst" -o "$TMP/via.din" 2>/dev/null
    check "$name: din from ctr equals din from the original" cmp -s "$TMP/direct.din" "$TMP/via.din"
done

# the real din trace, when the corpus is there
if [ -n "${CACHET_CORPUS:-}" ] && [ -f "$CACHET_CORPUS/din/093.nasa7.din.Z" ]; then
    expect_status 0 "convert nasa7" "$CACHET" convert "$CACHET_CORPUS/din/093.nasa7.din.Z" -o "$TMP/n.ctr.zst"
    check "nasa7: same results from .ctr.zst" same_results "$CACHET_CORPUS/din/093.nasa7.din.Z" "$TMP/n.ctr.zst"
    "$CACHET" info --json "$TMP/n.ctr.zst" >"$TMP/n.json"
    # counted from the text itself (SOURCES.md's label counts for this file are wrong)
    want=$(gzip -dc "$CACHET_CORPUS/din/093.nasa7.din.Z" |
        awk '{c[$1]++} END {printf "%d %d %d", c[2], c[1], c[0]}')
    expect_eq "$(json_get "$TMP/n.json" "d['format'], d['accesses']['ifetch'], d['accesses']['store'], d['accesses']['load']")" \
        "ctr $want" "nasa7 counts through ctr"
fi

# Tarmac: the corpus traces replay the same from ctr
if [ -n "${CACHET_CORPUS:-}" ] && [ -d "$CACHET_CORPUS/tarmac" ]; then
    while IFS= read -r f; do
        name=${f#"$CACHET_CORPUS"/}
        expect_status 0 "convert $name" "$CACHET" convert "$f" -o "$TMP/tm.ctr.zst"
        check "$name: same results from .ctr.zst" same_results "$f" "$TMP/tm.ctr.zst"
    done < <(find "$CACHET_CORPUS/tarmac" -name '*.tarmac' | sort)
fi

# reference events survive: validate and infer say the same of the Arm example
# and of its conversion (made with the same configuration, whose Tarmac
# options shape the stream); only the source lines shown with divergences
# are lost, a ctr stream has none
if fm=$(fm_example); then
    fmcfg="$SRC/configs/fastmodel-aemv8.ini"
    "$CACHET" convert -c "$fmcfg" "$fm" -o "$TMP/fm.ctr.zst"
    "$CACHET" validate -c "$fmcfg" "$fm" >"$TMP/va.txt" 2>&1
    "$CACHET" validate -c "$fmcfg" "$TMP/fm.ctr.zst" >"$TMP/vb.txt" 2>&1
    grep -v '^ ' "$TMP/va.txt" | grep -v '^divergences' >"$TMP/va.sum"
    grep -v '^ ' "$TMP/vb.txt" | grep -v '^divergences' >"$TMP/vb.sum"
    check "validate: same summary from ctr" cmp -s "$TMP/va.sum" "$TMP/vb.sum"
    expect_eq "$(grep -c '^agreement' "$TMP/vb.sum")" "1" "validate ran on the ctr stream"
    "$CACHET" infer "$fm" >"$TMP/ia.txt" 2>&1
    "$CACHET" infer "$TMP/fm.ctr.zst" >"$TMP/ib.txt" 2>&1
    check "infer: same geometry from ctr" cmp -s "$TMP/ia.txt" "$TMP/ib.txt"
    "$CACHET" info --json "$TMP/fm.ctr.zst" >"$TMP/fm.json"
    "$CACHET" info --json "$fm" >"$TMP/fm-text.json"
    expect_eq "$(json_get "$TMP/fm.json" "d['events'], d['markers']")" \
        "$(json_get "$TMP/fm-text.json" "d['events'], d['markers']")" "fm example: events and markers kept"
    expect_eq "$(json_get "$TMP/fm.json" "d['events']")" "15" "fm example: its 15 CACHE, TLB and TTW lines"
else
    echo "$FM_SKIP"
fi

# what the Tarmac writer writes, cachet's Tarmac reader reads back the same
for input in "$SRC/tests/data/vixl/forms.log" "gen:matmul:dim=16" "gen:random:n=5K,writes=30"; do
    name=$(basename "$input")
    expect_status 0 "convert $name to tarmac" "$CACHET" convert "$input" -o "$TMP/w.tarmac"
    check "$name: same results from the Tarmac text" same_results "$input" "$TMP/w.tarmac"
done

# the output format from the name; an unknown name needs --to
expect_status 0 "convert to .din by name" "$CACHET" convert "$TMP/small.din" -o "$TMP/x.din"
expect_status 1 "unknown output extension" "$CACHET" convert "$TMP/small.din" -o "$TMP/x.out"
expect_err_contains "give --to FORMAT" "unknown output extension"
expect_status 1 "unknown writer" "$CACHET" convert --to nope "$TMP/small.din" -o "$TMP/x.out"
expect_err_contains "cannot write format \"nope\"" "unknown writer"
expect_eq "$([ -e "$TMP/x.out" ] && echo left || echo none)" none "no partial output"

# damaged files: exit status 2 with the reason
"$CACHET" convert --to ctr-raw "gen:random:n=2K" -o "$TMP/g.ctr"
size=$(wc -c <"$TMP/g.ctr")
head -c $((size - 3)) "$TMP/g.ctr" >"$TMP/cut.ctr"
expect_status 2 "truncated ctr" "$CACHET" run "$TMP/cut.ctr"
expect_err_contains "truncated" "truncated ctr"
expect_status 2 "truncated ctr, lenient" "$CACHET" info --lenient "$TMP/cut.ctr"
printf 'XXXX' | dd of="$TMP/g.ctr" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_status 2 "bad magic, forced" "$CACHET" info -f ctr "$TMP/g.ctr"
expect_err_contains "bad magic" "bad magic, forced"
"$CACHET" convert "gen:random:n=2K" -o "$TMP/g.ctr.zst"
size=$(wc -c <"$TMP/g.ctr.zst")
printf '\377\377\377\377' | dd of="$TMP/g.ctr.zst" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_status 2 "damaged zstd" "$CACHET" run "$TMP/g.ctr.zst"
expect_err_contains "zstd" "damaged zstd"

# Tarmac output: memory lines and fetch lines
expect_status 0 "convert to tarmac" "$CACHET" convert "$SRC/tests/data/vixl/forms.log" -o "$TMP/f.tarmac"
expect_eq "$(grep -c ' IT (' "$TMP/f.tarmac") $(grep -c ' MR' "$TMP/f.tarmac") $(grep -c ' MW' "$TMP/f.tarmac")" \
    "16 15 17" "tarmac lines: fetches, reads, writes"
expect_eq "$(sed -n 2p "$TMP/f.tarmac")" "6 clk cpu0 MR4 00010000 xxxxxxxx" "tarmac load line"
expect_eq "$(grep -c 'MR4X 00010000' "$TMP/f.tarmac")" "1" "tarmac exclusive load"

# the benchmark replays the workload from memory, din and ctr and fails
# when the statistics differ
expect_status 0 "bench on a small workload" "$CACHET" bench -r 1 -w "gen:random:n=20K" --dir "$TMP"
grep -qE "^  ctr replay +40960 accesses" "$TMP/out" && ok || bad "bench reports the ctr replay"
grep -qE "^  din text +40960 accesses .*one thread" "$TMP/out" && ok || bad "bench reports din text"
grep -qE "^  gen:random:n=20K +40960 " "$TMP/out" && ok || bad "bench summary"
# several workloads, each reported
expect_status 0 "bench on two workloads" "$CACHET" bench -r 1 -s trace.readahead=no \
    -w "gen:random:n=2K" -w "gen:matmul:dim=8" --dir "$TMP"
expect_eq "$(grep -cE '^  in-memory +[0-9]+ accesses' "$TMP/out")" "2" "bench: one in-memory row per workload"
expect_eq "$(grep -c 'read-ahead' "$TMP/out")" "0" "bench: no read-ahead row when it is off"
expect_status 1 "bench: a workload without -w" "$CACHET" bench gen:random:n=2K
expect_status 0 "bench on a VIXL trace" "$CACHET" bench -r 1 -w "$SRC/tests/data/vixl/forms.log" --dir "$TMP"

finish
