#!/bin/bash
# interrupt.sh - no lost and no partial results: every output file is
# written to a temporary name and renamed when complete, so a command that
# is stopped (SIGINT, SIGTERM) or killed (SIGKILL) never leaves a file
# under the name asked for; SIGINT and SIGTERM stop cleanly with exit 130
# and a message, and a second signal ends the process at once. Sweeps are
# interrupted and resumed in sweep.sh.
source "$(dirname "$0")/lib.bash"

LONG=gen:stream:n=4000M   # minutes of work: always interrupted

# started CMD...: start CMD in the background with stderr to $TMP/err and
# wait until it has run for a while; its pid in $pid
started() {
    "$@" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    sleep 1
}

# stopped_with SIGNAL WANT_STATUS NAME: send SIGNAL to $pid, wait for it
stopped_with() {
    kill "-$1" $pid
    wait $pid
    expect_eq "$?" "$2" "$3: exit status"
}

mkdir "$TMP/o"
for sig in INT TERM; do
    rm -f "$TMP/o/"*
    started "$CACHET" run --json "$TMP/o/r.json" --csv "$TMP/o/r.csv" --events "$TMP/o/r.ev" "$LONG"
    stopped_with $sig 130 "run, SIG$sig"
    expect_err_contains "interrupted: the figures cover the trace read so far; no output file written" \
        "run, SIG$sig: message"
    if grep -q "^l1d " "$TMP/out"; then ok; else bad "run, SIG$sig: the table of what was read"; fi
    if no_output_left "$TMP/o" r.json r.csv r.ev; then ok; else bad "run, SIG$sig: left $(ls "$TMP/o")"; fi

    rm -f "$TMP/o/"*
    started "$CACHET" convert --to din -o "$TMP/o/c.din" "$LONG"
    stopped_with $sig 130 "convert, SIG$sig"
    expect_err_contains "interrupted: no output written" "convert, SIG$sig: message"
    if no_output_left "$TMP/o" c.din; then ok; else bad "convert, SIG$sig: left $(ls "$TMP/o")"; fi
done

# SIGKILL: nothing under the final names (the temporary ones stay, named
# NAME.tmp.XXXXXX)
rm -f "$TMP/o/"*
started "$CACHET" convert --to din -o "$TMP/o/c.din" "$LONG"
stopped_with KILL 137 "convert, SIGKILL"
if [ ! -e "$TMP/o/c.din" ] && ls "$TMP/o" | grep -qE '^c\.din\.tmp\.[A-Za-z0-9]{6}$'; then ok
else bad "convert, SIGKILL: want only c.din.tmp.XXXXXX: $(ls "$TMP/o")"; fi
rm -f "$TMP/o/"*
started "$CACHET" run -q --json "$TMP/o/r.json" --events "$TMP/o/r.ev" "$LONG"
stopped_with KILL 137 "run, SIGKILL"
if [ ! -e "$TMP/o/r.json" ] && [ ! -e "$TMP/o/r.ev" ]; then ok
else bad "run, SIGKILL: $(ls "$TMP/o")"; fi

# a second signal while the first waits (a read blocked on a pipe that
# stays open and silent) ends the process at once
rm -f "$TMP/o/"*
mkfifo "$TMP/fifo"
started "$CACHET" run -q -f din --json "$TMP/o/r.json" "$TMP/fifo"
exec 3>"$TMP/fifo"
printf '0 100\n' >&3
sleep 0.5
kill -INT $pid
sleep 0.5
if kill -0 $pid 2>/dev/null; then ok; else bad "first SIGINT during a blocked read ended the process"; fi
stopped_with INT 130 "second SIGINT"
exec 3>&-
if no_output_left "$TMP/o" r.json; then ok; else bad "second SIGINT: left $(ls "$TMP/o")"; fi

# finished commands leave their files and no temporary one
rm -f "$TMP/o/"*
"$CACHET" convert --to din -o "$TMP/o/c.din" gen:stream:n=1000 2>/dev/null
"$CACHET" run -q --json "$TMP/o/r.json" --csv "$TMP/o/r.csv" --events "$TMP/o/r.ev" "$TMP/o/c.din"
made="c.din r.json r.csv r.ev s.csv s.fit.csv sh.csv m.csv m.fit.csv points/point-0.ini"
made="$made points/point-2.ini p.gp"
if FM=$(fm_example); then
    "$CACHET" validate --json "$TMP/o/v.json" -c configs/fastmodel-aemv8.ini "$FM" >/dev/null 2>&1
    made="$made v.json"
else
    echo "$FM_SKIP: validate's output not checked"
fi
printf '[sweep]\nl1d.size = 1K 2K 4K\n' > "$TMP/s.ini"
"$CACHET" sweep -q "$TMP/s.ini" -o "$TMP/o/s.csv" "$TMP/o/c.din" >/dev/null 2>&1
"$CACHET" sweep -q --shard 0/1 "$TMP/s.ini" -o "$TMP/o/sh.csv" "$TMP/o/c.din" >/dev/null 2>&1
"$CACHET" merge -o "$TMP/o/m.csv" "$TMP/o/sh.csv" 2>/dev/null
"$CACHET" sweep "$TMP/s.ini" --emit-configs "$TMP/o/points" >/dev/null 2>&1
"$CACHET" plot "$TMP/o/s.csv" -o "$TMP/o/p.svg" --script "$TMP/o/p.gp" >/dev/null 2>&1
for f in $made; do
    if [ -s "$TMP/o/$f" ]; then ok; else bad "finished commands: $f missing"; fi
done
if command -v gnuplot >/dev/null; then
    "$CACHET" plot "$TMP/o/s.csv" -o "$TMP/o/p.svg" >/dev/null 2>&1
    if grep -q "<svg" "$TMP/o/p.svg"; then ok; else bad "plot: no picture"; fi
fi
if ! find "$TMP/o" -name '*.tmp.*' | grep -q .; then ok
else bad "temporary files left: $(find "$TMP/o" -name '*.tmp.*')"; fi
# an output that cannot be created: exit 2, and nothing else written
expect_status 2 "output in a missing directory" "$CACHET" run -q --json "$TMP/o/r.json" \
    --csv "$TMP/nowhere/r.csv" "$TMP/o/c.din"
expect_err_contains "nowhere/r.csv: cannot create: No such file or directory" "cannot create: message"
finish
