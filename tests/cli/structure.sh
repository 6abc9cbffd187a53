#!/bin/bash
# structure.sh - rules of the source tree's shape (the command is not run):
#  - no function in sim/ or frontends/ is longer than 120 lines, from its
#    opening brace to its closing brace (both at column 0), except the
#    table-driven decoders listed below;
#  - the trace readers do not see the configuration's internals
#    (frontends/ includes no sim/config_internal.h) and the model does not
#    see the readers' (sim/ includes no frontends/frontend.h): they meet in
#    sim/schema.h and the public headers.
source "$(dirname "$0")/lib.bash"

# FILE NAME of the decoders allowed to be longer: a switch over record
# types or a hot per-line loop, read as one table.
allowed="frontends/ctr.c other
frontends/din.c parse"

long=$(awk '
FNR == 1 { inbody = 0 }
/^[A-Za-z_].*\(/ && !inbody { hdr = $0 }
/^\{/ && !inbody {
    inbody = 1; start = FNR; name = hdr; sub(/\(.*/, "", name)
    n = split(name, w, /[ *]+/); name = w[n]; next
}
/^\}/ && inbody { inbody = 0; if (FNR - start + 1 > 120) print FILENAME " " name " " FNR - start + 1 }
' $(find sim frontends -name '*.c' | sort))
while read -r file name lines; do
    [ -n "$file" ] || continue
    if grep -qx "$file $name" <<<"$allowed"; then ok; else
        bad "$file: $name is $lines lines long (at most 120; split it by meaning)"
    fi
done <<<"$long"
expect_eq "$(grep -l 'config_internal\.h' frontends/*.c frontends/*.h 2>/dev/null)" "" \
    "frontends/ includes sim/config_internal.h"
expect_eq "$(grep -l 'frontend\.h' $(find sim -name '*.c' -o -name '*.h') 2>/dev/null)" "" \
    "sim/ includes frontends/frontend.h"
finish
