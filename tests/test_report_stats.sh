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

finish test_report_stats
