# lib.bash - helpers for the command-line tests (sourced, not run).
# Each test script: source lib.bash, call check/expect_*, end with `finish`.
CACHET=${1:?usage: $0 PATH-TO-cachet}
SRC=${CACHET_SRC:-$(pwd)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# check DESCRIPTION COMMAND...: the command must succeed
check() { local d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }

# expect_status WANT DESCRIPTION COMMAND...: exit status must be WANT
expect_status() {
    local want=$1 d=$2; shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$d: exit $got, want $want ($(head -c 300 "$TMP/err"))"; fi
}

# expect_err_contains TEXT DESCRIPTION: the last expect_status stderr must contain TEXT
expect_err_contains() {
    if grep -qF -- "$1" "$TMP/err"; then ok; else bad "$2: stderr lacks '$1': $(head -c 300 "$TMP/err")"; fi
}

# json_get FILE EXPR: print a value from a JSON file (python3 expression on d)
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# run_cols FILE [TRACE POINT]: the run columns (config_hash to mem_writes) of a
# sweep or run CSV, a row a line; with TRACE and POINT only that point's rows
run_cols() { python3 - "$@" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
hdr = list(csv.reader(open(sys.argv[1])))[0]
cols = hdr[hdr.index('config_hash'):hdr.index('mem_writes') + 1]
for r in rows:
    if len(sys.argv) > 2 and (r['trace'] != sys.argv[2] or r.get('point', sys.argv[3]) != sys.argv[3]):
        continue
    print(','.join(r[c] for c in cols))
PY
}

# expect_eq GOT WANT DESCRIPTION
expect_eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi; }

# corpus_traces: every real trace of the corpus, a path a line (Tarmac, din,
# VIXL and drmemtrace files, then trace directories; not the 61 M-access
# sample, which the benchmarks use)
corpus_traces() {
    find "$CACHET_CORPUS" -path '*/drmemtrace_samples' -prune -o -type f \
        \( -name '*.tarmac' -o -name '*.din*' -o -name 'log-*' -o -name '*.trace' \
           -o -name '*.trace.zip' -o -name '*.trace.gz' \) -print | grep -v '\.tracedir/' | sort
    find "$CACHET_CORPUS" -path '*/drmemtrace_samples' -prune -o -type d \
        -name '*.tracedir' -print | sort
}

# corpus PATH: skip the whole test (exit 77) when CACHET_CORPUS is unset
need_corpus() {
    if [ -z "${CACHET_CORPUS:-}" ] || [ ! -d "$CACHET_CORPUS" ]; then
        echo "skipped: CACHET_CORPUS is not set (real-trace tests need ../shared/traces)"
        exit 77
    fi
}

# fm_example: print the path of the example trace of the Arm Fast Models
# Reference Guide ("TarmacTrace file format": its AEMv8 lines from time 1939
# to 1954, with CACHE, TLB and TTW events), cut at test time from that
# seed document in ../shared/seeds (found beside CACHET_CORPUS): the
# repository keeps no copy of it. Fails when the document is not there.
fm_example() {
    local seeds=${CACHET_CORPUS:-/nonexistent}/../seeds doc
    doc=$(grep -l "TarmacTrace file format" "$seeds"/* 2>/dev/null | head -n 1)
    [ -n "$doc" ] || return 1
    awk '/^19[3-5][0-9] clk /' "$doc" >"$TMP/fm-aemv8-example.tarmac"
    [ -s "$TMP/fm-aemv8-example.tarmac" ] || return 1
    echo "$TMP/fm-aemv8-example.tarmac"
}
FM_SKIP="skipped: the Arm Fast Models example (../shared/seeds, beside CACHET_CORPUS) is not here"

# ---- bad inputs --------------------------------------------------------------
# A bad input must end the command with exit status 2 (so no signal), a
# message that names the file and says where and why, and no output file:
# neither the result nor a temporary one.

# no_output_left DIR NAME...: none of the named files, and no *.tmp.*, in DIR
no_output_left() {
    local dir=$1 f
    shift
    for f in "$@"; do [ -e "$dir/$f" ] && return 1; done
    ! ls "$dir" | grep -q '\.tmp\.'
}

# bad_case NAME EXPECT FILE [cachet options...]: `cachet run` on FILE with
# --json and --csv outputs, then `cachet convert` of FILE (unless
# BAD_CASE_CONVERT=0): each exits 2, its stderr contains EXPECT and the
# file's name (or BAD_CASE_NAMES's, when the fault is in another file), and
# no output is left. EXPECT holds the position and reason.
bad_case() {
    local name=$1 expect=$2 file=$3 st
    shift 3
    mkdir -p "$TMP/bc"
    rm -f "$TMP/bc/"*
    "$CACHET" run "$@" --json "$TMP/bc/out.json" --csv "$TMP/bc/out.csv" "$file" \
        >"$TMP/out" 2>"$TMP/err"
    st=$?
    if ! bad_case_check "$name" "$expect" "$file" $st; then return; fi
    if [ "${BAD_CASE_CONVERT:-1}" = 1 ]; then
        "$CACHET" convert "$@" --to din -o "$TMP/bc/out.din" "$file" >"$TMP/out" 2>"$TMP/err"
        st=$?
        if ! bad_case_check "$name (convert)" "$expect" "$file" $st; then return; fi
    fi
    ok
}

bad_case_check() {
    local name=$1 expect=$2 file=$3 st=$4
    if [ "$st" -ne 2 ]; then bad "$name: exit $st, want 2 ($(head -c 200 "$TMP/err"))"; return 1; fi
    if ! grep -qF -- "$expect" "$TMP/err"; then
        bad "$name: stderr lacks '$expect': $(head -c 300 "$TMP/err")"; return 1
    fi
    if ! grep -qF -- "$(basename "${BAD_CASE_NAMES:-$file}")" "$TMP/err"; then
        bad "$name: message does not name the file: $(head -c 300 "$TMP/err")"; return 1
    fi
    if ! no_output_left "$TMP/bc" out.json out.csv out.din; then
        bad "$name: output left behind: $(ls "$TMP/bc")"; return 1
    fi
    return 0
}

# cut_table NAME FILE TABLE [cachet options...]: run FILE cut after every
# length listed in TABLE, one "LENGTH<tab>WANT" line each, where WANT is
#   ok           the prefix is a complete trace: exit 0 and the JSON written
#   text:REGEX   exit 2 with a message matching REGEX (grep -E), no JSON
#   maybe:REGEX  either of the two (a text line cut where a shorter token
#                is still valid)
#   TEXT         exit 2 with a message containing TEXT, no JSON
# Every message must name the cut file. One check per table.
cut_table() {
    local name=$1 file=$2 table=$3 len want st fails=0 cut
    shift 3
    cut="$TMP/cut/cut.$(basename "$file")"
    mkdir -p "$TMP/cut"
    while IFS=$'\t' read -r len want; do
        head -c "$len" "$file" > "$cut"
        rm -f "$TMP/cut/out.json"
        "$CACHET" run -q "$@" --json "$TMP/cut/out.json" "$cut" >/dev/null 2>"$TMP/err"
        st=$?
        if [ "$want" = ok ] || { [ "${want#maybe:}" != "$want" ] && [ $st -eq 0 ]; }; then
            if [ $st -ne 0 ] || [ ! -s "$TMP/cut/out.json" ]; then
                echo "  cut at $len: exit $st, want 0: $(head -c 200 "$TMP/err")" >&2
                fails=$((fails + 1))
            fi
            continue
        fi
        if [ $st -ne 2 ] || ! no_output_left "$TMP/cut" out.json ||
           ! grep -qF -- "$(basename "$cut")" "$TMP/err"; then
            echo "  cut at $len: exit $st, want 2 naming the file: $(head -c 200 "$TMP/err")" >&2
            fails=$((fails + 1))
        elif case $want in text:*|maybe:*) ! grep -qE -- "${want#*:}" "$TMP/err";;
                           *) ! grep -qF -- "$want" "$TMP/err";; esac; then
            echo "  cut at $len: want '$want': $(head -c 200 "$TMP/err")" >&2
            fails=$((fails + 1))
        fi
    done < "$table"
    if [ $fails -eq 0 ]; then ok; else bad "$name: $fails cuts misbehaved"; fi
}

# text_cuts FILE > TABLE: a cut_table for a line-oriented text trace: cut
# after every byte; a cut after a newline is a complete trace, a cut inside
# line N may still parse (its last token shortened) or must stop at line N
# with "FILE:N:COLUMN: reason".
text_cuts() {
    python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
line = 1
for n in range(1, len(data) + 1):
    if data[n - 1:n] == b'\n':
        print('%d\tok' % n)
        line += 1
    else:
        print('%d\tmaybe::%d:[0-9]+: [A-Za-z]' % (n, line))
PY
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
