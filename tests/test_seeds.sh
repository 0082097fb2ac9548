#!/usr/bin/env bash
# test_seeds.sh -- multi-seed `cowsim run` (scenario "seeds", run --seeds N;
# analysis/README.md "Multi-seed summary"): the layout DIR/seed-<s>/<m>.h5,
# the printed means and 95 % Student-t half-widths recomputed here from the
# per-seed files (`compare --json`) with plain Python, the paired
# differences, the per-mechanism strategy, and the errors.
set -u
. tests/cs_test_lib.sh
S=tests/data/seeds/small.json

"$BIN" run "$S" -o "$T/r" --quiet > "$T/r.out" 2> "$T/r.err"
check "[ $? -eq 0 ]" "run with seeds: exit 0"
for s in 11 23 5 42; do
    for m in eip1559 bias-vcg bias-fp; do
        check "[ -f '$T/r/seed-$s/$m.h5' ]" "file seed-$s/$m.h5"
    done
done
check "[ ! -e '$T/r/eip1559.h5' ]" "no single-seed file next to the seed directories"
check "h5dump -a /seed '$T/r/seed-23/bias-fp.h5' | grep -q '(0): 23\$'" "seed-23/bias-fp.h5 ran seed 23"
for s in 11 23 5 42; do
    "$BIN" compare --json "$T/r/seed-$s/eip1559.h5" "$T/r/seed-$s/bias-vcg.h5" "$T/r/seed-$s/bias-fp.h5" \
        > "$T/c-$s.json" 2>/dev/null
done
# Independent recomputation.  t quantile t(3, 0.975) = 3.182446305284263
# (Student-t table, 3 degrees of freedom; = gsl_cdf_tdist_Pinv(0.975, 3)).
check "$PY - '$T' <<'PY'
import json, math, re, sys
T = sys.argv[1]
TQ = 3.182446305284263
seeds = [11, 23, 5, 42]
mechs = ['eip1559', 'bias-vcg', 'bias-fp']
cols = ['welfare', 'efficiency', 'paid', 'delay_p99', 'jain', 'basefee_mean']
val = {}
for s in seeds:
    for r in json.load(open('%s/c-%d.json' % (T, s)))['runs']:
        val[(r['mechanism'], s)] = r['metrics']
def ci(x):
    n = len(x); mu = sum(x) / n
    sd = math.sqrt(sum((v - mu) ** 2 for v in x) / (n - 1))
    return mu, TQ * sd / math.sqrt(n)
out = open(T + '/r.out').read()
rows = {}
for line in out.splitlines():
    f = line.split()
    if f and f[0] in mechs: rows.setdefault(f[0], []).append(line)
def cells(line):
    # 'mean +/- hw' cells, the em dash (no lane basefee) or '-' (undefined)
    return re.findall(r'(\S+) \+/- (\S+)|(\u2014)|(?<=\s)(-)(?=\s|$)', line)
def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)
ok = True
for m in mechs:
    main = cells(rows[m][0])
    for c, cell in zip(cols, main):
        if c == 'basefee_mean' and m != 'eip1559':
            assert cell[2] == '\u2014', (m, cell)   # no lane basefee: a dash
            continue
        x = [val[(m, s)][c] for s in seeds]
        if None in x:   # NaN in every seed here (no optimum): printed '-'
            assert all(v is None for v in x) and cell[3] == '-', (m, c, x, cell)
            continue
        mu, hw = ci(x)
        pm, ph = float(cell[0]), float(cell[1])
        if not (close(pm, mu, 6e-4) and close(ph, hw, 6e-2)):
            print('table', m, c, pm, ph, 'recomputed', mu, hw); ok = False
# units under the headings; the best mean of each ranked column starred
# (higher welfare, efficiency, jain; lower delay_p99; ties all)
units = next(l for l in out.splitlines() if '(base units)' in l).split()
if units != ['(base', 'units)', '(ratio)', '(base', 'units)', '(blocks)', '(ratio)', '(base', 'units/cycle)']:
    print('units line', units); ok = False
for k, c in enumerate(cols):
    better = {'welfare': 1, 'efficiency': 1, 'delay_p99': -1, 'jain': 1}.get(c, 0)
    mu = {m: ci([val[(m, s)][c] for s in seeds])[0] for m in mechs
          if None not in [val[(m, s)][c] for s in seeds]}
    want = set()
    if better and len(mu) >= 2 and len(set(mu.values())) > 1:
        b = (max if better > 0 else min)(mu.values())
        want = {m for m, v in mu.items() if abs(v - b) <= 1e-12 * abs(b)}
    got = {m for m in mechs
           if [bool(x.group(3)) for x in re.finditer(r'(\S+) \+/- (\S+)( \*)?|(\u2014)|(?<=\s)(-)(?=\s|$)',
                                                      rows[m][0])][k]}
    if got != want:
        print('stars', c, got, want); ok = False
# paired differences against the first mechanism (eip1559), seed by seed
for m in mechs[1:]:
    d = cells(rows[m][1])
    for c, cell in zip(['welfare', 'paid', 'delay_p99'], d):
        mu, hw = ci([val[(m, s)][c] - val[('eip1559', s)][c] for s in seeds])
        pm, ph = float(cell[0]), float(cell[1])
        if not (close(pm, mu, 6e-4) and (close(ph, hw, 6e-2) or hw == ph == 0)):
            print('paired', m, c, pm, ph, 'recomputed', mu, hw); ok = False
sys.exit(0 if ok else 1)
PY" "printed means, t half-widths and paired differences match a recomputation from the per-seed files"

# The per-mechanism strategy ("strategy": {"bias-vcg": "truthful", "bias-fp":
# "learning"}): under bias-vcg every priority_tier fire at delay 0 bid its
# value less the execution fee it paid (bid = floor(value - exec_fee), N58); under bias-fp the Hedge multipliers (0.05 ..
# 1.00) bid at most the value and mostly below it; under eip1559 no bid.
check "$PY - '$T/r/seed-11' <<'PY'
import h5py, sys
d = sys.argv[1]
def fires(m):
    f = h5py.File('%s/%s.h5' % (d, m), 'r')['fires'][:]
    return f[(f['kind'] == 1) & (f['delay'] == 0)]   # kind 1 = priority_tier
v = fires('bias-vcg'); assert len(v) > 100, len(v)
assert (abs(v['bid'] - (v['value'] - v['exec_fee'])) <= 1).all(), 'truthful bids differ from the value less the fee'
p = fires('bias-fp'); assert len(p) > 100, len(p)
assert (p['bid'] <= p['value']).all(), 'a learning bid above the value'
assert (p['bid'] < 0.99 * p['value']).mean() > 0.5, 'learning bids do not shade'
e = fires('eip1559'); assert (e['bid'] == 0).all()
PY" "truthful under bias-vcg, learning (shaded) under bias-fp, no bid under eip1559"

# --seeds N: N seeds from the scenario seed (1, 2) -- the count form.
"$BIN" run "$S" --seeds 2 --mechanism eip1559 -o "$T/n" --quiet > "$T/n.out" 2>&1
check "[ $? -eq 0 ] && [ -f '$T/n/seed-1/eip1559.h5' ] && [ -f '$T/n/seed-2/eip1559.h5' ]" "--seeds 2: seed-1 and seed-2"
check "grep -q '300 blocks x 2 seeds (1, 2)' '$T/n.out'" "--seeds 2: heading names the seeds"
# A name longer than 12 characters (priority-classes) widens the name
# column of every table instead of shifting its own row: each cell ends in
# the column where its heading ends (it was 4 to the right), in the means
# and the paired differences of the multi-seed table and in the single-seed
# tables.
"$BIN" run "$S" --seeds 2 --set blocks=20 --mechanism eip1559,priority-classes -o "$T/w" --quiet > "$T/w.out" 2>&1
"$BIN" run "$S" --seed 7 --set blocks=20 --mechanism eip1559,priority-classes -o "$T/w1" --quiet > "$T/w1.out" 2>&1
check "$PY - '$T/w.out' '$T/w1.out' <<'PY'
import sys
bad = rows = 0
for path, heads in ((sys.argv[1], ('welfare', 'd_welfare')), (sys.argv[2], ('agent kind', 'burned'))):
    lines = open(path, encoding='utf-8').read().split(chr(10))
    for i, l in enumerate(lines):
        h = next((h for h in heads if l.startswith('mechanism ') and h in l.split()), None)
        if h is None and not (l.startswith('mechanism ') and 'agent' in l):
            continue
        h = h or 'agent kind'
        col = l.index(h) if h == 'agent kind' else l.index(h) + len(h) - 1
        for r in lines[i + 1:]:
            if not r.strip():
                break
            if r.startswith(' ') or not r.startswith(('eip1559', 'priority-classes')):
                continue
            rows += 1
            if h == 'agent kind':
                ok = r[col - 1] == ' ' and r[col] != ' '
            else:
                ok = r[col] != ' ' and (col + 1 == len(r) or r[col + 1] == ' ')
            if not ok:
                bad += 1
                print('misaligned:', repr(r[:60]))
print('rows', rows, 'misaligned', bad)
sys.exit(0 if rows >= 8 and bad == 0 else 1)
PY" "tables aligned with a 16-character mechanism name"
# --seed N alone: the single-seed layout and table, unchanged.
"$BIN" run "$S" --seed 7 --mechanism eip1559 -o "$T/one" --quiet > "$T/one.out" 2>&1
check "[ $? -eq 0 ] && [ -f '$T/one/eip1559.h5' ] && grep -q 'seed 7' '$T/one.out'" "--seed 7 alone: one run, DIR/eip1559.h5"

# Errors: exit 2 naming the path and the constraint.
"$BIN" run "$S" --seeds 0 > /dev/null 2> "$T/e1"
check "[ $? -eq 2 ] && grep -q -- '--seeds needs a seed count' '$T/e1'" "--seeds 0: usage, exit 2"
"$BIN" validate "$S" --set 'seeds=[3, 4, 3]' > /dev/null 2> "$T/e2"
check "[ $? -eq 2 ] && grep -q 'seeds\[2\]: repeats seeds\[0\] (3)' '$T/e2'" "repeated seed named"
"$BIN" validate "$S" --set 'seeds=0' > /dev/null 2> "$T/e3"
check "[ $? -eq 2 ] && grep -q 'seeds: must be' '$T/e3'" "seeds 0 refused"
"$BIN" validate "$S" --set 'agents[0].strategy={"bias-vcg": "truthful", "bias-xx": "shade"}' > /dev/null 2> "$T/e4"
check "[ $? -eq 2 ] && grep -q 'agents\[0\].strategy.bias-xx: unknown mechanism' '$T/e4'" "strategy per mechanism: unknown mechanism named"

finish seeds
