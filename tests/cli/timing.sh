# timing.sh - [system] timing = overlap from the command line (rules at the
# top of sim/timing.c): with window = 1 and mshrs = 1 every figure of the
# JSON is blocking's, on the shipped configurations and traces (and a
# corpus trace when CACHET_CORPUS is set); a streaming workload's CPI drops
# with more MSHRs and a pointer chase's does not; the table, JSON and CSV
# carry the overlapped cycles; what overlap does not model is refused.
. "$(dirname "$0")/lib.bash"

# figures FILE: the JSON without what names the configuration
figures() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ('config_hash', 'resolved_config', 'seconds'):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))
PY
}

# in_order CONFIG: the settings that make CONFIG's run in order
in_order() {
    local s
    printf -- '-s\nsystem.timing=overlap\n-s\nsystem.window=1\n'
    for s in $(sed -n 's/^\[\(l[123][id]*\)\]$/\1/p' "$1"); do
        printf -- '-s\n%s.mshrs=1\n' "$s"
    done
}

traces=(workloads/matmul48-blocked.din.zst gen:random:n=20K,footprint=4M,writes=30
        gen:stream:n=20K,stride=24,size=16)
corpus=
if [ -n "${CACHET_CORPUS:-}" ] && [ -d "$CACHET_CORPUS" ]; then
    corpus=$CACHET_CORPUS/drmemtrace/dynamorio-tests/drmemtrace.threadsig.x64.tracedir
fi
for cfg in configs/default.ini configs/cfgA.ini configs/cfgB.ini; do
    mapfile -t sets < <(in_order "$cfg")
    more=()
    [ "$cfg" = configs/default.ini ] && [ -n "$corpus" ] && more=("$corpus")
    for t in "${traces[@]}" "${more[@]}"; do
        [ -e "$t" ] || [[ $t == gen:* ]] || { bad "missing trace $t"; continue; }
        "$CACHET" run -q -c "$cfg" --json "$TMP/b.json" "$t" >/dev/null 2>"$TMP/err" ||
            { bad "blocking $cfg $t: $(head -c 200 "$TMP/err")"; continue; }
        "$CACHET" run -q -c "$cfg" "${sets[@]}" --json "$TMP/o.json" "$t" >/dev/null \
            2>"$TMP/err" || { bad "overlap $cfg $t: $(head -c 200 "$TMP/err")"; continue; }
        expect_eq "$(figures "$TMP/o.json")" "$(figures "$TMP/b.json")" \
            "window 1, mshrs 1 = blocking: $cfg $t"
    done
done

# A stream of 8-byte loads (8 a line) through the built-in L1D and L2: the
# line misses overlap as far as the L1D's MSHRs let them; a pointer chase's
# loads each wait for the one before, whatever the MSHRs.
cpi() { "$CACHET" run -q -s system.timing=overlap -s l1d.mshrs="$2" --json "$TMP/c.json" "$1" \
            >/dev/null && json_get "$TMP/c.json" "d['cpi']"; }
s1=$(cpi gen:stream:n=30K 1); s4=$(cpi gen:stream:n=30K 4); s16=$(cpi gen:stream:n=30K 16)
check "stream: CPI drops from 1 to 4 MSHRs ($s1 -> $s4)" python3 -c "assert $s4 < $s1 / 3"
check "stream: CPI drops from 4 to 16 MSHRs ($s4 -> $s16)" python3 -c "assert $s16 < $s4 / 2"
c1=$(cpi gen:chase:n=10K,footprint=64M 1); c16=$(cpi gen:chase:n=10K,footprint=64M 16)
expect_eq "$c16" "$c1" "chase: the same CPI with 1 and 16 MSHRs"
check "chase: each load waits for memory (CPI $c1)" python3 -c "assert $c1 >= 100"

# The table, JSON and CSV carry the overlapped cycles (two misses at once).
printf '0 0\n0 1000\n' >"$TMP/two.din"
check "run with --json and --csv" "$CACHET" run -q -s system.timing=overlap -s l1d.latency=2 \
    -s memory.latency=100 --json "$TMP/t.json" --csv "$TMP/t.csv" "$TMP/two.din"
"$CACHET" run -s system.timing=overlap -s l1d.latency=2 -s memory.latency=100 \
    "$TMP/two.din" >"$TMP/table"
expect_eq "$(json_get "$TMP/t.json" "(d['cycles'], d['cores'][0]['cycles'])")" "(100, 100)" \
    "JSON: the two misses overlap"
expect_eq "$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; \
print(r['cycles'], r['core_cycles'])" "$TMP/t.csv")" "100 100" "CSV: the two misses overlap"
check "table: the timing line" grep -q "^timing overlap  window 128  base_cpi 0$" "$TMP/table"
"$CACHET" run "$TMP/two.din" >"$TMP/blocking"
check "table: no timing line in blocking" bash -c "! grep -q '^timing' '$TMP/blocking'"

# A sweep of timing = overlap simulates each point (its cycles follow each
# miss's time, which one pass over many geometries does not know): the rows
# carry the cycles of separate runs.
printf '[system]\ntiming = overlap\n[l1d]\nsize = 4K\n[l2]\nsize = 64K\n' >"$TMP/ov.ini"
printf 'base = ov.ini\n[sweep]\nl2.size = 16K 64K\n' >"$TMP/sw.ini"
check "overlap sweep" "$CACHET" sweep -q -j 1 -o "$TMP/sw.csv" "$TMP/sw.ini" \
    gen:random:n=20K,footprint=256K
# cycles_of CSV [SIZE]: the cycles of the rows (of that l2.size)
cycles_of() { python3 -c "import csv, sys
print(sorted({r['cycles'] for r in csv.DictReader(open(sys.argv[1]))
              if len(sys.argv) < 3 or r['l2.size'] == sys.argv[2]}))" "$@"; }
for size in 16384 65536; do
    "$CACHET" run -q -c "$TMP/ov.ini" -s l2.size=$size --csv "$TMP/p.csv" \
        gen:random:n=20K,footprint=256K >/dev/null
    expect_eq "$(cycles_of "$TMP/sw.csv" $size)" "$(cycles_of "$TMP/p.csv")" \
        "sweep point l2.size=$size has the run's cycles"
done

# Refused: drcachesim's counting has no time.
expect_status 2 "compat = drcachesim refuses overlap" \
    "$CACHET" run --compat drcachesim -s system.timing=overlap "$TMP/two.din"
expect_err_contains "compat = drcachesim counts no time" "compat refusal names the reason"
expect_status 2 "a bad base_cpi" "$CACHET" run -s system.base_cpi=0.1234 "$TMP/two.din"
expect_err_contains "at most 3 decimals" "base_cpi refusal names the reason"

finish
