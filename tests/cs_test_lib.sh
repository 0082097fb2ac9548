# cs_test_lib.sh -- shared prelude of the script tests: source it from a
# test run at the source root.  Sets BIN (argument 1, else $CS_BIN, else
# build/cowsim), PY, a scratch directory T removed at exit, and the pass /
# fail counters with ok, bad MESSAGE and check EXPR MESSAGE; finish prints
# "<suite>: N passed, N failed" and returns the exit status.
BIN=${1:-${CS_BIN:-build/cowsim}}
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
finish() { echo "$1: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
