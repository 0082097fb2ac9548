#!/usr/bin/env bash
# test_harm_seeds.sh -- the harm to honest actors across seeds (`run --harm`
# with several seeds, `compare --harm [--json]`; analysis/README.md "Harm
# to honest actors"): every mean, Student-t interval, paired change and BCa
# interval of /harm_summary recomputed with numpy from the per-seed rows of
# /harm; compare --harm --json gives the same rows and summary; the text
# table prints them; below 10 seeds no BCa; the errors.
set -u
. tests/cs_test_lib.sh
D=tests/data/harm

# crn.json: a spammer and a fragmenter against three honest default_gba
# users, eip1559 and fifo-capped, seeds 77..86.
"$BIN" run "$D/crn.json" -o "$T/r" --harm --seeds 10 --quiet > "$T/r.out" 2> "$T/r.err"
check "[ $? -eq 0 ]" "run --harm --seeds 10: exit 0"

# Independent recomputation from /harm.  t(9, 0.975) = 2.262157162740992
# (cs_stats_ref.T9, checked there by integrating the density).  change =
# with - without on the same seed.  BCa: Efron 1987 with numpy's generator
# and 20,000 resamples (cs_stats_ref.bca), so its bounds agree with
# cowsim's (2,000 resamples, another generator) up to Monte Carlo error:
# within 10 % of the t interval's width when the values have at least 5
# distinct values, else only inside the sample range.
check "$PY - '$T/r/harm.h5' <<'PY'
import sys
import h5py, numpy as np
sys.path.insert(0, 'tests')
from cs_stats_ref import T9, tint, bca
f = h5py.File(sys.argv[1], 'r')
rows, summ = f['harm'][:], f['harm_summary'][:]
assert len(rows) == 20 and len(summ) == 2 * 4 * 3, (len(rows), len(summ))
bad = checked = bca_checked = 0
for r in summ:
    m, met, form = r['mechanism'].decode(), r['metric'].decode(), r['form'].decode()
    mine = rows[rows['mechanism'] == m.encode()]
    assert len(mine) == 10 and r['seeds'] == 10 and len(set(mine['seed'])) == 10, (m, len(mine))
    w, wo = mine[met + '_with'].astype(float), mine[met + '_without'].astype(float)
    x = {'with': w, 'without': wo, 'change': w - wo}[form]
    mu, lo, hi = tint(x, T9)
    tol = 1e-9 * max(1.0, abs(mu), abs(hi - lo))
    if not (r['n'] == 10 and abs(r['mean'] - mu) <= tol and abs(r['t_lo'] - lo) <= tol and abs(r['t_hi'] - hi) <= tol):
        print('t', m, met, form, r, (mu, lo, hi)); bad += 1
    if np.all(x == x[0]):
        ok = r['bca_lo'] == x[0] and r['bca_hi'] == x[0]   # no spread: [mean, mean]
    else:
        blo, bhi = bca(x)
        wdt = 0.1 * (hi - lo) if len(set(x)) >= 5 else float('inf')
        ok = x.min() <= r['bca_lo'] <= r['bca_hi'] <= x.max() and abs(r['bca_lo'] - blo) <= wdt and abs(r['bca_hi'] - bhi) <= wdt
        bca_checked += wdt != float('inf')
    if not ok:
        print('bca', m, met, form, r['bca_lo'], r['bca_hi']); bad += 1
    checked += 1
assert checked == 24 and bca_checked >= 12, (checked, bca_checked)
sys.exit(1 if bad else 0)
PY" "harm_summary: every mean, t interval, paired change and BCa interval matches numpy on the /harm rows"

# compare --harm --json on the twenty run files: the same rows and summary
# as harm.h5, exactly.
"$BIN" compare --harm --json "$T"/r/seed-*/eip1559.h5 "$T"/r/seed-*/fifo-capped.h5 > "$T/c.json" 2> "$T/c.err"
check "[ $? -eq 0 ]" "compare --harm --json over the seeds: exit 0"
check "$PY - '$T/r/harm.h5' '$T/c.json' <<'PY'
import json, math, sys
import h5py
f = h5py.File(sys.argv[1], 'r')
doc = json.load(open(sys.argv[2]))['harm']
assert doc['level'] == 0.95 and doc['bootstrap_resamples'] == 2000, doc['level']
def eq(a, b):
    return (b is None and math.isnan(a)) or a == b
rows = {(r['mechanism'].decode(), int(r['seed'])): r for r in f['harm'][:]}
assert len(doc['rows']) == 20 and {(r['mechanism'], r['seed']) for r in doc['rows']} == set(rows)
for j in doc['rows']:
    h = rows[(j['mechanism'], j['seed'])]
    for k in h.dtype.names[2:]:
        assert eq(float(h[k]), j[k]), (k, h[k], j[k])
summ = {(r['mechanism'].decode(), r['metric'].decode(), r['form'].decode()): r for r in f['harm_summary'][:]}
assert len(doc['summary']) == 24
for j in doc['summary']:
    h = summ[(j['mechanism'], j['metric'], j['form'])]
    assert j['seeds'] == 10 and j['n'] == int(h['n'])
    for k in ('mean', 't_lo', 't_hi', 'bca_lo', 'bca_hi'):
        assert eq(float(h[k]), j[k]), (k, h[k], j[k])
PY" "compare --harm --json: rows and summary equal harm.h5's"

# The text tables (run and compare) print the summary to 6 digits.
check "$PY - '$T/r/harm.h5' '$T/r.out' <<'PY'
import sys
import h5py
s = {(r['mechanism'].decode(), r['metric'].decode(), r['form'].decode()): r for r in h5py.File(sys.argv[1], 'r')['harm_summary'][:]}
txt = open(sys.argv[2]).read().splitlines()
i = txt.index('fifo-capped, 10 seeds')
g = lambda v: '%.6g' % v
for k, (met, form) in enumerate([('delay_mean', 'with'), ('delay_mean', 'without'), ('delay_mean', 'change')]):
    r = s[('fifo-capped', met, form)]
    want = ([met] if k == 0 else []) + [form, g(r['mean']), '[' + g(r['t_lo']) + ',', g(r['t_hi']) + ']',
                                        '[' + g(r['bca_lo']) + ',', g(r['bca_hi']) + ']']
    assert txt[i + 2 + k].split() == want, (txt[i + 2 + k], want)
PY" "run --harm text: the summary rows of fifo-capped's delay_mean"
"$BIN" compare --harm "$T"/r/seed-*/fifo-capped.h5 > "$T/c.txt" 2>/dev/null
check "[ $? -eq 0 ] && grep -q '^fifo-capped, 10 seeds$' '$T/c.txt' && diff <(sed -n '/^fifo-capped, 10 seeds/,+13p' '$T/r.out') <(sed -n '/^fifo-capped, 10 seeds/,+13p' '$T/c.txt') > /dev/null" \
    "compare --harm prints the same summary as run --harm"

# Four seeds (77..80): t(3, 0.975) = 3.182446305284263 (checked here by
# integrating the t(3) density 2 / (pi sqrt 3) (1 + x^2/3)^-2 from 0: 0.475);
# no BCa (null).
"$BIN" compare --harm --json "$T"/r/seed-7[78]/eip1559.h5 "$T"/r/seed-79/eip1559.h5 "$T"/r/seed-80/eip1559.h5 \
    > "$T/four.json" 2>/dev/null
check "$PY - '$T/r/harm.h5' '$T/four.json' <<'PY'
import json, math, sys
import h5py, numpy as np
sys.path.insert(0, 'tests')
from cs_stats_ref import tint
T3 = 3.182446305284263
xs = np.linspace(0.0, T3, 200001)
dens = 2 / (math.pi * math.sqrt(3)) * (1 + xs ** 2 / 3) ** -2
assert abs(float(np.sum((dens[1:] + dens[:-1]) / 2 * np.diff(xs))) - 0.475) < 1e-9
rows = [r for r in h5py.File(sys.argv[1], 'r')['harm'][:] if r['mechanism'] == b'eip1559' and r['seed'] <= 80]
assert len(rows) == 4
doc = json.load(open(sys.argv[2]))['harm']
assert len(doc['summary']) == 12
for j in doc['summary']:
    w = np.array([float(r[j['metric'] + '_with']) for r in rows])
    wo = np.array([float(r[j['metric'] + '_without']) for r in rows])
    x = {'with': w, 'without': wo, 'change': w - wo}[j['form']]
    mu, lo, hi = tint(x, T3)
    tol = 1e-9 * max(1.0, abs(mu), abs(hi - lo))
    assert j['seeds'] == 4 and j['n'] == 4 and abs(j['mean'] - mu) <= tol, (j, mu)
    assert abs(j['t_lo'] - lo) <= tol and abs(j['t_hi'] - hi) <= tol, (j, lo, hi)
    assert j['bca_lo'] is None and j['bca_hi'] is None, j
PY" "four seeds: means and t(3) intervals match numpy, BCa null"

# One seed per mechanism: no summary table (no interval across seeds).
"$BIN" compare --harm "$T/r/seed-77/eip1559.h5" > "$T/one.txt" 2>/dev/null
check "[ $? -eq 0 ] && grep -q 'eip1559 seed 77:' '$T/one.txt' && ! grep -q 'across seeds' '$T/one.txt'" \
    "one seed: the per-seed table, no summary"

# compare RUNDIR on the run directory of run --harm: the runs without the
# attackers (<m>.noattack.h5) are not mechanisms.
"$BIN" compare --json "$T/r" > "$T/dir.json" 2>/dev/null
check "[ $? -eq 0 ] && $PY -c \"import json, sys; sys.exit(json.load(open('$T/dir.json'))['mechanisms'] != ['eip1559', 'fifo-capped'])\"" \
    "compare RUNDIR after run --harm: mechanisms eip1559, fifo-capped only"

# Errors: the same run twice is not two seeds; CSV has no harm table.
"$BIN" compare --harm "$T/r/seed-77/eip1559.h5" "$T/r/seed-77/eip1559.h5" > /dev/null 2> "$T/e1"
check "[ $? -eq 2 ] && grep -q 'mechanism eip1559 seed 77 is given twice' '$T/e1'" "a mechanism and seed twice: exit 2"
"$BIN" compare --harm --csv "$T/r/seed-77/eip1559.h5" > /dev/null 2> "$T/e2"
check "[ $? -eq 2 ] && grep -q 'usage' '$T/e2'" "compare --harm --csv: usage, exit 2"

finish harm_seeds
