#!/bin/bash
# identity.sh CACHET - the SHA-256 of every output that a change which must not
# move any figure has to leave byte for byte the same, a line each
# ("HASH  what"). Run it with the build before and the build after, and diff:
#
#   CACHET_CORPUS=../shared/traces bash results/identity.sh /path/to/cachet > after.txt
#   diff results/IDENTITY-852c90f.txt after.txt
#
# What it hashes (IDENTITY.md says why these):
# - the sweeps of tests/cli/sweep_corpus.sh on every corpus trace (one pass,
#   -j 2): the CSV and its .fit.csv;
# - `cachet run --json` on every corpus trace and on the drmemtrace sample,
#   with configs/default.ini, cfgB.ini and drcachesim-exact.ini, and with
#   fastmodel-aemv8.ini also its --events;
# - `cachet validate --json` on the Fast Models example (fm_example in
#   tests/cli/lib.bash);
# - the sweeps of configs/sweeps/ on the six benchmark traces of
#   results/BENCHMARKS.md (-j 2), and the din and Tarmac copies of $W.
# Not hashed, because they differ from run to run: the JSON's "seconds" line.
# Paths are written relative to the source tree, the corpus as CORPUS and the
# scratch directory as TMP. A command that fails is hashed by its exit status
# and its error message instead.
cd "$(dirname "$0")/.." || exit 2
CACHET=$(realpath "${1:?usage: identity.sh PATH-TO-cachet}")
source tests/cli/lib.bash "$CACHET"
need_corpus
C=$(realpath "$CACHET_CORPUS")

# mask FILE: the file without timing, corpus and scratch paths; with
# IDENTITY_FIGURES=1 also without what names the configuration (the JSON's
# config_hash and resolved_config, the CSVs' config_hash column), which a new
# key changes while every figure stays: compare two builds that way when one
# of them adds keys
mask() {
    if [ "${IDENTITY_FIGURES:-0}" = 1 ]; then
        grep -v -e '^ *"seconds": ' -e '^ *"config_hash": ' -e '^ *"resolved_config": ' "$1" |
            sed -e "s|$C|CORPUS|g" -e "s|$TMP|TMP|g" -e 's/,[0-9a-f]\{16\},/,HASH,/'
    else
        grep -v '^ *"seconds": ' "$1" | sed -e "s|$C|CORPUS|g" -e "s|$TMP|TMP|g"
    fi
}
# put WHAT FILE...: one hash line for the masked files, in order
# (a file that is not there counts as the line "absent")
put() {
    local w=$1 f; shift
    for f in "$@"; do if [ -e "$f" ]; then mask "$f"; else echo absent; fi; done |
        sha256sum | sed "s|-\$|$w|"
}
# fail WHAT STATUS: the hash of a failed command's status and message
fail() { { echo "exit $2"; mask "$TMP/err"; } | sha256sum | sed "s|-\$|$1 (exit $2)|"; }
# sweep INI TRACE: one pass on two threads
sweep() {
    local what="sweep $1 ${2/#$C/CORPUS}"
    what=${what/$TMP/TMP}
    rm -f "$TMP/s.csv" "$TMP/s.csv.fit.csv"
    if "$CACHET" sweep -q -j 2 -o "$TMP/s.csv" "$1" "$2" 2>"$TMP/err"; then
        put "$what" "$TMP/s.csv" "$TMP/s.csv.fit.csv"
    else fail "$what" $?; fi
}
# run TRACE CONFIG [--events]
run() {
    local t=$1 cfg=$2 what="run $2 ${1/#$C/CORPUS}${3:+ --events}"
    local ev=()
    [ -n "${3:-}" ] && ev=(--events "$TMP/ev")
    rm -f "$TMP/r.json" "$TMP/ev"
    if "$CACHET" run -q -c "$cfg" --json "$TMP/r.json" "${ev[@]}" "$t" 2>"$TMP/err"; then
        put "$what" "$TMP/r.json" ${3:+"$TMP/ev"}
    else fail "$what" $?; fi
}

T=$C/drmemtrace/drmemtrace_samples/threadsig.x86_64/drmemtrace.threadsig.2765542.9400.dir
traces=$(corpus_traces)
for t in $traces; do
    for s in tests/configs/sweeps/classes.ini tests/configs/sweeps/through.ini \
             tests/configs/sweeps/l2.ini configs/sweeps/l2-under-l1.ini; do
        sweep "$s" "$t"
    done
done
for t in $traces "$T"; do
    for cfg in configs/default.ini configs/cfgB.ini configs/drcachesim-exact.ini; do
        run "$t" "$cfg"
    done
    run "$t" configs/fastmodel-aemv8.ini --events
done

if FM=$(fm_example); then
    if "$CACHET" validate -c configs/fastmodel-aemv8.ini --json "$TMP/v.json" "$FM" \
        >/dev/null 2>"$TMP/err"; then
        put "validate configs/fastmodel-aemv8.ini fm_example" "$TMP/v.json"
    else fail "validate configs/fastmodel-aemv8.ini fm_example" $?; fi
else
    echo "$FM_SKIP" >&2
fi

# the six benchmark traces
W=gen:random:n=10M,footprint=1M,writes=25
S=gen:stream:n=10M,stride=8,size=8,footprint=4M,writes=25
M=gen:matmul:dim=192,tile=16
"$CACHET" convert -o "$TMP/w.din" "$W" && put "convert din $W" "$TMP/w.din"
"$CACHET" convert -o "$TMP/w.tarmac" "$W" && put "convert tarmac $W" "$TMP/w.tarmac"
for t in "$W" "$TMP/w.din" "$TMP/w.tarmac" "$T" "$S" "$M"; do
    for s in configs/sweeps/*.ini; do
        sweep "$s" "$t"
    done
done
