# lib.bash - helpers for the command-line tests (sourced, not run).
# Each test script: source lib.bash, call check/expect_*, end with `finish`.
CACHET=${1:?usage: $0 PATH-TO-cachet}
SRC=${CACHET_SRC:-$(pwd)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# check DESCRIPTION COMMAND...: the command must succeed
check() { local d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }

# expect_status WANT DESCRIPTION COMMAND...: exit status must be WANT
expect_status() {
    local want=$1 d=$2; shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$d: exit $got, want $want ($(head -c 300 "$TMP/err"))"; fi
}

# expect_err_contains TEXT DESCRIPTION: the last expect_status stderr must contain TEXT
expect_err_contains() {
    if grep -qF -- "$1" "$TMP/err"; then ok; else bad "$2: stderr lacks '$1': $(head -c 300 "$TMP/err")"; fi
}

# json_get FILE EXPR: print a value from a JSON file (python3 expression on d)
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# expect_eq GOT WANT DESCRIPTION
expect_eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi; }

# corpus PATH: skip the whole test (exit 77) when CACHET_CORPUS is unset
need_corpus() {
    if [ -z "${CACHET_CORPUS:-}" ] || [ ! -d "$CACHET_CORPUS" ]; then
        echo "skipped: CACHET_CORPUS is not set (real-trace tests need ../shared/traces)"
        exit 77
    fi
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
