# validate_mutations.sh - a trace whose CACHE lines are the model's own events
# validates with agreement 1; copies with reference events dropped, altered
# or moved beyond the window report exactly those differences. The same for
# translation events: TLB, WALKCACHE and TTW lines.
source "$(dirname "$0")/lib.bash"

cat > "$TMP/c.ini" <<'INI'
[system]
indexing = physical
[l1i]
size = 512
assoc = 2
tarmac_name = cpu.cpu{cpu}.l1i
[l1d]
size = 1K
assoc = 2
tarmac_name = cpu.cpu0.l1d
[l2]
size = 4K
assoc = 4
tarmac_name = cluster.l2
INI
# 3000 instructions looping over 800 bytes of code, each with a load or a
# store walking 6 KiB: fills, evictions, write-backs in every level
awk -v n=3000 'BEGIN {
    for (i = 1; i <= n; i++) {
        pc = 4096 + 4 * (i % 200)
        printf "%d clk cpu0 IT (%d) %08x:%012x d503201f O EL1h_n : NOP\n", i, i, pc, pc + 268435456
        a = 1048576 + (i * 72) % 6144
        printf "%d clk cpu0 M%s8 %08x:%012x 00000000_00000000\n", i, (i % 3 ? "R" : "W"), a, a + 268435456
    }
}' > "$TMP/acc.tarmac"
check "model events" "$CACHET" run -q -c "$TMP/c.ini" --events "$TMP/ev.tarmac" "$TMP/acc.tarmac"
sort -s -n -k1,1 "$TMP/acc.tarmac" "$TMP/ev.tarmac" > "$TMP/ref.tarmac"
NEV=$(wc -l < "$TMP/ev.tarmac")
[ "$(grep -c ' INVAL ' "$TMP/ev.tarmac")" -gt 100 ] && [ "$(grep -c ' DIRTY ' "$TMP/ev.tarmac")" -gt 100 ] && ok || bad "the trace exercises evictions and writes"

validate() { "$CACHET" validate -c "$TMP/c.ini" --max-diffs 100 --json "$TMP/v.json" "$@" >/dev/null 2>"$TMP/err"; echo $?; }
totals() { json_get "$TMP/v.json" "' '.join(str(d['totals'][k]) for k in ('reference','model','matched','missing','extra','cold_start_extra','line_id_agree'))"; }

expect_eq "$(validate "$TMP/ref.tarmac")" 0 "the self-consistent trace validates"
expect_eq "$(totals)" "$NEV $NEV $NEV 0 0 0 $NEV" "every event matched, same LINE ids"

# the k-th CACHE line of the reference trace, late enough that every set of
# every level has shown reference events before it
NC=$(grep -c ' CACHE ' "$TMP/ref.tarmac")
nth() { grep -n ' CACHE ' "$TMP/ref.tarmac" | sed -n "$1p" | cut -d: -f1; }
K1=$(nth $((NC * 2 / 3))); K2=$(nth $((NC * 2 / 3 + 7))); K3=$(nth $((NC * 2 / 3 + 23)))
field() { sed -n "$1p" "$TMP/ref.tarmac" | awk -v f="$2" '{ print $f }'; }   # 1 time, 8 op, 9 address
# divergences DIFF... : each "kind op address time", compared as a set
divs() {
    python3 - "$TMP/v.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((x['kind'], x['op'], int(x['address'], 16), x['time']) for x in d['divergences'])
want = sorted((k, op, int(a, 16), int(t)) for k, op, a, t in (w.split() for w in sys.argv[2:]))
if got != want:
    print("got", got, "want", want)
    sys.exit(1)
PY
}

# drop three reference events: three extras, nothing else
sed "${K1}d;${K2}d;${K3}d" "$TMP/ref.tarmac" > "$TMP/m.tarmac"
expect_eq "$(validate "$TMP/m.tarmac")" 3 "dropped events fail"
expect_eq "$(totals)" "$((NEV - 3)) $NEV $((NEV - 3)) 0 3 0 $((NEV - 3))" "dropped: 3 extra"
check "dropped: the three events" divs "extra $(field $K1 8) $(field $K1 9) $(field $K1 1)" \
    "extra $(field $K2 8) $(field $K2 9) $(field $K2 1)" "extra $(field $K3 8) $(field $K3 9) $(field $K3 1)"

# another LINE id: paired, but the LINE id disagrees: a divergence that
# lowers the agreement, unless --ignore-line-ids
sed "${K1}s/ LINE [0-9a-f]* / LINE 7fff /" "$TMP/ref.tarmac" > "$TMP/m.tarmac"
expect_eq "$(validate "$TMP/m.tarmac")" 3 "a wrong LINE id fails"
expect_eq "$(totals)" "$NEV $NEV $NEV 0 0 0 $((NEV - 1))" "altered LINE: one disagreement"
expect_eq "$(json_get "$TMP/v.json" "d['totals']['line_id_differ'], d['agreement'] == round(($NEV - 1) / $NEV, 6), d['passed']")" \
    "1 True False" "altered LINE: agreement (events - 1) / events"
check "altered LINE: that event" divs "line_id $(field $K1 8) $(field $K1 9) $(field $K1 1)"
expect_eq "$(json_get "$TMP/v.json" "d['divergences'][0]['line']")" "7fff" "the reference's LINE id is shown"
expect_eq "$(validate --ignore-line-ids "$TMP/m.tarmac")" 0 "--ignore-line-ids lets it pass"
expect_eq "$(json_get "$TMP/v.json" "d['totals']['line_id_differ'], d['agreement'], d['ignore_line_ids'], d['divergences']")" \
    "1 1.0 True []" "--ignore-line-ids: counted, not a divergence"

# another address: one missing (the altered line), one extra (the model's)
sed "${K2}s/ 0x[0-9a-f]*/ 0x00007fffffc0/" "$TMP/ref.tarmac" > "$TMP/m.tarmac"
expect_eq "$(validate "$TMP/m.tarmac")" 3 "altered address fails"
expect_eq "$(totals)" "$NEV $NEV $((NEV - 1)) 1 1 0 $((NEV - 1))" "altered address: 1 missing, 1 extra"
check "altered address: those events" divs "missing $(field $K2 8) 0x7fffffc0 $(field $K2 1)" \
    "extra $(field $K2 8) $(field $K2 9) $(field $K2 1)"

# moved 5 timestamps later (beyond the window of 1): missing there, extra here
T3=$(field $K3 1)
sed "${K3}s/^$T3 /$((T3 + 5)) /" "$TMP/ref.tarmac" | sort -s -n -k1,1 > "$TMP/m.tarmac"
expect_eq "$(validate "$TMP/m.tarmac")" 3 "moved beyond the window fails"
expect_eq "$(totals)" "$NEV $NEV $((NEV - 1)) 1 1 0 $((NEV - 1))" "moved: 1 missing, 1 extra"
check "moved: that event, at both times" divs "missing $(field $K3 8) $(field $K3 9) $((T3 + 5))" \
    "extra $(field $K3 8) $(field $K3 9) $T3"
expect_eq "$(validate --window 5 "$TMP/m.tarmac")" 0 "a window of 5 covers it"
# moved within the window: no difference
sed "${K3}s/^$T3 /$((T3 + 1)) /" "$TMP/ref.tarmac" | sort -s -n -k1,1 > "$TMP/m.tarmac"
expect_eq "$(validate "$TMP/m.tarmac")" 0 "moved within the window passes"
expect_eq "$(totals)" "$NEV $NEV $NEV 0 0 0 $NEV" "moved within the window: all matched"

# ---- translation events -------------------------------------------------------
# 2-entry ITLB and DTLB, an 8-entry STLB, a 4-entry walk cache, synthetic
# tables (the TTW lines of the reference are then events only); 1000
# instructions on 2 code pages, loads and stores over 24 pages in 5 regions
# of 2M: fills and evictions in every structure, a walk on every DTLB miss.
cat > "$TMP/t.ini" <<'INI'
[system]
indexing = physical
[itlb]
entries = 2
tarmac_name = cpu.cpu{cpu}.ITLB
tarmac_walk_name = ITLB
[dtlb]
entries = 2
tarmac_name = cpu.cpu{cpu}.DTLB
tarmac_walk_name = DTLB
[stlb]
entries = 8
assoc = 2
tarmac_name = cpu.cpu{cpu}.S1TLB
[walkcache]
entries = 4
tarmac_name = cpu.cpu{cpu}.WALKCACHE
[walk]
tables = synthetic
INI
awk -v n=1000 'BEGIN {
    for (i = 1; i <= n; i++) {
        pc = 4096 + 4 * (i % 1500)
        printf "%d clk cpu0 IT (%d) %08x:%012x d503201f O EL1h_n : NOP\n", i, i, pc, pc + 268435456
        a = 1048576 + ((i * 7) % 24) * 4096 + ((i * 13) % 5) * 2097152 + (i % 64) * 8
        printf "%d clk cpu0 M%s8 %08x:%012x_NS 00000000_00000000\n", i, (i % 3 ? "R" : "W"), a, a + 268435456
    }
}' > "$TMP/tacc.tarmac"
check "model translation events" "$CACHET" run -q -c "$TMP/t.ini" --events "$TMP/tev.tarmac" "$TMP/tacc.tarmac"
sort -s -n -k1,1 "$TMP/tacc.tarmac" "$TMP/tev.tarmac" > "$TMP/tref.tarmac"
TEV=$(wc -l < "$TMP/tev.tarmac")
for kind in "TLB FILL" "TLB EVICT" "WALKCACHE FILL" "WALKCACHE EVICT" "TTW DTLB"; do
    [ "$(grep -c " $kind " "$TMP/tev.tarmac")" -gt 50 ] && ok || bad "the trace exercises $kind"
done
tvalidate() { "$CACHET" validate -c "$TMP/t.ini" --max-diffs 100 --json "$TMP/v.json" "$@" >/dev/null 2>"$TMP/err"; echo $?; }
expect_eq "$(tvalidate "$TMP/tref.tarmac")" 0 "the self-consistent translation trace validates"
expect_eq "$(totals)" "$TEV $TEV $TEV 0 0 0 $TEV" "every translation event matched, same details"

# the line of the k-th event of a kind, two thirds into the trace; its time
# and the address the report gives (TLB: the virtual base; TTW: the descriptor)
tnth() { grep -n " $1 " "$TMP/tref.tarmac" | sed -n "$(( $(grep -c " $1 " "$TMP/tref.tarmac") * 2 / 3 + ${2:-0} ))p" | cut -d: -f1; }
tfield() { sed -n "$1p" "$TMP/tref.tarmac" | awk -v f="$2" '{ print $f }'; }
vbase() { tfield "$1" 8 | sed -e 's/_NS//' -e 's/,$//' -e 's/:.*//'; }
F=$(tnth "TLB FILL"); W=$(tnth "WALKCACHE FILL"); E=$(tnth "TLB EVICT")
T=$(tnth "TTW DTLB"); P=$(tnth "TLB FILL" 5)
# drop a TLB FILL, a WALKCACHE FILL and a TLB EVICT: exactly those three extras
sed "${F}d;${W}d;${E}d" "$TMP/tref.tarmac" > "$TMP/m.tarmac"
expect_eq "$(tvalidate "$TMP/m.tarmac")" 3 "dropped translation events fail"
expect_eq "$(totals)" "$((TEV - 3)) $TEV $((TEV - 3)) 0 3 0 $((TEV - 3))" "dropped: 3 extra"
check "dropped: the TLB FILL, WALKCACHE FILL and TLB EVICT" divs \
    "extra FILL $(vbase $F) $(tfield $F 1)" "extra FILL $(vbase $W) $(tfield $W 1)" \
    "extra EVICT $(vbase $E) $(tfield $E 1)"
expect_eq "$(json_get "$TMP/v.json" "sorted(x['type'] for x in d['divergences'])")" "['TLB', 'TLB', 'WALKCACHE']" \
    "dropped: in the TLB and walk-cache structures"
# alter a TTW descriptor value and a TLB FILL's physical base: paired, their
# details (descriptor, physical base) disagree
sed -e "${T}s/ \([0-9a-f]\{16\}\) : / 00000000dead0003 : /" \
    -e "${P}s/:0x[0-9a-f]*/:0x0000beef0000/" "$TMP/tref.tarmac" > "$TMP/m.tarmac"
expect_eq "$(tvalidate "$TMP/m.tarmac")" 3 "altered details fail"
expect_eq "$(totals)" "$TEV $TEV $TEV 0 0 0 $((TEV - 2))" "altered: two detail disagreements"
check "altered: the TTW read and the TLB FILL" divs "line_id WALK 0x$(tfield $T 8) $(tfield $T 1)" \
    "line_id FILL $(vbase $P) $(tfield $P 1)"
expect_eq "$(json_get "$TMP/v.json" "sorted((x['type'], x['line']) for x in d['divergences'])")" \
    "[('TLB', '0xbeef0000_NS'), ('TTW', '00000000dead0003')]" "altered: the reference's descriptor and physical base are shown"
finish
