#!/usr/bin/env bash
# test_notebook.sh -- python/examples/compare.ipynb runs headless
# (`jupyter nbconvert --execute --to notebook`, no network) on a small
# multi-seed run made here (scenarios/default.json, 3 seeds x 200 blocks,
# bias-vcg and eip1559; COWSIM_RUN points the notebook at it), and the
# table it recomputes with the loader (COWSIM_NB_OUT: mechanism, metric,
# mean, t_lo, t_hi) equals `cowsim compare RUNDIR --json` to 1e-12
# relative, every number; the executed notebook holds its two figures
# (basefee bands, delay CDFs) and no error.
# Usage: bash tests/test_notebook.sh PATH-TO-COWSIM   (from the source root)
set -u
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRC/tests/cs_test_lib.sh"
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
# Debian's jupyter and python3 (with h5py, pandas, matplotlib) first; the
# notebook server's runtime and IPython files stay in the scratch directory.
export PATH=/usr/bin:$PATH JUPYTER_RUNTIME_DIR="$T/jrt" IPYTHONDIR="$T/ipy" MPLCONFIGDIR="$T/mpl"
export PYDEVD_DISABLE_FILE_VALIDATION=1 # the kernel's debugger note about frozen modules

"$BIN" run "$SRC/scenarios/default.json" --seeds 3 --set blocks=200 --mechanism bias-vcg,eip1559 -o "$T/run" \
    --quiet > /dev/null 2> "$T/run.err"
check "[ $? -eq 0 ]" "run 3 seeds: exit 0 ($(head -c 300 "$T/run.err"))"
"$BIN" compare "$T/run" --json > "$T/cmp.json" 2> /dev/null
check "[ $? -eq 0 ]" "compare RUNDIR --json: exit 0"
if ! command -v jupyter > /dev/null; then
    bad "jupyter missing (Debian jupyter-nbconvert, python3-ipykernel, python3-matplotlib: .ci/install-deps)"
    finish test_notebook
    exit
fi
COWSIM="$BIN" COWSIM_RUN="$T/run" COWSIM_NB_OUT="$T/nb.json" COWSIM_ROOT="$SRC" \
    jupyter nbconvert --execute --to notebook --output "$T/out.ipynb" "$SRC/python/examples/compare.ipynb" \
    > "$T/nb.log" 2>&1
rc=$?
check "[ $rc -eq 0 ]" "nbconvert --execute exit 0 (got $rc: $(grep -a Error "$T/nb.log" | tail -3))"
$PY - "$T/nb.json" "$T/cmp.json" "$T/out.ipynb" > "$T/cmp.txt" 2>&1 << 'PYEOF'
import json, math, sys
nb, cmp, out = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
by = {(r["metric"], r["mechanism"]): r for r in cmp["rows"]}
errs, n = [], 0
want = {(m, k) for m in cmp["mechanisms"]
        for k in ["welfare", "efficiency", "paid", "delay_p99", "jain", "basefee_mean"]}
if {(r["mechanism"], r["metric"]) for r in nb} != want or len(nb) != len(want):
    errs.append("rows %s" % sorted((r["mechanism"], r["metric"]) for r in nb))
for r in nb:
    c = by[(r["metric"], r["mechanism"])]
    for f in ("mean", "t_lo", "t_hi"):
        a, b = r[f], c[f]
        n += 1
        if a is None or b is None:
            if a is not b:
                errs.append("%s %s %s: %r vs %r" % (r["mechanism"], r["metric"], f, a, b))
        elif not (a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))):
            errs.append("%s %s %s: notebook %r, compare %r" % (r["mechanism"], r["metric"], f, a, b))
# The executed notebook: two figures, no error output.
outs = [o for c in out["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
pngs = sum("image/png" in o.get("data", {}) for o in outs)
if pngs != 2:
    errs.append("%d figures in the executed notebook, want 2" % pngs)
if any(o.get("output_type") == "error" for o in outs):
    errs.append("an error output")
print("numbers", n, "figures", pngs, "errors", len(errs))
for e in errs[:10]:
    print(" ", e)
sys.exit(1 if errs or n < 36 else 0)
PYEOF
check "[ $? -eq 0 ]" "notebook table == compare --json to 1e-12 relative: $(tr '\n' ' ' < "$T/cmp.txt")"
finish test_notebook
