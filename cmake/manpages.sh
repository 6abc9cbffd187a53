#!/bin/bash
# manpages.sh - write the man pages of cachet from its own --help texts, so
# that they never drift from the command: cachet(1) from `cachet --help`,
# and cachet-COMMAND(1) from `cachet COMMAND --help` for every command that
# `cachet --help` lists. Run by the build (CMake target man) with help2man.
# Usage: manpages.sh CACHET HELP2MAN VERSION OUTDIR
set -euo pipefail
cachet=$1 help2man=$2 version=$3 out=$4
mkdir -p "$out"
rm -f "$out"/*.1
"$help2man" --no-info --no-discard-stderr --version-string="$version" \
    --name="trace-driven cache and memory-hierarchy simulator" \
    --section=1 --output="$out/cachet.1" "$cachet"
# the command table: "  NAME      summary" lines after "commands:"
"$cachet" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z]*\)  *\(.*\)$/\1 \2/p' |
while read -r cmd summary; do
    wrapper=$(mktemp)
    printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$cachet" "$cmd" > "$wrapper"
    chmod +x "$wrapper"
    "$help2man" --no-info --no-discard-stderr --version-string="$version" \
        --name="$summary" --section=1 --output="$out/cachet-$cmd.1" "$wrapper"
    rm -f "$wrapper"
    # the page is about `cachet CMD`, not the wrapper's temporary name
    sed -i "s|$(basename "$wrapper")|cachet-$cmd|g; s|\\\\fB$wrapper\\\\fR|\\\\fBcachet $cmd\\\\fR|g; s|$wrapper|cachet $cmd|g" \
        "$out/cachet-$cmd.1"
    b=$(basename "$wrapper" | tr '[:lower:]' '[:upper:]')
    sed -i "s|$b|CACHET-$(echo "$cmd" | tr '[:lower:]' '[:upper:]')|g" "$out/cachet-$cmd.1"
done
