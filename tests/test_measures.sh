#!/usr/bin/env bash
# test_measures.sh -- measurements through the real `run` / `compare` path
# (analysis/README.md): Jain's index over every actor with a due timer,
# starved actors counted as service 0.
set -u
. tests/cs_test_lib.sh
D=tests/data/measures

# 1. Jain over [1, 1, 1, 1] = 1 and over [1, 0, 0, 0] = (1)^2 / (4 * 1) = 0.25,
#    from compare (the /fires and /timers rows) and from the engine's root
#    attribute jain (printed by run).  Three starved actors are counted.
for c in "jain-even 1" "jain-starved 0.25"; do
    set -- $c
    "$BIN" run "$D/$1.json" -o "$T/$1" --quiet > "$T/$1.out" 2> "$T/$1.err"
    check "[ $? -eq 0 ]" "run $1 exit 0"
    "$BIN" compare --json "$T/$1/eip1559.h5" > "$T/$1.json" 2> "$T/$1.cerr"
    check "[ $? -eq 0 ]" "compare $1 exit 0"
    check "$PY - '$T/$1.json' $2 <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))['runs'][0]['metrics']
want = float(sys.argv[2])
assert abs(m['jain'] - want) < 1e-12, (m['jain'], want)
PY" "compare: jain of $1 is $2"
    check "h5dump -a /jain '$T/$1/eip1559.h5' | $PY -c 'import sys, re; v = float(re.findall(r\"\\(0\\): (\\S+)\", sys.stdin.read())[0]); sys.exit(abs(v - $2) > 1e-12)'" \
        "root attribute jain of $1 is $2"
done
# The starved run: the three starved actors' timers are censored.
check "$PY -c 'import json; m = json.load(open(\"$T/jain-starved.json\"))[\"runs\"][0][\"metrics\"]; assert m[\"censored\"] >= 3, m[\"censored\"]'" \
    "three starved timers censored"

finish measures
