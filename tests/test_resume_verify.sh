#!/usr/bin/env bash
# test_resume_verify.sh -- `sweep --resume` keeps a complete run file only
# when it is that run's (issue 25 #6): same seed, mechanism and scenario
# text (the point's parameters).  A 2-point sweep (agents[0].params.rate 1.2
# and 1.3 on scenarios/sweeps/tiny.json, 20 blocks, eip1559, seed 3):
#   1. the two runs' files swapped, then --resume: both are reported and
#      run again, and every row's welfare equals the fresh sweep's;
#   2. sweep.h5 removed and a sweep with the rates in the other order
#      resumed into the directory: both runs are rerun, and the welfare of
#      rate 1.2 is still the fresh sweep's rate-1.2 welfare.
# Usage: bash tests/test_resume_verify.sh PATH-TO-COWSIM   (from the source root)
set -u
BIN=${1:-${CS_BIN:-}}
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
PY=/usr/bin/python3
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mk() { # mk FILE RATES
    printf '{"name": "rv", "base": "%s/scenarios/sweeps/tiny.json", "set": {"blocks": 20}, "mechanisms": ["eip1559"], "seeds": [3], "grid": {"agents[0].params.rate": %s}}\n' "$SRC" "$2" > "$1"
}
rows() { # rows DIR: "rate welfare" per row of DIR/sweep.h5, sorted by rate
    "$PY" - "$1/sweep.h5" <<'PY'
import sys, h5py
r = h5py.File(sys.argv[1], "r")["runs"][:]
for rate, w in sorted((float(x["agents_0_params_rate"]), float(x["welfare"])) for x in r):
    print("%.2f %.17g" % (rate, w))
PY
}
mk "$T/a.json" '[1.2, 1.3]'
mk "$T/b.json" '[1.3, 1.2]'
"$BIN" sweep "$T/a.json" -o "$T/fresh" --quiet > /dev/null 2>&1 || bad "fresh sweep failed"
want=$(rows "$T/fresh")
[ "$(echo "$want" | awk '{print $2}' | sort -u | wc -l)" -eq 2 ] && ok || bad "the two rates give the same welfare: $want"

# 1. swapped files
cp -r "$T/fresh" "$T/d"
mv "$T/d/runs/r0000/eip1559.h5" "$T/x.h5"
mv "$T/d/runs/r0001/eip1559.h5" "$T/d/runs/r0000/eip1559.h5"
mv "$T/x.h5" "$T/d/runs/r0001/eip1559.h5"
"$BIN" sweep "$T/a.json" -o "$T/d" --resume > /dev/null 2> "$T/e1" || bad "resume 1: exit $?: $(cat "$T/e1")"
n=$(grep -c "is complete but its scenario (parameters) is not run r000[01]'s; running it again" "$T/e1")
[ "$n" -eq 2 ] && ok || bad "resume 1: $n of 2 swapped files reported: $(cat "$T/e1")"
got=$(rows "$T/d")
[ "$got" = "$want" ] && ok || bad "resume 1: rows '$got', want '$want'"

# 2. another sweep (rates in the other order) resumed without sweep.h5
rm -f "$T/d/sweep.h5"
"$BIN" sweep "$T/b.json" -o "$T/d" --resume > /dev/null 2> "$T/e2" || bad "resume 2: exit $?: $(cat "$T/e2")"
n=$(grep -c "running it again" "$T/e2")
[ "$n" -eq 2 ] && ok || bad "resume 2: $n of 2 relabelled files reported: $(cat "$T/e2")"
got=$(rows "$T/d")
[ "$got" = "$want" ] && ok || bad "resume 2: rows '$got', want '$want'"

# 3. a resume of the right files keeps them (nothing rerun)
"$BIN" sweep "$T/b.json" -o "$T/d" --resume > /dev/null 2> "$T/e3" || bad "resume 3: exit $?"
! grep -q "running it again" "$T/e3" && grep -q "2 of 2 run(s) complete" "$T/e3" && ok || bad "resume 3: $(cat "$T/e3")"

echo "resume_verify: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
