#!/usr/bin/env bash
# test_report_seeds.sh -- `cowsim report RUNDIR` on a small multi-seed run
# (scenarios/default.json, 3 seeds x 200 blocks, bias-vcg, eip1559 and
# greedy, the reference never marked best), and `cowsim run`'s progress line:
#   1. the five figures (lane basefee and utilisation bands, pooled delay
#      and W CDFs, what was paid by part) are drawn, embedded in report.md
#      with captions that say what is drawn over how many seeds;
#   2. their data equal an independent numpy recomputation from the HDF5
#      files: per block p10/p50/p90 over the seeds (numpy 'linear'
#      percentile = GSL's quantile), the pooled delay CDF with its p50 and
#      p99, the pooled W CDF, the mean over seeds of each /blocks part;
#   3. report.md's multi-seed table equals `cowsim compare RUNDIR --json`
#      (mean, t_lo, t_hi) to its 4 significant digits, with each row's unit
#      and its best mean in bold;
#   4. run on a terminal (script(1)) shows the progress line with an ETA
#      over seeds x mechanisms; nothing on a pipe, nothing with --quiet;
#   5. errors: a seed file that is not a run file -> 2 naming it, an
#      unwritable -o -> 3 naming the path.
# Usage: bash tests/test_report_seeds.sh PATH-TO-COWSIM   (from the source root)
set -u
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRC/tests/cs_test_lib.sh"
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
trap 'chmod -R u+w "$T" 2> /dev/null; rm -rf "$T"' EXIT

"$BIN" run "$SRC/scenarios/default.json" --seeds 3 --set blocks=200 --mechanism bias-vcg,eip1559,greedy \
    -o "$T/run" --quiet > /dev/null 2> "$T/run.err"
check "[ $? -eq 0 ] && [ ! -s '$T/run.err' ]" "run 3 seeds, --quiet: exit 0, nothing on stderr ($(head -c 300 "$T/run.err"))"
"$BIN" report "$T/run" -o "$T/out" > /dev/null 2> "$T/rep.err"
check "[ $? -eq 0 ]" "report RUNDIR exit 0 ($(head -c 300 "$T/rep.err"))"
"$BIN" compare "$T/run" --json > "$T/cmp.json" 2> /dev/null
check "[ $? -eq 0 ]" "compare RUNDIR --json exit 0"

# ---- 1. figures and captions ---------------------------------------------------
for p in basefee utilisation delay_cdf weights_cdf paid; do
    f="$T/out/seeds_$p.png"
    sig=$(head -c 8 "$f" 2> /dev/null | od -An -tx1 | tr -d ' \n')
    check "[ -s '$f' ] && [ '$sig' = 89504e470d0a1a0a ]" "seeds_$p.png is a PNG"
    check "grep -qF '](seeds_$p.png)' '$T/out/report.md'" "seeds_$p.png embedded in report.md"
done
$PY - "$T/out/report.md" > "$T/cap.txt" 2>&1 << 'PYEOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
want = {"seeds_basefee.png": ["median over the 3 seeds", "10th to the 90th percentile"],
        "seeds_utilisation.png": ["median over the 3 seeds", "10-90 % band"],
        "seeds_delay_cdf.png": ["all 3 seeds pooled", "p50", "p99"],
        "seeds_weights_cdf.png": ["all 3 seeds pooled", "W(actor)"],
        "seeds_paid.png": ["mean over 3 seeds", "execution fee", "lane basefee burned", "allocation payment",
                           "tip", "schedule and cancel costs"]}
errs = []
for i, l in enumerate(lines):
    m = re.match(r"!\[[^\]]+\]\(([^)]+\.png)\)$", l)
    if not m or m.group(1) not in want:
        continue
    cap = lines[i + 2]
    if not re.match(r"\*Figure \d+\. .+\*$", cap):
        errs.append("no caption under " + m.group(1))
    errs += ["%s caption lacks %r" % (m.group(1), w) for w in want.pop(m.group(1)) if w not in cap]
errs += ["not embedded: " + k for k in want]
print("errors", errs)
sys.exit(1 if errs else 0)
PYEOF
check "[ $? -eq 0 ]" "captions say what is drawn over what: $(cat "$T/cap.txt")"

# ---- 2. figure data == numpy from the HDF5 files -------------------------------------
$PY - "$T/run" "$T/out" > "$T/data.txt" 2>&1 << 'PYEOF'
import os, sys, h5py, numpy as np
run, out = sys.argv[1], sys.argv[2]
seeds = sorted(int(d[5:]) for d in os.listdir(run) if d.startswith("seed-"))
mechs = ["bias-vcg", "eip1559", "greedy"]   # the scenario's order
fee = {"eip1559"}
errs = []
def load(m):
    return [h5py.File("%s/seed-%d/%s.h5" % (run, s, m), "r") for s in seeds]
for j, m in enumerate(mechs, 1):
    fs = load(m)
    B = [f["blocks"][:] for f in fs]
    # Bands: per block (200 blocks <= 1000 points: no bins) p10, p50, p90 over the seeds.
    for col, name in [("basefee_lane", "basefee"), ("utilisation", "utilisation")]:
        p = "%s/seeds_%s_m%d.dat" % (out, name, j)
        if name == "basefee" and m not in fee:
            if os.path.exists(p):
                errs.append("%s: a basefee band for a mechanism without a lane basefee" % m)
            continue
        d = np.loadtxt(p)
        v = np.array([b[col].astype(float) for b in B])   # seeds x blocks
        q = np.percentile(v, [10, 50, 90], axis=0)          # 'linear' = GSL's quantile
        if d.shape != (200, 5) or not np.array_equal(d[:, 0], B[0]["height"].astype(float)) or \
                np.abs(d[:, 1:4] - q.T).max() > 1e-9 * max(1.0, np.abs(q).max()) or (d[:, 4] != 3).any():
            errs.append("%s %s band differs" % (m, name))
    # Pooled delay CDF and its p50/p99.
    dl = np.concatenate([f["fires"]["delay"][:] for f in fs]).astype(float)
    c = np.loadtxt("%s/seeds_delay_cdf_m%d.dat" % (out, j))
    shift = 1.0 if max(np.concatenate([g["fires"]["delay"][:] for mm in mechs for g in load(mm)])) > 50 else 0.0
    xs = c[1:-1, 0] - shift
    if not np.array_equal(np.unique(dl), xs) or \
            np.abs(c[1:-1, 1] - np.array([(dl <= x).mean() for x in xs])).max() > 1e-9:
        errs.append("%s pooled delay CDF differs" % m)
    mk = np.loadtxt("%s/seeds_delay_cdf_marks.dat" % out)[j - 1]
    want = [len(dl), np.quantile(dl, 0.5), np.quantile(dl, 0.99)]
    if mk[1] != want[0] or abs(mk[2] - want[1]) > 1e-9 or abs(mk[3] - want[2]) > 1e-9:
        errs.append("%s delay marks %s, want %s" % (m, mk[1:], want))
    # Pooled W CDF: one point per distinct value.
    w = np.sort(np.concatenate([f["weights"]["weight_ppm"][:] for f in fs]) / 1e6)
    c = np.loadtxt("%s/seeds_weights_cdf_m%d.dat" % (out, j))
    u = np.unique(w)
    if not np.array_equal(c[1:-1, 0], u) or \
            np.abs(c[1:-1, 1] - np.searchsorted(w, u, side="right") / len(w)).max() > 1e-12:
        errs.append("%s pooled W CDF differs" % m)
    # What was paid: mean over the seeds of each run's /blocks sums.
    row = open("%s/seeds_paid.dat" % out).read().split("\n")[j].split()
    for k, col in enumerate(["exec_fee", "lane_burn", "payments", "tips", "sched_cost", "cancel_cost"]):
        want = np.mean([b[col].sum() for b in B])
        if row[1] != m or abs(float(row[2 + k]) - want) > 1e-12 * max(1.0, want):
            errs.append("%s paid %s: %s, want %r" % (m, col, row[2 + k], want))
    if m == "bias-vcg" and not float(row[4]) > 0 or m == "eip1559" and not float(row[3]) > 0:
        errs.append("%s: the allocation payment or lane burn is 0" % m)
print("mechanisms", len(mechs), "errors", len(errs))
for e in errs[:10]:
    print(" ", e)
sys.exit(1 if errs else 0)
PYEOF
check "[ $? -eq 0 ]" "figure data == numpy: $(tr '\n' ' ' < "$T/data.txt")"

# ---- 3. the multi-seed table == compare --json -------------------------------------
$PY - "$T/out/report.md" "$T/cmp.json" > "$T/tab.txt" 2>&1 << 'PYEOF'
import json, sys
sys.path.insert(0, "tests")
from cs_report_ref import table, unit, best, cell
md, js = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
rows = table(md.split("## Multi-seed run")[1], "metric")
errs = []
if rows[0][1:] != ["unit"] + js["mechanisms"]:
    errs.append("header %s" % rows[0])
by = {(r["metric"], r["mechanism"]): r for r in js["rows"]}
want_rows = ["welfare", "efficiency", "paid", "utility", "delay_p50", "delay_p99", "jain", "gini", "poa",
             "var_util_per_bid", "var_eff_per_bid", "basefee_mean", "util_mean"]
if [r[0] for r in rows[1:]] != want_rows:
    errs.append("rows %s" % [r[0] for r in rows[1:]])
marked = 0
for r in rows[1:]:
    u, better = unit(r[0])
    if r[1] != u:
        errs.append("%s unit %s" % (r[0], r[1]))
    means = [by[(r[0], m)]["mean"] for m in js["mechanisms"]]
    means = [float("nan") if v is None else v for v in means]
    for k, (m, b) in enumerate(zip(js["mechanisms"], best(means, better, js["mechanisms"]))):
        g = by[(r[0], m)]
        want = cell(g["mean"], g["t_lo"], g["t_hi"], b)
        if r[0] == "basefee_mean" and m != "eip1559":
            want = "\u2014"   # no lane basefee, as in run's table
        marked += b
        if r[2 + k] != want:
            errs.append("%s / %s: %r, want %r" % (r[0], m, r[2 + k], want))
if marked < 5:
    errs.append("only %d best values marked" % marked)
g = 2 + js["mechanisms"].index("greedy")
if any("**" in r[g] for r in rows[1:]):
    errs.append("the greedy reference marked best")
w = {m: by[("welfare", m)]["mean"] for m in js["mechanisms"]}
if max(w, key=w.get) != "greedy":   # else the check above proves nothing
    errs.append("greedy's welfare is not the largest here: %s" % w)
print("rows", len(rows) - 1, "errors", len(errs))
for e in errs[:10]:
    print(" ", e)
sys.exit(1 if errs else 0)
PYEOF
check "[ $? -eq 0 ]" "multi-seed table == compare --json to 4 digits, units, best bold: $(tr '\n' ' ' < "$T/tab.txt")"

# ---- 4. progress on a terminal only -------------------------------------------------
if command -v script > /dev/null; then
    CMD="'$BIN' run '$SRC/scenarios/default.json' --seeds 2 --set blocks=40 --mechanism bias-vcg,eip1559 -o '$T/tty'"
    script -qec "$CMD > /dev/null" /dev/null > "$T/tty.txt" 2>&1
    check "[ $? -eq 0 ]" "run on a terminal: exit 0"
    tr '\r' '\n' < "$T/tty.txt" > "$T/tty.lines"
    check "grep -aqE '^seed 1/2 bias-vcg .*run 1/4  ETA' '$T/tty.lines' && grep -aqE '^seed 2/2 eip1559 .*100%  run 4/4' '$T/tty.lines' && grep -aqE 'ETA [0-9]+:[0-9]{2}:[0-9]{2}' '$T/tty.lines' && grep -aqE '^ran 4 run\(s\) in [0-9]+:[0-9]{2}:[0-9]{2}' '$T/tty.lines'" \
        "terminal: progress over seeds x mechanisms with an ETA ($(grep -a ETA "$T/tty.lines" | tail -1))"
    script -qec "$CMD --quiet > /dev/null" /dev/null > "$T/ttyq.txt" 2>&1
    check "[ $? -eq 0 ] && ! grep -aq 'ETA\|run 1/' '$T/ttyq.txt'" "terminal with --quiet: no progress"
else
    bad "script(1) (bsdutils) missing: the terminal case is not checked"
fi
"$BIN" run "$SRC/scenarios/default.json" --seeds 2 --set blocks=40 --mechanism eip1559 -o "$T/pipe" > /dev/null \
    2> "$T/pipe.err"
check "[ $? -eq 0 ] && [ ! -s '$T/pipe.err' ]" "stderr not a terminal: no progress ($(head -c 200 "$T/pipe.err"))"

# ---- 5. errors ------------------------------------------------------------------------
cp -r "$T/pipe" "$T/badrun"
s=$(ls "$T/badrun" | grep '^seed-' | head -1)
echo "not a run file" > "$T/badrun/$s/eip1559.h5"
"$BIN" report "$T/badrun" -o "$T/badout" > /dev/null 2> "$T/bad.err"
rc=$?
check "[ $rc -eq 2 ] && grep -q '$s/eip1559.h5' '$T/bad.err'" "a seed file that is not a run file: exit 2 naming it (got $rc: $(head -c 200 "$T/bad.err"))"
mkdir -p "$T/ro" && chmod a-w "$T/ro"
"$BIN" report "$T/pipe" -o "$T/ro/out" > /dev/null 2> "$T/ro.err"
rc=$?
if [ "$(id -u)" = 0 ]; then
    # root writes anyway: a path under a regular file cannot be created by anyone.
    "$BIN" report "$T/pipe" -o "$T/cmp.json/out" > /dev/null 2> "$T/ro.err"
    rc=$?
    check "[ $rc -eq 3 ] && grep -qF '$T/cmp.json/out' '$T/ro.err'" "unwritable -o: exit 3 naming it (got $rc: $(cat "$T/ro.err"))"
else
    check "[ $rc -eq 3 ] && grep -qF '$T/ro/out' '$T/ro.err'" "unwritable -o: exit 3 naming it (got $rc: $(cat "$T/ro.err"))"
fi

finish test_report_seeds
