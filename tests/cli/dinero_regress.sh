#!/bin/bash
# dinero_regress.sh - DineroIV 7's own regression configurations (its
# testing/test-parms, without random replacement or pixie-only formats):
# cachet against the figures DineroIV printed on the first 200,000
# references of 093.nasa7, pinned in tests/data/dinero_regress.jsonl (needs
# CACHET_CORPUS); and with DINERO naming the DineroIV 7 binary of a
# distribution whose testing directory lies beside it, the same
# configurations run by both on the whole of nasa7 and on the distribution's
# mm.32 (tests/dinero_regress.py). Skipped, saying so, when neither can run.
here=$(dirname "$0")
if [ -z "${CACHET_CORPUS:-}" ]; then
    echo "skipped: CACHET_CORPUS is not set (the pinned figures are of nasa7)"
    exit 77
fi
python3 "$here/../dinero_regress.py" "$1" --facts "$here/../data/dinero_regress.jsonl" || exit 1
if [ -n "${DINERO:-}" ] && [ -x "$DINERO" ]; then
    python3 "$here/../dinero_regress.py" "$1"
    rc=$?
    [ $rc = 77 ] && exit 0   # the pinned figures were compared
    exit $rc
fi
echo "DINERO not set: compared with the pinned figures only"
