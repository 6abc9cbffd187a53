# sweep_onepass.sh - one-pass against point-by-point simulation (--no-onepass)
# on sweeps drawn at random from fixed seeds: line sizes of 32 to 128 bytes,
# write-back and write-through, flushed or not, sizes of 1, 3 and 5 times a
# power of two (set counts that are and are not powers of two), 1 to 64 ways
# and full, an L1D alone or an L2 under fixed L1s. Every row must be equal in
# every column from config_hash to mem_writes.
. "$(dirname "$0")/lib.bash"

# sweep SEED: print a sweep file
sweep() { python3 - "$1" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
fl = r.choice(["yes", "no"])
if r.random() < 0.7:
    line = r.choice([32, 64, 128])
    mult = r.choice([1, 1, 3, 5])
    sizes = sorted({r.choice([1, 2, 4, 8, 16, 32]) * mult * 1024 // (2 if mult == 1 else 1)
                    for _ in range(r.randint(2, 4))})
    ways = sorted({1} | {r.choice([2, 3, 4, 6, 8, 12, 16, 32, 64]) for _ in range(r.randint(1, 3))})
    full = " full" if r.random() < 0.6 else ""
    print(f"[system]\nflush_at_end = {fl}\n[l1d]\nline = {line}\n"
          f"write_back = {r.choice(['yes', 'no'])}\n[sweep]\n"
          f"l1d.size = {' '.join(map(str, sizes))}\n"
          f"l1d.assoc = {' '.join(map(str, ways))}{full}")
else:
    l1 = r.choice([32, 64])
    l1i = f"[l1i]\nsize = 2K\nassoc = 2\nline = {l1}\n" if r.random() < 0.5 else ""
    sizes = sorted({r.choice([4, 8, 16, 32, 64]) * r.choice([1, 3]) for _ in range(3)})
    ways = sorted({r.choice([1, 2, 3, 4, 8, 16]) for _ in range(3)})
    print(f"[system]\nflush_at_end = {fl}\n{l1i}[l1d]\nsize = 2K\nassoc = 4\nline = {l1}\n"
          f"write_back = {r.choice(['yes', 'no'])}\n[l2]\nline = {r.choice([l1, 64, 128])}\n"
          f"write_back = {r.choice(['yes', 'no'])}\n[sweep]\n"
          f"l2.size = {' '.join(str(s) + 'K' for s in sizes)}\n"
          f"l2.assoc = {' '.join(map(str, ways))} full")
PY
}

# same A.csv B.csv: the run columns of both files hold the same rows (some)
same() {
    local a
    a=$(run_cols "$1" | sort)
    [ -n "$a" ] && [ "$a" = "$(run_cols "$2" | sort)" ]
}

traces="gen:random:n=40000,footprint=32K,writes=30 gen:stream:n=40000,stride=8,size=8,footprint=16K,writes=40 gen:chase:n=30000,footprint=64K,node=64"
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
    sweep "$seed" >"$TMP/s$seed.ini"
    for t in $traces; do
        if "$CACHET" sweep -q -o "$TMP/a.csv" "$TMP/s$seed.ini" "$t" 2>"$TMP/err" &&
           "$CACHET" sweep -q --no-onepass -o "$TMP/b.csv" "$TMP/s$seed.ini" "$t" 2>>"$TMP/err"; then
            check "seed $seed, $t: one-pass equals simulation" same "$TMP/a.csv" "$TMP/b.csv"
        else
            bad "seed $seed, $t: $(head -c 300 "$TMP/err")"
        fi
    done
done
finish
