#!/usr/bin/env bash
# test_strategy_crn.sh -- strategies keep determinism and common random
# numbers (agents/README.md "Strategies"): on
# scenarios/strategies/strategies-crn.json (learning, shade, best_response,
# truthful and fixed_share bidders, value_aware off) every mechanism sees the
# same timers (id, actor, schedule height, first due height), the bid
# mechanisms' bids do differ between strategies, and a rerun with the same
# seed gives identical datasets.
set -u
. tests/cs_test_lib.sh
S=scenarios/strategies/strategies-crn.json
"$BIN" run "$S" -o "$T/a" --quiet > /dev/null 2>&1
check "[ $? -eq 0 ]" "run $S"
"$BIN" run "$S" -o "$T/b" --quiet > /dev/null 2>&1
check "[ $? -eq 0 ]" "rerun $S"
for m in fifo bias-fp bias-vcg eip1559 gba-tip; do
    for ds in blocks fires timers actors; do
        h5diff -c "$T/a/$m.h5" "$T/b/$m.h5" "/$ds" "/$ds" > "$T/d.txt" 2>&1
        check "[ $? -eq 0 ] && ! grep -q 'Not comparable' '$T/d.txt'" "same seed: $m /$ds identical"
    done
done
$PY tests/cs_crn.py "$T"/a/{fifo,bias-fp,bias-vcg,eip1559,gba-tip}.h5 > "$T/crn.txt" 2>&1
check "grep -q 'CRN OK' '$T/crn.txt'" "common random numbers with strategies ($(tr '\n' ' ' < "$T/crn.txt"))"
$PY - "$T/a" > "$T/st.txt" 2>&1 <<'PYEOF'
import sys, h5py, numpy as np
d = sys.argv[1]
# Strategies at work: learners (agents 0-2) bid a multiplier of the value,
# truthful subscription agents (6, 7) bid exactly the value less the
# execution fee their fire pays (no decay, constant basefees: the fee at
# scheduling is the one charged).
f = h5py.File(f"{d}/bias-fp.h5", "r")["fires"][:]
lr = f[f["agent"] <= 2]
tr = f[(f["agent"] == 6) | (f["agent"] == 7)]
ratio = lr["bid"] / lr["value"]
print(f"learners: {len(lr)} fires, bid/value in [{ratio.min():.3f}, {ratio.max():.3f}]; truthful: {len(tr)} fires")
if len(lr) == 0 or ratio.max() > 1 + 1e-9 or len(np.unique(np.round(ratio, 2))) < 2:
    sys.exit(1)
if len(tr) == 0 or np.any(np.abs(tr["bid"] - np.floor(tr["value"] - tr["exec_fee"])) > 1):
    print("truthful bids differ from values less the execution fee")
    sys.exit(1)
print("STRATEGIES OK")
PYEOF
check "grep -q 'STRATEGIES OK' '$T/st.txt'" "strategies bid as stated ($(tr '\n' ' ' < "$T/st.txt"))"
finish strategy_crn
