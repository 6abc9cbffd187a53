# plot.sh - cachet plot's gnuplot script follows the rules at the top of
# sim/cli/cmd_plot.c: "full" after the largest associativity and no curve
# looping back, sizes labelled 4K..512K on a log2 axis, a log miss-rate
# axis when the rates span decades (and the options forcing either), a
# distinct colour, point type (and dash per trace) for every series from
# the Okabe-Ito palette, the traces in the title, words on a linear axis.
# With gnuplot installed, the pictures are drawn and gnuplot says nothing
# on stderr (it used to warn about an empty y range); without it that part
# is skipped, saying so.
. "$(dirname "$0")/lib.bash"

# Miss rates from 0.94 down to 0.005 (T1: 64 KiB of random lines, 200000
# accesses, 1024 compulsory misses), and from 1 to 0.05 (T2).
T1=gen:random:n=200000,footprint=64K
T2=gen:chase:n=20000,footprint=64K,node=64
SA=$SRC/configs/sweeps/l1d-size-assoc.ini
check "sweep" "$CACHET" sweep -q -o "$TMP/sa.csv" "$SA" "$T1" "$T2"
check "sweep of T2" "$CACHET" sweep -q -o "$TMP/t2.csv" "$SA" "$T2"

# blocks GP: the x values of each inline data block, a block a line
blocks() { awk '/^plot/ {p = 1; next} p && $0 == "e" {print line; line = ""; next}
               p && /^[0-9]/ {line = line (line == "" ? "" : " ") $1}' "$1"; }

# 1. associativity on x: "full" after 64, labelled, every line in x order
check "assoc script" "$CACHET" plot "$TMP/sa.csv" --x l1d.assoc -o "$TMP/a.png" --script "$TMP/a.gp"
if grep -qF "set xtics ('1' 1, '2' 2, '4' 4, '8' 8, '16' 16, '32' 32, '64' 64, 'full' 128)" "$TMP/a.gp"; then
    ok; else bad "assoc tics: $(grep xtics "$TMP/a.gp")"; fi
if grep -q "^set logscale x 2$" "$TMP/a.gp"; then ok; else bad "assoc axis is not log2"; fi
expect_eq "$(blocks "$TMP/a.gp" | sort -u)" "1 2 4 8 16 32 64 128" "every series in x order, full last"
expect_eq "$(blocks "$TMP/a.gp" | wc -l)" 16 "a series per size and trace"
if grep -qF "dt 2 title 'gen:chase:n=20000,foo... l1d.size=512K'" "$TMP/a.gp"; then
    ok; else bad "series named with a size"; fi

# 2. size on x: tics 4K..512K, never raw bytes
check "size script" "$CACHET" plot "$TMP/sa.csv" -o "$TMP/s.svg" --script "$TMP/s.gp"
if grep -qF "set xtics ('4K' 4096, '8K' 8192, '16K' 16384, '32K' 32768, '64K' 65536, '128K' 131072, '256K' 262144, '512K' 524288)" "$TMP/s.gp"; then
    ok; else bad "size tics: $(grep xtics "$TMP/s.gp")"; fi
if grep -qE "'(4096|1048576|524288)'" "$TMP/s.gp"; then bad "a raw byte count as a label"; else ok; fi
expect_eq "$(blocks "$TMP/s.gp" | sort -u)" "4096 8192 16384 32768 65536 131072 262144 524288" "sizes in order"
if grep -q "^set terminal svg" "$TMP/s.gp"; then ok; else bad "svg terminal"; fi
if grep -q "^set termoption noenhanced" "$TMP/s.gp"; then ok; else bad "text printed as is"; fi

# 3. the title names the traces
if grep -qF "set title 'miss rate of l1d: gen:random:n=200000,footprint=64K, gen:chase:n=20000,footprint=64K,node=64'" "$TMP/s.gp"; then
    ok; else bad "title: $(grep title "$TMP/s.gp" | head -n 1)"; fi
if grep -qF "set title 'miss rate of l1d: gen:chase:n=20000,footprint=64K,node=64'" \
    <("$CACHET" plot "$TMP/t2.csv" --script - -o "$TMP/x.png"); then ok; else bad "one trace's title"; fi

# 4. every series looks different: Okabe-Ito colours, (colour, point, dash) distinct
styles() { grep -o "lc rgb '#[0-9A-F]*' pt [0-9]* ps [0-9.]* dt [0-9]*" "$1"; }
expect_eq "$(styles "$TMP/s.gp" | wc -l)" 16 "a style per series"
expect_eq "$(styles "$TMP/s.gp" | sort -u | wc -l)" 16 "no two series alike"
expect_eq "$(styles "$TMP/s.gp" | cut -d"'" -f2 | sort -u | tr '\n' ' ')" \
    "#000000 #0072B2 #009E73 #56B4E9 #CC79A7 #D55E00 #E69F00 #F0E442 " "the Okabe-Ito colours"
expect_eq "$(styles "$TMP/s.gp" | awk '{print $NF}' | sort -u | tr '\n' ' ')" "1 2 " "a dash pattern per trace"
check "one trace" "$CACHET" plot "$TMP/t2.csv" --script "$TMP/t2.gp" -o "$TMP/x.png"
expect_eq "$(styles "$TMP/t2.gp" | awk '{print $NF}' | sort -u)" "1" "solid lines for one trace"
if grep -qF "title 'l1d.assoc=full'" "$TMP/t2.gp"; then ok; else bad "one trace's key omits the trace"; fi

# 5. the miss-rate axis: log when the rates span more than 20x (T1: 0.94 to
# 0.005), linear otherwise (T2: 1 to 0.05 is 20x, not more), forced either way
if grep -q "^set logscale y 10$" "$TMP/s.gp"; then ok; else bad "decades without a log y axis"; fi
if grep -q "^set logscale y" "$TMP/t2.gp"; then bad "log y for a 20x span"; else ok; fi
if grep -qE "^set yrange \[0:1.05\]$" "$TMP/t2.gp"; then ok; else bad "linear y range: $(grep yrange "$TMP/t2.gp")"; fi
check "--log-y" "$CACHET" plot "$TMP/t2.csv" --log-y --script "$TMP/ly.gp" -o "$TMP/x.png"
if grep -q "^set logscale y 10$" "$TMP/ly.gp" && grep -q "miss rate (log scale)" "$TMP/ly.gp"; then
    ok; else bad "--log-y"; fi
check "--linear-y" "$CACHET" plot "$TMP/sa.csv" --linear-y --script "$TMP/lin.gp" -o "$TMP/x.png"
if grep -q "^set logscale y" "$TMP/lin.gp"; then bad "--linear-y"; else ok; fi

# 6. words and small numbers on a linear x axis
printf '[l1d]\nline = 64\n[memory]\nlatency = 100\n[sweep]\nl1d.replacement = lru fifo\nl1d.latency = 1 2 3\n' >"$TMP/w.ini"
check "word sweep" "$CACHET" sweep -q -o "$TMP/w.csv" "$TMP/w.ini" gen:random:n=3000,footprint=16K
check "word script" "$CACHET" plot "$TMP/w.csv" --x l1d.replacement --script "$TMP/w.gp" -o "$TMP/x.png"
if grep -qF "set xtics ('lru' 1, 'fifo' 2)" "$TMP/w.gp" && grep -qF "set xrange [0.5:2.5]" "$TMP/w.gp" &&
    ! grep -q "logscale x" "$TMP/w.gp"; then ok; else bad "word axis: $(grep -E 'xtics|xrange' "$TMP/w.gp")"; fi
check "number script" "$CACHET" plot "$TMP/w.csv" --x l1d.latency --script "$TMP/n.gp" -o "$TMP/x.png"
if grep -qF "set xtics ('1' 1, '2' 2, '3' 3)" "$TMP/n.gp" && ! grep -q "logscale x" "$TMP/n.gp"; then
    ok; else bad "linear numbers: $(grep -E 'xtics|logscale' "$TMP/n.gp")"; fi

# 7. errors
expect_status 1 "unknown --x" "$CACHET" plot "$TMP/sa.csv" --x l1d.nosuch --script "$TMP/x.gp"
expect_err_contains "--x l1d.nosuch: not a swept key" "unknown --x explained"
expect_status 1 "bad picture name" "$CACHET" plot "$TMP/sa.csv" -o "$TMP/x.jpg" --script "$TMP/x.gp"
expect_err_contains "must end in .svg or .png" "bad picture name explained"

# 8. the pictures, with gnuplot: drawn, and nothing on stderr
if command -v gnuplot >/dev/null; then
    # (the latency sweep's miss rate is one value: the empty y range
    # gnuplot warned about)
    for args in "--x l1d.assoc -o $TMP/p1.png" "-o $TMP/p2.svg" "--x l1d.latency -o $TMP/p3.png" \
                "--x l1d.replacement -o $TMP/p4.png"; do
        csv=$TMP/sa.csv
        case $args in *l1d.[rl]*) csv=$TMP/w.csv ;; esac
        # shellcheck disable=SC2086
        expect_status 0 "plot $args" "$CACHET" plot "$csv" $args
        if [ -s "$TMP/err" ]; then bad "plot $args: stderr: $(head -c 300 "$TMP/err")"; else ok; fi
    done
    expect_eq "$(head -c 4 "$TMP/p1.png" | tail -c 3)" "PNG" "a PNG"
    if grep -q "<svg" "$TMP/p2.svg"; then ok; else bad "not an SVG"; fi
else
    echo "gnuplot not installed: pictures not drawn (scripts checked)"
fi
finish
