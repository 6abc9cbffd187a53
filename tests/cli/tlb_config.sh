# tlb_config.sh - translation settings from the command line: the walk's
# shape that follows the granule, and errors that name what was set and
# what to change.
source "$(dirname "$0")/lib.bash"

# a 64K granule alone: walks of 3 levels (4 would translate 68 bits)
expect_status 0 "-s walk.granule=64K alone" "$CACHET" config -s dtlb.entries=4 -s walk.granule=64K
expect_eq "$(sed -n '/^\[walk\]/,/^$/p' "$TMP/out" | grep '^levels')" "levels = 3" "64K: levels 3"
expect_status 0 "-s walk.granule=16K alone" "$CACHET" config -s dtlb.entries=4 -s walk.granule=16K
expect_eq "$(sed -n '/^\[walk\]/,/^$/p' "$TMP/out" | grep '^levels')" "levels = 4" "16K: levels 4"
expect_status 0 "a run with a 64K granule alone" "$CACHET" run -q -s dtlb.entries=4 \
    -s walk.granule=64K gen:stream:n=1K

# levels set too deep: the error is told at the -s setting, names where the
# granule came from and what to set
expect_status 2 "4 levels of 64K" "$CACHET" config -s dtlb.entries=4 -s walk.granule=64K -s walk.levels=4
expect_err_contains "-s walk.levels=4: [walk] levels: 4 levels of a 64K granule (granule from -s walk.granule=64K) translate 68 bits, more than 60: set [walk] levels to 3 or fewer" \
    "levels error names both settings and the fix"
printf '[dtlb]\n[walk]\nlevels = 4\n' >"$TMP/w.ini"
expect_status 2 "4 levels from a file, 64K from -s" "$CACHET" config -c "$TMP/w.ini" -s walk.granule=64K
expect_err_contains "$TMP/w.ini: [walk] levels: 4 levels of a 64K granule (granule from -s walk.granule=64K)" \
    "levels from the file, granule from -s"
expect_status 2 "a leaf level above the walk" "$CACHET" config -s dtlb.entries=4 -s walk.levels=2 -s walk.leaf_level=1
expect_err_contains "-s walk.leaf_level=1: [walk] leaf_level: a 4K granule with 2 levels has no blocks at level 1 (levels 2..3) (levels from -s walk.levels=2): set [walk] leaf_level to one of 2..3" \
    "leaf_level error names the levels setting and the fix"
finish
