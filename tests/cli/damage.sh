#!/bin/bash
# damage.sh - damage inside a container is reported, never read as the end
# of the trace: bytes after a gzip member that do not start another member
# (sim/../frontends/source_gzip.c states the rule).
source "$(dirname "$0")/lib.bash"

cd "$TMP" || exit 1
"$CACHET" convert --to din -o a.din gen:stream:n=1000 2>/dev/null
"$CACHET" convert --to din -o b.din gen:random:n=1000 2>/dev/null
cat a.din b.din >ab.din
"$CACHET" run -q --json want.json ab.din

# two good members: the whole trace
{ gzip -c a.din; gzip -c b.din; } >two.din.gz
expect_status 0 "two gzip members" "$CACHET" run -q --json got.json two.din.gz
expect_eq "$(json_get got.json 'd["levels"][0]["accesses"]')" \
          "$(json_get want.json 'd["levels"][0]["accesses"]')" "two gzip members: accesses"

# the second member's header damaged: an error at its first byte, not half a trace
first=$(gzip -c a.din | wc -c)
{ gzip -c a.din; gzip -c b.din | { printf '\x1e'; tail -c +2; }; } >bad.din.gz
BAD_CASE_CONVERT=1 bad_case "second gzip member damaged" "compressed byte $first: bytes after the gzip member do not start another member" bad.din.gz
# garbage appended after the only member
{ gzip -c a.din; printf 'garbage'; } >tail.din.gz
bad_case "garbage after a gzip member" "compressed byte $first: bytes after the gzip member" tail.din.gz
# one stray byte (not even a magic's length)
{ gzip -c a.din; printf '\x1f'; } >byte.din.gz
bad_case "one byte after a gzip member" "compressed byte $first: bytes after the gzip member" byte.din.gz
finish
