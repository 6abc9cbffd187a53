#!/bin/bash
# manpages.sh - write the man pages of cachet from its own --help texts, so
# that they never drift from the command: cachet(1) from `cachet --help`,
# and cachet-COMMAND(1) from `cachet COMMAND --help` for every command that
# `cachet --help` lists. Run by the build (CMake target man) with help2man.
# help2man is given a wrapper that runs `cachet [CMD]`, and whose --help
# text has the usage block joined as help2man reads a synopsis (synopsis.awk:
# one "Usage:" line, an "or:" line per alternative); the page's SYNOPSIS
# then shows `cachet CMD` in bold and the rest as the help writes it.
# Usage: manpages.sh CACHET HELP2MAN VERSION OUTDIR
set -euo pipefail
cachet=$1 help2man=$2 version=$3 out=$4
awk_file=$(dirname "$0")/synopsis.awk
mkdir -p "$out"
rm -f "$out"/*.1

# page NAME CMD SUMMARY: write NAME.1 about `cachet CMD` (CMD may be empty)
page() {
    local name=$1 cmd=$2 summary=$3 wrapper
    wrapper=$(mktemp)
    printf '#!/bin/sh\nif [ "$1" = --help ]; then "%s" %s --help | awk -f "%s"; else exec "%s" %s "$@"; fi\n' \
        "$cachet" "$cmd" "$awk_file" "$cachet" "$cmd" > "$wrapper"
    chmod +x "$wrapper"
    "$help2man" --no-info --no-discard-stderr --version-string="$version" \
        --name="$summary" --section=1 --output="$out/$name.1" "$wrapper"
    rm -f "$wrapper"
    # the page is about `cachet CMD`, not the wrapper's temporary name
    sed -i "s|$(basename "$wrapper")|$name|g; s|\\\\fB$wrapper\\\\fR|\\\\fBcachet${cmd:+ $cmd}\\\\fR|g; s|$wrapper|cachet${cmd:+ $cmd}|g" \
        "$out/$name.1"
    b=$(basename "$wrapper" | tr '[:lower:]' '[:upper:]')
    sed -i "s|$b|$(echo "$name" | tr '[:lower:]' '[:upper:]')|g" "$out/$name.1"
    # no hyphens inside the synopsis's option names
    sed -i 's/^\.SH SYNOPSIS$/&\n.nh/; s/^\.SH DESCRIPTION$/.hy\n&/' "$out/$name.1"
    # SYNOPSIS: ".B cachet" then "\fI\,run \/\fR..." becomes ".B cachet run" then the rest
    if [ -n "$cmd" ]; then
        sed -i '/^\.B cachet$/{N;s|^\.B cachet\n\\fI\\,'"$cmd"' \\/\\fR|.B cachet '"$cmd"'\n|;s|^\.B cachet\n\\fI\\,'"$cmd"' |.B cachet '"$cmd"'\n\\fI\\,|}' "$out/$name.1"
    fi
}

page cachet "" "trace-driven cache and memory-hierarchy simulator"
# the command table: "  NAME      summary" lines after "commands:"
"$cachet" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z]*\)  *\(.*\)$/\1 \2/p' |
while read -r cmd summary; do
    page "cachet-$cmd" "$cmd" "$summary"
done
