#!/usr/bin/env bash
# test_sweep_mpi.sh BIN [MPIRUN] -- cowsim sweep under mpirun (cli/cs_cmd_sweep.c):
# BIN must be a cowsim built with -DCS_MPI=ON (registered in ctest only then).
#   1. mpirun -n 2 (rank 0 hands out runs, one worker rank) runs in MPI mode
#      and gives a /runs table identical to a local -j 1 sweep;
#   2. mpirun -n 3: runs are spread over both worker ranks (dynamic
#      distribution), same table again;
#   3. --resume under mpirun collects finished runs without rerunning them;
#   4. mpirun -n 1 behaves like a local sweep;
#   5. a second sweep into a directory whose sweep.h5.work another sweep
#      locks (held here with flock): every rank ends with exit 3, rank 0
#      says so once, and the directory's sweep.h5 and run files are
#      untouched.
set -u
BIN=${1:?usage: test_sweep_mpi.sh PATH/TO/MPI/cowsim [mpirun]}
MPIRUN=${2:-mpirun}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SW="$SRC/scenarios/sweeps"
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
MPI="$MPIRUN --allow-run-as-root --oversubscribe"
command -v "$MPIRUN" > /dev/null || { echo "FAIL: $MPIRUN not found" >&2; exit 1; }

same_runs() {
    $PY - "$1" "$2" <<'PYEOF'
import sys, h5py, numpy as np
a = h5py.File(sys.argv[1], "r")["runs"][:]
b = h5py.File(sys.argv[2], "r")["runs"][:]
if a.dtype != b.dtype or len(a) != len(b):
    print("DIFF dtype/len", len(a), len(b)); sys.exit(1)
for n in a.dtype.names:
    if not np.array_equal(a[n], b[n], equal_nan=a[n].dtype.kind == "f"):
        print("DIFF column", n); sys.exit(1)
print("SAME", len(a))
PYEOF
}

"$BIN" sweep "$SW/grid.json" -o "$T/local" -j 1 --quiet > /dev/null 2>&1
check "[ $? -eq 0 ]" "local -j 1 sweep"

# 1. two ranks: one worker.
$MPI -n 2 "$BIN" sweep "$SW/grid.json" -o "$T/m2" > /dev/null 2> "$T/m2.err"
rc=$?
check "[ $rc -eq 0 ]" "mpirun -n 2 exit 0 (got $rc: $(tail -3 "$T/m2.err"))"
if ! grep -q '1 MPI worker rank(s)' "$T/m2.err"; then
    bad "mpirun -n 2 did not run in MPI mode: is $BIN built with -DCS_MPI=ON? ($(head -2 "$T/m2.err"))"
fi
check "[ \$(grep -c 'on rank 1' '$T/m2.err') -eq 8 ]" "mpirun -n 2: rank 1 ran all 8 runs"
r=$(same_runs "$T/local/sweep.h5" "$T/m2/sweep.h5" 2>&1)
check "[ '$r' = 'SAME 16' ]" "mpirun -n 2 /runs identical to -j 1 ($r)"

# 2. three ranks: two workers share the runs.
$MPI -n 3 "$BIN" sweep "$SW/grid.json" -o "$T/m3" > /dev/null 2> "$T/m3.err"
rc=$?
check "[ $rc -eq 0 ] && grep -q '2 MPI worker rank(s)' '$T/m3.err'" "mpirun -n 3 exit 0 in MPI mode (got $rc)"
n1=$(grep -c 'on rank 1' "$T/m3.err")
n2=$(grep -c 'on rank 2' "$T/m3.err")
check "[ $n1 -ge 1 ] && [ $n2 -ge 1 ] && [ $((n1 + n2)) -eq 8 ]" "mpirun -n 3: both worker ranks ran runs ($n1 + $n2)"
r=$(same_runs "$T/local/sweep.h5" "$T/m3/sweep.h5" 2>&1)
check "[ '$r' = 'SAME 16' ]" "mpirun -n 3 /runs identical to -j 1 ($r)"
nd=$(ls "$T/m3/runs" | wc -l)
check "[ $nd -eq 8 ]" "mpirun -n 3: 8 run directories ($nd)"

# 3. --resume under mpirun: everything complete, nothing rerun.
$MPI -n 2 "$BIN" sweep "$SW/grid.json" -o "$T/m3" --resume > /dev/null 2> "$T/m3r.err"
rc=$?
check "[ $rc -eq 0 ] && [ \$(grep -c 'skipped (complete)' '$T/m3r.err') -eq 8 ] && ! grep -q 'done in' '$T/m3r.err'" \
    "mpirun --resume: 8 skipped, none rerun (got $rc)"
r=$(same_runs "$T/local/sweep.h5" "$T/m3/sweep.h5" 2>&1)
check "[ '$r' = 'SAME 16' ]" "mpirun --resume /runs identical ($r)"

# 4. one rank: a local sweep (worker processes, no MPI messages).
$MPI -n 1 "$BIN" sweep "$SW/grid.json" -o "$T/m1" -j 2 > /dev/null 2> "$T/m1.err"
rc=$?
check "[ $rc -eq 0 ] && grep -q '2 worker process(es)' '$T/m1.err'" "mpirun -n 1: local sweep (got $rc)"
r=$(same_runs "$T/local/sweep.h5" "$T/m1/sweep.h5" 2>&1)
check "[ '$r' = 'SAME 16' ]" "mpirun -n 1 /runs identical ($r)"

# 5. another sweep holds the output directory's lock (fd 9 of this shell).
sum_before=$(cd "$T/m3" && find . -type f | sort | xargs md5sum | md5sum)
exec 9> "$T/m3/sweep.h5.work"
flock -n 9 || bad "flock on $T/m3/sweep.h5.work"
$MPI -n 3 "$BIN" sweep "$SW/grid.json" -o "$T/m3" > /dev/null 2> "$T/m5.err"
rc=$?
exec 9>&-
want="cowsim sweep: $T/m3/sweep.h5 is being written by another sweep ($T/m3/sweep.h5.work is locked)"
nl=$(grep -cxF "$want" "$T/m5.err")
check "[ $rc -eq 3 ] && [ $nl -eq 1 ]" "mpirun -n 3 into a locked directory: exit 3, one message (got $rc, $nl: $(head -3 "$T/m5.err"))"
check "! grep -q 'done in' '$T/m5.err'" "mpirun -n 3 into a locked directory: no run started"
rm -f "$T/m3/sweep.h5.work"
sum_after=$(cd "$T/m3" && find . -type f | sort | xargs md5sum | md5sum)
check "[ '$sum_before' = '$sum_after' ]" "mpirun -n 3 into a locked directory: files untouched"
r=$(same_runs "$T/local/sweep.h5" "$T/m3/sweep.h5" 2>&1)
check "[ '$r' = 'SAME 16' ]" "mpirun -n 3 into a locked directory: /runs still readable and identical ($r)"

echo "sweep_mpi: $pass passed, $fail failed"
[ $fail -eq 0 ]
