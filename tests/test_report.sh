#!/usr/bin/env bash
# test_report.sh -- `cowsim report` end to end (DESIGN §5, §6).
#   1. runs of scenarios/all-kinds.json (8 mechanisms, 13 agent kinds):
#      report.md plus the expected PNGs, each a real PNG (signature, size),
#      every image referenced in report.md with a caption;
#   2. report.md's metrics table equals `cowsim compare --json` of the same
#      files rounded to 4 significant digits (tests/cs_report_ref.py: "%.4g"
#      with a short exponent; null or a missing key <-> "-"), each row's
#      unit and its best value in bold, rows in compare's order, title from
#      the files' root attributes;
#   3. the plotted data are checked against an independent recomputation
#      from the HDF5 files with numpy: basefee per block, utilisation bin
#      means, W p10/p50/p90 per sample (numpy 'linear' percentile = GSL's
#      quantile definition), delay CDF per kind;
#   4. a hand-made sweep summary (h5py, the /runs layout of cs_sweep.h, a
#      numeric and a string parameter): means per parameter value equal
#      hand-computed values, intervals lie inside the sample range,
#      constant and all-NaN metrics are listed, not plotted; and the real
#      `cowsim sweep` output when that command exists;
#   5. errors: missing input -> 3 naming it, not a run/sweep file -> 2
#      naming it, unwritable -o -> 3 naming it, gnuplot missing -> 3
#      naming gnuplot, usage -> 2.
# Usage: bash tests/test_report.sh PATH-TO-COWSIM   (run from the source root)
set -u
BIN=${1:-${CS_BIN:-}}
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
PY=/usr/bin/python3 # Debian's python, with h5py and numpy
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
    echo "test_report: no cowsim binary (got '$BIN')" >&2
    exit 1
fi
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

# ---- 1. runs -> report.md + PNGs ------------------------------------------
# The run's own files are read in process (COWSIM_H5_SANDBOX=0) by the
# reports and the compare below: the reader sandbox's fork per file was a
# third of their CPU; the sandbox's own cases (corrupt files) follow at the end.
# The first 2,000 of all-kinds' 4,000 blocks, with its first event (the
# later two need blocks past 2,000): every agent kind and the volatility
# shock at half the CPU; the report, its compare and the four single-run
# reports each solve the welfare optimum of every file.
"$BIN" run "$SRC/scenarios/all-kinds.json" -o "$T/run" --set blocks=2000 \
    --set 'events=[{"at": 1500, "type": "volatility", "mult": 4, "duration": 300}]' --quiet > /dev/null 2> "$T/run.err"
check "[ $? -eq 0 ]" "cowsim run all-kinds.json exit 0 ($(head -c 300 "$T/run.err"))"
COWSIM_H5_SANDBOX=0 "$BIN" report "$T"/run/*.h5 -o "$T/out" > "$T/rep.out" 2> "$T/rep.err"
rc=$?
check "[ $rc -eq 0 ]" "report exit 0 (got $rc: $(head -c 400 "$T/rep.err"))"
check "[ -s '$T/out/report.md' ]" "report.md written"
npng=$(ls "$T"/out/*.png 2> /dev/null | wc -l)
check "[ $npng -ge 4 ]" ">= 4 PNG files (got $npng)"
# Expected plots: 4 run-level plots + one delay CDF per agent kind (13).
for p in basefee utilisation weights revenue; do
    check "[ -f '$T/out/$p.png' ]" "$p.png exists"
done
for k in default_gba priority_tier liquidation_bot oracle heartbeat subscription spammer fragmenter \
    fp_best_response waiting_game affine_user watcher demand_curve; do
    check "[ -f '$T/out/delay_cdf_$k.png' ]" "delay_cdf_$k.png exists"
done
# Plus one bar chart per fairness and welfare metric defined in some run
# (tests/test_report_stats.sh checks their data): welfare, utility, jain
# and gini at least.
nbars=$(ls "$T"/out/bars_*.png 2> /dev/null | wc -l)
for p in welfare utility jain gini; do
    check "[ -f '$T/out/bars_$p.png' ]" "bars_$p.png exists"
done
check "[ $((npng - nbars)) -eq 17 ]" "17 PNGs besides the bar charts for the all-kinds scenario (got $((npng - nbars)))"
# Each PNG: nonzero size and the 8-byte signature 89 50 4E 47 0D 0A 1A 0A.
badpng=0
for f in "$T"/out/*.png; do
    sig=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
    if [ ! -s "$f" ] || [ "$sig" != "89504e470d0a1a0a" ]; then
        badpng=$((badpng + 1))
        echo "  bad PNG: $f ($sig)" >&2
    fi
done
check "[ $badpng -eq 0 ]" "every PNG has the PNG signature and nonzero size"
# The basefee plot draws only the runs that charged a lane basefee
# (eip1559): the other mechanisms' basefee is constant, and first-draft
# gba-tip has none (N65; its /blocks.basefee_lane is 0 throughout).
nbf=$(grep -o "run[0-9]*_basefee.dat' using" "$T/out/basefee.gp" 2> /dev/null | wc -l)
check "[ $nbf -eq 1 ]" "basefee.gp plots 1 run (eip1559, not first-draft gba-tip), got $nbf"
# A report of a run alone works (eip1559 alone has no auction payments:
# its revenue plot once failed in gnuplot, "No valid points in histogram"):
# the rule with a lane basefee, first-draft gba-tip (none), an auction and
# fifo (no lane).  Their own 300-block run of all-kinds: each single-run
# report solves its file's welfare optimum again, and on the 2,000-block
# files above the four took a quarter of this test's CPU.
"$BIN" run "$SRC/scenarios/all-kinds.json" -o "$T/short" --set blocks=300 --set 'events=[]' \
    --mechanism eip1559,gba-tip,bias-vcg,fifo --quiet > /dev/null 2> "$T/short.err"
check "[ $? -eq 0 ]" "cowsim run all-kinds.json, 300 blocks, exit 0 ($(head -c 300 "$T/short.err"))"
for m in eip1559 gba-tip bias-vcg fifo; do
    f="$T/short/$m.h5"
    COWSIM_H5_SANDBOX=0 "$BIN" report "$f" -o "$T/one-$m" > /dev/null 2> "$T/one.err"
    rc=$?
    check "[ $rc -eq 0 ]" "report of $m alone exit 0 (got $rc: $(head -c 300 "$T/one.err"))"
    case "$m" in
    eip1559) check "[ -f '$T/one-$m/basefee.png' ]" "$m alone: basefee.png drawn" ;;
    *) check "[ ! -e '$T/one-$m/basefee.png' ]" "$m alone: no basefee plot (no lane basefee)" ;;
    esac
done
# Every image in report.md exists and is followed by a one-line caption.
$PY - "$T/out" > "$T/img.txt" 2>&1 << 'PYEOF'
import os, re, sys
d = sys.argv[1]
lines = open(os.path.join(d, "report.md")).read().split("\n")
imgs = [(i, m.group(1)) for i, l in enumerate(lines) for m in [re.match(r"!\[[^\]]+\]\(([^)]+\.png)\)$", l)] if m]
pngs = sorted(f for f in os.listdir(d) if f.endswith(".png"))
bad = [f for i, f in imgs if not os.path.isfile(os.path.join(d, f))]
nocap = [f for i, f in imgs if not re.match(r"\*Figure \d+\. .+\*$", lines[i + 2] if i + 2 < len(lines) else "")]
print("images", len(imgs), "pngs", len(pngs), "missing", bad, "nocaption", nocap)
sys.exit(0 if len(imgs) == len(pngs) and sorted(f for _, f in imgs) == pngs and not bad and not nocap else 1)
PYEOF
check "[ $? -eq 0 ]" "every PNG embedded with a caption: $(cat "$T/img.txt")"

# ---- 2. metrics table == cowsim compare --json; title ------------------------
COWSIM_H5_SANDBOX=0 "$BIN" compare --json "$T"/run/*.h5 > "$T/cmp.json" 2> /dev/null
check "[ $? -eq 0 ]" "cowsim compare --json exit 0"
$PY - "$T/out/report.md" "$T/cmp.json" "$T"/run/*.h5 > "$T/cmp.txt" 2>&1 << 'PYEOF'
import json, sys, h5py
sys.path.insert(0, "tests")
from cs_report_ref import unit, best, cell   # report.md's number format, units, best marks
md, js, files = sys.argv[1], sys.argv[2], sys.argv[3:]
data = json.load(open(js))
runs = data["runs"]
lines = open(md).read().split("\n")
i = lines.index("## Metrics")
while not lines[i].startswith("| metric |"):
    i += 1
hdr = [c.strip() for c in lines[i].strip("|").split("|")]
rows = []
j = i + 2
while j < len(lines) and lines[j].startswith("|"):
    rows.append([c.strip() for c in lines[j].strip("|").split("|")])
    j += 1
errs = []
if hdr[1] != "unit" or hdr[2:] != [r["mechanism"] for r in runs]:
    errs.append("columns %s != unit + compare runs %s" % (hdr[1:], [r["mechanism"] for r in runs]))
# Row order: the run-level metrics, then per kind, as compare lists them
# (every run has every kind here, so compare's first run lists them all).
names = [r[0] for r in rows]
if names != list(runs[0]["metrics"].keys()):
    errs.append("row names differ from compare's metric keys")
cells = marked = 0
for r in rows:
    u, better = unit(r[0])
    if r[1] != u:
        errs.append("%s: unit %r, want %r" % (r[0], r[1], u))
    vals = [run["metrics"].get(r[0]) for run in runs]
    vals = [float("nan") if v is None else float(v) for v in vals]
    for c, (run, v, b) in enumerate(zip(runs, vals, best(vals, better, [x["mechanism"] for x in runs]))):
        want = cell(v, bold=b)   # 4 significant digits, bold = the row's best (full precision)
        marked += b
        if r[2 + c] != want:
            errs.append("%s / %s: report %s, compare %s" % (r[0], run["mechanism"], r[2 + c], want))
        cells += 1
if marked < 10:
    errs.append("only %d best values marked" % marked)
# Title: scenario, seed, blocks, cowsim version and commit from the files.
f = h5py.File(files[0], "r")
a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
head = "\n".join(lines[:12])
for want in ["# cowsim report: all-kinds", "- seed: %d" % a["seed"], "- blocks: %d" % len(f["blocks"]),
             "- cowsim version: %s, commit %s" % (a["cowsim_version"], a["git_commit"])]:
    if want not in head:
        errs.append("title lacks %r" % want)
print("cells", cells, "rows", len(rows), "errors", len(errs))
for e in errs[:10]:
    print(" ", e)
sys.exit(0 if not errs and cells >= 7 * 32 else 1)
PYEOF
check "[ $? -eq 0 ]" "report table == compare --json to 4 digits, units, best marked: $(tr '\n' ' ' < "$T/cmp.txt")"

# ---- 3. plotted data == independent recomputation ---------------------------
$PY - "$T/out" "$T"/run/*.h5 > "$T/data.txt" 2>&1 << 'PYEOF'
import sys, h5py, numpy as np
d, files = sys.argv[1], sys.argv[2:]
errs = []
fires = [h5py.File(p, "r")["fires"][:] for p in files]
kinds = ["default_gba", "priority_tier", "liquidation_bot", "oracle", "heartbeat", "subscription", "spammer",
         "fragmenter", "fp_best_response", "waiting_game", "affine_user", "watcher", "demand_curve"]
for i, path in enumerate(files, 1):
    f = h5py.File(path, "r")
    b = f["blocks"][:]
    # basefee: 2000 blocks <= 4000 points, so one point per block.
    bf = np.loadtxt("%s/run%d_basefee.dat" % (d, i))
    if not (np.array_equal(bf[:, 0], b["height"].astype(float)) and np.array_equal(bf[:, 1], b["basefee_lane"].astype(float))):
        errs.append("run%d basefee data differ from /blocks" % i)
    # utilisation: 200 bins of 10 blocks, x = mean height of the bin.
    u = np.loadtxt("%s/run%d_util.dat" % (d, i))
    if len(b) != 2000:
        errs.append("run%d: %d blocks, want 2000" % (i, len(b)))
        continue
    ub = b["utilisation"].reshape(200, 10).mean(axis=1)
    hb = b["height"].astype(float).reshape(200, 10).mean(axis=1)
    if u.shape != (200, 2) or np.abs(u[:, 1] - ub).max() > 1e-9 or np.abs(u[:, 0] - hb).max() > 1e-9:
        errs.append("run%d utilisation bins differ" % i)
    # W percentiles per sample height.
    w = f["weights"][:]
    wd = np.loadtxt("%s/run%d_weights.dat" % (d, i))
    hs = np.unique(w["height"])
    if len(wd) != len(hs):
        errs.append("run%d weights: %d samples, want %d" % (i, len(wd), len(hs)))
    else:
        for r, h in zip(wd, hs):
            x = w["weight_ppm"][w["height"] == h] / 1e6
            want = np.percentile(x, [10, 50, 90])
            if r[0] != h or np.abs(r[1:4] - want).max() > 1e-9 or r[4] != len(x):
                errs.append("run%d weights at %d: %s vs %s" % (i, h, r[1:4], want))
                break
    # Delay CDF per kind: F(d) at each listed delay = share of fires <= d.
    # The x axis is delay + 1 (log scale) when the kind's largest delay over
    # all runs exceeds 50, else the delay itself.
    fi = fires[i - 1]
    for k, kn in enumerate(kinds):
        dl = fi["delay"][fi["kind"] == k]
        if len(dl) == 0:
            continue
        c = np.loadtxt("%s/run%d_delay_%s.dat" % (d, i, kn))
        gmax = max(x["delay"][x["kind"] == k].max(initial=0) for x in fires)
        shift = 1.0 if gmax > 50 else 0.0
        xs = c[1:-1, 0] - shift
        want = np.array([(dl <= x).mean() for x in xs])
        if c[0, 1] != 0 or c[-1, 1] != 1 or np.abs(c[1:-1, 1] - want).max() > 1e-9 or \
                not np.array_equal(np.unique(dl).astype(float), xs):
            errs.append("run%d delay CDF %s differs" % (i, kn))
print("files", len(files), "errors", len(errs))
for e in errs[:10]:
    print(" ", e)
sys.exit(0 if not errs else 1)
PYEOF
check "[ $? -eq 0 ]" "plot data match numpy recomputation: $(tr '\n' ' ' < "$T/data.txt")"
# The revenue bars are the metrics burn/tips/payments (0 -> NaN on the log axis).
$PY - "$T/out/revenue.dat" "$T/cmp.json" > "$T/rev.txt" 2>&1 << 'PYEOF'
import json, sys, math
runs = json.load(open(sys.argv[2]))["runs"]
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
errs = 0
for r, run in zip(rows, runs):
    for c, m in zip(r[1:], ["burn", "tips", "payments"]):
        v = float(c)
        w = run["metrics"][m]
        if not ((math.isnan(v) and w == 0) or abs(v - w) <= 1e-9 * abs(w)):
            errs += 1
print("rows", len(rows), "errors", errs)
sys.exit(0 if errs == 0 and len(rows) == len(runs) else 1)
PYEOF
check "[ $? -eq 0 ]" "revenue bars = metrics: $(cat "$T/rev.txt")"

# ---- 4. sweep summaries -------------------------------------------------------
# A hand-made /runs table: 4 points (lambda x payment) x 2 seeds x 2 mechanisms.
# fires = 1000 + 100 point + 7 (seed - 11) + 50 mech + 3.25 [critical];
# jain = 0.5 + 0.1 point + 0.01 (seed - 11) - 0.05 mech.
$PY - "$T/sweep.h5" << 'PYEOF'
import sys, json, numpy as np, h5py
dt = np.dtype([("run_id", "S8"), ("point", "<i8"), ("seed", "<u8"), ("mechanism", "S16"),
               ("params_lambda", "<f8"), ("params_vcg_payment", "S12"), ("blocks", "<f8"), ("complete", "<f8"),
               ("fires", "<f8"), ("jain", "<f8"), ("efficiency", "<f8"), ("fires.oracle", "<f8")])
rows, r = [], 0
for pi, (l, v) in enumerate([(l, v) for l in [0.05, 0.2] for v in ["spec", "critical"]]):
    for s in [11, 12]:
        for mi, m in enumerate(["bias-vcg", "eip1559"]):
            fires = 1000 + 100 * pi + 7 * (s - 11) + 50 * mi + (3.25 if v == "critical" else 0)
            jain = 0.5 + 0.1 * pi + 0.01 * (s - 11) - 0.05 * mi
            rows.append((b"r%04d" % r, pi, s, m.encode(), l, v.encode(), 4000, 1, fires, jain, np.nan, 10 + r))
        r += 1
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("runs", data=np.array(rows, dtype=dt))
    f.attrs["name"] = "synthetic"
    f.attrs["cowsim_version"] = "0.1.0"
    f.attrs["git_commit"] = "abcdef123456"
    f.attrs["design"] = "grid"
    f.attrs["complete"] = np.int32(1)
    f.attrs["base_json"] = json.dumps({"name": "crn", "blocks": 4000})
    f.attrs["sweep_json"] = json.dumps({"name": "synthetic", "grid": {"params.lambda": [0.05, 0.2],
                                                                     "params.vcg_payment": ["spec", "critical"]}})
PYEOF
"$BIN" report "$T/sweep.h5" -o "$T/sw" > /dev/null 2> "$T/sw.err"
check "[ $? -eq 0 ]" "report of a sweep summary exits 0 ($(head -c 300 "$T/sw.err"))"
for p in params_lambda__fires params_lambda__jain params_vcg_payment__fires params_vcg_payment__jain; do
    check "[ -s '$T/sw/sweep_$p.png' ]" "sweep_$p.png exists"
done
check "[ \$(ls '$T'/sw/*.png | grep -vc __diff_vs_) -eq 4 ] && [ \$(ls '$T'/sw/*__diff_vs_bias-vcg.png | wc -l) -eq 4 ]" \
    "only varying metrics plotted (4 PNGs, plus their 4 paired differences eip1559 - bias-vcg)"
check "grep -q 'Constant over the sweep (not plotted): blocks = 4000, complete = 1' '$T/sw/report.md'" "constant metrics listed"
check "grep -q 'Undefined (NaN) in every run, not plotted: efficiency' '$T/sw/report.md'" "all-NaN metric listed"
check "grep -q '^# cowsim report: sweep synthetic' '$T/sw/report.md'" "sweep title"
$PY - "$T/sw" > "$T/swd.txt" 2>&1 << 'PYEOF'
import sys, glob, os, numpy as np
d = sys.argv[1]
errs = []
# Nothing is averaged over the other swept parameter: against lambda, one
# line (data file _g1, _g2) per value of vcg_payment for each mechanism, and
# against vcg_payment one per value of lambda.  Groups in first-appearance
# order (spec before critical, 0.05 before 0.2).
# lambda, bias-vcg (m1):
#   spec (g1):     lambda 0.05 point 0 fires 1000, 1007 -> 1003.5, jain 0.50, 0.51 -> 0.505
#                  lambda 0.2  point 2 fires 1200, 1207 -> 1203.5, jain 0.705
#   critical (g2): point 1 1103.25, 1110.25 -> 1106.75, jain 0.605; point 3 -> 1306.75, 0.805
# vcg_payment (x = category 0 spec, 1 critical), eip1559 (m2):
#   lambda 0.05 (g1): point 0 1050, 1057 -> 1053.5, jain 0.455; point 1 1153.25, 1160.25 -> 1156.75, 0.555
#   lambda 0.2 (g2):  point 2 1250, 1257 -> 1253.5, jain 0.655; point 3 -> 1356.75, 0.755
# Two seeds per point: Student-t interval, half-width t(1, 0.975) s / sqrt 2
# = 12.7062047 |a - b| / 2: fires (|a - b| = 7) 44.4717166, jain (0.01) 0.0635310.
want = {"sweep_params_lambda_m1_g1.dat": ("params.vcg_payment = spec", [(0.05, 2, 1003.5, 0.505), (0.2, 2, 1203.5, 0.705)]),
        "sweep_params_lambda_m1_g2.dat": ("params.vcg_payment = critical", [(0.05, 2, 1106.75, 0.605), (0.2, 2, 1306.75, 0.805)]),
        "sweep_params_vcg_payment_m2_g1.dat": ("params.lambda = 0.05", [(0, 2, 1053.5, 0.455), (1, 2, 1156.75, 0.555)]),
        "sweep_params_vcg_payment_m2_g2.dat": ("params.lambda = 0.2", [(0, 2, 1253.5, 0.655), (1, 2, 1356.75, 0.755)])}
for name, (label, rows) in want.items():
    head = open("%s/%s" % (d, name)).readline()
    if label not in head:
        errs.append("%s: header does not name %r: %s" % (name, label, head.strip()))
    a = np.atleast_2d(np.loadtxt("%s/%s" % (d, name)))
    if len(a) != len(rows):
        errs.append("%s: %d rows" % (name, len(a)))
        continue
    for i, (x, n, fires, jain) in enumerate(rows):
        r = a[i]
        # columns: x n | fires mean lo hi | jain mean lo hi
        if r[0] != x or r[1] != n or abs(r[2] - fires) > 1e-9 or abs(r[5] - jain) > 1e-12:
            errs.append("%s row %d: %s" % (name, i, r))
        if abs(r[4] - r[2] - 44.4717166) > 1e-6 or abs(r[2] - r[3] - 44.4717166) > 1e-6:
            errs.append("%s row %d: fires interval [%g, %g] is not mean -/+ 44.4717166" % (name, i, r[3], r[4]))
        if abs(r[7] - r[5] - 0.0635310) > 1e-6:
            errs.append("%s row %d: jain interval half-width %g" % (name, i, r[7] - r[5]))
# One line per value of the second parameter: exactly two data files per
# mechanism and parameter, and each plot script draws all four lines.
for par in ["params_lambda", "params_vcg_payment"]:
    files = sorted(os.path.basename(f) for f in glob.glob("%s/sweep_%s_m*.dat" % (d, par)))
    exp = ["sweep_%s_m%d_g%d.dat" % (par, m, g) for m in (1, 2) for g in (1, 2)]
    if files != exp:
        errs.append("%s data files %s, want %s" % (par, files, exp))
    gp = open("%s/sweep_%s__fires.gp" % (d, par)).read()
    for f in exp:
        if gp.count("'%s' using ($1" % f) < 1 or " title " not in gp:
            errs.append("%s__fires.gp does not draw %s" % (par, f))
print("errors", len(errs))
for e in errs:
    print(" ", e)
sys.exit(0 if not errs else 1)
PYEOF
check "[ $? -eq 0 ]" "sweep lines per value of the other parameter, means and t intervals: $(tr '\n' ' ' < "$T/swd.txt")"
# The per-point table: bias-vcg point 1 (0.05, critical): fires (1103.25 + 1110.25) / 2 = 1106.75
# -/+ 44.4717 = [1062.28, 1151.22], jain 0.605 -/+ 0.0635310 = [0.541469, 0.668531]; two runs per
# point: a warning that there is no bootstrap.
check "grep -qF '| 1 | 0.05 | critical | 2 | 1106.75 [1062.28, 1151.22] | 0.605 [0.541469, 0.668531] |' '$T/sw/report.md'" \
    "sweep table row with intervals (point 1, bias-vcg)"
check "grep -q 'warning: fewer than 10 runs per point: Student-t intervals there, no bootstrap' '$T/sw.err'" \
    "warning below 10 seeds"
# A real `cowsim sweep`, when that command is built: two lambda values x 2 seeds on crn.
if "$BIN" --help 2>&1 | grep -q '^  sweep '; then
    cat > "$T/s.json" << EOF
{"name": "report-test", "base": "$SRC/scenarios/crn.json", "mechanisms": ["bias-vcg", "eip1559"],
 "set": {"blocks": 150}, "seeds": [1, 2], "grid": {"params.lambda": [0.02, 0.2]}}
EOF
    "$BIN" sweep "$T/s.json" -o "$T/sweep" --quiet > /dev/null 2> "$T/sweep.err"
    check "[ $? -eq 0 ] && [ -f '$T/sweep/sweep.h5' ]" "cowsim sweep ran ($(head -c 300 "$T/sweep.err"))"
    "$BIN" report "$T/sweep/sweep.h5" -o "$T/swr" > /dev/null 2> "$T/swr.err"
    check "[ $? -eq 0 ]" "report of a real sweep exits 0 ($(head -c 300 "$T/swr.err"))"
    n=$(ls "$T"/swr/sweep_params_lambda__*.png 2> /dev/null | wc -l)
    check "[ $n -ge 4 ]" "real sweep: >= 4 metric plots against params.lambda (got $n)"
    check "grep -q 'Swept: \`params.lambda\`' '$T/swr/report.md'" "real sweep: swept path named"
else
    echo "test_report: cowsim sweep not built yet; real-sweep case skipped" >&2
fi

# ---- 5. errors ----------------------------------------------------------------------
"$BIN" report "$T/nope.h5" -o "$T/e1" > /dev/null 2> "$T/e.err"
check "[ $? -eq 3 ] && grep -q '$T/nope.h5' '$T/e.err'" "missing input exits 3 naming it"
"$BIN" report "$SRC/scenarios/default.json" -o "$T/e2" > /dev/null 2> "$T/e.err"
check "[ $? -eq 2 ] && grep -q 'default.json' '$T/e.err'" "non-HDF5 input exits 2 naming it"
$PY -c "import h5py, sys; h5py.File(sys.argv[1], 'w').create_dataset('x', data=[1, 2])" "$T/other.h5"
"$BIN" report "$T/other.h5" -o "$T/e3" > /dev/null 2> "$T/e.err"
check "[ $? -eq 2 ] && grep -q 'other.h5' '$T/e.err'" "HDF5 that is not a run/sweep file exits 2 naming it"
"$BIN" report "$T/run/fifo.h5" -o /proc/cowsim-no/x > /dev/null 2> "$T/e.err"
check "[ $? -eq 3 ] && grep -q '/proc/cowsim-no/x' '$T/e.err'" "unwritable -o exits 3 naming it"
mkdir -p "$T/nognuplot"
PATH="$T/nognuplot" "$BIN" report "$T/run/fifo.h5" -o "$T/e4" > /dev/null 2> "$T/e.err"
check "[ $? -eq 3 ] && grep -q 'gnuplot' '$T/e.err' && [ ! -f '$T/e4/report.md' ]" "gnuplot missing exits 3 naming gnuplot"
# Untrusted files that break libhdf5 (tests/data/h5, found by fuzzing; see
# test_h5.c): with its sandbox the report refuses each as corrupt, exit 4
# (cs_exit.h), naming the file; without it (COWSIM_H5_SANDBOX=0) the same command crashes,
# which shows the fixtures still exercise the sandbox.
D="$SRC/tests/data/h5"
for f in sweep-crash-h5hg crash-h5hg crash-h5o; do
    "$BIN" report "$D/$f.h5" -o "$T/sb-$f" > /dev/null 2> "$T/e.err"
    rc=$?
    check "[ $rc -eq 4 ] && grep -q '$f.h5.*the HDF5 library \(crashed\|failed\) reading it' '$T/e.err'" \
        "report on $f.h5 in the sandbox: exit 4 naming it (got $rc: $(head -c 300 "$T/e.err"))"
    [ "$f" = crash-h5o ] && continue # its overflow crashes compare (test_h5), not always report
    (ulimit -c 0; COWSIM_H5_SANDBOX=0 "$BIN" report "$D/$f.h5" -o "$T/nosb-$f" > /dev/null 2> "$T/e.err")
    rc=$?
    check "[ $rc -ge 128 ] || grep -q AddressSanitizer '$T/e.err'" \
        "report on $f.h5 without the sandbox crashes (got $rc)"
done
# A sweep summary whose /runs row type puts a column outside the row:
# refused by the report's own check, sandbox or not.
for sb in 1 0; do
    COWSIM_H5_SANDBOX=$sb "$BIN" report "$D/sweep-bad-offset.h5" -o "$T/off$sb" > /dev/null 2> "$T/e.err"
    rc=$?
    check "[ $rc -eq 2 ] && grep -q 'sweep-bad-offset.h5: /runs: column [0-9]* lies outside the [0-9]*-byte row' '$T/e.err'" \
        "sweep-bad-offset.h5 (sandbox $sb): exit 2, column outside the row (got $rc: $(head -c 300 "$T/e.err"))"
done
"$BIN" report > /dev/null 2>&1
check "[ $? -eq 2 ]" "no input exits 2"
"$BIN" report "$T/run/fifo.h5" --bogus > /dev/null 2>&1
check "[ $? -eq 2 ]" "unknown flag exits 2"
"$BIN" report --help > "$T/h.txt" 2>&1
check "[ $? -eq 0 ] && grep -q 'usage: cowsim report' '$T/h.txt'" "--help exits 0"

echo "report: $pass passed, $fail failed"
[ $fail -eq 0 ]
