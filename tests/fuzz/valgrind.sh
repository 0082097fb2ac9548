#!/usr/bin/env bash
# valgrind.sh COWSIM [VALGRIND] -- memcheck on small end-to-end commands
# (ctest "valgrind_run", label valgrind, defined in tests/fuzz/CMakeLists.txt
# for plain builds only, so CI runs it once).  Each command must finish with
# its normal exit code and valgrind must report no error: no invalid read or
# write, no use of uninitialised values, no definitely/indirectly/possibly
# lost block (--error-exitcode=99 separates valgrind's verdict from cowsim's
# own exit codes).  "Still reachable" memory is allowed: libhdf5 keeps its
# global state until exit (cowsim opts out of HDF5's atexit handler, see
# sim/cs_h5_layout.c).  Runs from the source root.
set -u
BIN=${1:?usage: valgrind.sh COWSIM [VALGRIND]}
VG=${2:-valgrind}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
vg() { # vg EXPECTED_EXIT NAME ARGS...
    local want=$1 name=$2
    shift 2
    "$VG" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
        --track-origins=yes "$BIN" "$@" >"$T/$name.out" 2>"$T/$name.err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: valgrind $name: exit $rc (want $want)" >&2
        cat "$T/$name.err" >&2
        fail=1
    else
        echo "ok: valgrind $name (exit $rc)"
    fi
}
vg 0 run run scenarios/minimal.json -o "$T/run" --quiet
[ -s "$T/run/fifo.h5" ] || { echo "FAIL: no run file" >&2; fail=1; }
vg 0 clear clear scenarios/auctions/bias_vcg_critical.json --json
vg 2 validate validate tests/scenarios_bad/balance_total_overflow.json
exit $fail
