# validate_cpus.sh - Tarmac traces of several cpus and of non-secure
# regimes, replayed and validated: each traced cpu runs on a core of its
# own (its caches, TLBs, ASID and walk lines), and the TLB lines of a
# non-secure regime (_NS after the virtual base) match the model's.
source "$(dirname "$0")/lib.bash"
CFG=$SRC/configs/fastmodel-aemv8.ini

# Two cpus at EL1, non-secure, on configs/fastmodel-aemv8.ini with 2 cores
# (32K 2-way L1s: 256 sets; 1M 16-way L2: 1024 sets; LINE = set x ways +
# way; 64K pages, the walker reads the trace's level-3 descriptors through
# the core's L1D). Worked out by hand:
#  time 1, cpu0 fetches 0x10040: its ITLB walk reads 0x30000008 (L1D and L2
#    set 0, way 0: LINE 0000 in both), fills ITLB and S1TLB with the 64K page
#    0x20010000, then the fetch allocates 0x20010040 (L1I set 1: LINE 0002;
#    L2 set 1: LINE 0010);
#  time 2, cpu1 (ASID 5) does the same through its own tables at 0x31000000:
#    its own L1D LINE 0000, the shared L2's set 0 way 1 (LINE 0001); its own
#    ITLB, S1TLB and L1I (LINE 0002); L2 set 1 way 1 (LINE 0011);
#  time 3, cpu1 loads 0x20000: its DTLB walk reads 0x31000010 (an L1D hit),
#    fills DTLB and S1TLB with the not-global page 0x22020000 (asid 5), and
#    the load allocates 0x22020000 (L1D set 0 way 1: LINE 0001; L2 set 0 way
#    2: LINE 0002).
cat >"$TMP/two.tarmac" <<'T'
1 clk cpu0 TTW ITLB LPAE 1:3 000030000008_NS 0000000020010443 : BLOCK ATTRIDX=0 NS=0 AP=1 SH=0 AF=1 nG=0 ADDR=0x0000000020010000
1 clk cpu0 IT (1) 00010040:000020010040_NS d503201f O EL1h_n : NOP
1 clk cpu0 CACHE cpu.cpu0.l1dcache LINE 0000 ALLOC 0x000030000000_NS
1 clk cpu0 CACHE Validation_ARMAEMv8AMPCT.cpu.l2_cache LINE 0000 ALLOC 0x000030000000_NS
1 clk cpu0 TLB FILL cpu.cpu0.ITLB 64K 0x00010000_NS EL1_n vmid=0:0x0020010000_NS Normal
1 clk cpu0 TLB FILL cpu.cpu0.S1TLB 64K 0x00010000_NS EL1_n vmid=0:0x0020010000_NS Normal
1 clk cpu0 CACHE cpu.cpu0.l1icache LINE 0002 ALLOC 0x000020010040_NS
1 clk cpu0 CACHE Validation_ARMAEMv8AMPCT.cpu.l2_cache LINE 0010 ALLOC 0x000020010040_NS
2 clk cpu1 R TTBR0_EL1 00050000:31000000
2 clk cpu1 TTW ITLB LPAE 1:3 000031000008_NS 0000000021010443 : BLOCK ATTRIDX=0 NS=0 AP=1 SH=0 AF=1 nG=0 ADDR=0x0000000021010000
2 clk cpu1 IT (1) 00010040:000021010040_NS d503201f O EL1h_n : NOP
2 clk cpu1 CACHE cpu.cpu1.l1dcache LINE 0000 ALLOC 0x000031000000_NS
2 clk cpu1 CACHE Validation_ARMAEMv8AMPCT.cpu.l2_cache LINE 0001 ALLOC 0x000031000000_NS
2 clk cpu1 TLB FILL cpu.cpu1.ITLB 64K 0x00010000_NS EL1_n vmid=0:0x0021010000_NS Normal
2 clk cpu1 TLB FILL cpu.cpu1.S1TLB 64K 0x00010000_NS EL1_n vmid=0:0x0021010000_NS Normal
2 clk cpu1 CACHE cpu.cpu1.l1icache LINE 0002 ALLOC 0x000021010040_NS
2 clk cpu1 CACHE Validation_ARMAEMv8AMPCT.cpu.l2_cache LINE 0011 ALLOC 0x000021010040_NS
3 clk cpu1 IT (2) 00010044:000021010044_NS f9400000 O EL1h_n : LDR x0,[x0]
3 clk cpu1 TTW DTLB LPAE 1:3 000031000010_NS 0000000022020c43 : BLOCK ATTRIDX=0 NS=0 AP=1 SH=0 AF=1 nG=1 ADDR=0x0000000022020000
3 clk cpu1 MR8 00020000:000022020000_NS 00000000_00000000
3 clk cpu1 TLB FILL cpu.cpu1.DTLB 64K 0x00020000_NS EL1_n vmid=0, nG asid=5:0x0022020000_NS Normal
3 clk cpu1 TLB FILL cpu.cpu1.S1TLB 64K 0x00020000_NS EL1_n vmid=0, nG asid=5:0x0022020000_NS Normal
3 clk cpu1 CACHE cpu.cpu1.l1dcache LINE 0001 ALLOC 0x000022020000_NS
3 clk cpu1 CACHE Validation_ARMAEMv8AMPCT.cpu.l2_cache LINE 0002 ALLOC 0x000022020000_NS
T

# the model's events: cpu1's accesses on core 1, in cpu1's structures
expect_status 0 "run --events, 2 cores" "$CACHET" run -q -c "$CFG" -s system.cores=2 \
    --events "$TMP/ev.tarmac" "$TMP/two.tarmac"
for line in "2 clk cpu1 CACHE cpu.cpu1.l1dcache LINE 0000 ALLOC 0x000031000000_NS" \
            "2 clk cpu1 CACHE cpu.cpu1.l1icache LINE 0002 ALLOC 0x000021010040_NS" \
            "3 clk cpu1 CACHE cpu.cpu1.l1dcache LINE 0001 ALLOC 0x000022020000_NS" \
            "2 clk cpu1 TTW ITLB LPAE 1:3 000031000008_NS 0000000021010443 : BLOCK ADDR=0x0000000021010000" \
            "3 clk cpu1 TLB FILL cpu.cpu1.DTLB 64K 0x00020000_NS, nG asid=5:0x0022020000_NS"; do
    grep -qxF "$line" "$TMP/ev.tarmac" && ok || bad "event of cpu1 on core 1: $line"
done
expect_eq "$(grep -c ' cpu1 .*cpu\.cpu0\.' "$TMP/ev.tarmac")" "0" "no cpu1 event in core 0's structures"
expect_eq "$(grep -c ' cpu0 .*cpu\.cpu1\.' "$TMP/ev.tarmac")" "0" "no cpu0 event in core 1's structures"

# every line of the 2-cpu reference matched
expect_status 0 "validate 2 cpus on 2 cores" "$CACHET" validate -c "$CFG" -s system.cores=2 \
    --json "$TMP/v.json" "$TMP/two.tarmac"
expect_eq "$(json_get "$TMP/v.json" "d['totals']['matched'], d['totals']['missing'], d['totals']['extra'], d['agreement']")" \
    "19 0 0 1.0" "2 cpus: 19 of 19 matched"
expect_eq "$(json_get "$TMP/v.json" "[s['ops']['ALLOC']['matched'] for s in d['structures'] if s['name'] in ('cpu.cpu1.l1icache', 'cpu.cpu1.l1dcache')]")" \
    "[1, 2]" "cpu1's own L1s matched"
# on one core cpu1's lines find no partner
expect_status 3 "validate 2 cpus on 1 core" "$CACHET" validate -c "$CFG" --json "$TMP/v1.json" "$TMP/two.tarmac"
expect_eq "$(json_get "$TMP/v1.json" "sorted(s['name'] for s in d['structures'] if s['name'].startswith('cpu.cpu1') and s['level'] is None)")" \
    "['cpu.cpu1.DTLB', 'cpu.cpu1.ITLB', 'cpu.cpu1.S1TLB', 'cpu.cpu1.l1dcache', 'cpu.cpu1.l1icache']" \
    "one core: cpu1's structures unmapped"

# A non-secure EL1 load: the TLB line's virtual base is _NS (the regime's
# security, from the mode EL1h_n), and so is the model's: 1 matched.
cat >"$TMP/ns.tarmac" <<'T'
1 clk cpu0 IT (1) 00001000:000055554000_NS f9400000 O EL1h_n : LDR x0,[x1]
1 clk cpu0 MR8 00011008:000055555008_NS 00000000_00000000
1 clk cpu0 TLB FILL cpu.cpu0.DTLB 4K 0x00011000_NS EL1_n, nG asid=0:0x0055555000_NS
T
printf '[dtlb]\nentries = 4\ntarmac_name = cpu.cpu{cpu}.DTLB\n' >"$TMP/ns.ini"
expect_status 0 "validate a non-secure TLB line" "$CACHET" validate -c "$TMP/ns.ini" \
    --json "$TMP/ns.json" "$TMP/ns.tarmac"
expect_eq "$(json_get "$TMP/ns.json" "d['totals']['matched'], d['totals']['missing'], d['totals']['extra']")" \
    "1 0 0" "non-secure TLB FILL matched"
# the same load at secure EL3 (no _NS on the virtual base): matched too
sed -e 's/EL1h_n/EL3h_s/' -e 's/0x00011000_NS EL1_n/0x00011000/' "$TMP/ns.tarmac" >"$TMP/s.tarmac"
expect_status 0 "validate a secure TLB line" "$CACHET" validate -c "$TMP/ns.ini" "$TMP/s.tarmac"
# the regimes differ: a secure model entry does not match a non-secure line
sed -e 's/EL1h_n/EL3h_s/' "$TMP/ns.tarmac" >"$TMP/mixed.tarmac"
expect_status 3 "a non-secure line is not a secure entry" "$CACHET" validate -c "$TMP/ns.ini" \
    --json "$TMP/m.json" "$TMP/mixed.tarmac"
expect_eq "$(json_get "$TMP/m.json" "d['totals']['missing'], d['totals']['extra']")" "1 1" \
    "secure model entry, non-secure line: 1 missing, 1 extra"
finish
