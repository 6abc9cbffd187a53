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

# The 3C split (sim/classify.h, DineroIV's definition): the shadow
# fully-associative cache has the level's policy and fills as the level
# does. Two lines of 32 B, direct-mapped, FIFO: A (0), B (0x20), A hits, C
# (0x40) evicts A here; the FIFO shadow evicts A too (the oldest fill, the
# hit does not count), so A's last miss is a capacity miss (an LRU shadow
# would still hold A: conflict). DineroIV 7 -l1-dsize 64 -l1-dassoc 1
# -l1-dbsize 32 -l1-drepl f -l1-dccc gives 3 compulsory, 1 capacity.
cat > "$TMP/fifo3c.ini" <<'INI'
[system]
miss_classes = yes
[l1d]
size = 64
assoc = 1
line = 32
replacement = fifo
INI
printf '0 0\n0 20\n0 0\n0 40\n0 0\n' > "$TMP/fifo3c.din"
if run_case fifo3c; then
    expect_eq "$(lv "$TMP/fifo3c.json" l1d "['capacity']"),$(lv "$TMP/fifo3c.json" l1d "['conflict']")" \
        1,0 "3C under FIFO: the FIFO shadow"
fi
# Without write-allocate a write miss fills neither the level nor the
# shadow: the store to A (compulsory) leaves no line, so the load of A
# misses the shadow too: capacity, not conflict (DineroIV 7 with
# -l1-dwalloc n -l1-dwback n: 1 compulsory, 1 capacity).
cat > "$TMP/noalloc3c.ini" <<'INI'
[system]
miss_classes = yes
[l1d]
size = 64
assoc = 1
line = 32
write_back = no
write_allocate = no
INI
printf '1 0\n0 0\n' > "$TMP/noalloc3c.din"
if run_case noalloc3c; then
    expect_eq "$(lv "$TMP/noalloc3c.json" l1d "['compulsory']"),$(lv "$TMP/noalloc3c.json" l1d "['capacity']"),$(lv "$TMP/noalloc3c.json" l1d "['conflict']")" \
        1,1,0 "3C without write-allocate: the shadow does not fill"
fi

# The flush at the end takes a set's lines from the least recently used
# (DineroIV's copy-back order), which decides what the write-backs evict
# below. A 2-way L1D holds B (way 0, most recent) and A (way 1), both
# dirty; the one-line L2 holds A. A goes first and hits; B misses and
# evicts A: 1 write-back miss (way order, B first, misses twice). DineroIV
# 7 -l1-dsize 128 -l1-dbsize 64 -l1-dassoc 2 -l2-usize 64 -l2-ubsize 64:
# L2 write misses 1, 128 bytes to memory.
cat > "$TMP/flushorder.ini" <<'INI'
[system]
flush_at_end = yes
[l1d]
size = 128
assoc = 2
line = 64
[l2]
size = 64
assoc = 1
line = 64
INI
printf '1 40\n1 0\n0 40\n' > "$TMP/flushorder.din"
if run_case flushorder; then
    expect_eq "$(lv "$TMP/flushorder.json" l2 "['by_kind']['writeback']['misses']"),$(json_get "$TMP/flushorder.json" "d['memory']['writes']")" \
        1,2 "flush at the end in LRU order"
fi

# An inclusive level holds every line of the levels above, also one that
# a write covering the whole line would fill without a fetch: above an
# inclusive L2 that line is fetched (a miss at the L2, which fills it).
cat > "$TMP/inclfill.ini" <<'INI'
[l1d]
size = 64
assoc = 1
line = 4
[l2]
size = 256
assoc = 1
line = 4
inclusion = inclusive
INI
printf '1 0\n' > "$TMP/inclfill.din"
if run_case inclfill; then
    expect_eq "$(lv "$TMP/inclfill.json" l2 "['misses']")" 1 \
        "a whole-line write above an inclusive level fills it there too"
fi

# cachet config refuses what run refuses: an exclusive level needs the
# line size of the level above it.
printf '[l1d]\nsize = 1K\nline = 32\n[l2]\nsize = 4K\nline = 64\ninclusion = exclusive\n' > "$TMP/exline.ini"
expect_status 2 "config: exclusive level with another line size" "$CACHET" config -c "$TMP/exline.ini"
expect_err_contains "an exclusive level needs the 32-byte line" "config: the reason"

# The fetch for a store miss is a read at the next level (DineroIV sends
# it down as a read); a write-through keeps the store's kind. Store to A
# in a write-through L1D above an L2: the L2 sees one load (the fetch) and
# one store (the bytes written through).
# Bytes moved per level (DineroIV's Bytes From/To Memory of each cache):
# the L1D fetches a line (32 bytes from below) and writes the store's 4
# bytes through (4 to below); the L2 fetches the line (32) and, dirty from
# the store, writes it back when everything is copied back at the end
# (32). DineroIV 7 -l1-dsize 64 -l1-dbsize 32 -l1-dwback n -l2-usize 256
# -l2-ubsize 32 -l2-uassoc 2: L1D 32 / 4 bytes, L2 32 / 32.
# (the hierarchy of the wtexcl case above, with a non-inclusive L2)
{ printf '[system]\nflush_at_end = yes\n'; grep -v '^inclusion' "$TMP/wtexcl.ini"; } > "$TMP/fetchkind.ini"
printf '1 0\n' > "$TMP/fetchkind.din"
if run_case fetchkind; then
    expect_eq "$(lv "$TMP/fetchkind.json" l2 "['by_kind']['load']['accesses']"),$(lv "$TMP/fetchkind.json" l2 "['by_kind']['store']['accesses']")" \
        1,1 "a store miss's fetch is a read below"
    expect_eq "$(lv "$TMP/fetchkind.json" l1d "['bytes_from_below']"),$(lv "$TMP/fetchkind.json" l1d "['bytes_to_below']"),$(lv "$TMP/fetchkind.json" l2 "['bytes_from_below']"),$(lv "$TMP/fetchkind.json" l2 "['bytes_to_below']")" \
        32,4,32,32 "bytes from and to below"
fi

# Din label 3 (an access of unknown type) is kind misc, simulated as a
# read and fetched below as misc, as DineroIV does. A 64-byte direct-mapped
# L1D of 32-byte lines: misc 0 misses (the L2 sees a misc miss), the load
# of 4 hits, misc 40 misses, misc 44 hits: misc 3 accesses, 2 misses; the
# L2 2 misc misses. DineroIV 7 (-l1-dsize 64 -l1-dbsize 32 -l2-usize 256
# -l2-ubsize 32): L1D Misc fetches 3, misses 2; L2 Misc misses 2.
cat > "$TMP/misc.ini" <<'INI'
[l1d]
size = 64
assoc = 1
line = 32
[l2]
size = 256
assoc = 1
line = 32
INI
printf '3 0\n0 4\n3 40\n3 44\n' > "$TMP/misc.din"
if run_case misc; then
    expect_eq "$(lv "$TMP/misc.json" l1d "['by_kind']['misc']['accesses']"),$(lv "$TMP/misc.json" l1d "['by_kind']['misc']['misses']"),$(lv "$TMP/misc.json" l1d "['by_kind']['load']['hits']"),$(lv "$TMP/misc.json" l2 "['by_kind']['misc']['misses']")" \
        3,2,1,2 "din label 3 is a misc read"
fi

# write_allocate = nofetch (DineroIV's -walloc f): a store miss allocates
# only when it covers the whole line. With 4-byte lines the store of a din
# word fills without a fetch and the load after it hits (0 memory reads);
# with 32-byte lines it does not allocate and the load misses. write_back
# = nofetch (-wback f) writes back like yes: the stored line is dirty and
# is written back when the load of 0x40 evicts it (1 write-back).
# DineroIV 7 on the first 200,000 references of 093.nasa7 with
# -l1-dsize 2k -l1-dassoc 1: read/write misses 526/8675 with -l1-dbsize 4
# -l1-dwalloc f (as a), 431/8797 with -l1-dbsize 16 -l1-dwalloc f (as n).
printf '[l1d]\nsize = 64\nassoc = 1\nline = 4\nwrite_allocate = nofetch\n' > "$TMP/wanf4.ini"
printf '[l1d]\nsize = 64\nassoc = 1\nline = 32\nwrite_allocate = nofetch\nwrite_back = nofetch\n' > "$TMP/wanf32.ini"
printf '1 0\n0 0\n' > "$TMP/wanf4.din"
printf '1 0\n0 0\n1 4\n0 40\n' > "$TMP/wanf32.din"
if run_case wanf4 && run_case wanf32; then
    expect_eq "$(lv "$TMP/wanf4.json" l1d "['by_kind']['load']['hits']"),$(json_get "$TMP/wanf4.json" "d['memory']['reads']"),$(lv "$TMP/wanf32.json" l1d "['by_kind']['load']['misses']"),$(lv "$TMP/wanf32.json" l1d "['by_kind']['store']['hits']"),$(lv "$TMP/wanf32.json" l1d "['writebacks']")" \
        1,0,2,1,1 "nofetch write policies"
fi

# [system] flush_every = N (DineroIV's -flushcount N): after every N
# accesses every dirty line is written back and every level invalidated,
# which also forgets the 3C history. Store A, load A (a hit), the flush
# (1 write-back), load A: a miss again, compulsory again (2 misses, both
# compulsory). DineroIV 7 -flushcount 10000 on the first 200,000 nasa7
# references (L1I 2K 2-way, L1D 4K 4-way, 32-byte lines, L2 32K 4-way
# 64-byte lines, -ccc at each): L1D 1639 misses, 1542 compulsory, 32
# capacity, 65 conflict; L2 1396 misses, 1390 compulsory, as cachet.
cat > "$TMP/flush.ini" <<'INI'
[system]
miss_classes = yes
flush_every = 2
[l1d]
size = 64
assoc = 1
line = 32
INI
printf '1 0\n0 0\n0 0\n' > "$TMP/flush.din"
if run_case flush; then
    expect_eq "$(lv "$TMP/flush.json" l1d "['misses']"),$(lv "$TMP/flush.json" l1d "['by_kind']['load']['compulsory']"),$(lv "$TMP/flush.json" l1d "['writebacks']"),$(json_get "$TMP/flush.json" "d['memory']['writes']")" \
        2,1,1,1 "flush_every writes back, invalidates and forgets the 3C history"
fi

# Din labels 4 (copy back) and 5 (invalidate) act on the block of the
# record's address at every level, as DineroIV 7 does (its din reader gives
# every record 4 bytes, and d4copyback / d4invalidate of a size above 0 act
# on one block): label 4 on the data side, label 5 on the instruction side
# and the data side. A 256-byte direct-mapped L1D of 32-byte lines: loads
# of 0 and 0x40 miss, label 5 drops 0's line only, so 0 misses again and
# 0x40 hits: 3 misses. The 3C split: 0's second miss is a capacity miss
# (the line was seen; the shadow lost it with the level). DineroIV 7
# -l1-dsize 256 -l1-dbsize 32 -l1-dccc: 3 misses, 2 compulsory, 1 capacity.
printf '[system]\nmiss_classes = yes\nflush_at_end = yes\n[l1d]\nsize = 256\nassoc = 1\nline = 32\n' > "$TMP/inval1.ini"
printf '0 0\n0 40\n5 0\n0 0\n0 40\n' > "$TMP/inval1.din"
if run_case inval1; then
    expect_eq "$(lv "$TMP/inval1.json" l1d "['misses']"),$(lv "$TMP/inval1.json" l1d "['compulsory']"),$(lv "$TMP/inval1.json" l1d "['capacity']")" \
        3,2,1 "din label 5 invalidates one block"
fi
# An L1I and an L1D of 256 B (32-byte lines) above a 1 KiB direct-mapped L2
# of 64-byte lines. Fetch 0; stores to 0x40 and 0x80 (two L2 read misses);
# label 4 at 0x40 writes that line to the L2 (a write hit), which writes its
# 64-byte block to memory; 0x80 stays dirty. Label 5 at 0 drops 0 from the
# L1I and the L2: the fetch of 0 misses both again. The load of 0x80 hits.
# The copy-back at the end writes 0x80 down (L1D 2 x 32 bytes to the L2,
# L2 2 x 64 to memory). DineroIV 7 (-l1-isize 256 -l1-ibsize 32 -l1-dsize
# 256 -l1-dbsize 32 -l2-usize 1024 -l2-ubsize 64): L1I misses 2, L1D read
# misses 0, write misses 2, bytes to memory 64; L2 misses 4 (instrn 2, read
# 2), write fetches 2, bytes from memory 256, to memory 128.
printf '[system]\nflush_at_end = yes\n[l1i]\nsize = 256\nassoc = 1\nline = 32\n[l1d]\nsize = 256\nassoc = 1\nline = 32\n[l2]\nsize = 1K\nassoc = 1\nline = 64\n' > "$TMP/cb1.ini"
printf '2 0\n1 40\n1 80\n4 40\n5 0\n2 0\n0 80\n' > "$TMP/cb1.din"
if run_case cb1; then
    expect_eq "$(lv "$TMP/cb1.json" l1i "['misses']"),$(lv "$TMP/cb1.json" l1d "['by_kind']['load']['misses']"),$(lv "$TMP/cb1.json" l1d "['bytes_to_below']"),$(lv "$TMP/cb1.json" l2 "['misses']"),$(lv "$TMP/cb1.json" l2 "['by_kind']['writeback']['accesses']"),$(lv "$TMP/cb1.json" l2 "['bytes_from_below']"),$(lv "$TMP/cb1.json" l2 "['bytes_to_below']")" \
        2,0,64,4,2,256,128 "din label 4 copies back one block at every level"
fi

# Sub-blocks (subblock = BYTES, DineroIV's -sbsize): valid and dirty bits per
# sub-block. A 64-byte direct-mapped L1D of 32-byte lines and 8-byte
# sub-blocks: load 0 misses and fetches its sub-block (8 bytes), load 4
# hits it, load 8 misses sub-block 1 of the resident line (8 more bytes),
# the store to 0x10 misses sub-block 2 and fetches it (the 4 bytes do not
# cover it; 8 more), the store to 0x14 hits; the copy-back at the end
# writes the one dirty sub-block: 3 misses, 2 hits, 24 bytes from below, 8
# to below. Without write-allocate a store to an invalid sub-block of a
# resident line makes it valid and dirty without a fetch, and the load
# after it hits: load 0, store 8, load 8 give 2 misses, 1 hit, 8 bytes
# each way. DineroIV 7 (-l1-dsize 64 -l1-dbsize 32 -l1-dsbsize 8, and
# -l1-dwalloc n): the same misses and bytes.
printf '[system]\nflush_at_end = yes\n[l1d]\nsize = 64\nassoc = 1\nline = 32\nsubblock = 8\n' > "$TMP/sb.ini"
printf '0 0\n0 4\n0 8\n1 10\n1 14\n' > "$TMP/sb.din"
{ cat "$TMP/sb.ini"; printf 'write_allocate = no\n'; } > "$TMP/sbna.ini"
printf '0 0\n1 8\n0 8\n' > "$TMP/sbna.din"
if run_case sb && run_case sbna; then
    expect_eq "$(lv "$TMP/sb.json" l1d "['misses']"),$(lv "$TMP/sb.json" l1d "['hits']"),$(lv "$TMP/sb.json" l1d "['bytes_from_below']"),$(lv "$TMP/sb.json" l1d "['bytes_to_below']")" \
        3,2,24,8 "sub-blocks: fetched, valid and written back one by one"
    expect_eq "$(lv "$TMP/sbna.json" l1d "['misses']"),$(lv "$TMP/sbna.json" l1d "['hits']"),$(lv "$TMP/sbna.json" l1d "['bytes_from_below']"),$(lv "$TMP/sbna.json" l1d "['bytes_to_below']")" \
        2,1,8,8 "sub-blocks: a store without write-allocate fills a resident line's sub-block"
fi
expect_status 2 "subblock larger than the line" "$CACHET" run -q -c "$TMP/sb.ini" -s l1d.subblock=64 "$TMP/sb.din"
expect_err_contains "[l1d] subblock: 64 is not a power of two dividing the 32-byte line" \
    "subblock larger than the line: the reason"

# DineroIV's fetch policies as prefetchers (sim/prefetch/dinero.c): with
# prefetcher = always a 64-byte direct-mapped L1D of 32-byte lines, after
# each demand read, prefetches the sub-block (here the line) one ahead.
# Load 0 misses, prefetch 0x20 misses; load 0x20 hits, prefetch 0x40
# misses and evicts 0; load 0 misses, prefetch 0x20 hits: loads 2 misses,
# prefetches 3 accesses, 2 misses, 4 lines from below. DineroIV 7
# (-l1-dsize 64 -l1-dbsize 32 -l1-dfetch a): demand misses 2, prefetch
# fetches 3, prefetch misses 2, 128 bytes from memory.
printf '[l1d]\nsize = 64\nassoc = 1\nline = 32\nprefetcher = always\n' > "$TMP/fpa.ini"
printf '0 0\n0 20\n0 0\n' > "$TMP/fpa.din"
if run_case fpa; then
    expect_eq "$(lv "$TMP/fpa.json" l1d "['by_kind']['load']['misses']"),$(lv "$TMP/fpa.json" l1d "['by_kind']['hwprefetch']['accesses']"),$(lv "$TMP/fpa.json" l1d "['by_kind']['hwprefetch']['misses']"),$(lv "$TMP/fpa.json" l1d "['bytes_from_below']")" \
        2,3,2,128 "fetch policy always: one sub-block ahead after every read"
fi

# cachet run --interval N (DineroIV's -stat-interval N): after every N
# accesses a CSV row per level with the counts so far (cumulative), then
# the final rows. A 64-byte direct-mapped L1D: loads of 0, 40, 0, 4 miss,
# miss, miss, hit: 2 misses after 2 accesses, 3 after 4, and the final
# row the same. DineroIV 7 -stat-interval 1000 on the first 3,000 nasa7
# references (L1D 2K 2-way 32-byte lines write-through no-allocate, L2 16K
# 4-way 64-byte lines) prints L1D misses 89, 489, 874 and L2 misses 50,
# 75, 101, bytes and kinds too, as cachet's interval rows.
printf '[l1d]\nsize = 64\nassoc = 1\nline = 32\n' > "$TMP/iv.ini"
printf '0 0\n0 40\n0 0\n0 4\n' > "$TMP/iv.din"
if "$CACHET" run -q -c "$TMP/iv.ini" --interval 2 --csv "$TMP/iv.csv" "$TMP/iv.din" 2>"$TMP/err"; then
    expect_eq "$(python3 -c "import csv,sys; print(' '.join(r['trace_accesses'] + ':' + r['misses'] for r in csv.DictReader(open(sys.argv[1]))))" "$TMP/iv.csv")" \
        "2:2 4:3 4:3" "--interval rows are cumulative"
else
    bad "run --interval failed: $(head -c 300 "$TMP/err")"
fi
expect_status 1 "--interval without --csv" "$CACHET" run -q -c "$TMP/iv.ini" --interval 2 "$TMP/iv.din"
expect_err_contains "give --csv FILE too" "--interval without --csv: the reason"

finish
