#!/usr/bin/env bash
# test_report_stats.sh -- the statistics of `cowsim report` (analysis/README.md
# "Report statistics"): paired differences between the mechanisms of a sweep
# on the same seed, with Student-t and BCa intervals, recomputed with numpy
# from a hand-made /runs table.
set -u
. tests/cs_test_lib.sh

# ---- paired differences in a sweep -------------------------------------------
# /runs: 2 points (lambda 0.1, 0.3) x 10 seeds x 3 mechanisms.
#   fires(a, pt, s) = 500 + 40 pt + 3 s^2 mod 17          (reference: mechanism a)
#   fires(b, pt, s) = fires(a, pt, s) + 10 + pt + (s mod 4)   -> d = 10 + pt + (s mod 4)
#   fires(c, pt, s) = fires(a, pt, s) - 2 s                   -> d = -2 s
#   jain(m, pt, s)  = 0.25 + 0.05 m + 0.001 s^2 pt   (m = 0, 1, 2 for a, b, c)
# At point 0, seeds 1..10: d_b = 10 + (s mod 4) = 11,12,13,10,11,12,13,10,11,12: mean 11.5,
# s = sqrt(sum (d - 11.5)^2 / 9) = sqrt(10.5 / 9) = 1.0801234, t(9, 0.975) = 2.262157162740992,
# half-width 2.262157162740992 * 1.0801234 / sqrt(10) = 0.7726649 -> [10.7273, 12.2727].
$PY - "$T/sweep.h5" << 'PYEOF'
import sys, json, numpy as np, h5py
dt = np.dtype([("run_id", "S8"), ("point", "<i8"), ("seed", "<u8"), ("mechanism", "S16"),
               ("params_lambda", "<f8"), ("blocks", "<f8"), ("fires", "<f8"), ("jain", "<f8")])
rows, r = [], 0
for pt, lam in enumerate([0.1, 0.3]):
    for s in range(1, 11):
        base = 500 + 40 * pt + (3 * s * s) % 17
        for mi, (m, f) in enumerate([("a", base), ("b", base + 10 + pt + s % 4), ("c", base - 2 * s)]):
            rows.append((b"r%04d" % r, pt, s, m.encode(), lam, 100, f, 0.25 + 0.05 * mi + 0.001 * s * s * pt))
        r += 1
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("runs", data=np.array(rows, dtype=dt))
    f.attrs["name"] = "paired"
    f.attrs["design"] = "grid"
    f.attrs["complete"] = np.int32(1)
    f.attrs["base_json"] = json.dumps({"name": "crn", "blocks": 100})
    f.attrs["sweep_json"] = json.dumps({"name": "paired", "grid": {"params.lambda": [0.1, 0.3]}})
PYEOF
"$BIN" report "$T/sweep.h5" -o "$T/sw" > /dev/null 2> "$T/sw.err"
check "[ $? -eq 0 ]" "report of a three-mechanism sweep: exit 0 ($(head -c 300 "$T/sw.err"))"
check "grep -qF '| 0 | 0.1 | 10 | 11.5 [10.7273, 12.2727] BCa [' '$T/sw/report.md'" \
    "b - a at point 0: d = 11.5, t interval [10.7273, 12.2727] (hand-computed above)"
check "$PY - '$T' <<'PY'
import math, re, sys
import numpy as np
sys.path.insert(0, 'tests')
from cs_stats_ref import T9 as TQ, bca   # t(9, 0.975), Student-t table (2.262)
T = sys.argv[1]
def fires(m, pt, s):
    base = 500 + 40 * pt + (3 * s * s) % 17
    return {'a': base, 'b': base + 10 + pt + s % 4, 'c': base - 2 * s}[m]
def jain(m, pt, s): return 0.25 + 0.05 * 'abc'.index(m) + 0.001 * s * s * pt
md = open(T + '/sw/report.md').read()
assert '### Paired differences against a' in md
cell = re.compile(r'(\S+) \[(\S+), (\S+)\] BCa \[(\S+), (\S+)\]')
bad = 0
for m in 'bc':
    sec = md.split('#### %s - a' % m)[1].split('####')[0]
    rows = [l for l in sec.splitlines() if re.match(r'\| \d+ \|', l)]
    assert len(rows) == 2, rows
    for pt, line in enumerate(rows):
        f = [c.strip() for c in line.strip('|').split('|')]
        assert f[0] == str(pt) and float(f[1]) == [0.1, 0.3][pt] and f[2] == '10', f
        for metric, got in (('fires', f[3]), ('jain', f[4])):
            fn = fires if metric == 'fires' else jain
            d = np.array([fn(m, pt, s) - fn('a', pt, s) for s in range(1, 11)])
            mu = d.mean(); h = TQ * d.std(ddof=1) / math.sqrt(10)
            g = cell.match(got)
            if not g: print('cell', m, pt, metric, got); bad += 1; continue
            v = [float(x) for x in g.groups()]
            tol = lambda x: 1e-5 * max(abs(x), 1e-9) + 1e-12
            if not (abs(v[0] - mu) <= tol(mu) and abs(v[1] - (mu - h)) <= tol(mu - h) and abs(v[2] - (mu + h)) <= tol(mu + h)):
                print('t', m, pt, metric, v, mu, h); bad += 1
            blo, bhi = bca(d)
            w = 0.1 * 2 * h if h > 0 else 1e-9 * max(abs(mu), 1)
            if not (abs(v[3] - blo) <= w + tol(blo) and abs(v[4] - bhi) <= w + tol(bhi)):
                print('bca', m, pt, metric, v, blo, bhi); bad += 1
sys.exit(1 if bad else 0)
PY" "paired differences of b and c against a: means and t intervals exact, BCa within 10 % of the t width of numpy's"
check "! grep -q 'paired differences without bootstrap' '$T/sw.err'" "ten seeds per point: no bootstrap warning"
"$BIN" report "$T/sweep.h5" -o "$T/sw2" --ref c > /dev/null 2> "$T/sw2.err"
check "[ $? -eq 0 ] && grep -q '### Paired differences against c' '$T/sw2/report.md' && grep -q '#### a - c' '$T/sw2/report.md'" \
    "--ref c: differences against c"
# d(a - c) = 2 s at both points: mean 11, s = sqrt(4 * 82.5 / 9) = 6.0553007, half-width 4.3317012.
check "grep -qF '| 1 | 0.3 | 10 | 11 [6.6683, 15.3317] BCa [' '$T/sw2/report.md'" "a - c at point 1: 11 [6.6683, 15.3317]"
"$BIN" report "$T/sweep.h5" -o "$T/sw3" --ref nosuch > /dev/null 2> "$T/sw3.err"
check "[ $? -eq 0 ] && grep -q 'no mechanism nosuch' '$T/sw3.err'" "--ref unknown in a sweep: a warning, the report still written"

# ---- paired-difference plots of a two-parameter sweep ---------------------------
# /runs: lambda in {0.1, 0.3} x tip in {1, 2} (4 points) x seeds 1..10 x mechanisms a (reference), b.
#   fires(a) = 400 + 7 s mod 11 + 50 lambda;  fires(b) = fires(a) + d_f, d_f = 10 tip + 100 lambda + (s mod 3) tip
#   jain(a)  = 0.3 + 0.002 s;                 jain(b)  = jain(a) + d_j,  d_j = 0.01 tip s lambda
# d depends on both parameters, so a line that averaged over the other one (or mixed its values) fails.
# Point lambda 0.1, tip 1: d_f = 20 + (s mod 3) = 21,22,20,21,22,20,21,22,20,21: mean 21, s = sqrt(6 / 9)
# = 0.8164966, half-width 2.262157162740992 * 0.8164966 / sqrt(10) = 0.5840834 -> [20.415917, 21.584083].
$PY - "$T/sweep2.h5" << 'PYEOF'
import sys, json, numpy as np, h5py
dt = np.dtype([("run_id", "S8"), ("point", "<i8"), ("seed", "<u8"), ("mechanism", "S16"),
               ("params_lambda", "<f8"), ("params_tip", "<f8"), ("blocks", "<f8"), ("fires", "<f8"), ("jain", "<f8")])
rows, pt, r = [], 0, 0
for lam in [0.1, 0.3]:
    for tip in [1.0, 2.0]:
        for s in range(1, 11):
            fa, ja = 400 + (7 * s) % 11 + 50 * lam, 0.3 + 0.002 * s
            rows.append((b"r%04d" % r, pt, s, b"a", lam, tip, 100, fa, ja))
            rows.append((b"r%04d" % r, pt, s, b"b", lam, tip, 100, fa + 10 * tip + 100 * lam + (s % 3) * tip,
                         ja + 0.01 * tip * s * lam))
            r += 1
        pt += 1
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("runs", data=np.array(rows, dtype=dt))
    f.attrs["name"] = "paired2"
    f.attrs["design"] = "grid"
    f.attrs["complete"] = np.int32(1)
    f.attrs["base_json"] = json.dumps({"name": "crn", "blocks": 100})
    f.attrs["sweep_json"] = json.dumps({"name": "paired2", "grid": {"params.lambda": [0.1, 0.3], "params.tip": [1, 2]}})
PYEOF
"$BIN" report "$T/sweep2.h5" -o "$T/dp" > /dev/null 2> "$T/dp.err"
check "[ $? -eq 0 ]" "report of a two-parameter, two-mechanism sweep: exit 0 ($(head -c 300 "$T/dp.err"))"
check "grep -qF '| 0 | 0.1 | 1 | 10 | 21 [20.4159, 21.5841] BCa [' '$T/dp/report.md'" \
    "b - a at lambda 0.1, tip 1: d = 21, t interval [20.4159, 21.5841] (hand-computed above)"
for p in params_lambda params_tip; do
    for m in fires jain; do
        check "[ -s '$T/dp/sweep_${p}__${m}__diff_vs_a.png' ] && grep -qF 'Figure' '$T/dp/report.md' && grep -qF '(\`sweep_${p}__${m}__diff_vs_a.png\`)' '$T/dp/report.md'" \
            "difference plot sweep_${p}__${m}__diff_vs_a.png drawn and listed in report.md"
    done
done
check "$PY - '$T' <<'PY'
import glob, math, re, sys
import numpy as np
sys.path.insert(0, 'tests')
from cs_stats_ref import T9 as TQ, bca   # t(9, 0.975), Student-t table (2.262)
T = sys.argv[1]
def d(metric, lam, tip, s):
    return 10 * tip + 100 * lam + (s % 3) * tip if metric == 'fires' else 0.01 * tip * s * lam
md = open(T + '/dp/report.md').read()
sec = md.split('#### b - a')[1].split('![')[0]
# The listing of the plots follows the table, before the figures.
assert 'Plotted (d with its 95 % Student-t interval' in sec, 'plot list beside the table'
table = {}
cell = re.compile(r'(\S+) \[(\S+), (\S+)\] BCa \[(\S+), (\S+)\]')
for l in sec.splitlines():
    if not re.match(r'\| \d+ \|', l): continue
    f = [c.strip() for c in l.strip('|').split('|')]
    table[(float(f[1]), float(f[2]))] = {'fires': [float(x) for x in cell.match(f[4]).groups()],
                                         'jain': [float(x) for x in cell.match(f[5]).groups()]}
assert len(table) == 4, table
bad, seen = 0, 0
names = {'params_lambda': ('params.tip', [1.0, 2.0], [0.1, 0.3]), 'params_tip': ('params.lambda', [0.1, 0.3], [1.0, 2.0])}
for p, (other, ovals, xvals) in names.items():
    files = sorted(glob.glob('%s/dp/sweep_%s_diff_vs_a_m*.dat' % (T, p)))
    # One file per value of the other parameter for b (mechanism 2), none for the reference a.
    if [re.sub(r'.*_(m\d+_g\d+)\.dat', r'\1', x) for x in files] != ['m2_g1', 'm2_g2']:
        print('files', p, files); bad += 1; continue
    got_o = []
    for fn in files:
        head = open(fn).readline()
        g = re.search(re.escape(other) + r' = (\S+?):', head)
        if not g or 'b - a' not in head or 'fires jain' not in head: print('header', fn, head); bad += 1; continue
        ov = float(g.group(1)); got_o.append(ov)
        rows = np.atleast_2d(np.loadtxt(fn))
        if rows.shape != (2, 12) or list(rows[:, 0]) != xvals: print('shape', fn, rows); bad += 1; continue
        for row in rows:
            x = row[0]
            lam, tip = (x, ov) if p == 'params_lambda' else (ov, x)
            if row[1] != 10: print('pairs', fn, row); bad += 1
            for mi, metric in enumerate(('fires', 'jain')):
                dv, tlo, thi, blo, bhi = row[2 + 5 * mi: 7 + 5 * mi]
                ds = np.array([d(metric, lam, tip, s) for s in range(1, 11)])
                mu = ds.mean(); h = TQ * ds.std(ddof=1) / math.sqrt(10)
                tol = lambda v: 1e-8 * max(abs(v), 1e-6)
                if not (abs(dv - mu) <= tol(mu) and abs(tlo - (mu - h)) <= tol(mu) and abs(thi - (mu + h)) <= tol(mu)):
                    print('numpy t', fn, metric, x, row, mu, h); bad += 1
                rb = bca(ds)
                w = 0.1 * 2 * h
                if not (abs(blo - rb[0]) <= w and abs(bhi - rb[1]) <= w):
                    print('numpy bca', fn, metric, x, blo, bhi, rb); bad += 1
                tv = table[(lam, tip)][metric]
                for a_, b_ in zip((dv, tlo, thi, blo, bhi), tv):
                    if abs(a_ - b_) > 5e-6 * max(abs(a_), 1e-9):
                        print('table', fn, metric, x, a_, b_); bad += 1
                seen += 1
    if sorted(got_o) != ovals: print('other values', p, got_o); bad += 1
    # The plot draws both files, error bars from the t columns (3:4:5 fires, 8:9:10 jain).
    for metric, c in (('fires', 3), ('jain', 8)):
        gp = open('%s/dp/sweep_%s__%s__diff_vs_a.gp' % (T, p, metric)).read()
        for fn in files:
            b = fn.rsplit('/', 1)[1]
            if gp.count(\"'%s' using (\$1+0.000):%d:%d:%d with yerrorbars\" % (b, c, c + 1, c + 2)) != 1 or \
               gp.count(\"'%s' using (\$1+0.000):%d with linespoints\" % (b, c)) != 1:
                print('gp', p, metric, b); bad += 1
print('checked', seen, 'values', file=sys.stderr)
sys.exit(1 if bad or seen != 16 else 0)
PY" "difference plot data: d, t lo, t hi (and BCa) per x and per value of the other parameter equal the table and numpy"
"$BIN" report "$T/sweep2.h5" -o "$T/dp2" --ref b > /dev/null 2>&1
check "[ $? -eq 0 ] && [ -s '$T/dp2/sweep_params_tip__fires__diff_vs_b.png' ] && [ -s '$T/dp2/sweep_params_tip_diff_vs_b_m1_g2.dat' ] && [ ! -e '$T/dp2/sweep_params_tip_diff_vs_b_m2_g1.dat' ]" \
    "--ref b: differences a - b plotted, none for b itself"

# ---- steady state in compare (cs_steady.h) -------------------------------------
# One 80-block run; the figures recomputed with numpy from /blocks: MSER-5
# per series (batch means of 5, d <= nb / 2, first minimum), the largest
# cut, then 20 batch means of the rest (the remainder dropped at the start),
# t(19, 0.975) = 2.093024054408263 (Student-t table: 2.093).
"$BIN" run tests/data/seeds/ten.json --seed 3 --mechanism eip1559,fifo -o "$T/one" --quiet > /dev/null 2>&1
check "[ -f '$T/one/eip1559.h5' ]" "one-seed run written"
for mode in mser "burn" "whole"; do
    case $mode in mser) a= ;; burn) a="--burn-in 30" ;; whole) a="--no-warmup" ;; esac
    "$BIN" compare --json $a "$T/one/eip1559.h5" "$T/one/fifo.h5" > "$T/ss-$mode.json" 2> "$T/ss-$mode.err"
    check "[ $? -eq 0 ]" "compare $a: exit 0 ($(head -c 200 "$T/ss-$mode.err"))"
done
check "$PY - '$T' <<'PY'
import json, math, sys
import numpy as np, h5py
T = sys.argv[1]
def mser5(x):
    nb = len(x) // 5
    y = np.asarray(x[:5 * nb], float).reshape(nb, 5).mean(axis=1)
    best, bd = None, 0
    for d in range(nb // 2 + 1):
        t = y[d:]; v = np.sum((t - t.mean()) ** 2) / (nb - d) ** 2
        if best is None or v < best - 1e-12 * max(1.0, abs(best)): best, bd = v, d
    return 5 * bd
def bm(x):
    bs = len(x) // 20; x = np.asarray(x[len(x) - 20 * bs:], float)
    b = x.reshape(20, bs).mean(axis=1); m = b.mean(); h = 2.093024054408263 * b.std(ddof=1) / math.sqrt(20)
    return m, m - h, m + h, 20 * bs
bad = 0
for mode, fixed in (('mser', None), ('burn', 30), ('whole', 0)):
    runs = json.load(open('%s/ss-%s.json' % (T, mode)))['runs']
    for r in runs:
        b = h5py.File(r['path'])['blocks'][:]
        f = h5py.File(r['path'])['fires'][:]
        w = np.zeros(len(b)); np.add.at(w, f['height'] - b['height'][0], f['value'])
        ex = lambda c, i: int(b[c + '_hi'][i]) << 64 | int(b[c + '_lo'][i])   # exact amounts
        paid = np.array([float(ex('burn', i) + ex('tips', i) + ex('payments', i)) for i in range(len(b))])
        ser = {'basefee': b['basefee_lane'], 'utilisation': b['utilisation'], 'fires': b['fired'].astype(float),
               'backlog': b['pending'].astype(float), 'paid': paid, 'welfare': w}
        if r['mechanism'] != 'eip1559': del ser['basefee']   # no lane basefee
        st = r['steady_state']
        if fixed is None:
            cuts = {k: mser5(v) for k, v in ser.items()}
            cut = max(cuts.values())
            if st['method'] != 'mser5' or st['cut'] != cut or cuts[st['cut_by']] != cut:
                print('cut', r['mechanism'], st['cut'], st['cut_by'], cuts); bad += 1
        else:
            cut = fixed
            if st['cut'] != cut or st['cut_by'] is not None: print('fixed cut', st); bad += 1
        for k, v in ser.items():
            m, lo, hi, used = bm(v[cut:])
            g = st['series'][k]
            tol = 1e-9 * max(1.0, abs(m))
            if st['used'] != used or abs(g['mean'] - m) > tol or abs(g['lo'] - lo) > tol or abs(g['hi'] - hi) > tol:
                print('series', mode, r['mechanism'], k, g, (m, lo, hi, used)); bad += 1
        if r['mechanism'] != 'eip1559' and st['series']['basefee']['mean'] is not None:
            print('basefee for a mechanism without a lane basefee'); bad += 1
sys.exit(1 if bad else 0)
PY" "steady state: MSER-5 cut, burn-in, no-warmup, means and batch-means intervals match numpy"
"$BIN" compare --csv "$T/one/eip1559.h5" > "$T/ss.csv" 2>/dev/null
check "grep -q '^steady.cut,' '$T/ss.csv' && grep -q '^steady.backlog.lo,' '$T/ss.csv'" "compare --csv: steady rows"
"$BIN" compare "$T/one/eip1559.h5" > "$T/ss.txt" 2>/dev/null
check "grep -qE '^steady.backlog +[0-9.e+]+ \[[0-9.e+]+, [0-9.e+]+\]$' '$T/ss.txt' && grep -q 'warm-up removed by MSER-5' '$T/ss.txt'" \
    "compare text: the steady-state table with intervals"
"$BIN" compare --burn-in 80 "$T/one/eip1559.h5" > /dev/null 2> "$T/ss.err"
check "[ $? -eq 2 ] && grep -q 'burn-in of 80 blocks leaves nothing' '$T/ss.err'" "--burn-in >= blocks: exit 2"
"$BIN" compare --burn-in x "$T/one/eip1559.h5" > /dev/null 2>&1
check "[ $? -eq 2 ]" "--burn-in x: usage, exit 2"

# report: the same steady-state figures as compare, to 4 digits.
"$BIN" report --burn-in 30 "$T/one/eip1559.h5" "$T/one/fifo.h5" -o "$T/rep" > /dev/null 2> "$T/rep.err"
check "[ $? -eq 0 ]" "report --burn-in 30 of two runs: exit 0 ($(head -c 200 "$T/rep.err"))"
check "$PY - '$T' <<'PY'
import json, re, sys
T = sys.argv[1]
runs = json.load(open(T + '/ss-burn.json'))['runs']
md = open(T + '/rep/report.md').read()
sec = md.split('## Steady state')[1].split('## ')[0]
assert 'a stated burn-in' in sec, sec[:200]
for r in runs:
    assert '- %s: cut 30 of 80 blocks, means over the last 40.' % r['mechanism'] in sec, r['mechanism']
sys.path.insert(0, 'tests')
from cs_report_ref import cell, STEADY_UNITS
rows = {l.split('|')[1].strip(): [c.strip() for c in l.strip().strip('|').split('|')[1:]]
        for l in sec.splitlines() if l.startswith('| ') and not l.startswith('| series')}
for i, r in enumerate(runs):
    for k, g in r['steady_state']['series'].items():
        assert rows[k][0] == STEADY_UNITS[k], (k, rows[k][0])
        want = cell(g['mean'], g['lo'], g['hi'])   # 4 significant digits
        assert rows[k][1 + i] == want, (k, r['mechanism'], rows[k][1 + i], want)
PY" "report.md steady-state table = compare --json --burn-in 30, to 4 digits, with units"
"$BIN" report --burn-in 99 "$T/one/eip1559.h5" -o "$T/rep2" > /dev/null 2> "$T/rep2.err"
check "[ $? -eq 2 ] && grep -q 'burn-in of 99 blocks' '$T/rep2.err'" "report --burn-in beyond the run: exit 2"

# ---- fairness and welfare bar charts ------------------------------------------
# Run files: one bar per run, the value of compare --json exactly (%.17g).
"$BIN" report "$T/one/eip1559.h5" "$T/one/fifo.h5" -o "$T/bars1" > /dev/null 2> "$T/bars1.err"
check "[ $? -eq 0 ]" "report of two runs: exit 0 ($(head -c 200 "$T/bars1.err"))"
"$BIN" compare --json "$T/one/eip1559.h5" "$T/one/fifo.h5" > "$T/one.json" 2>/dev/null
# A multi-seed run: bars = mean over seeds, whiskers = 95 % t interval,
# recomputed from the per-seed files (t(9, 0.975) from cs_stats_ref.py).
"$BIN" run tests/data/seeds/ten.json --mechanism eip1559,fifo -o "$T/ten" --quiet > /dev/null 2>&1
"$BIN" report "$T/ten" -o "$T/bars2" > /dev/null 2> "$T/bars2.err"
check "[ $? -eq 0 ]" "report of a multi-seed run directory: exit 0 ($(head -c 200 "$T/bars2.err"))"
for s in 3 14 15 92 65 35 89 79 32 38; do
    "$BIN" compare --json "$T/ten/seed-$s/eip1559.h5" "$T/ten/seed-$s/fifo.h5" > "$T/ten-$s.json" 2>/dev/null
done
check "$PY - '$T' <<'PY'
import json, math, os, sys
import numpy as np
sys.path.insert(0, 'tests')
from cs_stats_ref import T9, tint
T = sys.argv[1]
metrics = ['welfare', 'efficiency', 'poa', 'utility', 'jain', 'gini', 'var_util_per_bid', 'var_eff_per_bid']
def rows(path):
    out = []
    for l in open(path):
        if l.startswith('#'): continue
        f = l.split()
        out.append((int(f[0]), f[1], *[float(x) for x in f[2:]]))
    return out
bad = 0
one = json.load(open(T + '/one.json'))['runs']
for m in metrics:
    vals = [r['metrics'][m] for r in one]
    p = '%s/bars1/bars_%s.dat' % (T, m)
    if all(v is None for v in vals):
        if os.path.exists(p): print('drawn although undefined', m); bad += 1
        continue
    got = rows(p)
    want = [(i, r['mechanism'], float('nan') if r['metrics'][m] is None else r['metrics'][m]) for i, r in enumerate(one)]
    for g, w in zip(got, want):
        if g[:2] != w[:2] or not (g[2] == w[2] or (math.isnan(g[2]) and math.isnan(w[2]))) or not (math.isnan(g[3]) and math.isnan(g[4])):
            print('run bar', m, g, w); bad += 1
    gp = open('%s/bars1/bars_%s.gp' % (T, m)).read()
    if 'yerrorbars' in gp: print('whiskers without seeds', m); bad += 1
seeds = [3, 14, 15, 92, 65, 35, 89, 79, 32, 38]
per = {s: {r['mechanism']: r['metrics'] for r in json.load(open('%s/ten-%d.json' % (T, s)))['runs']} for s in seeds}
for m in metrics:
    p = '%s/bars2/seeds_bars_%s.dat' % (T, m)
    if not os.path.exists(p):
        if all(per[s][k][m] is None for s in seeds for k in ('eip1559', 'fifo')): continue
        print('missing', p); bad += 1; continue
    got = rows(p)
    if [g[1] for g in got] != ['eip1559', 'fifo']: print('order', m, got); bad += 1
    for g in got:
        x = [per[s][g[1]][m] for s in seeds]
        if any(v is None for v in x):
            continue
        mu, lo, hi = tint(x, T9)
        tol = 1e-9 * max(1.0, abs(mu))   # the t quantile: GSL's inverse vs the table's digits
        if abs(g[2] - mu) > tol or abs(g[3] - lo) > tol or abs(g[4] - hi) > tol:
            print('seed bar', m, g, (mu, lo, hi)); bad += 1
    if 'yerrorbars' not in open('%s/bars2/seeds_bars_%s.gp' % (T, m)).read(): print('no whiskers', m); bad += 1
md = open(T + '/bars2/report.md').read()
if '![jain per mechanism](seeds_bars_jain.png)' not in md or '95 % Student-t interval of the mean over 10 seeds' not in md:
    print('report.md lacks the jain chart'); bad += 1
sys.exit(1 if bad else 0)
PY" "bar charts: run values exact, multi-seed means and t whiskers match numpy, one chart per metric"

# ---- time series of one sweep point (report --point) ---------------------------
# crn.json, 150 blocks, W sampled every 50; two lambda values x seeds 1, 2 x
# bias-vcg, eip1559: point 1 is lambda = 0.2, four runs.
cat > "$T/pt.json" << EOF
{"name": "point-series", "base": "$(pwd)/scenarios/crn.json", "mechanisms": ["bias-vcg", "eip1559"],
 "set": {"blocks": 150}, "seeds": [1, 2], "grid": {"params.lambda": [0.02, 0.2]}}
EOF
"$BIN" sweep "$T/pt.json" -o "$T/pt" --quiet > /dev/null 2> "$T/pt.err"
check "[ $? -eq 0 ] && [ -f '$T/pt/sweep.h5' ]" "sweep for the point series ran ($(head -c 200 "$T/pt.err"))"
"$BIN" report "$T/pt/sweep.h5" --point params.lambda=0.2 --series basefee,backlog,w_p50 -o "$T/ptr" > /dev/null 2> "$T/ptr.err"
check "[ $? -eq 0 ]" "report --point params.lambda=0.2: exit 0 ($(head -c 200 "$T/ptr.err"))"
check "[ -s '$T/ptr/sweep_point1_basefee.png' ] && [ -s '$T/ptr/sweep_point1_backlog.png' ] && [ -s '$T/ptr/sweep_point1_w_p50.png' ] && [ ! -e '$T/ptr/sweep_point1_w_p10.png' ]" \
    "the three series asked for are drawn, no other"
check "$PY - '$T' <<'PY'
import sys, numpy as np, h5py
T = sys.argv[1]
runs = h5py.File(T + '/pt/sweep.h5')['runs'][:]
sel = [r for r in runs if r['point'] == 1]
assert len(sel) == 4 and all(abs(r['params_lambda'] - 0.2) < 1e-12 for r in sel), sel
bad = 0
for j, r in enumerate(sel, 1):
    f = h5py.File('%s/pt/runs/%s/%s.h5' % (T, r['run_id'].decode(), r['mechanism'].decode()))
    b = f['blocks'][:]
    d = np.loadtxt('%s/ptr/sweep_point1_r%d.dat' % (T, j))
    # every block: height, lane basefee, pending -- exact
    if d.shape != (len(b), 3) or not (np.array_equal(d[:, 0], b['height']) and np.array_equal(d[:, 1], b['basefee_lane'])
                                      and np.array_equal(d[:, 2], b['pending'])):
        print('blocks', j, d.shape, len(b)); bad += 1
    w = f['weights'][:]
    wd = np.atleast_2d(np.loadtxt('%s/ptr/sweep_point1_r%d_weights.dat' % (T, j)))
    hs = sorted(set(w['height']))
    if len(wd) != len(hs) or len(hs) < 2: print('samples', j, len(wd), len(hs)); bad += 1; continue
    for row, h in zip(wd, hs):
        x = w['weight_ppm'][w['height'] == h] / 1e6
        q = np.percentile(x, [10, 50, 90])   # numpy 'linear' = GSL's quantile definition
        if row[0] != h or row[4] != len(x) or np.max(np.abs(row[1:4] - q)) > 1e-9 * max(1, np.max(np.abs(q))):
            print('weights', j, row, h, q); bad += 1
    gp = open(T + '/ptr/sweep_point1_backlog.gp').read()
    if gp.count(\"'sweep_point1_r%d.dat' using 1:3\" % j) != 1: print('backlog line', j); bad += 1
    gp = open(T + '/ptr/sweep_point1_w_p50.gp').read()
    if gp.count(\"'sweep_point1_r%d_weights.dat' using 1:3\" % j) != 1: print('w_p50 line', j); bad += 1
sys.exit(1 if bad else 0)
PY" "point series: per-block basefee and backlog exact, W quantiles per sample = numpy, one line per run"
"$BIN" report "$T/pt/sweep.h5" --point 1 -o "$T/ptr2" > /dev/null 2>&1
check "[ $? -eq 0 ] && [ -s '$T/ptr2/sweep_point1_w_p10.png' ] && cmp -s '$T/ptr/sweep_point1_r3.dat' '$T/ptr2/sweep_point1_r3.dat'" \
    "--point 1 = --point params.lambda=0.2, every series by default"
"$BIN" report "$T/pt/sweep.h5" --point 7 -o "$T/ptr3" > /dev/null 2> "$T/e5"
check "[ $? -eq 2 ] && grep -q 'no such point' '$T/e5'" "--point 7: exit 2"
"$BIN" report "$T/pt/sweep.h5" --point params.nope=1 -o "$T/ptr3" > /dev/null 2> "$T/e6"
check "[ $? -eq 2 ] && grep -q 'not a swept parameter' '$T/e6'" "--point on an unknown parameter: exit 2"
"$BIN" report "$T/pt/sweep.h5" --point 1 --series nope -o "$T/ptr3" > /dev/null 2> "$T/e7"
check "[ $? -eq 2 ] && grep -q 'unknown series' '$T/e7'" "--series unknown: exit 2"
"$BIN" report "$T/pt/sweep.h5" --series basefee -o "$T/ptr3" > /dev/null 2> "$T/e8"
check "[ $? -eq 2 ] && grep -q 'needs --point' '$T/e8'" "--series without --point: exit 2"

finish test_report_stats
