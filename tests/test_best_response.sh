#!/usr/bin/env bash
# test_best_response.sh -- the best_response strategy in real runs
# (agents/README.md "Strategies"), recomputed with h5py from the run files.
#
# 1. scenarios/strategies/best-response-duo.json: bidders 1, 2 with constant
#    values v1 > v2, reserve r, increment e, one timer each due every block,
#    bias-fp with one fire per block.  A bid scheduled at block t is due at
#    t + 1 and sees the other bidder's bid of block t - 1, so
#    b_i(t + 1) = f_i(b_j(t - 1)) with f_i(c) = max(r, c + e) if c + e <= v_i,
#    else r, and f(0) = r at a cold start.  Each parity of t is the
#    simultaneous-move map (x, y) -> (f1(y), f2(x)); after its first reset
#    the leading orbit runs r + e, r + 2e, ..., r + (2J - 1)e, bidder 2 failing
#    to raise to r + 2Je > v2, so with J = floor((v2 - r) / 2e) + 1 the price
#    (the winning bid, first price) cycles with
#      min = r + e,  max = r + (2J - 1)e,  period 4J blocks
#    (2J steps per parity, both parities in step).  For r = 3e6, e = 1e6,
#    v2 = 2.05e7: J = 9, min 4e6, max 2e7, period 36.  The test checks these
#    three figures over blocks 101..400 and, block by block, every price and
#    every strict winner against a reference model of the rule above.
# 2. A lone best_response bidder (no competitor: competing price 0) with
#    reserve r > e bids exactly r every block, never raising against itself.
set -u
. tests/cs_test_lib.sh

S=scenarios/strategies/best-response-duo.json
"$BIN" run "$S" -o "$T/duo" --quiet > /dev/null 2>&1
check "[ $? -eq 0 ]" "run $S"
"$BIN" run "$S" -o "$T/lone" --set 'agents[1].count=1' --set 'agents[1].enter_at=399' --quiet > /dev/null 2>&1
check "[ $? -eq 0 ]" "run $S with bidder 2 absent until block 399"
$PY - "$T" > "$T/out.txt" 2>&1 <<'PYEOF'
import sys, h5py
T = sys.argv[1]
r, e, v1, v2, blocks = 3e6, 1e6, 5e7, 2.05e7, 400
fails = []
fi = h5py.File(f"{T}/duo/bias-fp.h5", "r")["fires"][:]
# The price is the allocation payment (paid also holds the execution fee, N58).
eng = {int(x["height"]): (float(x["alloc_payment"]), int(x["agent"]), float(x["bid"])) for x in fi}
# Reference model.
f = lambda c, v: (max(r, c + e) if c + e <= v else (r if r <= v else 0))
bid = {}
for t in range(1, blocks + 1):
    for i, v in ((0, v1), (1, v2)):
        bid[(i, t + 1)] = f(bid.get((1 - i, t - 1), 0), v)
bad = 0
for t in range(2, blocks + 1):
    b0, b1 = bid[(0, t)], bid[(1, t)]
    p = max(b0, b1)
    got = eng.get(t)
    if got is None or got[0] != p or got[2] != p or (b0 != b1 and got[1] != (0 if b0 > b1 else 1)):
        bad += 1
print(f"duo: {bad} blocks differ from the reference model")
if bad:
    fails.append("reference")
J = int((v2 - r) // (2 * e)) + 1
prices = [eng[t][0] for t in range(101, blocks + 1)]
mn, mx = min(prices), max(prices)
per = next(p for p in range(1, 200) if all(prices[i] == prices[i + p] for i in range(len(prices) - p)))
print(f"duo: J {J}, min {mn:.0f} (closed {r + e:.0f}), max {mx:.0f} (closed {r + (2 * J - 1) * e:.0f}), period {per} (closed {4 * J})")
if mn != r + e or mx != r + (2 * J - 1) * e or per != 4 * J:
    fails.append("cycle")
# The higher-value bidder never raises against itself: each of its winning
# bids is f1 of bidder 2's bid two blocks earlier, never above it by more
# than e (or the reserve).
up = sum(1 for t in range(4, blocks + 1) if eng[t][1] == 0 and eng[t][0] > max(r, bid[(1, t - 2)] + e))
print(f"duo: {up} winning bids of bidder 1 above max(r, competing + e)")
if up:
    fails.append("self-raise")
lone = h5py.File(f"{T}/lone/bias-fp.h5", "r")["fires"][:]
lone = lone[lone["height"] < 399]
odd = [float(x["alloc_payment"]) for x in lone if float(x["alloc_payment"]) != r]
print(f"lone: {len(lone)} fires before block 399, {len(odd)} not at the reserve")
if len(lone) != 397 or odd:
    fails.append("lone")
print("FAILS:", fails if fails else "none")
sys.exit(1 if fails else 0)
PYEOF
rc=$?
cat "$T/out.txt"
check "[ $rc -eq 0 ]" "best_response properties"
finish best_response
