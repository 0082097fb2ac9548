#!/usr/bin/env bash
# test_compare_seeds.sh -- `cowsim compare RUNDIR` on a multi-seed run
# (analysis/README.md "compare across seeds"): every mean, Student-t
# interval and paired difference (t and BCa) recomputed with numpy from the
# per-seed files (their single-run `compare --json`), the reference
# mechanism flag, CSV = JSON, the warning and missing bootstrap below 10
# seeds, and the errors.
set -u
. tests/cs_test_lib.sh
S=tests/data/seeds/ten.json

"$BIN" run "$S" -o "$T/r" --quiet > /dev/null 2> "$T/r.err"
check "[ $? -eq 0 ]" "run with ten seeds: exit 0"
SEEDS="3 14 15 92 65 35 89 79 32 38"
for s in $SEEDS; do
    "$BIN" compare --json "$T/r/seed-$s/eip1559.h5" "$T/r/seed-$s/bias-vcg.h5" "$T/r/seed-$s/fifo.h5" \
        > "$T/c-$s.json" 2>/dev/null
done
"$BIN" compare --json "$T/r" > "$T/all.json" 2> "$T/all.err"
check "[ $? -eq 0 ]" "compare RUNDIR --json: exit 0"
check "! grep -q 'no bootstrap' '$T/all.err'" "ten seeds: no bootstrap warning"
"$BIN" compare --json --ref fifo "$T/r" > "$T/fifo.json" 2>/dev/null
check "[ $? -eq 0 ]" "compare --ref fifo RUNDIR: exit 0"

# Independent recomputation.  t(9, 0.975) = 2.262157162740992 (Student-t
# table, 9 degrees of freedom: 2.262; the digits are checked below by
# integrating the t density with numpy).  BCa: Efron 1987 with numpy's own
# generator and 20,000 resamples, so its bounds agree with cowsim's (2,000
# resamples, another generator) up to Monte Carlo error: within 10 % of the
# t interval's width, for differences with at least 5 distinct values.
check "$PY - '$T' '$SEEDS' <<'PY'
import json, math, sys
import numpy as np
sys.path.insert(0, 'tests')
from cs_stats_ref import T9 as TQ, bca
T, SEEDS = sys.argv[1], [int(s) for s in sys.argv[2].split()]
def tint(x):
    import cs_stats_ref
    return cs_stats_ref.tint(x, TQ)
# P(0 < t_9 < TQ) must be 0.475: the density (1 + x^2/9)^-5 / (3 B(1/2, 9/2)),
# B(1/2, 9/2) = Gamma(1/2) Gamma(9/2) / Gamma(5) = pi * 105/16 / 24.
xs = np.linspace(0.0, TQ, 200001)
dens = (1 + xs ** 2 / 9) ** -5 / (3 * math.pi * 105 / 16 / 24)
area = float(np.sum((dens[1:] + dens[:-1]) / 2 * np.diff(xs)))
assert abs(area - 0.475) < 1e-9, area
val = {}
for s in SEEDS:
    for r in json.load(open('%s/c-%d.json' % (T, s)))['runs']:
        val[(r['mechanism'], s)] = r['metrics']
def same(a, b, tol):
    if a is None or b is None: return a is None and b is None
    return abs(a - b) <= tol
bad = 0; checked = 0; bca_checked = 0
for fname, ref in (('all.json', 'eip1559'), ('fifo.json', 'fifo')):
    doc = json.load(open(T + '/' + fname))
    assert doc['reference'] == ref and doc['seeds'] == sorted(SEEDS), (doc['reference'], doc['seeds'])
    assert doc['mechanisms'] == ['eip1559', 'bias-vcg', 'fifo'], doc['mechanisms']
    for row in doc['rows']:
        m, k = row['mechanism'], row['metric']
        x = [val[(m, s)].get(k) for s in sorted(SEEDS)]
        if any(v is None for v in x):
            continue
        mu, lo, hi = tint(x)
        tol = 1e-9 * max(1.0, abs(mu), abs(hi - lo))
        if not (row['n'] == 10 and same(row['mean'], mu, tol) and same(row['t_lo'], lo, tol) and same(row['t_hi'], hi, tol)):
            print('mean', fname, k, m, row, (mu, lo, hi)); bad += 1
        if m == ref:
            if row['diff'] is not None: print('reference has a diff', k, m); bad += 1
            continue
        r = [val[(ref, s)].get(k) for s in sorted(SEEDS)]
        if any(v is None for v in r):
            continue
        d = [a - b for a, b in zip(x, r)]
        dm, dlo, dhi = tint(d)
        dd = row['diff']
        tol = 1e-9 * max(1.0, abs(dm), abs(dhi - dlo))
        if not (same(dd['mean'], dm, tol) and same(dd['t_lo'], dlo, tol) and same(dd['t_hi'], dhi, tol)):
            print('diff', fname, k, m, dd, (dm, dlo, dhi)); bad += 1
        blo, bhi = bca(d)
        w = 0.1 * (dhi - dlo)
        if len(set(d)) < 5:
            # Heavily tied differences (e.g. nine zeros and one 2): the
            # resample means are a few atoms and a bound sits on a step,
            # so Monte Carlo error is a whole step; only bound them.
            w = float('inf')
        if not (min(d) <= dd['bca_lo'] <= dd['bca_hi'] <= max(d)):
            print('bca outside the sample range', fname, k, m, dd); bad += 1
        if not (abs(dd['bca_lo'] - blo) <= w and abs(dd['bca_hi'] - bhi) <= w):
            print('bca', fname, k, m, dd['bca_lo'], dd['bca_hi'], 'numpy', blo, bhi); bad += 1
        checked += 1
        bca_checked += w != float('inf')
assert checked >= 100 and bca_checked >= 40, (checked, bca_checked)
sys.exit(1 if bad else 0)
PY" "every mean, t interval and paired difference (t, BCa) matches a numpy recomputation from the per-seed files"

# CSV holds the same exact numbers as JSON, in the same rows.
"$BIN" compare --csv "$T/r" > "$T/all.csv" 2>/dev/null
check "$PY - '$T' <<'PY'
import csv, json, sys
T = sys.argv[1]
rows = json.load(open(T + '/all.json'))['rows']
lines = list(csv.DictReader(open(T + '/all.csv')))
assert len(lines) == len(rows), (len(lines), len(rows))
def num(s): return None if s == '' else float(s)
for r, c in zip(rows, lines):
    assert (c['metric'], c['mechanism']) == (r['metric'], r['mechanism'])
    for f in ('mean', 't_lo', 't_hi', 'bca_lo', 'bca_hi'):
        assert num(c[f]) == r[f], (c, r, f)
        d = r['diff'] or {}
        assert num(c['diff_' + f]) == d.get(f), (c, r, f)
PY" "compare --csv RUNDIR: the JSON rows, numbers exact"

# Text: the welfare rows print the JSON values to 4 significant digits, as
# report.md does (tests/cs_report_ref.py sig: short exponent).
"$BIN" compare "$T/r" > "$T/all.txt" 2>/dev/null
check "$PY - '$T' <<'PY'
import json, sys
T = sys.argv[1]
rows = {(r['metric'], r['mechanism']): r for r in json.load(open(T + '/all.json'))['rows']}
txt = open(T + '/all.txt').read().splitlines()
i = next(i for i, l in enumerate(txt) if l.split()[:1] == ['welfare'])
w = rows[('welfare', 'bias-vcg')]
line = txt[i + 1]
sys.path.insert(0, 'tests')
from cs_report_ref import sig as g
want = ['bias-vcg', g(w['mean']), '[' + g(w['t_lo']) + ',', g(w['t_hi']) + ']', g(w['diff']['mean']),
        '[' + g(w['diff']['t_lo']) + ',', g(w['diff']['t_hi']) + ']', '[' + g(w['diff']['bca_lo']) + ',',
        g(w['diff']['bca_hi']) + ']']
assert line.split() == want, (line, want)
assert '(reference)' in txt[i] and 'eip1559' in txt[i]
PY" "compare RUNDIR text: the welfare row of bias-vcg prints mean, t, diff, t and BCa"

# Fewer than 10 seeds: a warning, t intervals, no bootstrap.
mkdir -p "$T/four"
for s in 3 14 15 92; do cp -r "$T/r/seed-$s" "$T/four/"; done
"$BIN" compare --json "$T/four" > "$T/four.json" 2> "$T/four.err"
check "[ $? -eq 0 ]" "compare RUNDIR with 4 seeds: exit 0"
check "grep -q 'warning: 4 seeds (fewer than 10): no bootstrap intervals' '$T/four.err'" "4 seeds: warning on stderr"
check "$PY - '$T' <<'PY'
import json, sys
rows = json.load(open(sys.argv[1] + '/four.json'))['rows']
w = [r for r in rows if r['metric'] == 'welfare' and r['mechanism'] == 'bias-vcg'][0]
assert w['n'] == 4 and w['t_lo'] is not None and w['bca_lo'] is None and w['diff']['bca_hi'] is None, w
assert w['diff']['n'] == 4 and w['diff']['t_hi'] is not None, w
PY" "4 seeds: t intervals, BCa null"

# Errors.
"$BIN" compare --ref nosuch "$T/r" > /dev/null 2> "$T/e1"
check "[ $? -eq 2 ] && grep -q 'nosuch: no such mechanism' '$T/e1' && grep -q 'eip1559 bias-vcg fifo' '$T/e1'" "--ref unknown: exit 2, lists the mechanisms"
"$BIN" compare --ref fifo "$T/r/seed-3/fifo.h5" > /dev/null 2> "$T/e2"
check "[ $? -eq 2 ] && grep -q 'one multi-seed run directory' '$T/e2'" "--ref with a run file: exit 2"
rm "$T/four/seed-14/bias-vcg.h5"
"$BIN" compare "$T/four" > /dev/null 2> "$T/e3"
check "[ $? -eq 3 ] && grep -q 'seed-14/bias-vcg.h5' '$T/e3'" "a seed directory without a mechanism's file: exit 3 naming it"
echo junk > "$T/four/seed-15/fifo.h5"
rm -r "$T/four/seed-14"
"$BIN" compare "$T/four" > /dev/null 2> "$T/e4"
check "[ $? -eq 2 ] && grep -q 'seed-15/fifo.h5' '$T/e4'" "a file that is not a run file: exit 2 naming it"

finish test_compare_seeds
