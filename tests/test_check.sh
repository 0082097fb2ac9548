#!/usr/bin/env bash
# test_check.sh -- `cowsim check` and `cowsim compare` end to end
# (analysis/README.md): blessing a baseline and checking against it,
# refreshing values while keeping tolerances, the tolerance rule at its
# boundary, null (NaN) metrics, every bad-input path with its exit code
# (2 bad input, 3 unreadable), incomplete runs, and compare's text, CSV
# and JSON output with the greedy reference found next to a run.  Expected numbers
# are recomputed independently with h5py from the run files.
set -u
. "$(dirname "$0")/cs_test_lib.sh"
# expect RC DESCRIPTION -- compare $? of the previous command
expect() { local got=$1 want=$2; shift 2; [ "$got" -eq "$want" ] && ok || bad "$* (exit $got, want $want)"; }

SCEN=scenarios/regression/storm-fifo-capped.json
"$BIN" run "$SCEN" -o "$T/a" --mechanism fifo-capped,eip1559 --set blocks=400 --quiet > /dev/null 2>&1
expect $? 0 "run $SCEN"
RUN=$T/a/eip1559.h5
RUN2=$T/a/fifo-capped.h5

# ---- check: usage ----------------------------------------------------------
"$BIN" check > /dev/null 2>&1; expect $? 2 "check without arguments"
"$BIN" check --help > "$T/h.txt" 2>&1; expect $? 0 "check --help"
grep -q -- '--bless' "$T/h.txt" && ok || bad "check --help mentions --bless"
"$BIN" check --baseline x.json --bless y.json "$RUN" > /dev/null 2>&1; expect $? 2 "--baseline with --bless"
"$BIN" check --baseline x.json "$RUN" --abs 1 > /dev/null 2>&1; expect $? 2 "--abs without --bless"
"$BIN" check --bless "$T/b.json" "$RUN" --rel -1 > /dev/null 2>&1; expect $? 2 "negative --rel"

# ---- bless a new baseline, then check it ------------------------------------
B=$T/b.json
"$BIN" check --bless "$B" "$RUN" > "$T/bless.txt" 2>&1; expect $? 0 "bless a new baseline"
grep -q 'new baseline' "$T/bless.txt" && ok || bad "bless reports a new baseline"
$PY - "$B" "$RUN" > "$T/b.chk" 2>&1 <<'PYEOF'
import json, sys, h5py
b = json.load(open(sys.argv[1])); f = h5py.File(sys.argv[2], "r")
assert b["mechanism"] == "eip1559" and b["scenario"] == "reg-storm-fifo-capped", b
assert b["seed"] == int(f.attrs["seed"])
m = b["metrics"]
# every run-level metric is there, with the default tolerance rel 0.05
for k in ["blocks", "jain", "gini", "w_p90", "delay_p99", "attack_gain", "efficiency"]:
    assert k in m, k
    assert m[k] == {"value": m[k]["value"], "rel": 0.05}, m[k]
# values recomputed independently: blocks, fires, welfare from /actors
assert m["blocks"]["value"] == len(f["blocks"]) == 400
assert m["fires"]["value"] == int(f["actors"]["fires"].sum())
assert abs(m["welfare"]["value"] - float(f["actors"]["value"].sum())) <= 1e-6 * m["welfare"]["value"]
assert m["efficiency_greedy"]["value"] is None   # no greedy run: NaN -> null
assert m["welfare"]["value"] <= m["welfare_opt"]["value"] * (1 + 1e-9)
assert abs(m["efficiency"]["value"] - m["welfare"]["value"] / m["welfare_opt"]["value"]) <= 1e-12
assert "delay_p99.default_gba" in m and "delay_p99.spammer" in m
print("BLESS OK", len(m))
PYEOF
grep -q 'BLESS OK' "$T/b.chk" && ok || bad "blessed baseline content: $(cat "$T/b.chk")"
nmet=$(grep -o 'BLESS OK [0-9]*' "$T/b.chk" | cut -d' ' -f3)
"$BIN" check --baseline "$B" "$RUN" > "$T/c.txt" 2>&1; expect $? 0 "check against its own bless"
[ "$(grep -c 'PASS$' "$T/c.txt")" = "${nmet:-x}" ] && ok || bad "one PASS line per metric ($nmet)"
grep -qE '^efficiency_greedy +NaN +NaN ' "$T/c.txt" && ok || bad "null baseline vs NaN actual passes"

# ---- tolerance boundary: tol = max(abs, rel |value|) -------------------------
mk() { # mk OUT PYTHON-EXPR-ON-m  (m = metrics dict of the blessed baseline)
    $PY - "$B" "$1" "$2" <<'PYEOF'
import json, sys
b = json.load(open(sys.argv[1])); m = b["metrics"]
exec(sys.argv[3])
json.dump(b, open(sys.argv[2], "w"))
PYEOF
}
mk "$T/t1.json" 'j = m["jain"]["value"]; b["metrics"] = {"jain": {"value": j + 0.0099, "abs": 0.01}}'
"$BIN" check --baseline "$T/t1.json" "$RUN" > /dev/null 2>&1; expect $? 0 "inside abs tolerance"
mk "$T/t2.json" 'j = m["jain"]["value"]; b["metrics"] = {"jain": {"value": j - 0.0101, "abs": 0.01}}'
"$BIN" check --baseline "$T/t2.json" "$RUN" > "$T/t2.txt" 2>&1; expect $? 1 "outside abs tolerance"
grep -qE '^jain .*FAIL$' "$T/t2.txt" && ok || bad "jain FAIL line"
grep -q '1 failed' "$T/t2.txt" && ok || bad "failure count"
mk "$T/t3.json" 'v = m["blocks"]["value"]; b["metrics"] = {"blocks": {"value": v * 1.1, "abs": 1, "rel": 0.1}}'
"$BIN" check --baseline "$T/t3.json" "$RUN" > /dev/null 2>&1; expect $? 0 "rel tolerance wins over a smaller abs (|400 - 440| = 40 <= 44)"
mk "$T/t4.json" 'b["metrics"] = {"blocks": {"value": 399}}'
"$BIN" check --baseline "$T/t4.json" "$RUN" > /dev/null 2>&1; expect $? 1 "no tolerance means exact"
mk "$T/t5.json" 'b["metrics"] = {"jain": {"value": None, "abs": 1}}'
"$BIN" check --baseline "$T/t5.json" "$RUN" > /dev/null 2>&1; expect $? 1 "null baseline vs a number fails"
mk "$T/t6.json" 'b["metrics"] = {"efficiency_greedy": {"value": 1, "abs": 1}}'
"$BIN" check --baseline "$T/t6.json" "$RUN" > /dev/null 2>&1; expect $? 1 "number baseline vs NaN fails"
mk "$T/t7.json" 'b["metrics"] = {"delay_p99.heartbeat": {"value": None}}'
"$BIN" check --baseline "$T/t7.json" "$RUN" > /dev/null 2>&1; expect $? 0 "absent kind is NaN (valid name)"

# ---- bad baselines: exit 2 naming the problem; unreadable: exit 3 ----------
bad_base() { # bad_base DESCRIPTION PATTERN JSON
    printf '%s' "$3" > "$T/bad.json"
    "$BIN" check --baseline "$T/bad.json" "$RUN" > /dev/null 2> "$T/bad.err"
    local rc=$?
    expect $rc 2 "$1"
    grep -q -- "$2" "$T/bad.err" && ok || bad "$1: message lacks '$2': $(cat "$T/bad.err")"
}
bad_base "unknown metric" 'metrics.bogus_metric: unknown metric' '{"metrics": {"jain": {"value": 1, "abs": 1}, "bogus_metric": {"value": 1}}}'
bad_base "unknown kind" 'metrics.delay_p99.dragon: unknown metric' '{"metrics": {"delay_p99.dragon": {"value": 1}}}'
bad_base "malformed JSON" 'not valid JSON' '{"metrics": {"jain": '
bad_base "unknown top-level key" 'colour: unknown key' '{"colour": "red", "metrics": {"jain": {"value": 1}}}'
bad_base "missing metrics" 'metrics: missing' '{"scenario": "x"}'
bad_base "empty metrics" 'at least one metric' '{"metrics": {}}'
bad_base "missing value" 'metrics.jain.value: missing' '{"metrics": {"jain": {"abs": 1}}}'
bad_base "string value" 'metrics.jain.value: must be a number or null' '{"metrics": {"jain": {"value": "0.9"}}}'
bad_base "negative abs" 'metrics.jain.abs: must be a number >= 0' '{"metrics": {"jain": {"value": 1, "abs": -0.1}}}'
bad_base "unknown entry key" 'metrics.jain.tol: unknown key' '{"metrics": {"jain": {"value": 1, "tol": 1}}}'
# issue 25: an escaped NUL, and a seed of 2^53 + 1 as a JSON number (it would read as 2^53)
bad_base "escaped NUL" 'escaped NUL (\\u0000) in a string at line 1, column 18' '{"mechanism": "fi\u0000fo", "metrics": {"jain": {"value": 1}}}'
bad_base "seed 2^53+1" 'seed: must be an integer in \[0, 2^53 - 1\]' '{"seed": 9007199254740993, "metrics": {"jain": {"value": 1}}}'
bad_base "duplicate metric" 'metrics.jain: duplicate metric' '{"metrics": {"jain": {"value": 1}, "jain": {"value": 1}}}'
bad_base "mechanism mismatch" "baseline is for 'fifo'" '{"mechanism": "fifo", "metrics": {"jain": {"value": 1}}}'
bad_base "scenario mismatch" "baseline is for 'other'" '{"scenario": "other", "metrics": {"jain": {"value": 1}}}'
bad_base "seed mismatch" 'seed: the baseline is for seed 1,' '{"seed": 1, "metrics": {"jain": {"value": 1}}}'
bad_base "seed mismatch (string)" 'seed: the baseline is for seed 18446744073709551615,' '{"seed": "18446744073709551615", "metrics": {"jain": {"value": 1}}}'
bad_base "negative seed" 'seed: must be an integer' '{"seed": -1, "metrics": {"jain": {"value": 1}}}'
"$BIN" check --baseline "$T/none.json" "$RUN" > /dev/null 2> "$T/e.err"; expect $? 3 "missing baseline file"
grep -q 'none.json' "$T/e.err" && ok || bad "missing baseline named"
"$BIN" check --baseline "$B" "$T/none.h5" > /dev/null 2> "$T/e.err"; expect $? 3 "missing run file"
grep -q 'none.h5' "$T/e.err" && ok || bad "missing run file named"
echo "plain text" > "$T/text.h5"
"$BIN" check --baseline "$B" "$T/text.h5" > /dev/null 2> "$T/e.err"; expect $? 2 "run file that is not HDF5"
grep -q 'text.h5' "$T/e.err" && ok || bad "bad run file named"

# ---- bless: refresh keeps tolerances; --metrics; refusals ---------------------
mk "$T/r.json" 'm["jain"]["value"] = 0.5; m["jain"]["abs"] = 0.123; del m["jain"]["rel"]; b["comment"] = "keep me"'
"$BIN" check --bless "$T/r.json" "$RUN" > "$T/r.txt" 2>&1; expect $? 0 "refresh an existing baseline"
grep -q '1 value changed' "$T/r.txt" && ok || bad "refresh reports one changed value: $(tail -1 "$T/r.txt")"
$PY - "$T/r.json" "$B" > "$T/r.chk" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert r["metrics"]["jain"] == {"value": b["metrics"]["jain"]["value"], "abs": 0.123}, r["metrics"]["jain"]
assert r["comment"] == "keep me"
assert list(r["metrics"]) == list(b["metrics"])
print("REFRESH OK")
PYEOF
grep -q 'REFRESH OK' "$T/r.chk" && ok || bad "refresh content: $(cat "$T/r.chk")"
"$BIN" check --bless "$T/s.json" "$RUN" --metrics jain,delay_p99.spammer --abs 0.5 --rel 0.25 > /dev/null 2>&1
expect $? 0 "bless selected metrics"
$PY -c "
import json, sys
m = json.load(open(sys.argv[1]))['metrics']
assert list(m) == ['jain', 'delay_p99.spammer'] and m['jain']['abs'] == 0.5 and m['jain']['rel'] == 0.25, m
" "$T/s.json" && ok || bad "selected metrics content"
"$BIN" check --bless "$T/s.json" "$RUN" --metrics gini --abs 0.01 > /dev/null 2>&1; expect $? 0 "add a metric to a baseline"
$PY -c "
import json, sys
m = json.load(open(sys.argv[1]))['metrics']
assert list(m) == ['jain', 'delay_p99.spammer', 'gini'] and m['gini'] == {'value': m['gini']['value'], 'abs': 0.01}, m
assert m['jain']['abs'] == 0.5
" "$T/s.json" && ok || bad "added metric, others kept"
"$BIN" check --bless "$T/u.json" "$RUN" --metrics jain,nonsense > /dev/null 2> "$T/u.err"; expect $? 2 "bless unknown metric"
grep -q "unknown metric 'nonsense'" "$T/u.err" && ok || bad "bless names the unknown metric"
[ ! -e "$T/u.json" ] && ok || bad "no baseline written on error"
"$BIN" check --bless "$T/s.json" "$RUN2" > /dev/null 2> "$T/m.err"; expect $? 2 "refresh from another mechanism's run"

# ---- incomplete runs: check warns, bless refuses -----------------------------
cp "$RUN" "$T/inc.h5"
$PY -c "
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'r+') as f: f.attrs['complete'] = np.int32(0)
" "$T/inc.h5"
"$BIN" check --baseline "$B" "$T/inc.h5" > "$T/i.txt" 2> "$T/i.err"; rc=$?
[ $rc -eq 1 ] && ok || bad "incomplete run checked (complete differs -> 1), got $rc"
grep -q 'warning: .*inc.h5 is an incomplete run' "$T/i.err" && ok || bad "incomplete warning"
grep -qE '^complete .*FAIL$' "$T/i.txt" && ok || bad "complete metric fails"
"$BIN" check --bless "$T/inc.json" "$T/inc.h5" > /dev/null 2>&1; expect $? 2 "bless refuses an incomplete run"

# ---- compare -----------------------------------------------------------------
"$BIN" compare > /dev/null 2>&1; expect $? 2 "compare without files"
"$BIN" compare --help > /dev/null 2>&1; expect $? 0 "compare --help"
"$BIN" compare "$RUN" "$RUN2" > "$T/cmp.txt" 2>&1; expect $? 0 "compare two runs"
grep -qE '^metric +eip1559 +fifo-capped$' "$T/cmp.txt" && ok || bad "text header has one column per run"
grep -qE '^jain +[0-9.]+ +[0-9.]+$' "$T/cmp.txt" && ok || bad "jain row"
grep -qE '^delay_p99.spammer ' "$T/cmp.txt" && ok || bad "per-kind rows"
"$BIN" compare "$RUN" "$RUN2" --csv > "$T/cmp.csv" 2>&1; expect $? 0 "compare --csv"
"$BIN" compare "$RUN" "$RUN2" --json > "$T/cmp.json" 2>&1; expect $? 0 "compare --json"
$PY - "$T/cmp.csv" "$T/cmp.json" "$B" "$RUN2" > "$T/cmp.chk" 2>&1 <<'PYEOF'
import csv, json, sys, h5py
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["metric", "eip1559", "fifo-capped"], rows[0]
d = {r[0]: r[1:] for r in rows[1:]}
j = json.load(open(sys.argv[2]))
b = json.load(open(sys.argv[3]))["metrics"]
assert [r["mechanism"] for r in j["runs"]] == ["eip1559", "fifo-capped"]
for k, e in b.items():                   # CSV, JSON and the blessed baseline agree exactly
    v = e["value"]
    if v is None:
        assert d[k][0] == "" and j["runs"][0]["metrics"][k] is None, k
    else:
        assert float(d[k][0]) == v == j["runs"][0]["metrics"][k], (k, d[k][0], v)
f = h5py.File(sys.argv[4], "r")           # fifo-capped pays the execution fees (N58); its fires from /actors
a = f["actors"][:]
paid = sum((int(h) << 64) | int(l) for h, l in zip(a["paid_hi"], a["paid_lo"]))
ef = f["fires"][:]
assert paid > 0 and paid == sum((int(h) << 64) | int(l) for h, l in zip(ef["exec_fee_hi"], ef["exec_fee_lo"]))
assert float(d["paid"][1]) == float(paid) and float(d["fires"][1]) == float(a["fires"].sum())
assert j["runs"][1]["greedy"] is None and j["runs"][1]["complete"] is True
print("COMPARE OK")
PYEOF
grep -q 'COMPARE OK' "$T/cmp.chk" && ok || bad "compare CSV/JSON content: $(cat "$T/cmp.chk")"
"$BIN" compare "$RUN" "$T/none.h5" > /dev/null 2> "$T/e.err"; expect $? 3 "compare with a missing file"
grep -q 'none.h5' "$T/e.err" && ok || bad "compare names the missing file"
"$BIN" compare "$T/text.h5" > /dev/null 2> "$T/e.err"; expect $? 2 "compare a file that is not a run"
"$BIN" compare "$T/text.h5" "$T/none.h5" > /dev/null 2>&1; expect $? 3 "unreadable wins over not-a-run"
"$BIN" compare "$RUN" --frobnicate > /dev/null 2>&1; expect $? 2 "compare unknown option"
"$BIN" compare "$T/inc.h5" > "$T/ci.txt" 2> "$T/ci.err"; expect $? 0 "compare shows an incomplete run"
grep -q 'INCOMPLETE' "$T/ci.txt" && grep -q 'warning' "$T/ci.err" && ok || bad "incomplete run flagged"

# ---- greedy next to a run: efficiency_greedy = welfare / greedy welfare ------
mkdir -p "$T/o"
"$BIN" run "$SCEN" -o "$T/o" --mechanism greedy,eip1559 --set blocks=400 --quiet > /dev/null 2>&1
expect $? 0 "run the greedy reference"
# The compare --json of (run, its greedy reference), checked from the files:
# efficiency_greedy = welfare / greedy welfare (1 for the greedy itself),
# poa = welfare_opt / welfare, and the reference file named in "greedy".
cat > "$T/gchk.py" <<'PYEOF'
import json, sys, h5py
j = json.load(open(sys.argv[1]))
w = float(h5py.File(sys.argv[2], "r")["actors"]["value"].sum())
ow = float(h5py.File(sys.argv[3], "r")["actors"]["value"].sum())
r0, r1 = j["runs"]
assert r0["greedy"].endswith("/" + sys.argv[4] + ".h5"), r0["greedy"]
assert abs(r0["metrics"]["efficiency_greedy"] - w / ow) <= 1e-12 * (w / ow), (r0["metrics"]["efficiency_greedy"], w / ow)
assert r1["metrics"]["efficiency_greedy"] == 1
# efficiency and poa use each run's own welfare optimum (for a pre-rename
# file too: the optimum reads mechanism 'oracle' as greedy's rules).
for r in (r0, r1):
    m = r["metrics"]
    assert abs(m["poa"] - m["welfare_opt"] / m["welfare"]) <= 1e-12 * m["poa"], r["mechanism"]
print("GREEDY OK")
PYEOF
"$BIN" compare "$T/o/eip1559.h5" "$T/o/greedy.h5" --json > "$T/o.json" 2> "$T/o.err"; expect $? 0 "compare with greedy.h5 beside"
$PY "$T/gchk.py" "$T/o.json" "$T/o/eip1559.h5" "$T/o/greedy.h5" greedy > "$T/o.chk" 2>&1
grep -q 'GREEDY OK' "$T/o.chk" && ok || bad "efficiency against greedy.h5: $(cat "$T/o.chk")"
"$BIN" compare "$T/o/eip1559.h5" --greedy "$RUN2" > /dev/null 2> "$T/o2.err"; expect $? 0 "--greedy that is not a greedy run"
grep -q "not 'greedy'" "$T/o2.err" && ok || bad "note for a non-greedy --greedy"
"$BIN" compare "$T/o/eip1559.h5" --greedy "$T/none.h5" > /dev/null 2>&1; expect $? 3 "--greedy missing"
"$BIN" compare "$T/o/eip1559.h5" --oracle "$T/o/greedy.h5" > /dev/null 2> "$T/o3.err"; expect $? 2 "--oracle (renamed --greedy) is a usage error"
grep -q -- "--greedy GREEDY.h5" "$T/o3.err" && ok || bad "usage names --greedy"

# A run directory made before the rename (DESIGN-NOTES N42): the reference
# file is oracle.h5 and its mechanism attribute 'oracle'; it still pairs.
# Such a file predates the root attributes' digest (N97), so it has none.
mkdir -p "$T/old" && cp "$T/o/eip1559.h5" "$T/old/eip1559.h5" && cp "$T/o/greedy.h5" "$T/old/oracle.h5"
$PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r+') as f:
    f.attrs['mechanism'] = 'oracle'
    del f.attrs['attrs_digest']
" "$T/old/oracle.h5"
"$BIN" compare "$T/old/eip1559.h5" "$T/old/oracle.h5" --json > "$T/o.json" 2> "$T/o.err"; expect $? 0 "compare with a pre-rename oracle.h5 beside"
$PY "$T/gchk.py" "$T/o.json" "$T/old/eip1559.h5" "$T/old/oracle.h5" oracle > "$T/o.chk" 2>&1
grep -q 'GREEDY OK' "$T/o.chk" && ok || bad "efficiency against a pre-rename oracle.h5: $(cat "$T/o.chk")"

# A scenario still naming the mechanism `oracle`: exit 2, the JSON path and the new name.
$PY -c "
import json, sys
d = json.load(open(sys.argv[1])); d['mechanism'] = ['eip1559', 'oracle']
json.dump(d, open(sys.argv[2], 'w'))
" "$SCEN" "$T/oldmech.json"
"$BIN" validate "$T/oldmech.json" > /dev/null 2> "$T/om.err"; expect $? 2 "scenario naming mechanism oracle"
grep -q "mechanism\[1\]: unknown mechanism \"oracle\" (renamed 'greedy' (DESIGN-NOTES N42); valid: " "$T/om.err" && ok \
    || bad "renamed mechanism message: $(cat "$T/om.err")"
"$BIN" run "$SCEN" -o "$T/om" --mechanism oracle --quiet > /dev/null 2> "$T/om2.err"; expect $? 2 "--mechanism oracle"
grep -q "unknown mechanism 'oracle' (renamed 'greedy'" "$T/om2.err" && ok || bad "--mechanism oracle message: $(cat "$T/om2.err")"

mkdir -p "$T/bo" && cp "$RUN" "$T/bo/eip1559.h5" && echo "not hdf5" > "$T/bo/greedy.h5"
"$BIN" compare "$T/bo/eip1559.h5" > /dev/null 2> "$T/bo.err"; expect $? 0 "unusable greedy.h5 beside a run is ignored"
grep -q 'warning: ignoring .*greedy.h5' "$T/bo.err" && ok || bad "warning for the unusable greedy.h5"
"$BIN" check --baseline "$B" "$T/bo/eip1559.h5" > /dev/null 2>&1; expect $? 0 "check ignores an unusable greedy.h5 too"

echo "check: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
