#!/usr/bin/env bash
# test_sweep.sh -- cowsim sweep end to end (analysis/cs_sweep.h):
#   1. a grid sweep (2 paths x 2 values x 2 seeds, 2 mechanisms) writes the
#      expected run directories and a /runs table (h5py + pandas) with one row
#      per run x mechanism and the swept values in their columns; a run file
#      is identical to `cowsim run` with the same overrides and seed;
#   2. -j 2 gives the same /runs table as -j 1;
#   3. a Sobol sweep's points are GSL's first Sobol points scaled to the
#      ranges (integer path rounded down);
#   4. kill -9 mid-sweep leaves a readable summary; --resume keeps the
#      complete runs (files untouched) and reruns only the others, and ends
#      with the same /runs as an uninterrupted sweep;
#   5. SIGTERM: exit 130, summary with complete = 0;
#   6. errors: a bad sweep file (exit 2, every error with its JSON path,
#      nothing written), an unwritable output directory (exit 3 naming the
#      path, earlier runs untouched), usage errors.
set -u
BIN=${1:-${CS_BIN:-build/cowsim}}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SW="$SRC/scenarios/sweeps"
PY=/usr/bin/python3
T=$(mktemp -d)
chmod 755 "$T"
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

# Compare the /runs tables of two sweep.h5 files: same columns, same rows,
# every value equal (NaN equal to NaN).  Prints "SAME" or the difference.
same_runs() {
    $PY - "$1" "$2" <<'PYEOF'
import sys, h5py, numpy as np
a = h5py.File(sys.argv[1], "r")["runs"][:]
b = h5py.File(sys.argv[2], "r")["runs"][:]
if a.dtype != b.dtype or len(a) != len(b):
    print("DIFF dtype/len", len(a), len(b)); sys.exit(1)
for n in a.dtype.names:
    if not np.array_equal(a[n], b[n], equal_nan=a[n].dtype.kind == "f"):
        print("DIFF column", n); sys.exit(1)
print("SAME")
PYEOF
}

# ---- 1. grid sweep -------------------------------------------------------
"$BIN" sweep "$SW/grid.json" -o "$T/g1" > "$T/g1.out" 2> "$T/g1.err"
rc=$?
check "[ $rc -eq 0 ]" "grid sweep exit 0 (got $rc: $(cat "$T/g1.err"))"
dirs=$(ls "$T/g1/runs" | tr '\n' ' ')
check "[ '$dirs' = 'r0000 r0001 r0002 r0003 r0004 r0005 r0006 r0007 ' ]" "grid: run directories r0000..r0007 ($dirs)"
nf=0
for d in "$T"/g1/runs/r*; do
    for m in fifo-capped eip1559; do
        if h5dump -a /complete "$d/$m.h5" 2> /dev/null | grep -q '(0): 1'; then nf=$((nf + 1)); fi
    done
done
check "[ $nf -eq 16 ]" "grid: 16 run files with complete = 1 (got $nf)"
check "[ \$(grep -c 'done in' '$T/g1.err') -eq 8 ]" "grid: 8 'done in' log lines"
# The table, read with h5py and pandas.  Runs are point-major, seeds
# [3, 5] inner; points: lane_timer_cycles outer [300000, 600000], rate inner
# [0.5, 1.25] (the last grid path varies fastest).  So run r has point r//2,
# seed [3,5][r%2], lane [300000,600000][(r//2)//2], rate [0.5,1.25][(r//2)%2];
# rows are (run, mechanism) with the mechanisms in the base's order.
$PY - "$T/g1/sweep.h5" > "$T/g1.py" 2>&1 <<'PYEOF'
import sys, json, h5py, numpy as np, pandas as pd
f = h5py.File(sys.argv[1], "r")
df = pd.DataFrame(f["runs"][:])
errs = []
def want(c, m):
    if not c: errs.append(m)
want(df.shape[0] == 16, f"rows {df.shape[0]} != 16")
for c in ["run_id", "point", "seed", "mechanism", "params_lane_timer_cycles", "agents_0_params_rate",
          "blocks", "complete", "fires", "delay_p99", "jain", "util_mean"]:
    want(c in df.columns, f"column {c} missing")
want(df["params_lane_timer_cycles"].dtype == np.float64, "lane column is float64")
want(df["agents_0_params_rate"].dtype == np.float64, "rate column is float64")
for i in range(16):
    r, k = i // 2, i % 2
    p = r // 2
    row = df.iloc[i]
    want(row["run_id"].decode() == "r%04d" % r, f"row {i} run_id {row['run_id']}")
    want(row["point"] == p, f"row {i} point {row['point']}")
    want(row["seed"] == [3, 5][r % 2], f"row {i} seed {row['seed']}")
    want(row["mechanism"].decode() == ["fifo-capped", "eip1559"][k], f"row {i} mechanism {row['mechanism']}")
    want(row["params_lane_timer_cycles"] == [300000.0, 600000.0][p // 2], f"row {i} lane {row['params_lane_timer_cycles']}")
    want(row["agents_0_params_rate"] == [0.5, 1.25][p % 2], f"row {i} rate {row['agents_0_params_rate']}")
    want(row["blocks"] == 200 and row["complete"] == 1, f"row {i} blocks {row['blocks']} complete {row['complete']}")
want(not df["fires"].isna().any() and (df["fires"] > 0).all(), "fires present and > 0")
# Doubling the demand rate must schedule more timers (same seed, same lane).
want((df[df.agents_0_params_rate == 1.25]["timers"].values > df[df.agents_0_params_rate == 0.5]["timers"].values).all(),
     "rate 1.25 schedules more timers than rate 0.5")
want(int(f.attrs["complete"]) == 1, "root complete = 1")
want(json.loads(f.attrs["sweep_json"])["name"] == "grid-small", "root sweep_json")
want(int(f.attrs["n_runs"]) == 8, "root n_runs = 8")
# The run file of r0006 (point 3, seed 3) holds the overridden scenario.
g = h5py.File(sys.argv[1].replace("sweep.h5", "runs/r0006/eip1559.h5"), "r")
s = json.loads(g.attrs["scenario_json"])
want(s["params"]["lane_timer_cycles"] == 600000 and s["agents"][0]["params"]["rate"] == 1.25 and s["blocks"] == 200,
     "r0006 scenario_json carries the overrides")
want(int(g.attrs["seed"]) == 3, "r0006 seed 3")
print("ERRORS" if errs else "TABLE OK", df.shape)
for e in errs: print(e)
PYEOF
check "grep -q 'TABLE OK' '$T/g1.py'" "grid /runs table: $(cat "$T/g1.py")"
# Same code path as `cowsim run`: r0006/eip1559.h5 == run with the same overrides and seed.
"$BIN" run "$SW/tiny.json" -o "$T/run6" --seed 3 --mechanism eip1559 --set blocks=200 \
    --set params.lane_timer_cycles=600000 --set 'agents[0].params.rate=1.25' --quiet > /dev/null 2>&1
for ds in blocks fires timers actors weights summary; do
    h5diff -c "$T/g1/runs/r0006/eip1559.h5" "$T/run6/eip1559.h5" "/$ds" "/$ds" > "$T/d.txt" 2>&1
    check "[ $? -eq 0 ] && ! grep -q 'Not comparable' '$T/d.txt'" "r0006 /$ds identical to cowsim run"
done

# ---- 2. -j 2 gives the same table -----------------------------------------
"$BIN" sweep "$SW/grid.json" -o "$T/g2" -j 2 --quiet > /dev/null 2> "$T/g2.err"
rc=$?
check "[ $rc -eq 0 ]" "grid -j 2 exit 0 (got $rc)"
r=$(same_runs "$T/g1/sweep.h5" "$T/g2/sweep.h5" 2>&1)
check "[ '$r' = SAME ]" "-j 2 /runs identical to -j 1 ($r)"

# ---- 3. Sobol points --------------------------------------------------------
# GSL's 2-D Sobol sequence starts (1/2,1/2) (3/4,1/4) (1/4,3/4) (3/8,3/8)
# (7/8,7/8) (checked against gsl_qrng_get in tests/test_sweep_design.c).
# lane_fee_multiplier on [0.6, 1.4]: 0.6 + 0.8 u = 1.0 1.2 0.8 0.9 1.3;
# max_fires_per_block integer on [2, 9]: floor(2 + 8 u) = 6 4 8 5 9.
"$BIN" sweep "$SW/sobol.json" -o "$T/s" -j 2 --quiet > /dev/null 2> "$T/s.err"
rc=$?
check "[ $rc -eq 0 ]" "sobol sweep exit 0 (got $rc: $(cat "$T/s.err"))"
$PY - "$T/s/sweep.h5" > "$T/s.py" 2>&1 <<'PYEOF'
import sys, json, h5py, numpy as np, pandas as pd
df = pd.DataFrame(h5py.File(sys.argv[1], "r")["runs"][:])
ok = (len(df) == 5 and np.allclose(df["params_lane_fee_multiplier"], [1.0, 1.2, 0.8, 0.9, 1.3], rtol=0, atol=1e-12)
      and list(df["params_max_fires_per_block"]) == [6.0, 4.0, 8.0, 5.0, 9.0]
      and list(df["point"]) == [0, 1, 2, 3, 4] and (df["seed"] == 21).all()
      and all(m == b"eip1559" for m in df["mechanism"]))
g = h5py.File(sys.argv[1].replace("sweep.h5", "runs/r0003/eip1559.h5"), "r")
p = json.loads(g.attrs["scenario_json"])["params"]
ok = ok and p["max_fires_per_block"] == 5 and abs(p["lane_fee_multiplier"] - 0.9) < 1e-12
print("SOBOL OK" if ok else "SOBOL BAD", df[["params_lane_fee_multiplier", "params_max_fires_per_block"]].values.tolist())
PYEOF
check "grep -q 'SOBOL OK' '$T/s.py'" "sobol points: $(cat "$T/s.py")"

# ---- 4. kill -9 then --resume ---------------------------------------------
complete_runs() { # prints the run ids whose two files are complete
    for d in "$1"/runs/r*; do
        [ -d "$d" ] || continue
        c=0
        for m in fifo-capped eip1559; do
            h5dump -a /complete "$d/$m.h5" 2> /dev/null | grep -q '(0): 1' && c=$((c + 1))
        done
        [ $c -eq 2 ] && basename "$d"
    done
}
"$BIN" sweep "$SW/resume.json" -o "$T/r" > /dev/null 2> "$T/r1.err" &
pid=$!
for _ in $(seq 1 600); do
    [ "$(grep -c 'done in' "$T/r1.err")" -ge 2 ] && break
    kill -0 $pid 2> /dev/null || break
    sleep 0.05
done
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
sleep 0.2
check "! pgrep -f 'cowsim sweep $SW/resume.json -o $T/r' > /dev/null" "no worker outlives a killed sweep"
before=$(complete_runs "$T/r" | tr '\n' ' ')
nb=$(echo $before | wc -w)
check "[ $nb -ge 2 ] && [ $nb -lt 8 ]" "killed mid-way: 2..7 complete runs (got $nb: $before)"
# The summary left behind is readable and lists only finished runs.
$PY - "$T/r/sweep.h5" "$before" > "$T/rk.py" 2>&1 <<'PYEOF'
import sys, h5py, pandas as pd
f = h5py.File(sys.argv[1], "r")
df = pd.DataFrame(f["runs"][:])
done = set(sys.argv[2].split())
ids = set(x.decode() for x in df["run_id"])
print("KILLED OK" if int(f.attrs["complete"]) == 0 and ids <= done else "KILLED BAD", sorted(ids), int(f.attrs["complete"]))
PYEOF
check "grep -q 'KILLED OK' '$T/rk.py'" "summary after kill -9: $(cat "$T/rk.py")"
stat -c '%n %y' "$T"/r/runs/r*/*.h5 | sort > "$T/mtime.before"
sleep 1.1
"$BIN" sweep "$SW/resume.json" -o "$T/r" --resume > /dev/null 2> "$T/r2.err"
rc=$?
check "[ $rc -eq 0 ]" "--resume exit 0 (got $rc: $(cat "$T/r2.err"))"
after=$(complete_runs "$T/r" | tr '\n' ' ')
check "[ '$after' = 'r0000 r0001 r0002 r0003 r0004 r0005 r0006 r0007 ' ]" "after --resume all 8 runs complete ($after)"
skipped=$(grep -o 'r[0-9]* skipped (complete)' "$T/r2.err" | cut -d' ' -f1 | tr '\n' ' ')
check "[ '$skipped' = '$before' ]" "--resume skipped exactly the complete runs ('$skipped' vs '$before')"
check "[ \$(grep -c 'done in' '$T/r2.err') -eq $((8 - nb)) ]" "--resume ran only the $((8 - nb)) unfinished runs"
check "grep -q -- '--resume: $nb of 8 run(s) complete, $((8 - nb)) to run' '$T/r2.err'" "--resume announces the split"
untouched=1
for id in $before; do
    grep "/runs/$id/" "$T/mtime.before" > "$T/m1"
    stat -c '%n %y' "$T"/r/runs/$id/*.h5 | sort > "$T/m2"
    cmp -s "$T/m1" "$T/m2" || untouched=0
done
check "[ $untouched -eq 1 ]" "complete runs' files not rewritten (mtimes unchanged)"
"$BIN" sweep "$SW/resume.json" -o "$T/rfresh" -j 2 --quiet > /dev/null 2>&1
r=$(same_runs "$T/r/sweep.h5" "$T/rfresh/sweep.h5" 2>&1)
check "[ '$r' = SAME ]" "resumed /runs identical to an uninterrupted sweep ($r)"
# A resume of a finished sweep reruns nothing.
"$BIN" sweep "$SW/resume.json" -o "$T/r" --resume > /dev/null 2> "$T/r3.err"
check "[ \$(grep -c 'skipped (complete)' '$T/r3.err') -eq 8 ] && ! grep -q 'done in' '$T/r3.err'" "--resume of a finished sweep reruns nothing"
# --resume refuses a directory written by another sweep.
"$BIN" sweep "$SW/grid.json" -o "$T/r" --resume > /dev/null 2> "$T/r4.err"
rc=$?
check "[ $rc -eq 2 ] && grep -q 'different sweep' '$T/r4.err'" "--resume with another sweep file: exit 2 (got $rc)"

# ---- 5. SIGTERM -------------------------------------------------------------
"$BIN" sweep "$SW/resume.json" -o "$T/t" -j 2 > /dev/null 2> "$T/t.err" &
pid=$!
for _ in $(seq 1 600); do
    [ "$(grep -c 'done in' "$T/t.err")" -ge 1 ] && break
    sleep 0.05
done
kill -TERM $pid
wait $pid
rc=$?
check "[ $rc -eq 130 ]" "SIGTERM: exit 130 (got $rc)"
$PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
n = len(f['runs']); d = int(f.attrs['runs_done'])
sys.exit(0 if int(f.attrs['complete']) == 0 and 1 <= d < 8 and n == 2 * d else 1)" "$T/t/sweep.h5"
check "[ $? -eq 0 ]" "SIGTERM: summary readable, complete = 0, rows = 2 x runs done"

# ---- 6. errors ----------------------------------------------------------------
cat > "$T/bad.json" << EOF
{"name": "bad", "base": "$SW/tiny.json", "colour": 1, "seeds": [1, -2],
 "mechanisms": ["eip1559", "nope"],
 "grid": {"params.lambda": [], "seed": [1], "params.nothing": [3]}}
EOF
"$BIN" sweep "$T/bad.json" -o "$T/bad" > /dev/null 2> "$T/bad.err"
rc=$?
check "[ $rc -eq 2 ]" "bad sweep file: exit 2 (got $rc)"
for m in "colour: unknown key" "mechanisms\[1\]: unknown mechanism 'nope'" "seeds\[1\]: must be an integer" \
    "grid.params.lambda: must be a non-empty list" "grid.seed: vary the seed" \
    "grid.params.nothing\[0\] (3): --set params.nothing: unknown parameter"; do
    check "grep -q \"$m\" '$T/bad.err'" "bad sweep file reports: $m"
done
check "[ ! -e '$T/bad' ]" "bad sweep file: nothing written"
# A combination that is invalid only at one point: reported before any run.
cat > "$T/bad2.json" << EOF
{"name": "bad2", "base": "$SW/tiny.json", "grid": {"params.w_min": [1.5], "params.w_max": [1.2, 3]}}
EOF
"$BIN" sweep "$T/bad2.json" -o "$T/bad2" > /dev/null 2> "$T/bad2.err"
rc=$?
check "[ $rc -eq 2 ] && grep -q 'point 0 (params.w_min=1.5, params.w_max=1.2): params: w_min' '$T/bad2.err' && [ ! -e '$T/bad2' ]" \
    "invalid point: exit 2 naming the point, nothing written (got $rc)"
# Output directory under a regular file.
touch "$T/afile"
"$BIN" sweep "$SW/grid.json" -o "$T/afile/out" > /dev/null 2> "$T/io.err"
rc=$?
check "[ $rc -eq 3 ] && grep -q '$T/afile/out' '$T/io.err'" "output under a file: exit 3 naming the path (got $rc)"
# A read-only sweep directory holding earlier runs: exit 3, nothing changed.
# (root ignores permission bits, so run as nobody then.  nobody may not be
# able to read the checkout -- a clone under /root is mode 700 -- so the
# binary and the sweep files it reads are copied into $T, mode 755.)
cp -r "$T/g1" "$T/ro"
find "$T/ro" -type f -exec md5sum {} + | sort > "$T/ro.before"
chmod -R a-w "$T/ro"
as_user=""
ro_bin="$BIN"
ro_sw="$SW"
if [ "$(id -u)" -eq 0 ]; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
    mkdir -p "$T/nobody"
    cp "$BIN" "$T/nobody/cowsim"
    cp "$SW/grid.json" "$SW/tiny.json" "$T/nobody/"
    chmod -R a+rX "$T/nobody"
    ro_bin="$T/nobody/cowsim"
    ro_sw="$T/nobody"
fi
for flags in "" "--resume"; do
    $as_user "$ro_bin" sweep "$ro_sw/grid.json" -o "$T/ro" $flags > /dev/null 2> "$T/ro.err"
    rc=$?
    check "[ $rc -eq 3 ] && grep -q 'cannot write to $T/ro' '$T/ro.err'" \
        "read-only output dir ($flags): exit 3 naming it (got $rc: $(cat "$T/ro.err"))"
done
find "$T/ro" -type f -exec md5sum {} + | sort > "$T/ro.after"
check "cmp -s '$T/ro.before' '$T/ro.after'" "read-only output dir: earlier runs and summary untouched"
# A run directory that cannot be created: that run fails with exit 3 naming
# it, no further run starts, the runs before it are in the summary.
mkdir -p "$T/io/runs" && touch "$T/io/runs/r0002"
"$BIN" sweep "$SW/grid.json" -o "$T/io" > /dev/null 2> "$T/io2.err"
rc=$?
check "[ $rc -eq 3 ] && grep -q 'r0002 FAILED: cannot create $T/io/runs/r0002' '$T/io2.err'" \
    "unwritable run directory: exit 3 naming it (got $rc: $(cat "$T/io2.err"))"
nd=$(ls "$T/io/runs" | wc -l)
check "[ $nd -eq 3 ]" "unwritable run directory: no run after it started ($nd entries)"
$PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r'); ids = [x.decode() for x in f['runs']['run_id']]
sys.exit(0 if ids[:4] == ['r0000'] * 2 + ['r0001'] * 2 and int(f.attrs['complete']) == 0 else 1)" "$T/io/sweep.h5"
check "[ $? -eq 0 ]" "unwritable run directory: earlier runs in the summary, complete = 0"
# Usage.
"$BIN" sweep > /dev/null 2>&1
check "[ $? -eq 2 ]" "no sweep file: exit 2"
"$BIN" sweep "$SW/grid.json" -j 0 > /dev/null 2>&1
check "[ $? -eq 2 ]" "-j 0: exit 2"
# An -o DIR too long for the paths under it (4,001 bytes) is refused as a
# usage error; 4,000 bytes passes the argument check (-j 0 then stops it).
long=$($PY -c "print('$T/' + 'd' * (4001 - len('$T/')))")
"$BIN" sweep "$SW/grid.json" -o "$long" > /dev/null 2> "$T/long.err"
rc=$?
check "[ $rc -eq 2 ] && grep -q 'is 4001 bytes long, more than 4000' '$T/long.err' " \
    "-o DIR of 4,001 bytes: exit 2 naming the limit (got $rc: $(head -c 200 "$T/long.err"))"
"$BIN" sweep "$SW/grid.json" -o "${long:0:4000}" -j 0 > /dev/null 2> "$T/long2.err"
check "! grep -q 'bytes long' '$T/long2.err'" "-o DIR of 4,000 bytes: not refused for its length"
"$BIN" sweep "$T/missing.json" > /dev/null 2> "$T/miss.err"
check "[ $? -eq 3 ] && grep -q 'cannot read' '$T/miss.err'" "missing sweep file: exit 3 (I/O, cs_exit.h)"
"$BIN" sweep --help | grep -q 'usage: cowsim sweep'
check "[ $? -eq 0 ]" "--help"

echo "sweep: $pass passed, $fail failed"
[ $fail -eq 0 ]
