#!/bin/bash
# model_cases.sh - tiny hand-checkable cases of the model's rules (sim/hier.c
# and the policies), each on a din trace of a few accesses whose outcome
# can be worked out on paper.
source "$(dirname "$0")/lib.bash"

# run_case NAME: run $TMP/NAME.ini on $TMP/NAME.din into $TMP/NAME.json
run_case() {
    if ! "$CACHET" run -q -c "$TMP/$1.ini" --json "$TMP/$1.json" "$TMP/$1.din" 2>"$TMP/err"; then
        bad "$1: run failed: $(head -c 300 "$TMP/err")"
        return 1
    fi
}
# lv FILE LEVEL EXPR: a field of a level of a JSON result
lv() { json_get "$1" "[l for l in d['levels'] if l['name']=='$2'][0]$3"; }

# SRRIP: a hit right after a fill promotes the line. One set of 2 ways,
# blocks A (0), B (40), C (80): A fills at RRPV 2, the hit at 4 makes it 0,
# B fills at 2; C finds no 3, ages both (A 1, B 3) and evicts B, so B
# misses again: 1 hit. (Without the promotion C evicts A and B hits.)
cat > "$TMP/rrip.ini" <<'INI'
[l1d]
size = 64
assoc = 2
line = 32
replacement = srrip
INI
printf '0 0\n0 4\n0 40\n0 80\n0 40\n' > "$TMP/rrip.din"
if run_case rrip; then
    expect_eq "$(lv "$TMP/rrip.json" l1d "['hits']")" 1 "srrip: hit after fill promotes"
fi

# Two exclusive levels: a dirty line moving up from the L3 through the L2
# keeps its dirty state. A (0) is stored, B (0x40) evicts it to the L2
# dirty, C (0x80) evicts B to the L2, which passes A down to the L3; the
# load of A moves it up through the L2 to the L1D, dirty, and the flush at
# the end writes it to memory: 1 memory write (3 memory reads, A B C).
cat > "$TMP/excl2.ini" <<'INI'
[system]
flush_at_end = yes
[l1d]
size = 64
assoc = 1
line = 32
[l2]
size = 64
assoc = 1
line = 32
inclusion = exclusive
[l3]
size = 256
assoc = 4
line = 32
inclusion = exclusive
INI
printf '1 0\n0 40\n0 80\n0 0\n' > "$TMP/excl2.din"
if run_case excl2; then
    expect_eq "$(json_get "$TMP/excl2.json" "d['memory']['writes']")" 1 \
        "two exclusive levels: the dirty line reaches memory"
    expect_eq "$(json_get "$TMP/excl2.json" "d['memory']['reads']")" 3 \
        "two exclusive levels: memory reads"
fi

# A write-through L1D above an exclusive L2: the store's bytes pass the L2
# on their way to memory without filling it (lines enter an exclusive level
# only as victims from above). The store to A misses the L1D (memory read
# 1), fills it and writes through: the L2 misses, memory write 1; B (0x40)
# maps to A's L1D line: memory read 2, and A, clean, falls into the L2.
cat > "$TMP/wtexcl.ini" <<'INI'
[l1d]
size = 64
assoc = 1
line = 32
write_back = no
[l2]
size = 256
assoc = 2
line = 32
inclusion = exclusive
INI
printf '1 0\n0 40\n' > "$TMP/wtexcl.din"
if run_case wtexcl; then
    expect_eq "$(json_get "$TMP/wtexcl.json" "d['memory']['reads']")" 2 \
        "write-through above exclusive: memory reads"
    expect_eq "$(json_get "$TMP/wtexcl.json" "d['memory']['writes']")" 1 \
        "write-through above exclusive: memory writes"
fi

finish
