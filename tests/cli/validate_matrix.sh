# validate_matrix.sh - a wrong model fails validation. For several
# configurations X, a Tarmac trace is made by replaying a workload through
# the model of X and merging its --events with the access lines (each
# timestamp's events before its accesses, as Fast Models writes a walk's TTW
# lines before the access that needs it). Validating that trace under X
# gives agreement 1 and exit 0 (with the cold-start rule and with --cold: the
# trace starts at reset); under every change of one parameter of X (a cache's
# size x2 and /2, ways x2 and /2, line size x2, replacement policy, write
# policy, inclusion; a TLB's entries x2 and /2; the page size) it gives
# agreement below 1, exit 3, and a verdict naming the first divergence.
# `cachet infer` reads X's line sizes, set counts and ways back from each
# trace.
source "$(dirname "$0")/lib.bash"

# The workload: a sweep of SPAN bytes at STEP (every set of every level, at
# the smallest line size), then N accesses, a third of them stores, each
# with an instruction fetch: data and code on TAGS lines in 4 sets of
# SPAN-byte stride (conflicts and reuse in every level: evictions, hits on
# lines that are not the most recent), every other data access on one hot
# line (it stays in the L1D while its L2 set turns over: an inclusive L2
# drops it), and one access in ten on 12 pages 8 MiB apart (conflicts in
# the set-associative TLB).
workload() { # SPAN STEP TAGS N
    awk -v span="$1" -v step="$2" -v tags="$3" -v n="$4" 'BEGIN {
        srand(7)
        for (i = 0; i < span / step; i++) emit(i * step, i * step, i % 3 == 0)
        for (i = 0; i < n; i++) {
            if (i % 2 == 0)
                a = 8 * int(rand() * step / 8)
            else if (rand() < 0.2)
                a = 8388608 * (1 + int(rand() * 12)) + step * int(rand() * 4)
            else
                a = int(rand() * tags) * span + int(rand() * 4) * step + 8 * int(rand() * step / 8)
            emit(a, int(rand() * tags) * span + int(rand() * 4) * step, rand() < 0.35)
        }
    }
    function emit(a, pc, w) {
        t++
        a += 1048576
        pc += 268435456
        printf "%d clk cpu0 IT (%d) %08x:%012x d503201f O EL1h_n : NOP\n", t, t, pc, pc
        printf "%d clk cpu0 M%s8 %08x:%012x_NS 00000000_00000000\n", t, (w ? "W" : "R"), a, a
    }'
}

# matrix NAME CONFIG "SPAN STEP TAGS N" "INFERRED" MUTATION...: the whole
# matrix for one configuration; INFERRED lists "section size assoc line" of
# each level, ';'-separated, as cachet infer's snippet gives them
matrix() {
    local name=$1 cfg=$2 wl=$3 want=$4 m out rc
    shift 4
    workload $wl > "$TMP/$name.acc"
    check "$name: model events" "$CACHET" run -q -c "$cfg" --events "$TMP/$name.ev" "$TMP/$name.acc"
    sort -s -n -k1,1 "$TMP/$name.ev" "$TMP/$name.acc" > "$TMP/$name.tarmac"
    for mode in "" --cold; do
        out=$("$CACHET" validate -c "$cfg" --context 0 $mode "$TMP/$name.tarmac" 2>&1)
        rc=$?
        [ $rc -eq 0 ] && [[ $out == *"verdict: PASS (agreement 1.0000 reaches 1.0000)"* ]] &&
            [[ $out == *" 0 paired with another LINE id"*"; 0 missing; 0 extra"* ]] && ok ||
            bad "$name $mode: validates under its own configuration: exit $rc: $(grep -E '^(agreement|verdict)' <<<"$out")"
    done
    [[ $out == *"cold start: no allowance (--cold)"* ]] && ok || bad "$name: --cold stated"
    for m in "$@"; do
        out=$("$CACHET" validate -c "$cfg" -s "$m" --context 0 --max-diffs 1 "$TMP/$name.tarmac" 2>&1)
        rc=$?
        [ $rc -eq 3 ] && [[ $out =~ "verdict: FAIL (agreement 0."[0-9]{4}" below 1.0000); first divergence: "(line_id|missing|extra)" " ]] &&
            ok || bad "$name with $m: exit $rc, want 3 and a named first divergence: $(grep -E '^(agreement|verdict)' <<<"$out")"
    done
    "$CACHET" infer "$TMP/$name.tarmac" > "$TMP/$name.infer" 2>&1 || bad "$name: infer"
    expect_eq "$(awk '/^\[/ { s = substr($1, 2, length($1) - 2) } /^(size|assoc|line) =/ { g[s] = g[s] " " $3 }
                     END { n = 0; for (s in g) k[++n] = s; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (k[j] < k[i]) { x = k[i]; k[i] = k[j]; k[j] = x }
                           for (i = 1; i <= n; i++) printf "%s%s%s", (i > 1 ? "; " : ""), k[i], g[k[i]] }' "$TMP/$name.infer")" \
        "$want" "$name: cachet infer reads the geometry back"
}

# the mutations of one cache level: size x2 and /2, ways x2 and /2, line x2,
# another replacement policy
cache_mutations() { # LEVEL SIZE ASSOC LINE POLICY
    echo "$1.size=$(($2 * 2)) $1.size=$(($2 / 2)) $1.assoc=$(($3 * 2)) $1.assoc=$(($3 / 2)) $1.line=$(($4 * 2)) $1.replacement=$5"
}
tlb_mutations() { # TLB ENTRIES
    echo "$1.entries=$(($2 * 2)) $1.entries=$(($2 / 2))"
}

# 1. the Fast Models configuration: 64 KiB L2 set span, 64K pages
matrix fm "$SRC/configs/fastmodel-aemv8.ini" "65536 64 48 3000" \
    "l1d 32K 2 64; l1i 32K 2 64; l2 1M 16 64" \
    $(cache_mutations l1i 32768 2 64 fifo) $(cache_mutations l1d 32768 2 64 fifo) l1d.write_back=no \
    $(cache_mutations l2 1048576 16 64 fifo) l2.write_back=no l2.inclusion=inclusive \
    $(tlb_mutations itlb 32) $(tlb_mutations dtlb 32) $(tlb_mutations stlb 1024) \
    walk.granule=4K walk.granule=16K

# 2. another geometry: 32-byte L1 lines, 4-way L1s, a pseudo-LRU 8-way L2
cat > "$TMP/geo.ini" <<'INI'
[system]
indexing = physical
[l1i]
size = 2K
assoc = 4
line = 32
tarmac_name = cpu.cpu{cpu}.l1icache
[l1d]
size = 4K
assoc = 4
line = 32
tarmac_name = cpu.cpu{cpu}.l1dcache
[l2]
size = 32K
assoc = 8
line = 64
replacement = plru
tarmac_name = cluster.l2
INI
matrix geo "$TMP/geo.ini" "4096 32 24 3000" \
    "l1d 4K 4 32; l1i 2K 4 32; l2 32K 8 64" \
    $(cache_mutations l1i 2048 4 32 fifo) $(cache_mutations l1d 4096 4 32 plru) l1d.write_back=no \
    $(cache_mutations l2 32768 8 64 lru) l2.write_back=no l2.inclusion=inclusive

# 3. a write-through L1D that does not allocate on a store miss
cat > "$TMP/wt.ini" <<'INI'
[system]
indexing = physical
[l1i]
size = 8K
assoc = 2
tarmac_name = cpu.cpu{cpu}.l1icache
[l1d]
size = 8K
assoc = 4
write_back = no
write_allocate = no
tarmac_name = cpu.cpu{cpu}.l1dcache
[l2]
size = 128K
assoc = 8
tarmac_name = cluster.l2
INI
matrix wt "$TMP/wt.ini" "16384 64 32 3000" \
    "l1d 8K 4 64; l1i 8K 2 64; l2 128K 8 64" \
    $(cache_mutations l1i 8192 2 64 fifo) $(cache_mutations l1d 8192 4 64 fifo) \
    l1d.write_back=yes l1d.write_allocate=yes \
    $(cache_mutations l2 131072 8 64 fifo) l2.write_back=no l2.inclusion=inclusive

# 4. an inclusive L2
cat > "$TMP/incl.ini" <<'INI'
[system]
indexing = physical
[l1i]
size = 4K
assoc = 2
tarmac_name = cpu.cpu{cpu}.l1icache
[l1d]
size = 4K
assoc = 2
tarmac_name = cpu.cpu{cpu}.l1dcache
[l2]
size = 32K
assoc = 4
inclusion = inclusive
tarmac_name = cluster.l2
INI
matrix incl "$TMP/incl.ini" "8192 64 24 3000" \
    "l1d 4K 2 64; l1i 4K 2 64; l2 32K 4 64" \
    $(cache_mutations l1i 4096 2 64 fifo) $(cache_mutations l1d 4096 2 64 fifo) l1d.write_back=no \
    $(cache_mutations l2 32768 4 64 fifo) l2.write_back=no l2.inclusion=non-inclusive \
    l2.inclusion=exclusive

# 5. TLBs: small first-level TLBs, a 4-way second level, a walk cache, 4K
# pages, the walks through the L1D
cat > "$TMP/tlb.ini" <<'INI'
[system]
indexing = physical
[l1i]
size = 4K
assoc = 2
tarmac_name = cpu.cpu{cpu}.l1icache
[l1d]
size = 8K
assoc = 2
tarmac_name = cpu.cpu{cpu}.l1dcache
[l2]
size = 64K
assoc = 8
tarmac_name = cluster.l2
[itlb]
entries = 8
tarmac_name = cpu.cpu{cpu}.ITLB
tarmac_walk_name = ITLB
[dtlb]
entries = 16
tarmac_name = cpu.cpu{cpu}.DTLB
tarmac_walk_name = DTLB
[stlb]
entries = 128
assoc = 4
tarmac_name = cpu.cpu{cpu}.S1TLB
[walkcache]
entries = 8
tarmac_name = cpu.cpu{cpu}.WALKCACHE
[walk]
granule = 4K
cache = l1d
INI
matrix tlb "$TMP/tlb.ini" "8192 64 48 3000" \
    "l1d 8K 2 64; l1i 4K 2 64; l2 64K 8 64" \
    $(cache_mutations l1i 4096 2 64 fifo) $(cache_mutations l1d 8192 2 64 fifo) l1d.write_back=no \
    $(cache_mutations l2 65536 8 64 fifo) l2.write_back=no l2.inclusion=inclusive \
    $(tlb_mutations itlb 8) $(tlb_mutations dtlb 16) $(tlb_mutations stlb 128) \
    $(tlb_mutations walkcache 8) walk.granule=16K walk.granule=64K
finish
