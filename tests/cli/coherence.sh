# coherence.sh - the core model's coherence ([system] coherence = msi |
# mesi; rules at the top of sim/coherence.c), each rule pinned by a
# two-core case worked out by hand: a ping-pong of two writers on one line,
# false sharing on two words of one line (and the same words a line apart),
# a read-modify-write ping-pong, a read-shared array, private lines read
# then written, a dirty line held by a private L2 only; their events; the
# table, JSON and CSV; and what creation refuses.
. "$(dirname "$0")/lib.bash"

# Core 0 runs a.din, core 1 runs b.din, one access each in turn ([trace]
# quantum = 1: a0 b0 a1 b1 ...). din labels: 0 load, 1 store; hex addresses.
# Private 1 KiB direct-mapped L1Ds (16 sets of 64 B, latency 2), a shared
# 4 KiB direct-mapped L2 (64 sets, latency 10), memory 100: the L2 is the
# point of coherence and an upgrade costs its 10 cycles.
cfg() {  # cfg PROTOCOL: the two-core hierarchy
    cat <<EOF
[system]
cores = 2
coherence = $1
[trace]
interleave = quantum
quantum = 1
[l1d]
size = 1K
assoc = 1
line = 64
latency = 2
[l2]
size = 4K
assoc = 1
line = 64
latency = 10
[memory]
latency = 100
EOF
}
cfg msi >"$TMP/msi.ini"
cfg mesi >"$TMP/mesi.ini"
cfg none >"$TMP/none.ini"

# counts PROTOCOL A B: per private level "level core: invalidations
# downgrades writebacks upgrades", then the cores' cycles
counts() {
    "$CACHET" run -q -c "$TMP/$1.ini" --json "$TMP/r.json" "$2" "$3" || return 1
    json_get "$TMP/r.json" "' '.join('%s%d:%d,%d,%d,%d' % (l['name'], l['core'], \
        l['coherence']['invalidations'], l['coherence']['downgrades'], \
        l['coherence']['writebacks'], l['coherence']['upgrades']) for l in d['levels'] \
        if 'coherence' in l) + ' cycles ' + ','.join(str(c['cycles']) for c in d['cores'])"
}

# 1. Ping-pong: both cores store to 0x1000 three times, in turn.
#   a0: core 0 misses everywhere (100) and holds the line M.
#   b0: core 1's write finds it M in core 0: core 0 writes it back to the
#       L2 (a coherence write-back) and drops it (an invalidation); core 1
#       misses its L1D and hits the L2 (10); M in core 1.
#   a1, b1, a2, b2: the same, turn by turn: core 0 loses the line 3 times,
#   core 1 twice; each loss writes it back. No reads: no downgrades; no
#   write finds it S: no upgrades. MESI counts the same.
printf '1 1000\n1 1000\n1 1000\n' >"$TMP/pp_a.din"
printf '1 1000\n1 1000\n1 1000\n' >"$TMP/pp_b.din"
expect_eq "$(counts msi "$TMP/pp_a.din" "$TMP/pp_b.din")" \
    "l1d0:3,0,3,0 l1d1:2,0,2,0 cycles 120,30" "ping-pong, msi"
expect_eq "$(counts mesi "$TMP/pp_a.din" "$TMP/pp_b.din")" \
    "l1d0:3,0,3,0 l1d1:2,0,2,0 cycles 120,30" "ping-pong, mesi"
# the five coherence write-backs are the L2's five write-backs (kind
# writeback, each a hit), and only the first access reached memory
expect_eq "$(json_get "$TMP/r.json" "(d['levels'][2]['by_kind']['writeback']['accesses'], \
    d['memory']['reads'], d['memory']['writes'], d['coherence'])")" \
    "(5, 1, 0, {'protocol': 'mesi', 'invalidations': 5, 'downgrades': 0, 'writebacks': 5, 'upgrades': 0})" \
    "ping-pong: write-backs at the L2, totals"
# without coherence each core keeps its own copy: one miss each, no counts
check "ping-pong, none" "$CACHET" run -q -c "$TMP/none.ini" --json "$TMP/n.json" \
    "$TMP/pp_a.din" "$TMP/pp_b.din"
expect_eq "$(json_get "$TMP/n.json" "('coherence' in d, [l['misses'] for l in d['levels']], \
    [c['cycles'] for c in d['cores']])")" "(False, [1, 1, 1], [104, 14])" \
    "ping-pong without coherence"

# 2. False sharing: core 0 writes the word at 0x1000, core 1 the word at
#    0x1008 of the same line: line for line the ping-pong's counts. A line
#    apart (0x1040) nothing is shared and nothing is counted.
printf '1 1008\n1 1008\n1 1008\n' >"$TMP/fs_b.din"
printf '1 1040\n1 1040\n1 1040\n' >"$TMP/pad_b.din"
expect_eq "$(counts msi "$TMP/pp_a.din" "$TMP/fs_b.din")" \
    "l1d0:3,0,3,0 l1d1:2,0,2,0 cycles 120,30" "false sharing"
expect_eq "$(counts mesi "$TMP/pp_a.din" "$TMP/pad_b.din")" \
    "l1d0:0,0,0,0 l1d1:0,0,0,0 cycles 104,104" "words a line apart"

# 3. Read-modify-write ping-pong: each core loads 0x1000 then stores it
#    (a.ld b.ld a.st b.st).
#    MSI: a.ld fills S (100); b.ld fills S from the L2 (10), nothing
#      snooped; a.st finds S: an upgrade (2 + 10) that invalidates core
#      1's clean copy; b.st finds core 0's M: write-back and invalidation,
#      then the L2 serves it (10). Core 0: inv 1, wb 1, upgrade 1; core 1:
#      inv 1; cycles 112 and 20.
#    MESI: a.ld fills E (alone); b.ld finds it E: a downgrade of core 0,
#      both S; then as MSI. Core 0 adds the downgrade.
printf '0 1000\n1 1000\n' >"$TMP/rmw.din"
expect_eq "$(counts msi "$TMP/rmw.din" "$TMP/rmw.din")" \
    "l1d0:1,0,1,1 l1d1:1,0,0,0 cycles 112,20" "read-modify-write, msi"
expect_eq "$(counts mesi "$TMP/rmw.din" "$TMP/rmw.din")" \
    "l1d0:1,1,1,1 l1d1:1,0,0,0 cycles 112,20" "read-modify-write, mesi"

# 4. A read-shared array: both cores load the four lines 0x1000..0x10c0
#    twice, in turn. Nothing is written: no invalidation, write-back or
#    upgrade. MSI fills every line S; MESI fills core 0's four E, and core
#    1's load of each downgrades it: 4 downgrades, no cycle more.
printf '0 1000\n0 1040\n0 1080\n0 10c0\n0 1000\n0 1040\n0 1080\n0 10c0\n' >"$TMP/arr.din"
expect_eq "$(counts msi "$TMP/arr.din" "$TMP/arr.din")" \
    "l1d0:0,0,0,0 l1d1:0,0,0,0 cycles 408,48" "read-shared array, msi"
expect_eq "$(counts mesi "$TMP/arr.din" "$TMP/arr.din")" \
    "l1d0:0,4,0,0 l1d1:0,0,0,0 cycles 408,48" "read-shared array, mesi"

# An instruction fetch asks for a shared copy: with private L1Is, core 0
# fetching 0x1000 alone fills it S under MESI too (no E fill), so core 1's
# fetch downgrades nothing. Core 1's store to the line then finds it S in
# its own L1I (its L1D does not hold it): an upgrade, counted at its L1I,
# which invalidates core 0's L1I copy (counted there).
{ cat "$TMP/mesi.ini"; printf '[l1i]\nsize = 1K\nassoc = 1\nline = 64\nlatency = 1\n'; } >"$TMP/i.ini"
printf '2 1000\n' >"$TMP/f_a.din"
printf '2 1000\n1 1000\n' >"$TMP/f_b.din"
check "fetches" "$CACHET" run -q -c "$TMP/i.ini" --json "$TMP/r.json" "$TMP/f_a.din" "$TMP/f_b.din"
expect_eq "$(json_get "$TMP/r.json" "' '.join('%s%d:%s' % (l['name'], l['core'], \
    ','.join(str(l['coherence'][k]) for k in ('invalidations', 'downgrades', 'writebacks', \
    'upgrades'))) for l in d['levels'] if l['core'] is not None)")" \
    "l1i0:1,0,0,0 l1i1:0,0,0,1 l1d0:0,0,0,0 l1d1:0,0,0,0" "fetches fill S"

# 5. Private lines read then written (core 0 0x2000, core 1 0x2040): MSI
#    fills them S, so each store is an upgrade (2 + 10); MESI fills them E
#    and the store makes them M silently (2).
printf '0 2000\n1 2000\n' >"$TMP/own_a.din"
printf '0 2040\n1 2040\n' >"$TMP/own_b.din"
expect_eq "$(counts msi "$TMP/own_a.din" "$TMP/own_b.din")" \
    "l1d0:0,0,0,1 l1d1:0,0,0,1 cycles 112,112" "private read then write, msi"
expect_eq "$(counts mesi "$TMP/own_a.din" "$TMP/own_b.din")" \
    "l1d0:0,0,0,0 l1d1:0,0,0,0 cycles 102,102" "private read then write, mesi"

# 6. Private L2s: the L1D and a 4 KiB direct-mapped L2 per core, a shared
#    16 KiB L3 (latency 30) the point of coherence. Core 0 stores 0x1000
#    (M), then loads 0x1400, which takes the L1D's only way of set 0: the
#    dirty 0x1000 goes down to core 0's L2. Core 1 then loads 0x1000: the
#    line is M in core 0's L2 alone, so the downgrade and the coherence
#    write-back count there, at the uppermost level holding it.
{ cfg msi | sed '/^\[l2\]/,$d'; cat <<'EOF'
[l2]
size = 4K
assoc = 1
line = 64
latency = 10
shared = no
[l3]
size = 16K
assoc = 1
line = 64
latency = 30
[memory]
latency = 100
EOF
} >"$TMP/l2.ini"
printf '1 1000\n0 1400\n' >"$TMP/l2_a.din"
printf '0 2040\n0 1000\n' >"$TMP/l2_b.din"
check "private L2s" "$CACHET" run -q -c "$TMP/l2.ini" --json "$TMP/r.json" \
    "$TMP/l2_a.din" "$TMP/l2_b.din"
expect_eq "$(json_get "$TMP/r.json" "' '.join('%s%d:%s' % (l['name'], l['core'], \
    ','.join(str(l['coherence'][k]) for k in ('invalidations', 'downgrades', 'writebacks', \
    'upgrades'))) for l in d['levels'] if l['core'] is not None)")" \
    "l1d0:0,0,0,0 l1d1:0,0,0,0 l20:0,1,1,0 l21:0,0,0,0" "private L2s: counted at core 0's L2"
# core 1's load misses its L1D and L2 and hits the L3, which took the write-back
expect_eq "$(json_get "$TMP/r.json" "(d['levels'][4]['by_kind']['writeback'], d['cores'][1]['cycles'])")" \
    "({'accesses': 1, 'hits': 1, 'misses': 0}, 130)" "private L2s: the write-back at the L3"

# 7. Events (MESI, the read-modify-write ping-pong): E fill (ALLOC,
#    UNIQUE), the downgrade (SHARED), the upgrade (UNIQUE) and the
#    invalidation of core 1's copy (INVAL), then core 0's dirty copy
#    dropped (its INVAL: the write-back is implied) as core 1 takes the
#    line for its write (ALLOC, DIRTY: M without an upgrade).
check "events" "$CACHET" run -q -c "$TMP/mesi.ini" --events "$TMP/ev" "$TMP/rmw.din" "$TMP/rmw.din"
expect_eq "$(grep 'l1d' "$TMP/ev" | awk '{print $1, $5, $8}' | tr '\n' ';')" \
"1 core0.l1d ALLOC;1 core0.l1d UNIQUE;1 core0.l1d SHARED;1 core1.l1d ALLOC;\
2 core0.l1d UNIQUE;2 core1.l1d INVAL;2 core0.l1d DIRTY;2 core0.l1d INVAL;2 core1.l1d ALLOC;\
2 core1.l1d DIRTY;" "events"
# MSI: core 1 reads 0x1000 while core 0 holds it M: core 0's copy shows
# CLEAN (the coherence write-back) then SHARED
printf '1 1000\n' >"$TMP/w.din"
printf '0 2040\n0 1000\n' >"$TMP/r.din"
check "events, downgrade of M" "$CACHET" run -q -c "$TMP/msi.ini" --events "$TMP/ev" \
    "$TMP/w.din" "$TMP/r.din"
expect_eq "$(awk '$1 == 2 && $5 == "core0.l1d" {print $8}' "$TMP/ev" | tr '\n' ' ')" \
    "CLEAN SHARED " "events: CLEAN and SHARED"

# 8. The table and the CSV say the same as the JSON; coherence = none adds
#    nothing to either.
"$CACHET" run -c "$TMP/msi.ini" --csv "$TMP/r.csv" "$TMP/pp_a.din" "$TMP/pp_b.din" >"$TMP/table"
check "table: section" grep -qx "coherence (msi)" "$TMP/table"
expect_eq "$(awk '/^coherence/ {on = 1; next} on && /^l1d/ {print $2, $3, $4, $5, $6}' \
    "$TMP/table" | tr '\n' ';')" "0 3 0 3 0;1 2 0 2 0;" "table: rows"
expect_eq "$(python3 -c "import csv,sys; print(';'.join('%s %s %s %s %s %s' % (r['level'], \
    r['core'], r['coh_invalidations'], r['coh_downgrades'], r['coh_writebacks'], \
    r['coh_upgrades']) for r in csv.DictReader(open(sys.argv[1]))))" "$TMP/r.csv")" \
    "l1d 0 3 0 3 0;l1d 1 2 0 2 0;l2 all    " "csv: columns"
"$CACHET" run -c "$TMP/none.ini" --csv "$TMP/n.csv" "$TMP/pp_a.din" "$TMP/pp_b.din" >"$TMP/table"
check "none: no table section" bash -c "! grep -q '^coherence' '$TMP/table'"
check "none: no csv columns" bash -c "! grep -q coh_ '$TMP/n.csv'"

# 9. What creation refuses, each with the key and the reason.
refused() {  # refused NAME INI SED TEXT: INI edited by SED is refused with TEXT
    sed "$3" "$2" >"$TMP/bad.ini"
    expect_status 2 "$1" "$CACHET" run -q -c "$TMP/bad.ini" "$TMP/pp_a.din"
    expect_err_contains "$4" "$1"
}
refused "write-through private level" "$TMP/msi.ini" 's/^latency = 2$/latency = 2\nwrite_back = no/' \
    "[l1d] write_back = no: coherence keeps write-back private levels only"
refused "private line sizes" "$TMP/l2.ini" \
    's/^shared = no$/shared = no\nline = 128/; /^\[l2\]/,/^\[l3\]/{/^line = 64$/d}' \
    "the private levels need one line size; [l1d] has 64 bytes, [l2] 128"
refused "exclusive private level" "$TMP/l2.ini" 's/^shared = no$/shared = no\ninclusion = exclusive/' \
    "[l2] inclusion = exclusive: a private level cannot be exclusive"
refused "miss classes" "$TMP/msi.ini" 's/^coherence = msi$/coherence = msi\nmiss_classes = yes/' \
    "[system] coherence: not with miss_classes = yes"
refused "opt" "$TMP/msi.ini" 's/^latency = 2$/latency = 2\nreplacement = opt/' \
    "[system] coherence: not with replacement = opt"
refused "overlap" "$TMP/msi.ini" 's/^coherence = msi$/coherence = msi\ntiming = overlap/' \
    "[system] coherence: not with timing = overlap"

# 10. The worked example of configs/README.md (the corpus's threadsig test
#     trace, four threads on four cores of default.ini).
if [ -n "${CACHET_CORPUS:-}" ] && [ -d "$CACHET_CORPUS" ]; then
    T=$CACHET_CORPUS/drmemtrace/dynamorio-tests/drmemtrace.threadsig.x64.tracedir
    for p in none msi mesi; do
        "$CACHET" run -q -c configs/default.ini -s system.cores=4 -s system.coherence=$p \
            --json "$TMP/$p.json" "$T" || bad "worked example, $p"
    done
    expect_eq "$(for p in none msi mesi; do json_get "$TMP/$p.json" \
        "d['cycles'], d.get('coherence')"; done | tr '\n' ';')" \
"2149112 None;\
2155656 {'protocol': 'msi', 'invalidations': 241, 'downgrades': 193, 'writebacks': 206, 'upgrades': 433};\
2152824 {'protocol': 'mesi', 'invalidations': 241, 'downgrades': 283, 'writebacks': 206, 'upgrades': 197};" \
        "worked example of configs/README.md"
else
    echo "note: CACHET_CORPUS is not set: the worked example of configs/README.md is not checked"
fi

finish
