#!/bin/bash
# golden.sh - command outputs compared byte for byte with tests/golden/*.txt.
# Each golden file starts with "# cmd: ARGS" (arguments to cachet, run from
# the source tree); the rest is the expected stdout, minus the line that
# reports wall time. UPDATE_GOLDEN=1 rewrites the files from the current
# build (review the diff before committing).
source "$(dirname "$0")/lib.bash"

for g in tests/golden/*.txt; do
    args=$(sed -n '1s/^# cmd: //p' "$g")
    eval "set -- $args"
    "$CACHET" "$@" 2>/dev/null | grep -v '^time ' > "$TMP/out" || true
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        { echo "# cmd: $args"; cat "$TMP/out"; } > "$g"
    fi
    tail -n +2 "$g" > "$TMP/want"
    if cmp -s "$TMP/out" "$TMP/want"; then ok; else bad "$g differs:"; diff "$TMP/want" "$TMP/out" | head -20 >&2; fi
done
finish
