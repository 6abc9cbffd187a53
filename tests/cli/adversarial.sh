#!/bin/bash
# adversarial.sh - a small seeded subset of tests/adversarial.py for every
# CI run: 3 byte flips and 3 truncations per format and every other class
# once. The full run (100 of each per format; its figures are in
# results/FUZZING.md) is
#   CACHET_CORPUS=../shared/traces tests/adversarial.py build/cachet --cases 100 --seed 1
CACHET=${1:?usage: $0 PATH-TO-cachet}
exec python3 "$(dirname "$0")/../adversarial.py" "$CACHET" --cases 3 --seed 29
