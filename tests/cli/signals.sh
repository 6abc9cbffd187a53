#!/bin/bash
# signals.sh - the first SIGINT or SIGTERM stops a command within a batch of
# records read, also when the records hold no simulated access (TT6
# zeros, lines that are not VIXL) or only din misc accesses, and a command stopped by a
# signal exits 130 whatever it was doing (even blocked opening a FIFO).
source "$(dirname "$0")/lib.bash"

# stops NAME SIGNAL CMD...: CMD (its stdin from $TMP/in when set) gets
# SIGNAL after a second, once it catches SIGNAL; it must end within 5 s
# with exit 130 and say "interrupted". A ThreadSanitizer build decodes many times slower and
# drains the read-ahead's decoded batches first: it gets 60 s.
limit=5
[ -n "${TSAN_OPTIONS:-}" ] && limit=60
stops() {
    local name=$1 sig=$2 pid st
    shift 2
    "$@" <"${IN:-/dev/null}" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    sleep 1
    # a loaded machine (or a sanitizer build) may not have reached the
    # command's handlers yet: wait until the process catches the signal
    # (SigCgt in /proc), so that the test never kills a program still loading
    local bit=$(( $(kill -l "$sig") - 1 ))
    for _ in $(seq $((limit * 10))); do
        [ $(( 0x$(awk '/^SigCgt:/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0) >> bit & 1 )) -eq 1 ] &&
            break
        sleep 0.1
    done
    kill "-$sig" $pid
    for _ in $(seq $((limit * 10))); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    if kill -0 $pid 2>/dev/null; then
        kill -KILL $pid
        wait $pid 2>/dev/null
        bad "$name: still running $limit s after SIG$sig"
        return
    fi
    wait $pid
    st=$?
    if [ $st -eq 130 ] && grep -q "interrupted" "$TMP/err"; then ok
    else bad "$name: exit $st after SIG$sig: $(head -c 300 "$TMP/err")"; fi
}

mkfifo "$TMP/pipe"
# a stream of din label-3 (misc) records, all to one word
yes '3 1000' | head -n 100000000 >"$TMP/pipe" &
feeder=$!
IN=$TMP/pipe stops "din misc records on stdin" INT "$CACHET" run -f din -
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null

# TT6 over /dev/zero: endless records that hold no access
stops "tt6 /dev/zero" TERM "$CACHET" run -f tt6 /dev/zero
stops "tt6 /dev/zero, convert" INT "$CACHET" convert -f tt6 --to din -o "$TMP/c.din" /dev/zero
if [ ! -e "$TMP/c.din" ]; then ok; else bad "convert left its output"; fi

# VIXL with foreign lines only, on stdin
yes 'hello from the simulated program' >"$TMP/pipe" &
feeder=$!
IN=$TMP/pipe stops "vixl foreign lines" TERM "$CACHET" run -f vixl -
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null

# blocked opening a FIFO nobody writes: 130, not 2
rm -f "$TMP/pipe"
mkfifo "$TMP/pipe"
stops "blocked opening a FIFO" TERM "$CACHET" run "$TMP/pipe"
stops "merge, blocked opening a FIFO" TERM "$CACHET" merge -o "$TMP/m.csv" "$TMP/pipe"
if [ ! -e "$TMP/m.csv" ]; then ok; else bad "merge left its output"; fi

# the other commands that read traces stop the same way
stops "info, tt6 /dev/zero" TERM "$CACHET" info -f tt6 /dev/zero
rm -f "$TMP/pipe"
mkfifo "$TMP/pipe"
yes '0 clk IT (0) 00000000 d503201f O EL3h_s : NOP' >"$TMP/pipe" &
feeder=$!
IN=$TMP/pipe stops "validate, endless Tarmac" TERM "$CACHET" validate \
    -c "$SRC/configs/fastmodel-aemv8.ini" --json "$TMP/v.json" -f tarmac -
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
if [ ! -e "$TMP/v.json" ]; then ok; else bad "validate left its output"; fi
yes '0 clk IT (0) 00000000 d503201f O EL3h_s : NOP' >"$TMP/pipe" &
feeder=$!
IN=$TMP/pipe stops "infer, endless Tarmac" INT "$CACHET" infer -f tarmac -
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
finish
