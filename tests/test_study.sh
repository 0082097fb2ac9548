#!/usr/bin/env bash
# test_study.sh -- one calibration study end to end at reduced size (the
# full regeneration, scenarios/calibration/run.sh, stays out of CI): study 3
# (VCG vs first price) with 4 seeds, 200 blocks and two loads, through
# `cowsim sweep`, `cowsim report`, study.py --make-x5, the x5 sweep,
# study.py and prepend.sh.  Warm-up removal: study.py's MSER-5 truncation
# point of every run file equals the C one (cs_stat_mser5 through the
# cs_mser5 helper, on the same per-block utilisation); its windowed metrics
# at T = 0 equal the C metrics of /runs (--check-window).  The study
# section's per-seed revenue ratios and their t intervals are recomputed
# here from /fires (paid of the fires after the later of the pair's two C
# truncation points), with the t quantile t(3, 0.975) = 3.182446305284263
# from a Student-t table; the x5 sweep must hold 5 x the actors.
set -u
. tests/cs_test_lib.sh
MSER=${CS_MSER5:-build/cs_mser5}
S=scenarios/calibration/03-vcg-fp.json
R=$T/results/calibration/03-vcg-fp
mkdir -p "$R"
$PY - "$S" "$T/small.json" <<'PY'
import json, sys
sw = json.load(open(sys.argv[1]))
sw['seeds'] = [1, 2, 3, 4]
sw['base']['blocks'] = 200
sw['grid'] = {'params.lane_timer_cycles': [2500000, 1200000]}
json.dump(sw, open(sys.argv[2], 'w'))
PY
"$BIN" sweep "$T/small.json" -j 2 -o "$R/runs" --quiet > "$T/sw.out" 2>&1
check "[ $? -eq 0 ] && [ -f '$R/runs/sweep.h5' ]" "sweep of the reduced study"
"$BIN" report "$R/runs/sweep.h5" -o "$R" > /dev/null 2> "$T/rep.err"
check "[ $? -eq 0 ] && [ -f '$R/report.md' ]" "report"
$PY scenarios/calibration/study.py --make-x5 "$T/small.json" "$T/x5.json"
check "[ $? -eq 0 ]" "make-x5"
"$BIN" sweep "$T/x5.json" -j 2 -o "$R/runs-x5" --quiet > "$T/sw5.out" 2>&1
check "[ $? -eq 0 ]" "x5 sweep"
$PY scenarios/calibration/study.py 03-vcg-fp --runs "$R/runs" --x5 "$R/runs-x5" --out "$R/study.md" 2> "$T/st.err"
check "[ $? -eq 0 ] && grep -q 'Design size: 100 actors, 200 blocks, 4 seeds' '$R/study.md'" \
    "study.md states the design size ($(head -c 300 "$T/st.err"))"
check "grep -q 'Scale check: .* 500 actors' '$R/study.md'" "x5 population: 500 actors"
# Truncation points: the Python port against the C, file by file.
$PY scenarios/calibration/study.py --points 03-vcg-fp "$R/runs" > "$T/pts.txt"
$PY - "$R" "$T/pts.txt" > "$T/series.txt" <<'PY'
import h5py, sys
for l in open(sys.argv[2]):
    rid, mech, _ = l.split()
    u = h5py.File('%s/runs/runs/%s/%s.h5' % (sys.argv[1], rid, mech), 'r')['blocks']['utilisation']
    print(' '.join(repr(float(v)) for v in u))
PY
"$MSER" < "$T/series.txt" > "$T/cpts.txt"
check "[ \$(wc -l < '$T/pts.txt') -eq 16 ] && paste -d ' ' '$T/pts.txt' '$T/cpts.txt' | awk '\$3 != \$4 { b = 1 } END { exit b }'" \
    "study.py MSER-5 points equal cs_stat_mser5's on all 16 run files"
$PY scenarios/calibration/study.py --check-window "$R/runs" > "$T/cw.out" 2>&1
check "[ $? -eq 0 ] && grep -q ' 0 differ' '$T/cw.out'" "windowed metrics at T = 0 equal /runs ($(tail -3 "$T/cw.out"))"
# Independent recomputation of the revenue ratio rows from the run files:
# paid over the fires after max(T_vcg, T_fp), T from the C helper.
check "$PY - '$R' '$T/pts.txt' '$T/cpts.txt' <<'PY'
import h5py, json, math, re, sys
R = sys.argv[1]
TQ = 3.182446305284263
cpt = {}
for a, b in zip(open(sys.argv[2]), open(sys.argv[3])):
    rid, mech, _ = a.split()
    cpt[rid, mech] = int(b)
by = {}
for rid in sorted(set(r for r, _ in cpt)):
    paid = {}
    T = max(cpt[rid, 'bias-vcg'], cpt[rid, 'bias-fp'])
    for mech in ('bias-vcg', 'bias-fp'):
        h = h5py.File('%s/runs/runs/%s/%s.h5' % (R, rid, mech), 'r')
        f = h['fires'][:]
        paid[mech] = float(f['paid'][f['height'] > T].sum())
    lane = json.loads(h.attrs['scenario_json'])['params']['lane_timer_cycles']
    by.setdefault(lane, []).append(paid['bias-vcg'] / paid['bias-fp'])
text = open(R + '/study.md').read()
sec = text.split('### revenue ratio VCG / FP (paid)')[1].split('###')[0]
ok = True
for lane, x in by.items():
    n = len(x); mu = sum(x) / n
    hw = TQ * math.sqrt(sum((v - mu) ** 2 for v in x) / (n - 1)) / math.sqrt(n)
    row = re.search(r'^\| %d(\.0)? \| [0-9.]+ \| (\d+) \| (\S+) \[(\S+), (\S+)\]' % lane, sec, re.M)
    if not row or int(row.group(2)) != n:
        print('no row / wrong n for', lane, row and row.group(0)); ok = False; continue
    got = [float(row.group(i)) for i in (3, 4, 5)]
    want = [mu, mu - hw, mu + hw]
    if any(abs(g - w) > 1e-3 * max(abs(w), 1e-9) for g, w in zip(got, want)):
        print('lane', lane, 'got', got, 'want', want); ok = False
assert len(by) == 2, by.keys()
sys.exit(0 if ok else 1)
PY" "study.md revenue ratios and intervals match a recomputation from the run files"
check "grep -Eq '\| (holds|changes) \|\$' '$R/study.md'" "scale verdict per row"
# prepend.sh puts conclusion.md and study.md above the generated report.
echo "## Conclusion (test)" > "$R/conclusion.md"
(cd "$T" && sh "$OLDPWD/scenarios/calibration/prepend.sh" 03-vcg-fp)
check "[ $? -eq 0 ] && head -1 '$R/report.md' | grep -q 'Conclusion (test)' && grep -q 'Study section' '$R/report.md'" \
    "prepend.sh: conclusion and study section on top"
finish study
