# synopsis.awk - a cachet --help text as help2man reads a synopsis (for
# manpages.sh): the usage block (from the first line to the first empty one) "Usage: cachet CMD ..." on one line, each alternative
# (a line that starts again with "cachet") as an "  or: " line.
NR == 1 && !/^usage: / { body = 1 }
!body && /^$/ { flush(); body = 1 }
!body {
    line = $0
    sub(/^usage: +/, "", line)
    sub(/^ +/, "", line)
    if (NR > 1 && line ~ /^cachet /) flush()
    cur = cur == "" ? line : cur " " line
    next
}
{ print }
END { if (!body) flush() }
function flush() {
    if (cur == "") return
    print (n++ ? "  or: " : "Usage: ") cur
    cur = ""
}
