#!/bin/bash
# dinero_random.sh - a short run of tests/dinero_random.py: 40 random
# (configuration, trace) pairs, seed 1, every figure DineroIV 7 prints
# compared with cachet's. Needs DINERO (the DineroIV 7 binary); skipped
# otherwise. results/FIDELITY.md has the long runs.
if [ -z "${DINERO:-}" ] || [ ! -x "$DINERO" ]; then
    echo "skipped: DINERO does not name the DineroIV 7 binary"
    exit 77
fi
exec python3 "$(dirname "$0")/../dinero_random.py" "$1" --pairs 40 --seed 1
