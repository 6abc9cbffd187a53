#!/bin/bash
# outputs.sh - the rules for output files (stated at the top of
# sim/cli/cli_out.c): devices, FIFOs and /dev/fd/N are written in place and
# never replaced; a symbolic link's target is written and the link stays;
# temporary files are made exclusively, so nothing planted is followed;
# write errors on stdout fail every command; two outputs on one file, or an
# output on an input, are refused. The system's own /dev files are never
# named as outputs here: the device is one made under $TMP.
source "$(dirname "$0")/lib.bash"

cd "$TMP" || exit 1
"$CACHET" convert --to din -o t.din gen:stream:n=1000 2>/dev/null
"$CACHET" run -q --json want.json t.din
[ -s want.json ] || { echo "cannot make the test trace"; exit 1; }

# a FIFO: written into, stays a FIFO
mkfifo fifo
timeout 20 cat fifo >got.fifo &
reader=$!
expect_status 0 "run --json FIFO" timeout 20 "$CACHET" run -q --json fifo t.din
wait $reader
if [ -p fifo ]; then ok; else bad "FIFO replaced by $(stat -c %F fifo)"; fi
if cmp -s got.fifo want.json; then ok; else bad "FIFO reader got $(wc -c <got.fifo) bytes"; fi

# a character device of our own (the null device, made under $TMP)
if mknod nulldev c 1 3 2>/dev/null; then
    expect_status 0 "run --json DEVICE" "$CACHET" run -q --json nulldev --csv out.csv t.din
    if [ -c nulldev ]; then ok; else bad "device replaced by $(stat -c %F nulldev)"; fi
    expect_status 0 "convert -o DEVICE" "$CACHET" convert --to din -o nulldev t.din
    if [ -c nulldev ]; then ok; else bad "convert: device replaced by $(stat -c %F nulldev)"; fi
    # the same device twice is fine
    expect_status 0 "run --json DEV --csv DEV" "$CACHET" run -q --json nulldev --csv nulldev t.din
    rm -f nulldev
else
    echo "note: mknod not permitted here: the device case is not checked"
fi

# /dev/fd/1 with stdout redirected to a file: the output lands in that file
expect_status 0 "run --json /dev/fd/1" "$CACHET" run -q --json /dev/fd/1 t.din
if cmp -s "$TMP/out" want.json; then ok; else bad "/dev/fd/1: stdout got $(wc -c <"$TMP/out") bytes"; fi

# a symbolic link to a regular file: the target is replaced, the link stays
mkdir -p d
echo old >d/real.json
ln -s d/real.json link.json
expect_status 0 "run --json SYMLINK" "$CACHET" run -q --json link.json t.din
if [ -L link.json ]; then ok; else bad "symlink replaced by $(stat -c %F link.json)"; fi
if cmp -s d/real.json want.json; then ok; else bad "symlink target not written: $(head -c 40 d/real.json)"; fi
if ! ls d . | grep -q '\.tmp\.'; then ok; else bad "temporary left: $(ls d .)"; fi
# a dangling link makes its target
ln -s d/new.json dangling.json
expect_status 0 "run --json DANGLING" "$CACHET" run -q --json dangling.json t.din
if [ -L dangling.json ] && cmp -s d/new.json want.json; then ok; else bad "dangling link: $(ls -l dangling.json d)"; fi
# a loop of links is an error naming the file
ln -s loop2 loop1
ln -s loop1 loop2
expect_status 2 "run --json LOOP" "$CACHET" run -q --json loop1 t.din
expect_err_contains "loop1: cannot create: Too many levels of symbolic links" "link loop: message"
# a directory is refused
expect_status 2 "run --json DIR" "$CACHET" run -q --json d t.din
expect_err_contains "d: cannot create: Is a directory" "directory: message"

# a link planted at the old predictable temporary name is not followed
echo precious >victim.txt
( ln -s victim.txt "o.json.tmp.$BASHPID"; exec "$CACHET" run -q --json o.json t.din )
if [ "$(cat victim.txt)" = precious ]; then ok; else bad "planted link followed: victim overwritten"; fi
if cmp -s o.json want.json; then ok; else bad "o.json not written"; fi
rm -f o.json.tmp.*
# and the file's mode comes from the umask
( umask 027; exec "$CACHET" run -q --json m.json t.din )
expect_eq "$(stat -c %a m.json)" 640 "mode under umask 027"

# write errors on stdout end every command with exit 2 and a message
if [ -w /dev/full ]; then
    for cmd in "run t.din" "run -q --json - t.din" "info t.din" "info --json t.din" \
               "config" "config --keys" "convert --to din -o - t.din" "--help" "run --help"; do
        # shellcheck disable=SC2086
        "$CACHET" $cmd >/dev/full 2>"$TMP/err"
        st=$?
        if [ $st -eq 2 ] && grep -q "stdout: write error" "$TMP/err"; then ok
        else bad "cachet $cmd >/dev/full: exit $st: $(head -c 200 "$TMP/err")"; fi
    done
else
    echo "note: no /dev/full here: stdout write errors not checked"
fi

# two outputs on one file, or an output on an input: usage errors, nothing written
cp t.din keep.din
for args in "--json o --csv o|same file" "--json o --events o|same file" \
            "--csv o --events ./o|same file" "--json keep.din|both an input and an output" \
            "--events $TMP/keep.din|both an input and an output"; do
    want=${args#*|}
    args=${args%|*}
    rm -f o
    # shellcheck disable=SC2086
    expect_status 1 "run $args" "$CACHET" run -q $args keep.din
    expect_err_contains "$want" "run $args: message"
    if [ ! -e o ] && cmp -s keep.din t.din; then ok; else bad "run $args: wrote something"; fi
done
expect_status 1 "convert -o INPUT" "$CACHET" convert --to din -o keep.din keep.din
expect_err_contains "keep.din is both an input and an output" "convert -o INPUT: message"
if cmp -s keep.din t.din; then ok; else bad "convert -o INPUT: input changed"; fi
printf '[sweep]\nl1d.size = 1K 2K\n' >s.ini
expect_status 1 "sweep -o INPUT" "$CACHET" sweep -q s.ini -o keep.din keep.din
expect_status 1 "sweep -o SWEEPFILE" "$CACHET" sweep -q s.ini -o s.ini keep.din
finish
